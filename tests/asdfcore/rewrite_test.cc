// Whole-file rewrites: defragment (compact layout, recompression), inline_arrays, and the
// exploded form there and back. Every rewrite must keep every array's md5 as AsdfFile reads it.
#include "asdfcore/rewrite.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/walk.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace asdfcore;
using fitsasdf::test::corpus_dir;
using fitsasdf::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string reference_file(const std::string& name) {
  return (corpus_dir() / "asdf-reference" / "1.6.0" / name).string();
}

/// The md5 (corpus convention) of every ndarray of the file, by the first path reaching it.
std::map<std::string, std::string> array_md5s(const AsdfFile& file) {
  std::map<std::string, std::string> out;
  std::set<const tree::Node*> seen;
  tree::walk(file.tree(), [&](const tree::NodePtr& node, const std::string& path) {
    if (!tree::is_ndarray(*node)) return true;
    if (seen.insert(node.get()).second) out[path] = file.array(*node, path).md5_le();
    return false;
  });
  return out;
}

std::map<std::string, std::string> array_md5s(const std::string& path) {
  return array_md5s(AsdfFile::open(path));
}

/// The md5 of `a` as `md5_le()` computes it, but with every NaN replaced by the positive quiet
/// NaN. YAML's `.nan` carries no sign: PyYAML reads it as `-inf/inf`, the negative NaN on x86,
/// and our reader does the same, so an inlined NaN keeps its NaN-ness but not its sign bit.
std::string md5_nan_blind(const ndarray::NDArray& a) {
  std::vector<std::uint8_t> bytes = a.to_c_order(ndarray::ByteOrder::kLittle);
  std::size_t unit = 0;
  switch (a.dtype().kind()) {
    case ndarray::DTypeKind::kFloat16:
      unit = 2;
      break;
    case ndarray::DTypeKind::kFloat32:
    case ndarray::DTypeKind::kComplex64:
      unit = 4;
      break;
    case ndarray::DTypeKind::kFloat64:
    case ndarray::DTypeKind::kComplex128:
      unit = 8;
      break;
    default:
      break;
  }
  if (unit != 0) {
    const int mantissa_bits = unit == 2 ? 10 : unit == 4 ? 23 : 52;
    const int exponent_bits = static_cast<int>(unit) * 8 - 1 - mantissa_bits;
    const std::uint64_t mantissa = (std::uint64_t{1} << mantissa_bits) - 1;
    const std::uint64_t exponent = ((std::uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
    const std::uint64_t quiet_nan = exponent | (std::uint64_t{1} << (mantissa_bits - 1));
    for (std::size_t at = 0; at + unit <= bytes.size(); at += unit) {
      std::uint64_t bits = 0;
      for (std::size_t k = 0; k < unit; ++k) bits |= std::uint64_t{bytes[at + k]} << (8 * k);
      if ((bits & exponent) != exponent || (bits & mantissa) == 0) continue;
      for (std::size_t k = 0; k < unit; ++k) bytes[at + k] = (quiet_nan >> (8 * k)) & 0xff;
    }
  }
  return compression::to_hex(compression::md5(bytes));
}

std::map<std::string, std::string> nan_blind_md5s(const AsdfFile& file) {
  std::map<std::string, std::string> out;
  std::set<const tree::Node*> seen;
  tree::walk(file.tree(), [&](const tree::NodePtr& node, const std::string& path) {
    if (!tree::is_ndarray(*node)) return true;
    if (seen.insert(node.get()).second) out[path] = md5_nan_blind(file.array(*node, path));
    return false;
  });
  return out;
}

/// The names in `dir`, sorted.
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

template <typename T>
std::span<const std::uint8_t> bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(T)};
}

/// Write a file that wastes space: tree padding, padded blocks, a compressed block and a
/// streamed last block (so no block index).
struct Fragmented {
  std::vector<std::int32_t> a;
  std::vector<double> b;
  std::vector<double> s;
};

