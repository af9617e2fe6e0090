// bzp2 blocks: one bzip2 stream per block (python asdf uses bz2.compress, and reads with one
// BZ2Decompressor, which stops at the end of the first stream).
//
// bzip2 compresses in independent blocks of up to 100 kB times the level, so a large input is
// cut into pieces that each fit one block for certain, each piece is compressed on its own
// thread into a one-block stream, and the blocks are spliced bit by bit into ONE stream: the
// 4-byte header, every piece's block (its bits between the header and the end-of-stream
// marker; blocks are not byte aligned), then the end-of-stream marker with the combined CRC
// (each block's CRC folded in as crc = rotl(crc, 1) ^ block_crc).
#include <bzlib.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "compression/ordered_parallel.h"

namespace asdfcore::compression {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kCompression, "bzp2: " + what);
}

constexpr std::size_t kStep = std::numeric_limits<unsigned int>::max();

/// Compress `input` into one bzip2 stream with libbz2 at `level` (1-9).
std::vector<std::uint8_t> bzip2_stream(std::span<const std::uint8_t> input, int level) {
  bz_stream z{};
  if (BZ2_bzCompressInit(&z, level, 0, 0) != BZ_OK) fail("cannot start the compressor");
  std::vector<std::uint8_t> out(input.size() + input.size() / 100 + 600);
  std::size_t in_done = 0;
  std::size_t out_done = 0;
  int rc = BZ_RUN_OK;
  while (rc != BZ_STREAM_END) {
    if (out_done == out.size()) out.resize(out.size() * 2);
    const std::size_t in_chunk = std::min(input.size() - in_done, kStep);
    const std::size_t out_chunk = std::min(out.size() - out_done, kStep);
    z.next_in = const_cast<char*>(reinterpret_cast<const char*>(input.data() + in_done));
    z.avail_in = static_cast<unsigned int>(in_chunk);
    z.next_out = reinterpret_cast<char*>(out.data() + out_done);
    z.avail_out = static_cast<unsigned int>(out_chunk);
    const bool last = in_done + in_chunk == input.size();
    rc = BZ2_bzCompress(&z, last ? BZ_FINISH : BZ_RUN);
    if (rc < 0) {
      BZ2_bzCompressEnd(&z);
      fail("compressor failed with code " + std::to_string(rc));
    }
    in_done += in_chunk - z.avail_in;
    out_done += out_chunk - z.avail_out;
  }
  BZ2_bzCompressEnd(&z);
  out.resize(out_done);
  return out;
}

/// The block of a one-block bzip2 stream: where its bits end and its CRC.
struct OneBlock {
  std::vector<std::uint8_t> stream;  ///< The whole stream; the block starts at byte 4.
  std::uint64_t block_bits = 0;      ///< Bits of the block, from byte 4 on.
  std::uint32_t crc = 0;
};

constexpr std::uint64_t kBlockMagic = 0x314159265359;
constexpr std::uint64_t kEndMagic = 0x177245385090;

/// Return `count` (<= 64) bits of `bytes` from bit `at`, most significant first.
std::uint64_t bits_at(const std::vector<std::uint8_t>& bytes, std::uint64_t at, unsigned count) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < count; ++i) {
    const std::uint64_t bit = at + i;
    v = (v << 1) | ((bytes[static_cast<std::size_t>(bit / 8)] >> (7 - bit % 8)) & 1u);
  }
  return v;
}

/// Find the one block in `stream`, a whole bzip2 stream from libbz2; nothing when the stream
/// does not hold exactly one block.
std::optional<OneBlock> one_block(std::vector<std::uint8_t> stream) {
  // header (32 bits), block magic (48), block CRC (32) ... end magic (48), combined CRC (32),
  // zero padding to a byte (0-7 bits).
  if (stream.size() < 4 + 6 + 4 + 10) return std::nullopt;
  if (bits_at(stream, 32, 48) != kBlockMagic) return std::nullopt;
  const auto crc = static_cast<std::uint32_t>(bits_at(stream, 80, 32));
  const std::uint64_t total = std::uint64_t{stream.size()} * 8;
  for (unsigned pad = 0; pad < 8; ++pad) {
    const std::uint64_t end = total - pad;
    if (pad > 0 && bits_at(stream, end, pad) != 0) break;
    // With one block the combined CRC is the block's own.
    if (bits_at(stream, end - 80, 48) == kEndMagic && bits_at(stream, end - 32, 32) == crc) {
      OneBlock b;
      b.block_bits = end - 80 - 32;
      b.crc = crc;
      b.stream = std::move(stream);
      return b;
    }
  }
  return std::nullopt;
}

