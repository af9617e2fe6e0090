// Error cases of the block codecs, driven by small byte arrays: every malformed stream, and every
// output span that does not match the real decoded size, must throw `Error` (compression) and
// must leave the bytes around the output span untouched.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "support/bytes.h"
#include "support/catch.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::compression::Codec;
using asdfcore::compression::CodecRegistry;
using Bytes = std::vector<std::uint8_t>;
using fitsasdf::test::sample;

/// Return the built-in codec labelled `label`.
std::shared_ptr<const Codec> codec_for(const std::string& label) {
  if (label == "zlib") return asdfcore::compression::make_zlib_codec();
  if (label == "bzp2") return asdfcore::compression::make_bzp2_codec();
  return asdfcore::compression::make_lz4_codec();
}

Bytes compress(const Codec& codec, const Bytes& data) { return codec.compress(data, {}); }

/// An output span of `size` bytes with guard bytes on both sides, to prove that a decoder never
/// writes outside the span it is given.
class GuardedOutput {
 public:
  explicit GuardedOutput(std::size_t size) : storage_(kGuard + size + kGuard, kFill), size_(size) {}

  /// Return the span the decoder may write.
  std::span<std::uint8_t> span() noexcept { return {storage_.data() + kGuard, size_}; }
  /// Return true when no byte outside the span has changed.
  bool guards_intact() const {
    const auto fill = [](std::uint8_t b) { return b == kFill; };
    return std::all_of(storage_.begin(), storage_.begin() + kGuard, fill) &&
           std::all_of(storage_.end() - kGuard, storage_.end(), fill);
  }

 private:
  static constexpr std::size_t kGuard = 64;
  static constexpr std::uint8_t kFill = 0xa5;
  std::vector<std::uint8_t> storage_;
  std::size_t size_;
};

/// Decode `input` into a guarded span of `output_size` bytes; require an `Error` (compression)
/// and untouched guard bytes. Returns the error for further checks.
Error expect_compression_error(const Codec& codec, std::span<const std::uint8_t> input,
                               std::size_t output_size) {
  GuardedOutput out(output_size);
  INFO(std::string(codec.label()) << ": " << input.size() << " input bytes into " << output_size
                                  << " output bytes");
  try {
    codec.decompress(input, out.span());
  } catch (const Error& e) {
    INFO("what(): " << e.what());
    CHECK(asdfcore::error_code_name(e.code()) ==
          asdfcore::error_code_name(ErrorCode::kCompression));
    CHECK(out.guards_intact());
    return e;
  }
  CHECK(out.guards_intact());
  FAIL("decompress did not throw");
  throw std::logic_error("unreachable");
}

/// Return `bytes` with the bytes in [from, from + count) inverted.
Bytes flipped(Bytes bytes, std::size_t from, std::size_t count) {
  for (std::size_t i = from; i < from + count && i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(~bytes[i]);
  }
  return bytes;
}

/// Return the first `n` bytes of `bytes`.
Bytes prefix(const Bytes& bytes, std::size_t n) {
  return Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
}

void store_be32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

void store_le32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
  p[2] = static_cast<std::uint8_t>(v >> 16);
  p[3] = static_cast<std::uint8_t>(v >> 24);
}