Fragmented write_fragmented(const std::string& path) {
  Fragmented f;
  for (int i = 0; i < 10; ++i) f.a.push_back(i * 1000 - 3);
  for (int i = 0; i < 12; ++i) f.b.push_back(i * 0.25);
  for (int i = 0; i < 20; ++i) f.s.push_back(-i * 1.5);  // 5 rows of 4

  using ndarray::DType;
  using ndarray::DTypeKind;
  const tree::NodePtr root = tree::Node::make_mapping();
  ndarray::NDArrayNodeSpec a{
      .dtype = DType::numeric(DTypeKind::kInt32, ndarray::ByteOrder::kLittle), .shape = {10}};
  a.source = std::int64_t{0};
  root->set("a", ndarray::make_ndarray_node(a));
  ndarray::NDArrayNodeSpec b{
      .dtype = DType::numeric(DTypeKind::kFloat64, ndarray::ByteOrder::kLittle), .shape = {3, 4}};
  b.source = std::int64_t{1};
  root->set("b", ndarray::make_ndarray_node(b));
  ndarray::NDArrayNodeSpec s{
      .dtype = DType::numeric(DTypeKind::kFloat64, ndarray::ByteOrder::kLittle), .shape = {0, 4}};
  s.source = std::int64_t{-1};
  s.streamed = true;
  root->set("s", ndarray::make_ndarray_node(s));
  // A second view of block 0: the last five elements.
  ndarray::NDArrayNodeSpec tail{
      .dtype = DType::numeric(DTypeKind::kInt32, ndarray::ByteOrder::kLittle), .shape = {5}};
  tail.source = std::int64_t{0};
  tail.offset = 20;
  root->set("tail", ndarray::make_ndarray_node(tail));

  std::vector<format::BlockToWrite> blocks(3);
  blocks[0].pieces.push_back(bytes_of(f.a));
  blocks[0].padding = 100;
  blocks[1].pieces.push_back(bytes_of(f.b));
  blocks[1].compression = "zlib";
  blocks[1].padding = 37;
  blocks[2].pieces.push_back(bytes_of(f.s));
  blocks[2].streamed = true;
  AsdfWriteOptions options;
  options.layout.tree_padding = 500;
  options.layout.durable = false;
  write_asdf(path, root, blocks, options);
  return f;
}

/// Check that `path` is laid out without a wasted byte and with a valid index.
void check_compact(const std::string& path) {
  INFO("file " << path);
  const format::Container c = format::Container::open(path, format::ReadOptions{.strict = true});
  CHECK(c.problems().empty());
  const auto& blocks = c.blocks();
  REQUIRE_FALSE(blocks.empty());
  REQUIRE(c.prologue().tree_offset.has_value());
  // No tree padding: the first block begins where the tree's "..." line ends.
  CHECK(blocks[0].offset == *c.prologue().tree_offset + c.prologue().tree_size);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    INFO("block " << i);
    CHECK_FALSE(blocks[i].header.streamed());
    CHECK(blocks[i].header.allocated_size == blocks[i].header.used_size);
    if (i > 0) {
      CHECK(blocks[i].offset == blocks[i - 1].data_offset + blocks[i - 1].header.allocated_size);
    }
  }
  REQUIRE(c.block_index().has_value());
  CHECK(c.block_index_valid());
  std::vector<std::uint64_t> offsets;
  for (const auto& b : blocks) offsets.push_back(b.offset);
  CHECK(c.block_index()->entries == offsets);
  // The index follows the last block directly.
  const auto& last = blocks.back();
  const std::string_view rest(reinterpret_cast<const char*>(c.bytes().data()) + last.data_offset +
                                  last.header.allocated_size,
                              c.bytes().size() - last.data_offset - last.header.allocated_size);
  CHECK(rest.starts_with("#ASDF BLOCK INDEX"));
}

RewriteOptions fast_options() {
  RewriteOptions o;
  o.layout.durable = false;
  return o;
}

}  // namespace

