// bzp2 blocks: one bzip2 stream per block (python asdf uses bz2.compress).
#include <bzlib.h>

#include <limits>
#include <string>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"

namespace asdfcore::compression {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kCompression, "bzp2: " + what);
}

constexpr std::size_t kStep = std::numeric_limits<unsigned int>::max();

class Bzp2Codec final : public Codec {
 public:
  std::string_view label() const noexcept override { return "bzp2"; }

  std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                     const CompressOptions& options) const override {
    bz_stream z{};
    const int level = options.level < 1 || options.level > 9 ? 9 : options.level;
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
};

}  // namespace

std::shared_ptr<const Codec> make_bzp2_codec() { return std::make_shared<Bzp2Codec>(); }

}  // namespace asdfcore::compression
