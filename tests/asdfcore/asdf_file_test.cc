// AsdfFile on the ASDF Standard's reference files: the tree with its tags and anchors, every
// array equal to the corpus oracle's raw reading, references resolved on request, and warnings
// for tag versions this library does not know.
#include "asdfcore/asdf_file.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/format/container_writer.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/walk.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace asdfcore;
using fitsasdf::test::corpus_dir;
using fitsasdf::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const json& oracle() {
  static const json o = [] {
    std::ifstream in(corpus_dir() / "oracle.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return o;
}

/// The oracle record of `name` in asdf-reference/1.6.0.
const json& record(const std::string& name) {
  return oracle()["files"].at("asdf-reference/1.6.0/" + name);
}

std::string reference_file(const std::string& name) {
  return (corpus_dir() / "asdf-reference" / "1.6.0" / name).string();
}

tree::NodePtr at(const AsdfFile& file, const std::string& pointer) {
  return tree::find_by_pointer(file.tree(), tree::parse_json_pointer(pointer));
}

/// Compare every array and every tag of the oracle's raw reading with ours.
void check_against_oracle(const std::string& name) {
  INFO("file " << name);
  const AsdfFile file = AsdfFile::open(reference_file(name));
  const json& raw = record(name)["raw"];
  REQUIRE(raw["ok"] == true);
  for (const auto& [pointer, tag] : raw["tags"].items()) {
    INFO("tag at '" << pointer << "'");
    const tree::NodePtr node = at(file, pointer);
    REQUIRE(node);
    CHECK(node->tag() == tag.get<std::string>());
  }
  REQUIRE_FALSE(raw["arrays"].empty());
  for (const json& want : raw["arrays"]) {
    const std::string path = want["path"];
    INFO("array " << path);
    const tree::NodePtr node = at(file, path);
    REQUIRE(node);
    CHECK(tree::is_ndarray(*node));
    const ndarray::NDArray a = file.array(*node, path);
    CHECK(a.md5_le() == want["md5"].get<std::string>());
    CHECK(a.shape() == want["shape"].get<std::vector<std::uint64_t>>());
    CHECK(a.nbytes() == want["nbytes"].get<std::uint64_t>());
  }
}

/// The elements of an int64 array, in C order.
std::vector<std::int64_t> int64_values(const ndarray::NDArray& a) {
  const auto bytes = a.to_c_order(ndarray::native_byte_order());
  std::vector<std::int64_t> out(bytes.size() / 8);
  std::memcpy(out.data(), bytes.data(), out.size() * 8);
  return out;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

constexpr const char* kHeader =
    "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n";

}  // namespace

TEST_CASE("basic.asdf: one int64 array in block 0", "[asdf_file]") {
  const AsdfFile file = AsdfFile::open(reference_file("basic.asdf"));
  CHECK(file.path() == reference_file("basic.asdf"));
  CHECK(file.asdf_standard() == "1.6.0");
  CHECK(file.warnings().empty());
  REQUIRE(file.tree()->is_mapping());
  CHECK(file.tree()->tag() == "tag:stsci.edu:asdf/core/asdf-1.1.0");
  CHECK(file.container().blocks().size() == 1);
  const tree::NodePtr data = file.tree()->get("data");
  REQUIRE(data);
  CHECK(data->tag() == "tag:stsci.edu:asdf/core/ndarray-1.1.0");
  const ndarray::NDArray a = file.array(*data, "/data");
  CHECK(a.source().kind == ndarray::SourceKind::kBlock);
  CHECK(a.source().block == 0);
  CHECK(a.dtype().numpy_str() == "<i8");
  CHECK(int64_values(a) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  check_against_oracle("basic.asdf");
}

TEST_CASE("shared.asdf: two views of one block", "[asdf_file]") {
  const AsdfFile file = AsdfFile::open(reference_file("shared.asdf"));
  const ndarray::NDArray whole = file.array(*file.tree()->get("data"), "/data");
  const ndarray::NDArray subset = file.array(*file.tree()->get("subset"), "/subset");
  CHECK(whole.source().block == 0);
  CHECK(subset.source().block == 0);
  CHECK(subset.offset() == 8);
  CHECK(subset.strides() == std::vector<std::int64_t>{16});
  CHECK(subset.has_explicit_strides());
  CHECK_FALSE(subset.is_c_contiguous());
  CHECK(int64_values(subset) == std::vector<std::int64_t>{1, 3, 5, 7});
  // Both views read the same bytes of the mapping, not copies.
  CHECK(whole.data().data() == subset.data().data());
  check_against_oracle("shared.asdf");
}

TEST_CASE("stream.asdf: the streamed block sets the first dimension", "[asdf_file]") {
  const AsdfFile file = AsdfFile::open(reference_file("stream.asdf"));
  const ndarray::NDArray a = file.array(*file.tree()->get("my_stream"), "/my_stream");
  CHECK(a.is_streamed());
  CHECK(a.shape() == std::vector<std::uint64_t>{8, 8});
  CHECK(a.source().index == -1);
  CHECK(a.source().block == 0);
  REQUIRE(file.container().blocks().size() == 1);
  CHECK(file.container().blocks()[0].header.streamed());
  check_against_oracle("stream.asdf");
}

TEST_CASE("exploded.asdf: the block lives in a sibling file", "[asdf_file]") {
  const AsdfFile file = AsdfFile::open(reference_file("exploded.asdf"));
  CHECK(file.container().blocks().empty());
  const ndarray::NDArray a = file.array(*file.tree()->get("data"), "/data");
  CHECK(a.source().kind == ndarray::SourceKind::kExternal);
  CHECK(a.source().uri == "exploded0000.asdf");
  CHECK(int64_values(a) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  check_against_oracle("exploded.asdf");
}

TEST_CASE("anchor.asdf: an anchored node is one node reached twice", "[asdf_file]") {
  const AsdfFile file = AsdfFile::open(reference_file("anchor.asdf"));
  const tree::NodePtr a = file.tree()->get("a");
  REQUIRE(a);
  CHECK(a == file.tree()->get("b"));
  CHECK(a->get("abc")->as_int() == 123);
  CHECK(file.warnings().empty());
  // The resolved tree keeps the sharing; with no reference to replace it is the tree itself.
  const tree::NodePtr resolved = file.resolved_tree();
  CHECK(resolved->get("a") == resolved->get("b"));
  CHECK(resolved == file.tree());
}

TEST_CASE("complex, structured, int, compressed and the other reference files match the oracle",
          "[asdf_file]") {
  for (const char* name :
       {"complex.asdf", "structured.asdf", "int.asdf", "compressed.asdf", "float.asdf",
        "endian.asdf", "ascii.asdf", "unicode_bmp.asdf", "unicode_spp.asdf"}) {
    check_against_oracle(name);
  }
  const AsdfFile file = AsdfFile::open(reference_file("compressed.asdf"));
  CHECK(file.container().blocks()[0].header.compression_label() == "zlib");
  CHECK(file.container().blocks()[1].header.compression_label() == "bzp2");
  const auto zlib = file.array(*file.tree()->get("zlib"), "/zlib");
  const auto bzp2 = file.array(*file.tree()->get("bzp2"), "/bzp2");
  CHECK(zlib.shape() == std::vector<std::uint64_t>{128});
  CHECK(int64_values(zlib) == int64_values(bzp2));
}

TEST_CASE("array() reads each corpus array the same with checksums verified", "[asdf_file]") {
  OpenOptions options;
  options.verify_checksums = true;
  for (const char* name : {"basic.asdf", "compressed.asdf", "complex.asdf", "int.asdf"}) {
    INFO(name);
    const AsdfFile file = AsdfFile::open(reference_file(name), options);
    for (const json& want : record(name)["raw"]["arrays"]) {
      const std::string path = want["path"];
      CHECK(file.array(*at(file, path), path).md5_le() == want["md5"].get<std::string>());
    }
  }
}

TEST_CASE("copies of an AsdfFile share the open file", "[asdf_file]") {
  std::optional<AsdfFile> copy;
  {
    const AsdfFile file = AsdfFile::open(reference_file("basic.asdf"));
    copy = file;
    CHECK(copy->tree() == file.tree());
  }
  CHECK(int64_values(copy->array(*copy->tree()->get("data"), "/data")).size() == 8);
}

TEST_CASE("resolved_tree replaces same-document and external references", "[asdf_file]") {
  TempDir dir;
  write_text(dir / "other.asdf", std::string(kHeader) +
                                     "--- !core/asdf-1.1.0\n"
                                     "payload:\n"
                                     "  items: [1, 2, 3]\n"
                                     "  label: from other\n"
                                     "...\n");
  write_text(dir / "main.asdf", std::string(kHeader) +
                                    "--- !core/asdf-1.1.0\n"
                                    "forward: {$ref: '#/later/value'}\n"
                                    "same: {$ref: '#/later'}\n"
                                    "chain: {$ref: '#/same'}\n"
                                    "external: {$ref: 'other.asdf#/payload/items'}\n"
                                    "whole: {$ref: 'other.asdf'}\n"
                                    "later: {value: 42, name: here}\n"
                                    "...\n");
  const AsdfFile file = AsdfFile::open((dir / "main.asdf").string());
  // The tree as written keeps the references.
  CHECK(tree::is_reference(*file.tree()->get("forward")));
  CHECK(tree::is_reference(*file.tree()->get("external")));

  const tree::NodePtr resolved = file.resolved_tree();
  REQUIRE(resolved);
  CHECK(resolved->get("forward")->as_int() == 42);
  CHECK(resolved->get("same") == resolved->get("later"));
  CHECK(resolved->get("chain") == resolved->get("later"));
  const tree::NodePtr items = resolved->get("external");
  REQUIRE(items->is_sequence());
  REQUIRE(items->size() == 3);
  CHECK(items->items()[2]->as_int() == 3);
  REQUIRE(resolved->get("whole")->is_mapping());
  CHECK(resolved->get("whole")->get("payload")->get("label")->as_string() == "from other");
  // Computed once: the same tree every time; the written tree is untouched.
  CHECK(file.resolved_tree() == resolved);
  CHECK(tree::is_reference(*file.tree()->get("same")));
}

TEST_CASE("a tag version this library does not know gives a warning", "[asdf_file]") {
  TempDir dir;
  write_text(dir / "future.asdf", std::string(kHeader) +
                                      "--- !core/asdf-1.1.0\n"
                                      "arr: !core/ndarray-1.9.0\n"
                                      "  data: [1, 2, 3]\n"
                                      "  datatype: int64\n"
                                      "  shape: [3]\n"
                                      "...\n");
  const AsdfFile file = AsdfFile::open((dir / "future.asdf").string());
  REQUIRE(file.warnings().size() == 1);
  const std::string& w = file.warnings()[0];
  INFO(w);
  CHECK(w.find("tag:stsci.edu:asdf/core/ndarray-1.9.0") != std::string::npos);
  CHECK(w.find("/arr") != std::string::npos);
  CHECK(w.find("1.1.0") != std::string::npos);
  // The array is still read, by the rules of the nearest known version.
  CHECK(int64_values(file.array(*file.tree()->get("arr"), "/arr")) ==
        std::vector<std::int64_t>{1, 2, 3});
}

TEST_CASE("a file without a tree opens with an empty mapping", "[asdf_file]") {
  TempDir dir;
  SECTION("header only") {
    write_text(dir / "empty.asdf", "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n");
    const AsdfFile file = AsdfFile::open((dir / "empty.asdf").string());
    REQUIRE(file.tree());
    CHECK(file.tree()->is_mapping());
    CHECK(file.tree()->size() == 0);
    CHECK(file.asdf_standard() == "1.6.0");
    CHECK(file.warnings().empty());
    CHECK(file.resolved_tree()->is_mapping());
  }
  SECTION("blocks but no tree") {
    const std::vector<std::uint8_t> bytes{1, 2, 3, 4};
    format::BlockToWrite block;
    block.pieces.push_back(bytes);
    format::write_container((dir / "blocks.asdf").string(), "", std::span(&block, 1));
    const AsdfFile file = AsdfFile::open((dir / "blocks.asdf").string());
    CHECK(file.tree()->is_mapping());
    CHECK(file.tree()->size() == 0);
    REQUIRE(file.container().blocks().size() == 1);
    CHECK(file.blocks().block(0).size() == 4);
  }
  SECTION("an empty YAML document") {
    write_text(dir / "null.asdf", std::string(kHeader) + "---\n...\n");
    const AsdfFile file = AsdfFile::open((dir / "null.asdf").string());
    CHECK(file.tree()->is_mapping());
    CHECK(file.tree()->size() == 0);
  }
}