TEST_CASE("defragment packs padded and streamed blocks into a compact file", "[rewrite]") {
  TempDir dir;
  const std::string input = (dir / "fragmented.asdf").string();
  const Fragmented f = write_fragmented(input);
  {
    // The input really is fragmented.
    const format::Container c = format::Container::open(input);
    REQUIRE(c.blocks().size() == 3);
    CHECK(c.blocks()[0].header.allocated_size > c.blocks()[0].header.used_size);
    CHECK(c.blocks()[2].header.streamed());
    CHECK(c.blocks()[0].offset > *c.prologue().tree_offset + c.prologue().tree_size);
  }
  const auto want = array_md5s(input);
  REQUIRE(want.size() == 4);

  const std::string output = (dir / "compact.asdf").string();
  defragment(input, output, fast_options());
  check_compact(output);
  CHECK(array_md5s(output) == want);

  const AsdfFile out = AsdfFile::open(output);
  CHECK(out.warnings().empty());
  // '*' is resolved to the number of rows, and the source names the block from the start.
  const tree::NodePtr s = out.tree()->get("s");
  REQUIRE(s->get("shape")->items().size() == 2);
  CHECK(s->get("shape")->items()[0]->kind() == tree::NodeKind::kInt);
  CHECK(s->get("shape")->items()[0]->as_int() == 5);
  CHECK(s->get("source")->as_int() == 2);
  const auto arr = out.array(*s, "/s");
  CHECK_FALSE(arr.is_streamed());
  CHECK(arr.shape() == std::vector<std::uint64_t>{5, 4});
  // Compression is kept by default.
  CHECK(out.container().blocks()[1].header.compression_label() == "zlib");
  CHECK(out.container().blocks()[0].header.compression_label().empty());
  // The view keeps its offset into the shared block.
  CHECK(out.tree()->get("tail")->get("offset")->as_int() == 20);
  // And the values are the ones written.
  const auto a_bytes =
      out.array(*out.tree()->get("a"), "/a").to_c_order(ndarray::native_byte_order());
  CHECK(std::equal(a_bytes.begin(), a_bytes.end(), bytes_of(f.a).begin(), bytes_of(f.a).end()));
  const auto s_bytes = arr.to_c_order(ndarray::native_byte_order());
  CHECK(std::equal(s_bytes.begin(), s_bytes.end(), bytes_of(f.s).begin(), bytes_of(f.s).end()));
}

TEST_CASE("defragment recompresses with every codec and keeps the arrays", "[rewrite]") {
  TempDir dir;
  const std::string input = (dir / "fragmented.asdf").string();
  write_fragmented(input);
  const auto want = array_md5s(input);
  for (const std::string codec : {"", "zlib", "bzp2", "lz4"}) {
    INFO("codec '" << codec << "'");
    const std::string output = (dir / ("out_" + codec + ".asdf")).string();
    RewriteOptions options = fast_options();
    options.compression = codec;
    defragment(input, output, options);
    check_compact(output);
    const AsdfFile out = AsdfFile::open(output);
    for (const auto& b : out.container().blocks()) CHECK(b.header.compression_label() == codec);
    CHECK(array_md5s(out) == want);
    // Every block's checksum is right.
    for (std::size_t i = 0; i < out.container().blocks().size(); ++i) {
      const auto status = out.container().check(i);
      CHECK((status == format::ChecksumStatus::kMatchesStored ||
             status == format::ChecksumStatus::kMatchesDecoded));
    }
  }
  // The compressed corpus file, recompressed both ways.
  const auto corpus_want = array_md5s(reference_file("compressed.asdf"));
  for (const std::string codec : {"", "lz4"}) {
    const std::string output = (dir / ("corpus_" + codec + ".asdf")).string();
    RewriteOptions options = fast_options();
    options.compression = codec;
    defragment(reference_file("compressed.asdf"), output, options);
    check_compact(output);
    CHECK(array_md5s(output) == corpus_want);
  }
}

TEST_CASE("defragment pulls the blocks of an exploded file in", "[rewrite]") {
  TempDir dir;
  const std::string output = (dir / "joined.asdf").string();
  defragment(reference_file("exploded.asdf"), output, fast_options());
  check_compact(output);
  const AsdfFile out = AsdfFile::open(output);
  CHECK(out.container().blocks().size() == 1);
  CHECK(out.tree()->get("data")->get("source")->as_int() == 0);
  CHECK(array_md5s(out) == array_md5s(reference_file("exploded.asdf")));
}