/// Return one chunk in python asdf's lz4 framing around the raw lz4 block `payload` that claims
/// to decode to `decoded` bytes.
Bytes lz4_chunk(const Bytes& payload, std::uint32_t decoded) {
  Bytes out(8);
  store_be32(out.data(), static_cast<std::uint32_t>(payload.size() + 4));
  store_le32(out.data() + 4, decoded);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace

TEST_CASE("the round trip that the error cases start from works", "[codec][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  INFO(label);
  const auto codec = codec_for(label);
  const Bytes data = sample(1000);
  const Bytes packed = compress(*codec, data);
  GuardedOutput out(data.size());
  codec->decompress(packed, out.span());
  CHECK(std::equal(data.begin(), data.end(), out.span().begin()));
  CHECK(out.guards_intact());
}

TEST_CASE("a codec refuses empty input", "[codec][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const auto codec = codec_for(label);
  const Bytes empty;
  for (const std::size_t size : {std::size_t{1}, std::size_t{100}}) {
    expect_compression_error(*codec, empty, size);
  }
}

TEST_CASE("zlib and bzp2 refuse empty input even for an empty block", "[codec][error]") {
  // Both always write a stream header and trailer, so zero stored bytes are never valid. (lz4 in
  // python asdf's framing writes no chunk at all for empty data, so there it is the valid
  // encoding of an empty block.)
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2");
  const auto codec = codec_for(label);
  expect_compression_error(*codec, Bytes{}, 0);
  GuardedOutput out(0);
  CHECK_NOTHROW(codec_for("lz4")->decompress(Bytes{}, out.span()));
}

TEST_CASE("a codec refuses a truncated stream", "[codec][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const auto codec = codec_for(label);
  const Bytes data = sample(1000);
  const Bytes packed = compress(*codec, data);
  REQUIRE(packed.size() > 16);
  // Cut in the header, in the middle, before the trailer (zlib's Adler-32, bzip2's stream CRC),
  // and by the last byte alone.
  for (const std::size_t keep :
       {std::size_t{1}, std::size_t{5}, packed.size() / 2, packed.size() - 4, packed.size() - 1}) {
    INFO("kept " << keep << " of " << packed.size() << " bytes");
    expect_compression_error(*codec, prefix(packed, keep), data.size());
  }
}

TEST_CASE("zlib and bzp2 refuse a corrupt stream", "[codec][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2");
  const auto codec = codec_for(label);
  const Bytes data = sample(1000);
  const Bytes packed = compress(*codec, data);
  SECTION("bytes flipped in the middle") {
    expect_compression_error(*codec, flipped(packed, packed.size() / 2, 3), data.size());
  }
  SECTION("the stream header flipped") {
    expect_compression_error(*codec, flipped(packed, 0, 2), data.size());
  }
  SECTION("the trailer flipped") {
    expect_compression_error(*codec, flipped(packed, packed.size() - 2, 2), data.size());
  }
  SECTION("garbage that is not a stream at all") {
    expect_compression_error(*codec, Bytes(64, 0xff), data.size());
    expect_compression_error(*codec, Bytes(64, 0x00), data.size());
  }
}

TEST_CASE("lz4 refuses corrupt lz4 block data", "[codec][error][lz4]") {
  const auto codec = asdfcore::compression::make_lz4_codec();
  SECTION("a literal run longer than the input") {
    // Token 0xf0: 15+ literals with length extension bytes that run off the end.
    expect_compression_error(*codec, lz4_chunk(Bytes{0xf0, 0xff, 0xff, 'a'}, 100), 100);
  }
  SECTION("a match offset before the start of the output") {
    // One literal, then a match 0x1234 bytes back: only one byte has been written.
    expect_compression_error(
        *codec, lz4_chunk(Bytes{0x10, 'a', 0x34, 0x12, 0x50, 'b', 'c', 'd', 'e', 'f'}, 10), 10);
  }
  SECTION("payload bytes overwritten with 0xff") {
    const Bytes data = sample(1000);
    Bytes packed = compress(*codec, data);
    std::fill(packed.begin() + 8, packed.end(), std::uint8_t{0xff});
    expect_compression_error(*codec, packed, data.size());
  }
}

TEST_CASE("a codec refuses an output span smaller than the decoded data", "[codec][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const auto codec = codec_for(label);
  const Bytes data = sample(1000);
  const Bytes packed = compress(*codec, data);
  for (const std::size_t size :
       {std::size_t{0}, std::size_t{1}, data.size() / 2, data.size() - 1}) {
    const Error e = expect_compression_error(*codec, packed, size);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(std::to_string(size)));
  }
}

TEST_CASE("a codec refuses an output span larger than the decoded data", "[codec][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const auto codec = codec_for(label);
  const Bytes data = sample(1000);
  const Bytes packed = compress(*codec, data);
  for (const std::size_t size : {data.size() + 1, data.size() * 2}) {
    const Error e = expect_compression_error(*codec, packed, size);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(std::to_string(size)));
  }
}

TEST_CASE("a codec refuses the stream of empty data when data is declared", "[codec][error]") {
  // The stream of an empty block, read as if the block declared data.
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const auto codec = codec_for(label);
  const Bytes packed = compress(*codec, Bytes{});
  expect_compression_error(*codec, packed, 1);
}

