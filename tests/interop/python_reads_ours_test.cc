// The reference check: python asdf 2.14 (Debian's python3-asdf, run by read_with_asdf.py) opens
// what write_container writes, hands back every array byte for byte, and warns about nothing.
// The trees are written by hand the way python asdf writes them, since the tree model does not
// exist yet.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
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
using asdfcore::format::write_container;
using asdfcore::format::WriteOptions;
using fitsasdf::test::TempDir;
using nlohmann::json;

namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr std::size_t kMiB = std::size_t{1} << 20;

/// Return `n` bytes that compress somewhat but repeat nowhere in a short period.
Bytes pattern(std::size_t n, std::uint32_t seed) {
  Bytes out(n);
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 16 == 0) x = x * 1664525u + 1013904223u;
    out[i] = static_cast<std::uint8_t>((x >> 24) ^ (i & 3));
  }
  return out;
}

/// One block of a case: its decoded data and how to store it.
struct Block {
  Bytes data;
  std::string compression;    ///< "" for none.
  std::uint64_t padding = 0;  ///< Spare allocated bytes.
  bool streamed = false;
  std::size_t pieces = 1;  ///< Hand the data to the writer in this many spans.
};

/// One file to write and have python asdf read.
struct Case {
  std::string name;
  std::vector<Block> blocks;
  bool tree = true;
  bool block_index = true;
  std::uint64_t tree_padding = 0;
  std::vector<std::string> comments;
  ChecksumConvention checksum = ChecksumConvention::kStoredBytes;
  std::string standard = "1.6.0";
};

/// Return the tree python asdf would write for one uint8 ndarray per block: a streamed block
/// gets `source: -1` and shape ['*'], as python asdf writes it.
std::string tree_for(const std::vector<Block>& blocks) {
  std::string t =
      "%YAML 1.1\n"
      "%TAG ! tag:stsci.edu:asdf/\n"
      "--- !core/asdf-1.1.0\n"
      "asdf_library: !core/software-1.0.0 {author: The fitsasdf Developers, homepage: "
      "'https://example.invalid/fitsasdf', name: fitsasdf, version: 0.1.0}\n";
  if (blocks.empty()) return t + "arrays: []\n...\n";
  t += "arrays:\n";
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const bool streamed = blocks[i].streamed;
    t += "- !core/ndarray-1.0.0\n";
    t += "  source: " + (streamed ? std::string("-1") : std::to_string(i)) + "\n";
    t += "  datatype: uint8\n";
    t += "  byteorder: big\n";
    t += "  shape: [" + (streamed ? std::string("'*'") : std::to_string(blocks[i].data.size())) +
         "]\n";
  }
  return t + "...\n";
}

/// Write `c` into `dir` and return the file's path.
std::string write_case(const Case& c, const fs::path& dir, std::size_t number) {
  const std::string path = (dir / ("case" + std::to_string(number) + ".asdf")).string();
  std::vector<BlockToWrite> blocks;
  for (const Block& b : c.blocks) {
    BlockToWrite w;
    const std::span<const std::uint8_t> all(b.data);
    const std::size_t step = (all.size() + b.pieces - 1) / std::max<std::size_t>(b.pieces, 1);
    for (std::size_t k = 0; k < std::max<std::size_t>(b.pieces, 1); ++k) {
      const std::size_t at = std::min(k * step, all.size());
      w.pieces.push_back(all.subspan(at, std::min(step, all.size() - at)));
    }
    w.compression = b.compression;
    w.padding = b.padding;
    w.streamed = b.streamed;
    blocks.push_back(std::move(w));
  }
  WriteOptions options;
  options.asdf_standard = c.standard;
  options.block_index = c.block_index;
  options.tree_padding = c.tree_padding;
  options.comments = c.comments;
  options.checksum = c.checksum;
  options.durable = false;
  write_container(path, c.tree ? tree_for(c.blocks) : std::string(), blocks, options);
  return path;
}

