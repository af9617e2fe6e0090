// AsdfFile refusing bad input: each case is a few bytes written to a temporary file, and the
// error must have the right category and say where (file, byte offset, tree path).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/format/container_writer.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using namespace asdfcore;
using fitsasdf::test::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kHeader = "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n";
constexpr std::string_view kYamlStart =
    "%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n";

std::string write_file(const TempDir& dir, const std::string& name, std::string_view bytes) {
  const fs::path path = dir / name;
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
  return path.string();
}

/// An ASDF file whose tree body (after the `---` line) is `body`.
std::string asdf_with_tree(std::string_view body) {
  return std::string(kHeader) + std::string(kYamlStart) + std::string(body) + "...\n";
}

/// Run `fn`, require it to throw `Error`, and return the error.
template <typename Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no asdfcore::Error was thrown");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a tree that is not valid YAML: malformed, with the file and a byte in the tree",
          "[asdf_file][error]") {
  TempDir dir;
  const std::string bytes = asdf_with_tree("a: [1, 2\nb: {c: 3\n");
  const std::string path = write_file(dir, "bad_yaml.asdf", bytes);
  const Error e = error_of([&] { (void)AsdfFile::open(path); });
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.context().file == path);
  REQUIRE(e.context().offset.has_value());
  const std::uint64_t tree_start = kHeader.size();
  CHECK(*e.context().offset >= tree_start);
  CHECK(*e.context().offset < bytes.size());
  CHECK(std::string(e.what()).find("bad_yaml.asdf") != std::string::npos);
}

TEST_CASE("a known tag without a version: malformed, naming the tree path", "[asdf_file][error]") {
  TempDir dir;
  const std::string path = write_file(
      dir, "no_version.asdf",
      asdf_with_tree("outer:\n  arr: !core/ndarray\n    data: [1, 2]\n    datatype: int64\n"));
  const Error e = error_of([&] { (void)AsdfFile::open(path); });
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.context().tree_path == "/outer/arr");
  CHECK(e.context().file == path);
  CHECK(e.message().find("core/ndarray") != std::string::npos);
}

TEST_CASE("an ndarray whose source names a missing block: array() is malformed, naming the path",
          "[asdf_file][error]") {
  TempDir dir;
  const std::string path =
      write_file(dir, "missing_block.asdf",
                 asdf_with_tree("arr: !core/ndarray-1.1.0\n  source: 3\n  datatype: int64\n"
                                "  byteorder: little\n  shape: [2]\n"
                                "neg: !core/ndarray-1.1.0\n  source: -1\n  datatype: int64\n"
                                "  byteorder: little\n  shape: [2]\n"));
  // Opening works: arrays are read only when asked for.
  const AsdfFile file = AsdfFile::open(path);
  for (const char* key : {"arr", "neg"}) {
    const std::string pointer = std::string("/") + key;
    const Error e = error_of([&] { (void)file.array(*file.tree()->get(key), pointer); });
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kMalformed);
    // The path of the array, or of its `source` entry.
    CHECK(e.context().tree_path.starts_with(pointer));
    CHECK(e.context().file == path);
  }
}

TEST_CASE("an alias bomb is stopped by the alias limit", "[asdf_file][error]") {
  TempDir dir;
  // Nine levels of ten aliases each: 10^9 nodes once expanded.
  std::string body = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string prev = "*l" + std::to_string(level - 1);
    body += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) body += (i ? ", " : "") + prev;
    body += "]\n";
  }
  const std::string path = write_file(dir, "bomb.asdf", asdf_with_tree(body));
  const Error e = error_of([&] { (void)AsdfFile::open(path); });
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kLimit);
  CHECK(e.context().file == path);
}

TEST_CASE("10,000 levels of nesting hit the depth limit without a crash", "[asdf_file][error]") {
  TempDir dir;
  SECTION("flow sequences") {
    const std::string body = "deep: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
    const std::string path = write_file(dir, "deep.asdf", asdf_with_tree(body));
    const Error e = error_of([&] { (void)AsdfFile::open(path); });
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kLimit);
  }
  SECTION("flow mappings") {
    std::string body = "deep: ";
    for (int i = 0; i < 10000; ++i) body += "{a: ";
    body += "1" + std::string(10000, '}') + "\n";
    const std::string path = write_file(dir, "deep_map.asdf", asdf_with_tree(body));
    const Error e = error_of([&] { (void)AsdfFile::open(path); });
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kLimit);
  }
  SECTION("a raised limit is honoured: 10,000 levels then parse") {
    const std::string body = "deep: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
    const std::string path = write_file(dir, "deep_ok.asdf", asdf_with_tree(body));
    OpenOptions options;
    options.yaml.max_depth = 20000;
    const AsdfFile file = AsdfFile::open(path, options);
    CHECK(file.tree()->get("deep")->is_sequence());
  }
}

