// lz4 blocks in python asdf's framing (asdf/compression.py, Lz4Compressor): the input is cut
// into chunks of at most 4 MiB; each chunk is stored as a big-endian u32 byte count followed by
// that many bytes of an lz4 *block* (not the LZ4 frame format) which itself begins with the
// chunk's decoded size as a little-endian u32 (python-lz4's `store_size=True`).
#include <lz4.h>

#include <algorithm>
#include <limits>
#include <string>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "compression/buffer_pool.h"
#include "compression/ordered_parallel.h"
#include "compression/span_reader.h"
#include "util/endian.h"

namespace asdfcore::compression {
namespace {

constexpr std::size_t kChunk = 4u << 20;

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kCompression, "lz4: " + what);
}

std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(detail::load_be(p, 4));
}
std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(detail::load_le(p, 4));
}

class Lz4Codec final : public Codec {
 public:
  std::string_view label() const noexcept override { return "lz4"; }

  std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                     const CompressOptions& options) const override {
    std::vector<std::uint8_t> out;
    out.reserve(input.size() + input.size() / 128 + 64);
    compress_stream(input.size(), span_reader(input),
                    [&out](std::span<const std::uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); },
                    options);
    return out;
  }

  void compress_stream(std::uint64_t size, const ReadNext& read, const WriteNext& write,
                       const CompressOptions& options) const override {
    const int acceleration = options.level > 0 ? options.level : 1;
    // Each chunk is an lz4 block of its own, so the chunks are compressed side by side and
    // written in order; each worker reads its chunk in turn into its own buffer.
    const std::size_t chunk = std::clamp<std::size_t>(
        options.piece_size > 0 ? options.piece_size : kChunk, 1, LZ4_MAX_INPUT_SIZE);
    const std::uint64_t chunks = (size + chunk - 1) / chunk;
    const unsigned threads = static_cast<unsigned>(
        std::min<std::uint64_t>(parallel::resolve_threads(options.threads), std::max<std::uint64_t>(chunks, 1)));
    std::vector<std::vector<std::uint8_t>> inputs(threads);
    parallel::BufferPool outputs;
    parallel::Turnstile reading;
    parallel::run_in_order<parallel::PooledBytes>(
        static_cast<std::size_t>(chunks), threads,
        [&](std::size_t index, unsigned worker) {
          const std::uint64_t at = std::uint64_t{index} * chunk;
          const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - at));
          std::vector<std::uint8_t>& in = inputs[worker];
          in.resize(n);
          reading.pass(index, [&] { read(in); });
          const int bound = LZ4_compressBound(static_cast<int>(n));
          parallel::PooledBytes framed;
          framed.buffer = outputs.take(8 + static_cast<std::size_t>(bound));
          const int written = LZ4_compress_fast(reinterpret_cast<const char*>(in.data()),
                                                reinterpret_cast<char*>(framed.buffer.data() + 8),
                                                static_cast<int>(n), bound, acceleration);
          if (written <= 0) fail("compressor failed");
          detail::store_be(framed.buffer.data(), static_cast<std::uint64_t>(written) + 4, 4);
          detail::store_le(framed.buffer.data() + 4, n, 4);
          framed.used = 8 + static_cast<std::size_t>(written);
          return framed;
        },
        [&](std::size_t, parallel::PooledBytes&& framed) {
          write(framed.bytes());
          outputs.give(std::move(framed.buffer));
        });
  }

  std::uint64_t max_decoded_size(std::uint64_t stored_size) const noexcept override {
    // an lz4 block expands at most about 255:1 (a match length byte per 255 bytes).
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 256;
    return stored_size >= limit ? std::numeric_limits<std::uint64_t>::max()
                                : stored_size * 256 + 64;
  }

  void decompress(std::span<const std::uint8_t> input,
                  std::span<std::uint8_t> output) const override {
    decode_chunks(
        input, output.size(),
        [output](std::uint64_t at, std::uint32_t n) {
          return output.subspan(static_cast<std::size_t>(at), n);
        },
        [](std::span<const std::uint8_t>, const std::uint8_t*) {});
  }

  void decompress_stream(const io::Buffer& input, std::uint64_t size, const WriteNext& write,
                         unsigned /*threads*/) const override {
    // One chunk at a time through one buffer (python asdf's chunks decode to 4 MiB each); the
    // input's pages go once their chunk is decoded.
    std::vector<std::uint8_t> buffer;
    const std::uint8_t* consumed = input.data();
    decode_chunks(
        input.span(), size,
        [&buffer](std::uint64_t, std::uint32_t n) {
          if (buffer.size() < n) buffer.resize(n);
          return std::span<std::uint8_t>(buffer.data(), n);
        },
        [&](std::span<const std::uint8_t> piece, const std::uint8_t* input_end) {
          write(piece);
          input.release(std::span<const std::uint8_t>(consumed, input_end));
          consumed = input_end;
        });
  }

 private:
  /// Decode the chunks of `input`, which must add up to `size` bytes, in order: each into the
  /// span `place(decoded offset, decoded length)` returns, which is then handed to `done` with
  /// the end of the chunk's input.
  template <typename Place, typename Done>
  static void decode_chunks(std::span<const std::uint8_t> input, std::uint64_t size,
                            const Place& place, const Done& done) {
    std::size_t in = 0;
    std::uint64_t out = 0;
    std::size_t chunk = 0;
    while (in < input.size()) {
      const std::string where = "chunk " + std::to_string(chunk) + " at input byte " +
                                std::to_string(in);
      if (input.size() - in < 8) fail(where + ": truncated chunk header");
      const std::uint32_t stored = load_be32(input.data() + in);
      if (stored < 4) {
        fail(where + ": chunk length " + std::to_string(stored) +
             " is too small to hold the 4-byte decoded size");
      }
      if (stored > input.size() - in - 4) {
        fail(where + ": chunk length " + std::to_string(stored) + " runs past the block's " +
             std::to_string(input.size()) + " stored bytes");
      }
      const std::uint32_t decoded = load_le32(input.data() + in + 4);
      if (decoded > size - out) {
        fail(where + ": chunk decodes to " + std::to_string(decoded) +
             " bytes, more than the declared data_size of " + std::to_string(size) +
             " leaves room for");
      }
      const std::span<std::uint8_t> target = place(out, decoded);
      const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(input.data() + in + 8),
                                          reinterpret_cast<char*>(target.data()),
                                          static_cast<int>(stored - 4), static_cast<int>(decoded));
      if (got < 0 || static_cast<std::uint32_t>(got) != decoded) {
        fail(where + ": corrupt lz4 data");
      }
      if (decoded > 0) {
        done(std::span<const std::uint8_t>(target), input.data() + in + 4 + std::size_t{stored});
      }
      in += 4 + std::size_t{stored};
      out += decoded;
      ++chunk;
    }
    if (out != size) {
      fail("stream decodes to " + std::to_string(out) + " bytes, but the block declares " +
           "data_size " + std::to_string(size));
    }
  }
};

}  // namespace

std::shared_ptr<const Codec> make_lz4_codec() { return std::make_shared<Lz4Codec>(); }

}  // namespace asdfcore::compression