/// Run read_with_asdf.py on `paths` and return its report, one object per path.
json read_with_python(const std::vector<std::string>& paths, bool validate_checksums) {
  std::vector<std::string> argv = {fitsasdf::test::reference_python(),
                                   (fitsasdf::test::scripts_dir() / "read_with_asdf.py").string()};
  if (validate_checksums) argv.push_back("--validate-checksums");
  argv.insert(argv.end(), paths.begin(), paths.end());
  const auto result = fitsasdf::test::run(argv);
  INFO("command: " << fitsasdf::test::join(argv));
  INFO("stderr: " << result.err);
  INFO("stdout: " << result.out);
  json report;
  REQUIRE_NOTHROW(report = json::parse(result.out));
  REQUIRE(report.is_array());
  REQUIRE(report.size() == paths.size());
  return report;
}

std::vector<std::string> md5s_of(const std::vector<Block>& blocks) {
  std::vector<std::string> out;
  for (const Block& b : blocks) out.push_back(to_hex(md5(b.data)));
  return out;
}

/// Check that python read `c` completely and silently.
void check_read(const Case& c, const json& r) {
  INFO("case: " << c.name << ", ASDF Standard " << c.standard);
  INFO("python's report: " << r.dump());
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r.at("warnings").empty());
  CHECK(r.at("version").get<std::string>() == c.standard);
  const auto expected = md5s_of(c.blocks);
  if (c.tree) {
    CHECK(r.at("arrays").get<std::vector<std::string>>() == expected);
    std::vector<std::vector<std::size_t>> shapes;
    for (const Block& b : c.blocks) shapes.push_back({b.data.size()});
    CHECK(r.at("shapes").get<std::vector<std::vector<std::size_t>>>() == shapes);
  } else {
    CHECK(r.at("arrays").empty());
  }
  CHECK(r.at("blocks").get<std::vector<std::string>>() == expected);
}

/// The cases every standard version gets.
std::vector<Case> layout_cases() {
  std::vector<Case> cases;
  cases.push_back({.name = "tree only, no blocks"});
  cases.push_back({.name = "tree only, with tree padding", .tree_padding = 1000});
  cases.push_back({.name = "no tree, no blocks", .tree = false});
  cases.push_back({.name = "no tree, blocks right after the header",
                   .blocks = {{pattern(3000, 1)}, {pattern(5000, 2), "zlib"}},
                   .tree = false});
  cases.push_back({.name = "one uncompressed block", .blocks = {{pattern(1000, 3)}}});

  Case many{.name = "20 blocks, every codec, zero-length ones, several pieces"};
  const std::vector<std::string> labels = {"", "zlib", "bzp2", "lz4"};
  for (std::uint32_t i = 0; i < 20; ++i) {
    // Blocks 4, 9, 14 and 19 are empty: one per codec and one uncompressed.
    const std::size_t size = i % 5 == 4 ? 0 : (std::size_t{1} << (i % 17)) + i;
    many.blocks.push_back({pattern(size, 100 + i), labels[i % 4], 0, false, 1 + i % 3});
  }
  cases.push_back(many);
  Case many_no_index = many;
  many_no_index.name = "20 blocks without a block index";
  many_no_index.block_index = false;
  cases.push_back(many_no_index);

  cases.push_back({.name = "zlib, several MiB", .blocks = {{pattern(3 * kMiB + 17, 4), "zlib"}}});
  cases.push_back({.name = "bzp2", .blocks = {{pattern(kMiB + 5, 5), "bzp2"}}});
  cases.push_back({.name = "lz4 above 4 MiB (python's 4 MiB chunks)",
                   .blocks = {{pattern(9 * kMiB + 123, 6), "lz4"}, {pattern(1000, 7), "lz4"}}});
  cases.push_back({.name = "lz4 of exactly 4 MiB and of 4 MiB + 1",
                   .blocks = {{pattern(4 * kMiB, 8), "lz4"}, {pattern(4 * kMiB + 1, 9), "lz4"}}});
  cases.push_back(
      {.name = "a streamed block after two others",
       .blocks = {
           {pattern(1000, 10), "zlib"}, {pattern(500, 11)}, {pattern(7000, 12), "", 0, true}}});
  cases.push_back({.name = "a streamed block alone, no index asked for",
                   .blocks = {{pattern(7000, 13), "", 0, true}},
                   .block_index = false});
  cases.push_back({.name = "padding after the tree and after every block",
                   .blocks = {{pattern(1000, 14), "", 100},
                              {pattern(20000, 15), "zlib", 4096},
                              {pattern(3000, 16), "bzp2", 1},
                              {pattern(3000, 17), "lz4", 0},
                              {pattern(500, 18), "", 777}},
                   .tree_padding = 4000,
                   .comments = {"written by the fitsasdf interop test"}});
  Case padded_no_index = cases.back();
  padded_no_index.name = "padding without a block index";
  padded_no_index.block_index = false;
  cases.push_back(padded_no_index);
  return cases;
}

}  // namespace

