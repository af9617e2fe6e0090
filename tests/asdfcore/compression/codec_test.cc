// The contract every codec passes: round trip of assorted inputs, exact output size, label,
// and for lz4 the chunked framing python asdf reads.
#include <cstring>
#include <random>

#include "asdfcore/compression/codec.h"
#include "asdfcore/compression/md5.h"
#include "support/catch.h"

using namespace asdfcore::compression;

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(gen());
  return v;
}

std::vector<std::uint8_t> compressible_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>((i / 7) % 13);
  return v;
}

}  // namespace

TEST_CASE("every built-in codec round-trips its input exactly", "[codec]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::vector<std::vector<std::uint8_t>> inputs = {
      {},
      {42},
      random_bytes(1000, 1),
      compressible_bytes(100000),
      random_bytes((4u << 20) + 17, 2),  // crosses lz4's 4 MiB chunk boundary
  };
  for (const std::string label : {"zlib", "bzp2", "lz4"}) {
    const Codec* codec = registry.find(label);
    REQUIRE(codec != nullptr);
    CHECK(codec->label() == label);
    for (const auto& input : inputs) {
      INFO(label << " on " << input.size() << " bytes");
      const auto packed = codec->compress(input, {});
      std::vector<std::uint8_t> out(input.size(), 0xAA);
      codec->decompress(packed, out);
      CHECK(out == input);
    }
  }
}

TEST_CASE("compression levels are accepted and still round-trip", "[codec]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const auto input = compressible_bytes(50000);
  for (const std::string label : {"zlib", "bzp2", "lz4"}) {
    for (int level : {1, 9}) {
      const auto packed = registry.find(label)->compress(input, {.level = level});
      std::vector<std::uint8_t> out(input.size());
      registry.find(label)->decompress(packed, out);
      CHECK(out == input);
    }
  }
}

TEST_CASE("lz4 uses python asdf's framing: BE chunk length, LE decoded size, 4 MiB chunks",
          "[codec][lz4]") {
  const auto codec = make_lz4_codec();
  const std::size_t n = (4u << 20) + 100;
  const auto input = compressible_bytes(n);
  const auto packed = codec->compress(input, {});
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t{packed[at]} << 24) | (std::uint32_t{packed[at + 1]} << 16) |
           (std::uint32_t{packed[at + 2]} << 8) | packed[at + 3];
  };
  auto le32 = [&](std::size_t at) {
    return (std::uint32_t{packed[at + 3]} << 24) | (std::uint32_t{packed[at + 2]} << 16) |
           (std::uint32_t{packed[at + 1]} << 8) | packed[at];
  };
  const std::uint32_t first = be32(0);
  CHECK(le32(4) == (4u << 20));
  const std::size_t second_at = 4 + first;
  REQUIRE(second_at + 8 <= packed.size());
  CHECK(le32(second_at + 4) == 100);
  CHECK(second_at + 4 + be32(second_at) == packed.size());
}

TEST_CASE("zlib output is a standard RFC 1950 stream", "[codec][zlib]") {
  const auto packed = make_zlib_codec()->compress(compressible_bytes(1000), {});
  REQUIRE(packed.size() > 2);
  CHECK((packed[0] & 0x0f) == 8);                         // deflate
  CHECK(((packed[0] << 8) | packed[1]) % 31 == 0);        // header check bits
}

TEST_CASE("bzp2 output is a bzip2 stream", "[codec][bzp2]") {
  const auto packed = make_bzp2_codec()->compress(compressible_bytes(1000), {});
  REQUIRE(packed.size() > 3);
  CHECK(std::memcmp(packed.data(), "BZh", 3) == 0);
}

TEST_CASE("the registry finds codecs by label, trailing NULs ignored, first match wins",
          "[codec][registry]") {
  CodecRegistry registry = CodecRegistry::with_builtins();
  CHECK(registry.find(std::string_view("lz4\0", 4)) == registry.find("lz4"));
  CHECK(registry.find("xxxx") == nullptr);
  CHECK(registry.find("") == nullptr);
  const Codec* before = registry.find("zlib");
  registry.add(make_zlib_codec());
  CHECK(registry.find("zlib") == before);
  CHECK(registry.labels() == std::vector<std::string>{"zlib", "bzp2", "lz4", "zlib"});
}

TEST_CASE("md5 matches known digests", "[md5]") {
  CHECK(to_hex(md5({})) == "d41d8cd98f00b204e9800998ecf8427e");
  const std::string abc = "abc";
  CHECK(to_hex(md5({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()})) ==
        "900150983cd24fb0d6963f7d28e17f72");
  Md5 h;
  h.update({reinterpret_cast<const std::uint8_t*>(abc.data()), 1});
  h.update({reinterpret_cast<const std::uint8_t*>(abc.data()) + 1, 2});
  CHECK(to_hex(h.finish()) == "900150983cd24fb0d6963f7d28e17f72");
}