TEST_CASE("lz4 refuses python asdf framing errors", "[codec][error][lz4]") {
  const auto codec = asdfcore::compression::make_lz4_codec();
  const Bytes data = sample(1000);
  const Bytes packed = compress(*codec, data);

  SECTION("a chunk length past the end of the input") {
    Bytes bad = packed;
    store_be32(bad.data(), static_cast<std::uint32_t>(packed.size()));  // 4 bytes too many
    const Error e = expect_compression_error(*codec, bad, data.size());
    CHECK_THAT(e.message(), Catch::Matchers::Contains("chunk 0"));
    store_be32(bad.data(), 0xffffffffu);
    expect_compression_error(*codec, bad, data.size());
  }
  SECTION("a chunk length too small to hold the decoded-size prefix") {
    for (const std::uint32_t length : {0u, 3u}) {
      Bytes bad = packed;
      store_be32(bad.data(), length);
      expect_compression_error(*codec, bad, data.size());
    }
  }
  SECTION("a chunk header shorter than 8 bytes") {
    for (std::size_t n = 1; n < 8; ++n) {
      INFO(n << " header bytes");
      expect_compression_error(*codec, prefix(packed, n), data.size());
    }
  }
  SECTION("a short chunk header after a valid chunk") {
    for (std::size_t n = 1; n < 8; ++n) {
      Bytes bad = packed;
      bad.insert(bad.end(), packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(n));
      const Error e = expect_compression_error(*codec, bad, data.size() * 2);
      CHECK_THAT(e.message(), Catch::Matchers::Contains("chunk 1"));
    }
  }
  SECTION("a chunk whose decoded-size prefix disagrees with its lz4 data") {
    for (const std::uint32_t claimed : {static_cast<std::uint32_t>(data.size() - 1),
                                        static_cast<std::uint32_t>(data.size() + 1)}) {
      INFO("prefix claims " << claimed << " bytes");
      Bytes bad = packed;
      store_le32(bad.data() + 4, claimed);
      expect_compression_error(*codec, bad, data.size());
      expect_compression_error(*codec, bad, claimed);
    }
  }
  SECTION("the second of two chunks truncated") {
    const Bytes second = compress(*codec, sample(500, 7));
    Bytes two = packed;
    two.insert(two.end(), second.begin(), second.end());
    const std::size_t whole = data.size() + 500;
    GuardedOutput ok(whole);
    REQUIRE_NOTHROW(codec->decompress(two, ok.span()));
    for (const std::size_t cut : {std::size_t{1}, std::size_t{10}, second.size() - 9}) {
      const Error e = expect_compression_error(*codec, prefix(two, two.size() - cut), whole);
      CHECK_THAT(e.message(), Catch::Matchers::Contains("chunk 1"));
    }
  }
  SECTION("chunks that together decode to more than the output span") {
    Bytes two = packed;
    two.insert(two.end(), packed.begin(), packed.end());
    expect_compression_error(*codec, two, data.size() + data.size() / 2);
  }
}

TEST_CASE("lz4 reports errors in a later 4 MiB chunk", "[codec][error][lz4]") {
  const auto codec = asdfcore::compression::make_lz4_codec();
  const Bytes data = sample((std::size_t{4} << 20) + 1000);
  const Bytes packed = compress(*codec, data);
  SECTION("truncated inside the second chunk") {
    const Error e =
        expect_compression_error(*codec, prefix(packed, packed.size() - 5), data.size());
    CHECK_THAT(e.message(), Catch::Matchers::Contains("chunk 1"));
  }
  SECTION("an output span that ends inside the first chunk") {
    const Error e = expect_compression_error(*codec, packed, std::size_t{4} << 19);
    CHECK_THAT(e.message(), Catch::Matchers::Contains("chunk 0"));
  }
}

TEST_CASE("the registry finds no codec for an unknown label", "[codec][error]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  CHECK(registry.find("xxxx") == nullptr);
  CHECK(registry.find("") == nullptr);
  CHECK(registry.find(std::string_view("lz4\0", 4)) != nullptr);
}