TEST_CASE("python asdf reads every layout we write, for ASDF Standard 1.5.0 and 1.6.0",
          "[interop]") {
  TempDir dir;
  std::vector<Case> cases;
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    for (Case c : layout_cases()) {
      c.standard = standard;
      cases.push_back(std::move(c));
    }
  }
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    paths.push_back(write_case(cases[i], dir.path(), i));
  }

  const json report = read_with_python(paths, false);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    check_read(c, report[i]);
    // Python takes the index only when it holds at least two entries (it has read the first
    // block already) and the first offset lies more than 48 bytes into the file.
    const bool streamed = !c.blocks.empty() && c.blocks.back().streamed;
    if (c.blocks.size() >= 2 && c.tree) {
      INFO("case: " << c.name << ", ASDF Standard " << c.standard);
      INFO("python's report: " << report[i].dump());
      CHECK(report[i].at("index_used") == json(c.block_index && !streamed));
    }
  }
}

TEST_CASE("python asdf validates our checksums with validate_checksums=True", "[interop]") {
  TempDir dir;
  std::vector<Case> cases;
  const std::vector<Block> compressed = {{pattern(10000, 20)},
                                         {pattern(300000, 21), "zlib"},
                                         {pattern(200000, 22), "bzp2"},
                                         {pattern(5 * kMiB, 23), "lz4"},
                                         {Bytes(), "zlib"}};
  // Without an index python walks the blocks and checks each as it reads it; the script checks
  // every block again, whichever way python found it.
  cases.push_back({.name = "decoded-data checksums, compressed blocks, no index",
                   .blocks = compressed,
                   .block_index = false,
                   .checksum = ChecksumConvention::kDecodedData});
  cases.push_back({.name = "decoded-data checksums, compressed blocks, with index",
                   .blocks = compressed,
                   .checksum = ChecksumConvention::kDecodedData});
  cases.push_back({.name = "decoded-data checksums, ending in a streamed block",
                   .blocks = {{pattern(4000, 24), "zlib"}, {pattern(6000, 25), "", 0, true}},
                   .checksum = ChecksumConvention::kDecodedData});
  cases.push_back({.name = "default checksums, uncompressed blocks only",
                   .blocks = {{pattern(10000, 26)},
                              {pattern(70000, 27), "", 0, false, 3},
                              {Bytes()},
                              {pattern(123, 28), "", 64}},
                   .block_index = false});
  cases.push_back({.name = "default checksums, uncompressed, with index, streamed last",
                   .blocks = {{pattern(10000, 29)}, {pattern(5000, 30), "", 0, true}}});
  cases.push_back({.name = "no checksums",
                   .blocks = compressed,
                   .block_index = false,
                   .checksum = ChecksumConvention::kNone});
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    paths.push_back(write_case(cases[i], dir.path(), i));
  }

  const json report = read_with_python(paths, true);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    check_read(c, report[i]);
    INFO("case: " << c.name);
    INFO("python's report: " << report[i].dump());
    const json& checks = report[i].at("checksums");
    REQUIRE(checks.size() == c.blocks.size());
    for (std::size_t k = 0; k < checks.size(); ++k) {
      INFO("block " << k);
      if (c.checksum == ChecksumConvention::kNone) {
        CHECK(checks[k].is_null());
      } else {
        CHECK(checks[k] == json(true));
      }
    }
  }
}

