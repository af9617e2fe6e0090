// zlib blocks: one RFC 1950 stream per block, as python asdf writes with zlib.compress.
#include <zlib.h>

#include <limits>
#include <string>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"

namespace asdfcore::compression {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kCompression, "zlib: " + what);
}

/// Feeds a span of any size through zlib's 32-bit `avail_*` counters.
constexpr std::size_t kStep = std::numeric_limits<uInt>::max();

class ZlibCodec final : public Codec {
 public:
  std::string_view label() const noexcept override { return "zlib"; }

  std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                     const CompressOptions& options) const override {
    z_stream z{};
    const int level = options.level < 0 ? Z_DEFAULT_COMPRESSION : options.level;
    if (deflateInit(&z, level) != Z_OK) fail("cannot start the compressor");
    std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(input.size())));
    std::size_t in_done = 0;
    std::size_t out_done = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (out_done == out.size()) out.resize(out.size() * 2 + 64);
      const std::size_t in_chunk = std::min(input.size() - in_done, kStep);
      const std::size_t out_chunk = std::min(out.size() - out_done, kStep);
      z.next_in = const_cast<Bytef*>(input.data() + in_done);
      z.avail_in = static_cast<uInt>(in_chunk);
      z.next_out = out.data() + out_done;
      z.avail_out = static_cast<uInt>(out_chunk);
      const bool last = in_done + in_chunk == input.size();
      rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) {
        deflateEnd(&z);
        fail("compressor failed");
      }
      in_done += in_chunk - z.avail_in;
      out_done += out_chunk - z.avail_out;
    }
    deflateEnd(&z);
    out.resize(out_done);
    return out;
  }

  
  std::uint64_t max_decoded_size(std::uint64_t stored_size) const noexcept override {
    // deflate expands at most 1032:1 (a 258-byte match per 2 bits); a little slack for the header.
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 1032;
    return stored_size >= limit ? std::numeric_limits<std::uint64_t>::max()
                                : stored_size * 1032 + 64;
  }

  void decompress(std::span<const std::uint8_t> input,
                  std::span<std::uint8_t> output) const override {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) fail("cannot start the decompressor");
    std::size_t in_done = 0;
    std::size_t out_done = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      const std::size_t in_chunk = std::min(input.size() - in_done, kStep);
      const std::size_t out_chunk = std::min(output.size() - out_done, kStep);
      // One spare byte of room past the declared size detects a stream that decodes to more.
      std::uint8_t spare = 0;
      z.next_in = const_cast<Bytef*>(input.data() + in_done);
      z.avail_in = static_cast<uInt>(in_chunk);
      z.next_out = out_chunk > 0 ? output.data() + out_done : &spare;
      z.avail_out = out_chunk > 0 ? static_cast<uInt>(out_chunk) : 1;
      rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t produced = (out_chunk > 0 ? out_chunk : 1) - z.avail_out;
      in_done += in_chunk - z.avail_in;
      if (out_chunk == 0 && produced > 0) {
        inflateEnd(&z);
        fail("stream decodes to more than the declared data_size of " +
             std::to_string(output.size()) + " bytes");
      }
      out_done += produced;
      if (rc == Z_STREAM_END) break;
      if (rc == Z_BUF_ERROR && in_done == input.size()) {
        inflateEnd(&z);
        fail("stream is truncated: it ends after decoding " + std::to_string(out_done) + " of " +
             std::to_string(output.size()) + " bytes");
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        std::string msg = z.msg != nullptr ? z.msg : "corrupt data";
        inflateEnd(&z);
        fail("corrupt stream (" + msg + ") after " + std::to_string(in_done) + " input bytes");
      }
    }
    inflateEnd(&z);
    if (out_done != output.size()) {
      fail("stream decodes to " + std::to_string(out_done) + " bytes, but the block declares " +
           "data_size " + std::to_string(output.size()));
    }
  }
};

}  // namespace

std::shared_ptr<const Codec> make_zlib_codec() { return std::make_shared<ZlibCodec>(); }

}  // namespace asdfcore::compression