TEST_CASE("inline_arrays writes every array into the tree and no block", "[rewrite]") {
  TempDir dir;
  for (const std::string name :
       {"basic.asdf", "complex.asdf", "structured.asdf", "ascii.asdf", "unicode_bmp.asdf",
        "float.asdf", "int.asdf", "endian.asdf", "shared.asdf"}) {
    INFO("file " << name);
    const std::string output = (dir / name).string();
    inline_arrays(reference_file(name), output, fast_options());
    const AsdfFile out = AsdfFile::open(output);
    CHECK(out.container().blocks().empty());
    CHECK(out.warnings().empty());
    const AsdfFile original = AsdfFile::open(reference_file(name));
    CHECK(nan_blind_md5s(out) == nan_blind_md5s(original));
    if (name != "float.asdf") {
      CHECK(array_md5s(out) == array_md5s(original));
    } else {
      // float.asdf holds a positive NaN that `.nan` cannot keep (see md5_nan_blind).
      CHECK(array_md5s(out) != array_md5s(original));
    }
    tree::walk(out.tree(), [&](const tree::NodePtr& node, const std::string& path) {
      if (!tree::is_ndarray(*node)) return true;
      INFO("array " << path);
      CHECK(out.array(*node, path).is_inline());
      if (node->is_mapping()) {
        CHECK(node->get("source") == nullptr);
        CHECK(node->get("data") != nullptr);
      }
      return false;
    });
  }
}

TEST_CASE("explode then implode keeps every array", "[rewrite]") {
  TempDir dir;
  for (const std::string name : {"basic.asdf", "compressed.asdf", "int.asdf", "shared.asdf",
                                 "complex.asdf", "stream.asdf"}) {
    INFO("file " << name);
    const std::string input = reference_file(name);
    const auto want = array_md5s(input);
    const std::size_t n_blocks = AsdfFile::open(input).container().blocks().size();
    const fs::path folder = dir / fs::path(name).stem().string();
    fs::create_directory(folder);

    const std::string tree_file = (folder / "split.asdf").string();
    const std::vector<std::string> written = explode(input, tree_file, fast_options());
    REQUIRE(written.size() == n_blocks + 1);
    CHECK(written[0] == tree_file);
    std::set<std::string> expected{"split.asdf"};
    for (std::size_t i = 0; i < n_blocks; ++i) {
      char block_name[32];
      std::snprintf(block_name, sizeof block_name, "split%04zu.asdf", i);
      CHECK(written[i + 1] == (folder / block_name).string());
      CHECK(AsdfFile::open(written[i + 1]).container().blocks().size() == 1);
      expected.insert(block_name);
    }
    CHECK(listing(folder) == expected);

    const AsdfFile exploded = AsdfFile::open(tree_file);
    CHECK(exploded.container().blocks().empty());
    CHECK(array_md5s(exploded) == want);
    tree::walk(exploded.tree(), [&](const tree::NodePtr& node, const std::string& path) {
      if (!tree::is_ndarray(*node)) return true;
      INFO("array " << path);
      CHECK(exploded.array(*node, path).source().kind == ndarray::SourceKind::kExternal);
      return false;
    });

    const std::string joined = (folder / "joined.asdf").string();
    implode(tree_file, joined, fast_options());
    const AsdfFile back = AsdfFile::open(joined);
    CHECK(back.container().blocks().size() == n_blocks);
    CHECK(array_md5s(back) == want);
    check_compact(joined);
  }
}

TEST_CASE("explode into a folder that cannot be written throws io and leaves nothing",
          "[rewrite]") {
  TempDir dir;
  const std::string input = reference_file("compressed.asdf");
  auto expect_io = [&](const fs::path& output) {
    INFO("output " << output);
    const auto before = listing(dir.path());
    try {
      (void)explode(input, output.string(), fast_options());
      FAIL("explode succeeded");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == ErrorCode::kIo);
    }
    CHECK(listing(dir.path()) == before);
  };

  SECTION("a read-only folder") {
    fs::create_directory(dir / "ro");
    fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    if (access((dir / "ro").c_str(), W_OK) == 0) {
      // Root ignores permissions; a folder of /proc refuses new files even to root.
      expect_io(fs::path("/proc/self") / "out.asdf");
    } else {
      expect_io(dir / "ro" / "out.asdf");
      CHECK(listing(dir / "ro").empty());
    }
    fs::permissions(dir / "ro", fs::perms::owner_all);
  }
  SECTION("a folder that does not exist") { expect_io(dir / "nowhere" / "out.asdf"); }
  SECTION("a 'folder' that is a regular file") {
    std::ofstream(dir / "plain") << "x";
    expect_io(dir / "plain" / "out.asdf");
  }
  SECTION("the tree file's name is taken by a folder: no block file is left") {
    fs::create_directory(dir / "out.asdf");
    expect_io(dir / "out.asdf");
    CHECK(listing(dir / "out.asdf").empty());
  }
}