/// Bits appended most significant first to a byte vector.
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  /// Append the low `count` (<= 32) bits of `value`.
  void put(std::uint64_t value, unsigned count) {
    acc_ = (acc_ << count) | (value & ((std::uint64_t{1} << count) - 1));
    used_ += count;
    while (used_ >= 8) {
      used_ -= 8;
      out_.push_back(static_cast<std::uint8_t>(acc_ >> used_));
    }
  }

  /// Append `count` bits of `bytes` starting at byte `from`.
  void copy(const std::vector<std::uint8_t>& bytes, std::size_t from, std::uint64_t count) {
    std::size_t i = from;
    for (; count >= 8; count -= 8) put(bytes[i++], 8);
    if (count > 0) put(bytes[i] >> (8 - count), static_cast<unsigned>(count));
  }

  /// Pad with zero bits to a whole byte.
  void finish() {
    if (used_ > 0) put(0, 8 - used_);
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t acc_ = 0;
  unsigned used_ = 0;
};

/// The most input bytes that always fit one block at `level`: libbz2 fills a block with up to
/// 100000 * level - 19 symbols after its first run-length stage, which turns 4 bytes into 5 at
/// worst.
std::size_t one_block_capacity(int level) {
  return static_cast<std::size_t>(100000 * level - 19) / 5 * 4 - 64;
}

class Bzp2Codec final : public Codec {
 public:
  std::string_view label() const noexcept override { return "bzp2"; }

