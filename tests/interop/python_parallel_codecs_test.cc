// Compression in parallel pieces against the reference: python asdf 2.14 (Debian's python3-asdf,
// run by read_with_asdf.py) reads zlib blocks cut into many pieces on several threads and lz4
// blocks above its 4 MiB chunk size byte for byte, and what python asdf compresses (zlib, bzp2,
// lz4, written by write_compressed_with_asdf.py) decodes here to the same bytes.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/compression/md5.h"
#include "asdfcore/format/container.h"
#include "asdfcore/format/container_writer.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using asdfcore::compression::md5;
using asdfcore::compression::to_hex;
using asdfcore::format::BlockToWrite;
using asdfcore::format::ChecksumConvention;
using asdfcore::format::Container;
using asdfcore::format::write_container;
using asdfcore::format::WriteOptions;
using fitsasdf::test::TempDir;
using nlohmann::json;

namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr std::size_t kMiB = std::size_t{1} << 20;

/// Big-endian float32 bytes of a noisy sky around 1000: how image data compresses.
Bytes sky(std::size_t n, std::uint32_t seed) {
  Bytes out(n);
  std::uint32_t x = seed * 2654435761u + 7u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    switch (i % 4) {
      case 0: out[i] = 0x44; break;                                      // sign, exponent
      case 1: out[i] = static_cast<std::uint8_t>(0x78 + (x >> 30)); break;  // high mantissa
      default: out[i] = static_cast<std::uint8_t>(x >> 24); break;       // noise
    }
  }
  return out;
}

/// The tree python asdf writes for one uint8 ndarray per block.
std::string tree_for(const std::vector<Bytes>& arrays) {
  std::string t =
      "%YAML 1.1\n"
      "%TAG ! tag:stsci.edu:asdf/\n"
      "--- !core/asdf-1.1.0\n"
      "asdf_library: !core/software-1.0.0 {author: The fitsasdf Developers, homepage: "
      "'https://example.invalid/fitsasdf', name: fitsasdf, version: 0.1.0}\n"
      "arrays:\n";
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    t += "- !core/ndarray-1.0.0\n  source: " + std::to_string(i) +
         "\n  datatype: uint8\n  byteorder: big\n  shape: [" + std::to_string(arrays[i].size()) +
         "]\n";
  }
  return t + "...\n";
}

}  // namespace

TEST_CASE("python asdf reads zlib blocks of many parallel pieces and lz4 blocks above 4 MiB",
          "[interop][parallel]") {
  TempDir dir;
  // 6 MiB + 17 is 7 zlib pieces of 1 MiB; 9 MiB + 5 is three lz4 chunks. The small blocks stay
  // one piece.
  const std::vector<Bytes> arrays = {sky(6 * kMiB + 17, 1), sky(9 * kMiB + 5, 2),
                                     sky(1 * kMiB, 3),      sky(1, 4),
                                     sky(2 * kMiB + 3, 5),  sky(1000, 6)};
  const std::vector<std::string> codecs = {"zlib", "lz4", "zlib", "zlib", "bzp2", "lz4"};
  std::vector<BlockToWrite> blocks;
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    BlockToWrite b;
    b.pieces = {std::span<const std::uint8_t>(arrays[i])};
    b.compression = codecs[i];
    blocks.push_back(std::move(b));
    expected.push_back(to_hex(md5(arrays[i])));
  }
  std::vector<std::string> paths;
  for (const unsigned threads : {1u, 3u}) {
    WriteOptions options;
    options.durable = false;
    options.threads = threads;
    options.checksum = ChecksumConvention::kDecodedData;
    paths.push_back((dir.path() / ("threads" + std::to_string(threads) + ".asdf")).string());
    write_container(paths.back(), tree_for(arrays), blocks, options);
  }
  // The bytes do not depend on the thread count.
  CHECK(fitsasdf::test::run({"cmp", paths[0], paths[1]}).status == 0);

  std::vector<std::string> argv = {fitsasdf::test::reference_python(),
                                   (fitsasdf::test::scripts_dir() / "read_with_asdf.py").string(),
                                   "--validate-checksums"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  const auto result = fitsasdf::test::run(argv);
  INFO("stderr: " << result.err);
  json report;
  REQUIRE_NOTHROW(report = json::parse(result.out));
  REQUIRE(report.size() == paths.size());
  for (const json& r : report) {
    INFO("python's report: " << r.dump());
    REQUIRE_FALSE(r.contains("error"));
    CHECK(r.at("warnings").empty());
    CHECK(r.at("arrays").get<std::vector<std::string>>() == expected);
    CHECK(r.at("checksums") == json(std::vector<bool>(arrays.size(), true)));
  }
}

TEST_CASE("what python asdf compresses decodes here to the same bytes", "[interop][parallel]") {
  TempDir dir;
  const std::vector<std::string> sizes = {"1", "1000", "4194305"};
  for (const std::string codec : {"zlib", "bzp2", "lz4"}) {
    INFO("codec " << codec);
    const std::string path = (dir.path() / (codec + ".asdf")).string();
    std::vector<std::string> argv = {
        fitsasdf::test::reference_python(),
        (fitsasdf::test::scripts_dir() / "write_compressed_with_asdf.py").string(), path, codec};
    argv.insert(argv.end(), sizes.begin(), sizes.end());
    const auto result = fitsasdf::test::run(argv);
    INFO("stderr: " << result.err);
    REQUIRE(result.status == 0);
    const auto expected = json::parse(result.out).get<std::vector<std::string>>();
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == sizes.size());
    std::vector<std::string> got;
    for (std::size_t i = 0; i < c.blocks().size(); ++i) got.push_back(to_hex(md5(c.data(i).span())));
    CHECK(got == expected);
  }
}