TEST_CASE("python asdf 2.14 rejects the standard's stored-bytes MD5 on a compressed block",
          "[interop]") {
  // The control for the test above: python asdf 2.14 checks the MD5 of the decoded data, so the
  // default convention (the standard's: MD5 of the stored bytes) fails its validation on a
  // compressed block. This proves validate_checksums really ran, and documents why
  // ChecksumConvention::kDecodedData exists.
  TempDir dir;
  const Case c{.name = "default checksums on a zlib block",
               .blocks = {{pattern(10000, 40), "zlib"}},
               .block_index = false};
  const std::string path = write_case(c, dir.path(), 0);
  const json report = read_with_python({path}, true);
  INFO("python's report: " << report[0].dump());
  REQUIRE(report[0].contains("error"));
  CHECK(report[0].at("error").get<std::string>().find("checksum") != std::string::npos);
  // Without validation the same file reads fine.
  check_read(c, read_with_python({path}, false)[0]);
}

TEST_CASE("fitsasdf's --checksum decoded writes compressed files python asdf 2.14 validates",
          "[interop][cli]") {
  // The command-line side of the two cases above: `convert --checksum decoded` (and a rewrite
  // with it) gives compressed blocks python asdf 2.14 validates; the default, the standard's
  // stored-bytes MD5, fails its validation (asdf-format/asdf#2015) and reads fine without it.
  TempDir dir;
  const std::string fits = (fitsasdf::test::samples_dir() / "test0.fits").string();  // 4 images
  struct Output {
    std::string path;
    bool decoded;
  };
  std::vector<Output> outputs;
  for (const std::string codec : {"zlib", "bzp2", "lz4"}) {
    for (const std::string checksum : {"decoded", "stored"}) {
      const std::string out = (dir / (codec + "_" + checksum + ".asdf")).string();
      const auto r = fitsasdf::test::run_cli(
          {"convert", fits, "-o", out, "-q", "--compress", codec, "--checksum", checksum});
      INFO(r.err);
      REQUIRE(r.status == 0);
      outputs.push_back({out, checksum == "decoded"});
    }
  }
  const std::string rewritten = (dir / "defragmented.asdf").string();
  const auto r = fitsasdf::test::run_cli(
      {"defragment", outputs[1].path, "-o", rewritten, "--checksum", "decoded"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  outputs.push_back({rewritten, true});

  std::vector<std::string> paths;
  for (const auto& o : outputs) paths.push_back(o.path);
  const json validated = read_with_python(paths, true);
  const json plain = read_with_python(paths, false);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    INFO(outputs[i].path << "\npython's report: " << validated[i].dump());
    // fitsasdf says which convention each block's MD5 follows, and that it holds.
    const auto info = fitsasdf::test::run_cli({"info", "--blocks", "--json", outputs[i].path});
    REQUIRE(info.status == 0);
    const json blocks = json::parse(info.out).at("blocks");
    REQUIRE(blocks.size() == 4);
    for (const auto& b : blocks) {
      CHECK(b.at("checksum_ok") == json(true));
      CHECK(b.at("checksum_match") == json(outputs[i].decoded ? "decoded" : "stored"));
    }
    CHECK_FALSE(plain[i].contains("error"));
    CHECK(plain[i].at("warnings").empty());
    CHECK(plain[i].at("blocks").size() == 4);
    if (outputs[i].decoded) {
      REQUIRE_FALSE(validated[i].contains("error"));
      CHECK(validated[i].at("checksums") == json({true, true, true, true}));
      CHECK(validated[i].at("blocks") == plain[i].at("blocks"));
    } else {
      REQUIRE(validated[i].contains("error"));
      CHECK(validated[i].at("error").get<std::string>().find("checksum") != std::string::npos);
    }
  }
}