TEST_CASE("a $ref to a pointer that does not exist: resolved_tree is malformed",
          "[asdf_file][error]") {
  TempDir dir;
  const std::string path =
      write_file(dir, "dangling.asdf", asdf_with_tree("x: {$ref: '#/nowhere/at/all'}\nthere: 1\n"));
  const AsdfFile file = AsdfFile::open(path);  // the raw tree is fine
  const Error e = error_of([&] { (void)file.resolved_tree(); });
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(std::string(e.what()).find("/x") != std::string::npos);

  // A reference to a file that does not exist fails too, and so does one outside the folder.
  const std::string missing =
      write_file(dir, "missing_doc.asdf", asdf_with_tree("x: {$ref: 'nothere.asdf#/a'}\n"));
  CHECK_THROWS_AS(AsdfFile::open(missing).resolved_tree(), Error);
  const std::string outside =
      write_file(dir, "outside.asdf", asdf_with_tree("x: {$ref: '../outside.asdf#/x'}\n"));
  const Error e2 = error_of([&] { (void)AsdfFile::open(outside).resolved_tree(); });
  CHECK(e2.code() == ErrorCode::kMalformed);
}

TEST_CASE("an external block outside the file's folder is refused", "[asdf_file][error]") {
  TempDir dir;
  fs::create_directory(dir / "sub");
  // A valid one-block file next to the folder: only the policy stops the read.
  const std::vector<std::uint8_t> ones(16, 1);
  format::BlockToWrite block;
  block.pieces.push_back(ones);
  format::write_container((dir / "x.asdf").string(), "", std::span(&block, 1));
  const std::string path =
      write_file(dir, "sub/main.asdf",
                 asdf_with_tree("arr: !core/ndarray-1.1.0\n  source: ../x.asdf\n  datatype: uint8\n"
                                "  byteorder: big\n  shape: [16]\n"));
  const AsdfFile file = AsdfFile::open(path);
  const Error e = error_of([&] { (void)file.array(*file.tree()->get("arr"), "/arr"); });
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.context().tree_path.starts_with("/arr"));

  // An absolute path is refused as well.
  const std::string absolute = write_file(
      dir, "sub/absolute.asdf",
      asdf_with_tree("arr: !core/ndarray-1.1.0\n  source: '" + (dir / "x.asdf").string() +
                     "'\n  datatype: uint8\n  byteorder: big\n  shape: [16]\n"));
  const AsdfFile abs_file = AsdfFile::open(absolute);
  CHECK_THROWS_AS(abs_file.array(*abs_file.tree()->get("arr"), "/arr"), Error);

  // Once the caller allows the parent folder, the same file reads.
  OpenOptions options;
  options.allowed_dirs.push_back(dir.path());
  const AsdfFile allowed = AsdfFile::open(path, options);
  const auto a = allowed.array(*allowed.tree()->get("arr"), "/arr");
  CHECK(a.size() == 16);
  CHECK(a.to_c_order(ndarray::ByteOrder::kLittle) == std::vector<std::uint8_t>(16, 1));
}

TEST_CASE("an HDF5 file is not ASDF", "[asdf_file][error]") {
  TempDir dir;
  std::string hdf5("\x89HDF\r\n\x1a\n", 8);
  hdf5 += std::string(504, '\0');
  const std::string path = write_file(dir, "data.h5", hdf5);
  const Error e = error_of([&] { (void)AsdfFile::open(path); });
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kNotAsdf);
  CHECK(e.context().file == path);

  const std::string empty = write_file(dir, "empty.asdf", "");
  CHECK(error_of([&] { (void)AsdfFile::open(empty); }).code() == ErrorCode::kNotAsdf);
  CHECK(error_of([&] { (void)AsdfFile::open((dir / "missing.asdf").string()); }).code() ==
        ErrorCode::kIo);
}