  std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                     const CompressOptions& options) const override {
    const int level = options.level < 1 || options.level > 9 ? 9 : options.level;
    const std::size_t capacity = one_block_capacity(level);
    const std::size_t piece =
        std::min(options.piece_size > 0 ? options.piece_size : capacity, capacity);
    const std::size_t count = (input.size() + piece - 1) / piece;
    if (count <= 1) return bzip2_stream(input, level);

    std::vector<std::uint8_t> out;
    out.reserve(input.size() / 2 + 64);
    for (const char c : {'B', 'Z', 'h'}) out.push_back(static_cast<std::uint8_t>(c));
    out.push_back(static_cast<std::uint8_t>('0' + level));
    BitWriter bits(out);
    std::uint32_t combined = 0;
    bool spliced = true;
    parallel::run_in_order<std::optional<OneBlock>>(
        count, options.threads,
        [&](std::size_t index, unsigned) {
          const std::size_t at = index * piece;
          return one_block(bzip2_stream(input.subspan(at, std::min(piece, input.size() - at)),
                                           level));
        },
        [&](std::size_t, std::optional<OneBlock>&& block) {
          if (!block) spliced = false;
          if (!spliced) return;
          bits.copy(block->stream, 4, block->block_bits);
          combined = ((combined << 1) | (combined >> 31)) ^ block->crc;
        });
    // A piece that did not come out as one block (never seen) is compressed the plain way.
    if (!spliced) return bzip2_stream(input, level);
    bits.put(kEndMagic >> 16, 32);
    bits.put(kEndMagic & 0xffff, 16);
    bits.put(combined, 32);
    bits.finish();
    return out;
  }

  std::uint64_t max_decoded_size(std::uint64_t stored_size) const noexcept override {
    // bzip2's run-length stages allow about 46 million to 1 at the extreme.
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 46000000;
    return stored_size >= limit ? std::numeric_limits<std::uint64_t>::max()
                                : stored_size * 46000000 + 1024;
  }

  void decompress(std::span<const std::uint8_t> input,
                  std::span<std::uint8_t> output) const override {
    bz_stream z{};
    if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) fail("cannot start the decompressor");
    std::size_t in_done = 0;
    std::size_t out_done = 0;
    for (;;) {
      const std::size_t in_chunk = std::min(input.size() - in_done, kStep);
      const std::size_t out_chunk = std::min(output.size() - out_done, kStep);
      char spare = 0;
      z.next_in = const_cast<char*>(reinterpret_cast<const char*>(input.data() + in_done));
      z.avail_in = static_cast<unsigned int>(in_chunk);
      z.next_out = out_chunk > 0 ? reinterpret_cast<char*>(output.data() + out_done) : &spare;
      z.avail_out = out_chunk > 0 ? static_cast<unsigned int>(out_chunk) : 1;
      const int rc = BZ2_bzDecompress(&z);
      const std::size_t produced = (out_chunk > 0 ? out_chunk : 1) - z.avail_out;
      const std::size_t consumed = in_chunk - z.avail_in;
      in_done += consumed;
      if (out_chunk == 0 && produced > 0) {
        BZ2_bzDecompressEnd(&z);
        fail("stream decodes to more than the declared data_size of " +
             std::to_string(output.size()) + " bytes");
      }
      out_done += produced;
      if (rc == BZ_STREAM_END) break;
      if (rc != BZ_OK) {
        BZ2_bzDecompressEnd(&z);
        fail("corrupt stream (code " + std::to_string(rc) + ") after " + std::to_string(in_done) +
             " input bytes");
      }
      if (consumed == 0 && produced == 0) {
        BZ2_bzDecompressEnd(&z);
        fail("stream is truncated: it ends after decoding " + std::to_string(out_done) + " of " +
             std::to_string(output.size()) + " bytes");
      }
    }
    BZ2_bzDecompressEnd(&z);
    if (out_done != output.size()) {
      fail("stream decodes to " + std::to_string(out_done) + " bytes, but the block declares " +
           "data_size " + std::to_string(output.size()));
    }
  }

  void decompress_stream(const io::Buffer& input, std::uint64_t size, const WriteNext& write,
                         unsigned /*threads*/) const override {
    // libbz2 decodes into a 4 MiB buffer that is handed on whenever it is full. The input is
    // fed 16 MiB at a time and its pages let go once consumed. bzip2 decodes at a few tens of
    // MB/s, far below the writer's speed, so the pieces are written on this thread.
    const std::span<const std::uint8_t> in = input.span();
    // One byte more than the declared size can hold shows a stream that decodes to more.
    std::vector<std::uint8_t> buffer(
        static_cast<std::size_t>(std::min<std::uint64_t>(kStreamPiece, size)) + 1);
    Decompressor z;
    std::size_t fed = 0;
    std::size_t released = 0;
    std::size_t filled = 0;
    std::uint64_t done = 0;
    const auto hand_on = [&] {
      if (filled == 0) return;
      write(std::span<const std::uint8_t>(buffer.data(), filled));
      done += filled;
      filled = 0;
    };
    for (;;) {
      if (z.stream.avail_in == 0 && fed < in.size()) {
        input.release(in.subspan(released, fed - released));
        released = fed;
        const std::size_t step = std::min<std::size_t>(in.size() - fed, kStreamInput);
        z.stream.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + fed));
        z.stream.avail_in = static_cast<unsigned int>(step);
        fed += step;
      }
      const std::size_t room = buffer.size() - filled;
      z.stream.next_out = reinterpret_cast<char*>(buffer.data() + filled);
      z.stream.avail_out = static_cast<unsigned int>(room);
      const unsigned int had_in = z.stream.avail_in;
      const int rc = BZ2_bzDecompress(&z.stream);
      const std::size_t produced = room - z.stream.avail_out;
      filled += produced;
      if (filled > size - done) {
        fail("stream decodes to more than the declared data_size of " + std::to_string(size) +
             " bytes");
      }
      if (rc == BZ_STREAM_END) break;
      if (rc != BZ_OK) {
        fail("corrupt stream (code " + std::to_string(rc) + ") after " +
             std::to_string(fed - z.stream.avail_in) + " input bytes");
      }
      if (filled == buffer.size()) hand_on();
      if (produced == 0 && had_in == z.stream.avail_in && fed == in.size()) {
        fail("stream is truncated: it ends after decoding " + std::to_string(done + filled) +
             " of " + std::to_string(size) + " bytes");
      }
    }
    hand_on();
    input.release();
    if (done != size) {
      fail("stream decodes to " + std::to_string(done) + " bytes, but the block declares " +
           "data_size " + std::to_string(size));
    }
  }

 private:
  /// Decoded bytes per piece of `decompress_stream`, and the input fed to libbz2 at a time.
  static constexpr std::size_t kStreamPiece = std::size_t{4} << 20;
  static constexpr std::size_t kStreamInput = std::size_t{16} << 20;

  /// A libbz2 decompressor, ended however the decoding stops.
  struct Decompressor {
    Decompressor() {
      if (BZ2_bzDecompressInit(&stream, 0, 0) != BZ_OK) fail("cannot start the decompressor");
    }
    ~Decompressor() { BZ2_bzDecompressEnd(&stream); }
    Decompressor(const Decompressor&) = delete;
    Decompressor& operator=(const Decompressor&) = delete;
    bz_stream stream{};
  };
};

}  // namespace

std::shared_ptr<const Codec> make_bzp2_codec() { return std::make_shared<Bzp2Codec>(); }

}  // namespace asdfcore::compression
