// write_container: what we write reads back through Container::open field by field (prologue,
// tree, block headers, checksums, padding, block index), and a failed write leaves nothing behind.
#include "asdfcore/format/container_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/block_index.h"
#include "asdfcore/format/container.h"
#include "support/catch.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::compression::md5;
using asdfcore::compression::Md5Digest;
using asdfcore::format::BlockToWrite;
using asdfcore::format::ChecksumConvention;
using asdfcore::format::ChecksumStatus;
using asdfcore::format::FileRange;
using asdfcore::format::Container;
using asdfcore::format::default_tree_padding;
using asdfcore::format::write_container;
using asdfcore::format::WriteOptions;
using fitsasdf::test::TempDir;

namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::string_view kTree =
    "%YAML 1.1\n"
    "%TAG ! tag:stsci.edu:asdf/\n"
    "--- !core/asdf-1.1.0\n"
    "greeting: hello\n"
    "...\n";

/// Bytes from the header through the `#ASDF_STANDARD` line, as the writer must emit them.
std::string head_for(const std::string& standard) {
  return "#ASDF 1.0.0\n#ASDF_STANDARD " + standard + "\n";
}

/// Return `n` bytes that compress well but are not constant (every codec has work to do).
Bytes pattern(std::size_t n, std::uint32_t seed = 1) {
  Bytes out(n);
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 64 == 0) x = x * 1664525u + 1013904223u;
    out[i] = static_cast<std::uint8_t>((x >> 24) + (i % 7));
  }
  return out;
}

std::span<const std::uint8_t> span_of(const Bytes& b) { return {b.data(), b.size()}; }

BlockToWrite block_of(const Bytes& data, std::string compression = "") {
  BlockToWrite b;
  b.pieces = {span_of(data)};
  b.compression = std::move(compression);
  return b;
}

Bytes to_bytes(std::span<const std::uint8_t> s) { return Bytes(s.begin(), s.end()); }

/// Write `bytes` into `dir`/input.bin and open it for reading (the caller closes it).
int open_input(const fitsasdf::test::TempDir& dir, const std::vector<std::uint8_t>& bytes) {
  const auto in_path = (dir / "input.bin").string();
  {
    std::ofstream f(in_path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const int fd = ::open(in_path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Run `write` and require an Error of category `code` with no file of any name left in `dir`.
template <typename F>
void require_refused(F&& write, ErrorCode code, const fs::path& dir) {
  try {
    write();
    FAIL("write_container accepted what it must refuse");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
  }
  CHECK(listing(dir).empty());
}

/// The 16 zero bytes of "no checksum".
constexpr Md5Digest kNoChecksum{};

/// A codec that fails on purpose, to interrupt a write half way through.
class FailingCodec final : public asdfcore::compression::Codec {
 public:
  std::string_view label() const noexcept override { return "fail"; }
  std::vector<std::uint8_t> compress(std::span<const std::uint8_t>,
                                     const asdfcore::compression::CompressOptions&) const override {
    throw Error(ErrorCode::kCompression, "fail: refusing to compress (test codec)");
  }
  std::uint64_t max_decoded_size(std::uint64_t stored) const noexcept override { return stored; }
  void decompress(std::span<const std::uint8_t>, std::span<std::uint8_t>) const override {
    throw Error(ErrorCode::kCompression, "fail: refusing to decompress (test codec)");
  }
};

}  // namespace

TEST_CASE("header, comments, tree and blocks read back field by field", "[writer]") {
  TempDir dir;
  const auto path = (dir / "out.asdf").string();
  const Bytes raw = pattern(10000, 1);
  const Bytes zl = pattern(20000, 2);
  const Bytes bz = pattern(30000, 3);
  const Bytes l4 = pattern(40000, 4);
  const std::vector<BlockToWrite> blocks = {block_of(raw), block_of(zl, "zlib"),
                                            block_of(bz, "bzp2"), block_of(l4, "lz4")};
  WriteOptions options;
  options.comments = {"made by the writer test", " second comment"};

  const auto offsets = write_container(path, kTree, blocks, options);

  const std::string head = head_for("1.6.0") + "#made by the writer test\n# second comment\n";
  const std::string file = read_all(path);
  REQUIRE(file.starts_with(head + std::string(kTree)));

  const Container c = Container::open(path);
  const auto& pro = c.prologue();
  CHECK(pro.file_format_version == "1.0.0");
  CHECK(pro.asdf_standard == "1.6.0");
  CHECK(pro.asdf_standard_declared);
  CHECK(pro.comments == std::vector<std::string>{"made by the writer test", " second comment"});
  REQUIRE(pro.tree_offset.has_value());
  CHECK(*pro.tree_offset == head.size());
  CHECK(c.tree_text() == kTree);
  CHECK(c.problems().empty());

  // Offsets: the first block starts after the default room for the tree to grow (a tenth of
  // it, at least 1 KiB, up to a 4 KiB boundary), each next block where the previous one's
  // allocated space ends.
  REQUIRE(offsets.size() == blocks.size());
  REQUIRE(c.blocks().size() == blocks.size());
  CHECK(offsets[0] == 4096);
  CHECK(offsets[0] == head.size() + kTree.size() +
                          default_tree_padding(head.size() + kTree.size(), kTree.size()));
  const std::vector<const Bytes*> data = {&raw, &zl, &bz, &l4};
  const std::vector<std::string> labels = {"", "zlib", "bzp2", "lz4"};
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    INFO("block " << i << " (" << labels[i] << ")");
    const auto& b = c.blocks()[i];
    const auto& h = b.header;
    CHECK(b.offset == offsets[i]);
    CHECK(file.compare(offsets[i], 4, "\323BLK") == 0);
    CHECK(h.header_size == 48);
    CHECK(h.flags == 0);
    CHECK_FALSE(h.streamed());
    CHECK(h.compression_label() == labels[i]);
    CHECK(h.data_size == data[i]->size());
    CHECK(h.allocated_size == h.used_size);
    CHECK(b.data_offset == offsets[i] + 54);
    CHECK(b.stored_size == h.used_size);
    CHECK(b.problem.empty());
    if (labels[i].empty()) {
      CHECK(h.used_size == data[i]->size());
    } else {
      CHECK(h.used_size < data[i]->size());  // the pattern compresses
    }
    const auto stored = c.stored_data(i);
    CHECK(h.checksum == md5(stored.span()));  // the default: MD5 of the bytes on disk
    CHECK(c.check(i) == ChecksumStatus::kMatchesStored);
    CHECK(to_bytes(c.data(i, true).span()) == *data[i]);
    if (i + 1 < blocks.size()) CHECK(offsets[i + 1] == b.data_offset + h.allocated_size);
  }

  // The block index follows the last block at once, lists every block, and ends the file.
  REQUIRE(c.block_index().has_value());
  const auto& index = *c.block_index();
  CHECK(index.parsed);
  CHECK(index.entries == offsets);
  const auto& last = c.blocks().back();
  CHECK(index.offset == last.data_offset + last.header.allocated_size);
  CHECK(c.block_index_valid());
  CHECK(file.substr(index.offset) == asdfcore::format::encode_block_index(offsets));
}

TEST_CASE("the #ASDF_STANDARD line carries the requested version", "[writer]") {
  TempDir dir;
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    INFO("standard " << standard);
    const auto path = (dir / ("v" + standard + ".asdf")).string();
    const Bytes d = pattern(100);
    const std::vector<BlockToWrite> blocks = {block_of(d)};
    WriteOptions options;
    options.asdf_standard = standard;
    const auto offsets = write_container(path, kTree, blocks, options);
    const std::string file = read_all(path);
    CHECK(file.starts_with(head_for(standard) + "%YAML 1.1\n"));
    const Container c = Container::open(path);
    CHECK(c.prologue().file_format_version == "1.0.0");
    CHECK(c.prologue().asdf_standard == standard);
    CHECK(c.prologue().comments.empty());
    REQUIRE(offsets.size() == 1);
    CHECK(offsets[0] == 4096);  // the default room after the tree
  }
}

TEST_CASE("checksum conventions: stored bytes, decoded data, none", "[writer]") {
  TempDir dir;
  const Bytes raw = pattern(5000, 7);
  const Bytes comp = pattern(50000, 8);
  const std::vector<BlockToWrite> blocks = {block_of(raw), block_of(comp, "zlib"),
                                            block_of(comp, "bzp2"), block_of(comp, "lz4")};

  SECTION("decoded data: the MD5 of what the block decodes to") {
    const auto path = (dir / "decoded.asdf").string();
    WriteOptions options;
    options.checksum = ChecksumConvention::kDecodedData;
    write_container(path, kTree, blocks, options);
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 4);
    CHECK(c.blocks()[0].header.checksum == md5(raw));
    CHECK(c.check(0) == ChecksumStatus::kMatchesStored);  // uncompressed: the same bytes
    for (std::size_t i = 1; i < 4; ++i) {
      INFO("block " << i);
      CHECK(c.blocks()[i].header.checksum == md5(comp));
      CHECK(c.blocks()[i].header.checksum != md5(c.stored_data(i).span()));
      CHECK(c.check(i) == ChecksumStatus::kMatchesDecoded);
      CHECK(to_bytes(c.data(i, true).span()) == comp);
    }
  }
  SECTION("none: sixteen zero bytes") {
    const auto path = (dir / "none.asdf").string();
    WriteOptions options;
    options.checksum = ChecksumConvention::kNone;
    write_container(path, kTree, blocks, options);
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
      INFO("block " << i);
      CHECK(c.blocks()[i].header.checksum == kNoChecksum);
      CHECK_FALSE(c.blocks()[i].header.has_checksum());
      CHECK(c.check(i) == ChecksumStatus::kUnchecked);
      CHECK(to_bytes(c.data(i, true).span()) == (i == 0 ? raw : comp));
    }
  }
  SECTION("stored bytes is the default") {
    const auto path = (dir / "stored.asdf").string();
    write_container(path, kTree, blocks);
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
      INFO("block " << i);
      CHECK(c.blocks()[i].header.checksum == md5(c.stored_data(i).span()));
      CHECK(c.check(i) == ChecksumStatus::kMatchesStored);
    }
  }
}

TEST_CASE("a compression level reaches the codec", "[writer]") {
  TempDir dir;
  const Bytes zeros(1 << 16, 0);
  BlockToWrite stored = block_of(zeros, "zlib");
  stored.level = 0;  // zlib level 0: stored blocks, larger than the input
  BlockToWrite best = block_of(zeros, "zlib");
  best.level = 9;
  const std::vector<BlockToWrite> blocks = {stored, best};
  const auto path = (dir / "levels.asdf").string();
  write_container(path, kTree, blocks);
  const Container c = Container::open(path);
  REQUIRE(c.blocks().size() == 2);
  CHECK(c.blocks()[0].header.used_size > zeros.size());
  CHECK(c.blocks()[1].header.used_size < 1024);
  CHECK(to_bytes(c.data(0, true).span()) == zeros);
  CHECK(to_bytes(c.data(1, true).span()) == zeros);
}

TEST_CASE("block_index=false writes no index, the blocks are still found", "[writer]") {
  TempDir dir;
  const auto path = (dir / "noindex.asdf").string();
  const Bytes a = pattern(300, 1);
  const Bytes b = pattern(400, 2);
  const std::vector<BlockToWrite> blocks = {block_of(a), block_of(b, "zlib")};
  WriteOptions options;
  options.block_index = false;
  const auto offsets = write_container(path, kTree, blocks, options);
  const Container c = Container::open(path);
  CHECK_FALSE(c.block_index().has_value());
  CHECK_FALSE(c.block_index_valid());
  CHECK(c.problems().empty());
  REQUIRE(c.blocks().size() == 2);
  CHECK(c.blocks()[0].offset == offsets[0]);
  CHECK(c.blocks()[1].offset == offsets[1]);
  const auto& last = c.blocks().back();
  CHECK(fs::file_size(path) == last.data_offset + last.header.allocated_size);
  CHECK(read_all(path).find("#ASDF BLOCK INDEX") == std::string::npos);
  CHECK(to_bytes(c.data(1, true).span()) == b);
}

TEST_CASE("zero blocks: tree only, no index, and a file with neither tree nor blocks", "[writer]") {
  TempDir dir;
  SECTION("tree only") {
    const auto path = (dir / "tree.asdf").string();
    const auto offsets = write_container(path, kTree, {});
    CHECK(offsets.empty());
    CHECK(read_all(path) == head_for("1.6.0") + std::string(kTree));
    const Container c = Container::open(path);
    CHECK(c.blocks().empty());
    CHECK_FALSE(c.block_index().has_value());
    CHECK(c.problems().empty());
    CHECK(c.tree_text() == kTree);
  }
  SECTION("tree only, with tree padding") {
    const auto path = (dir / "tree-pad.asdf").string();
    WriteOptions options;
    options.tree_padding = 100;
    write_container(path, kTree, {}, options);
    CHECK(fs::file_size(path) == head_for("1.6.0").size() + kTree.size() + 100);
    const Container c = Container::open(path);
    CHECK(c.blocks().empty());
    CHECK_FALSE(c.block_index().has_value());
    CHECK(c.tree_text() == kTree);
  }
  SECTION("no tree, no blocks") {
    const auto path = (dir / "empty.asdf").string();
    const auto offsets = write_container(path, "", {});
    CHECK(offsets.empty());
    CHECK(read_all(path) == head_for("1.6.0"));
    const Container c = Container::open(path);
    CHECK_FALSE(c.prologue().tree_offset.has_value());
    CHECK(c.tree_text().empty());
    CHECK(c.blocks().empty());
    CHECK_FALSE(c.block_index().has_value());
  }
  SECTION("no tree, blocks right after the header") {
    const auto path = (dir / "blocks-only.asdf").string();
    const Bytes d = pattern(500);
    const std::vector<BlockToWrite> blocks = {block_of(d), block_of(d, "bzp2")};
    const auto offsets = write_container(path, "", blocks);
    REQUIRE(offsets.size() == 2);
    CHECK(offsets[0] == head_for("1.6.0").size());
    const Container c = Container::open(path);
    CHECK_FALSE(c.prologue().tree_offset.has_value());
    REQUIRE(c.blocks().size() == 2);
    CHECK(c.block_index_valid());
    CHECK(to_bytes(c.data(1, true).span()) == d);
  }
}

TEST_CASE("block padding: allocated_size exceeds used_size by the padding, zero filled",
          "[writer]") {
  TempDir dir;
  const auto path = (dir / "padded.asdf").string();
  const Bytes a = pattern(1000, 1);
  const Bytes b = pattern(2000, 2);
  BlockToWrite first = block_of(a);
  first.padding = 123;
  BlockToWrite second = block_of(b, "zlib");
  second.padding = 4096;
  BlockToWrite third = block_of(a, "lz4");
  third.padding = 7;  // the last block: the index follows its padding
  const std::vector<BlockToWrite> blocks = {first, second, third};
  const auto offsets = write_container(path, kTree, blocks);

  const Container c = Container::open(path);
  REQUIRE(c.blocks().size() == 3);
  CHECK(c.problems().empty());
  const std::vector<std::uint64_t> pads = {123, 4096, 7};
  const std::string file = read_all(path);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("block " << i);
    const auto& blk = c.blocks()[i];
    CHECK(blk.offset == offsets[i]);
    CHECK(blk.header.allocated_size == blk.header.used_size + pads[i]);
    const std::string gap = file.substr(blk.data_offset + blk.header.used_size, pads[i]);
    CHECK(gap == std::string(pads[i], '\0'));
    CHECK(c.check(i) == ChecksumStatus::kMatchesStored);
  }
  CHECK(offsets[1] == c.blocks()[0].data_offset + 1000 + 123);
  CHECK(offsets[2] == c.blocks()[1].data_offset + c.blocks()[1].header.used_size + 4096);
  CHECK(to_bytes(c.data(0, true).span()) == a);
  CHECK(to_bytes(c.data(1, true).span()) == b);
  CHECK(to_bytes(c.data(2, true).span()) == a);
  REQUIRE(c.block_index().has_value());
  const auto& last = c.blocks().back();
  CHECK(c.block_index()->offset == last.data_offset + last.header.allocated_size);
  CHECK(c.block_index_valid());
}

TEST_CASE("tree padding: blank space between the tree and the first block", "[writer]") {
  TempDir dir;
  const Bytes d = pattern(256);
  const std::vector<BlockToWrite> blocks = {block_of(d)};
  for (const std::uint64_t pad : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{1000}}) {
    INFO("tree_padding " << pad);
    const auto path = (dir / ("pad" + std::to_string(pad) + ".asdf")).string();
    WriteOptions options;
    options.tree_padding = pad;
    const auto offsets = write_container(path, kTree, blocks, options);
    const std::size_t tree_end = head_for("1.6.0").size() + kTree.size();
    REQUIRE(offsets.size() == 1);
    CHECK(offsets[0] == tree_end + pad);
    const std::string file = read_all(path);
    const std::string gap = file.substr(tree_end, pad);
    // Whitespace only (blanks, and a newline to end the line), so the text part stays YAML.
    CHECK(gap.find_first_not_of(" \n") == std::string::npos);
    CHECK(gap.back() == '\n');
    const Container c = Container::open(path);
    CHECK(c.tree_text() == kTree);
    REQUIRE(c.blocks().size() == 1);
    CHECK(c.blocks()[0].offset == offsets[0]);
    CHECK(c.block_index_valid());
    CHECK(c.problems().empty());
  }
}

TEST_CASE("tree padding without a tree: the first block still follows the header at once",
          "[writer]") {
  // The standard: "If the file contains no tree, the first block must begin immediately after
  // the header with no padding." (python asdf refuses anything else as garbage after the
  // header). The writer may refuse the option or drop the padding, but must not write a file
  // that no reader accepts.
  TempDir dir;
  const auto path = (dir / "notree-pad.asdf").string();
  const Bytes d = pattern(256);
  const std::vector<BlockToWrite> blocks = {block_of(d)};
  WriteOptions options;
  options.tree_padding = 64;
  std::vector<std::uint64_t> offsets;
  try {
    offsets = write_container(path, "", blocks, options);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(listing(dir.path()).empty());
    return;
  }
  REQUIRE(offsets.size() == 1);
  CHECK(offsets[0] == head_for("1.6.0").size());
  const Container c = Container::open(path);
  REQUIRE(c.blocks().size() == 1);
  CHECK(to_bytes(c.data(0, true).span()) == d);
}

TEST_CASE("a block gathered from several pieces", "[writer]") {
  TempDir dir;
  const auto path = (dir / "pieces.asdf").string();
  const Bytes whole = pattern(30000, 5);
  const std::span<const std::uint8_t> all = span_of(whole);
  // Uneven pieces, one of them empty.
  const std::vector<std::span<const std::uint8_t>> pieces = {
      all.subspan(0, 1), all.subspan(1, 9999), all.subspan(10000, 0), all.subspan(10000, 20000)};
  std::vector<BlockToWrite> blocks;
  for (const std::string label : {"", "zlib", "bzp2", "lz4"}) {
    BlockToWrite b;
    b.pieces = pieces;
    b.compression = label;
    blocks.push_back(b);
  }
  const auto offsets = write_container(path, kTree, blocks);
  const Container c = Container::open(path);
  REQUIRE(c.blocks().size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("block " << i << " (" << blocks[i].compression << ")");
    CHECK(c.blocks()[i].offset == offsets[i]);
    CHECK(c.blocks()[i].header.data_size == whole.size());
    CHECK(to_bytes(c.data(i, true).span()) == whole);
    CHECK(c.check(i) == ChecksumStatus::kMatchesStored);
  }
  CHECK(c.blocks()[0].header.checksum == md5(whole));
  CHECK(to_bytes(c.stored_data(0).span()) == whole);
  CHECK(c.block_index_valid());
}

TEST_CASE("zero-length blocks", "[writer]") {
  TempDir dir;
  const auto path = (dir / "empty-blocks.asdf").string();
  const Bytes none;
  const Bytes d = pattern(100);
  BlockToWrite no_pieces;  // no pieces at all
  const std::vector<BlockToWrite> blocks = {
      block_of(none),        no_pieces,   block_of(none, "zlib"), block_of(none, "bzp2"),
      block_of(none, "lz4"), block_of(d), block_of(none)};
  const auto offsets = write_container(path, kTree, blocks);
  const Container c = Container::open(path);
  REQUIRE(c.blocks().size() == blocks.size());
  CHECK(c.problems().empty());
  const Md5Digest empty_md5 = md5(std::span<const std::uint8_t>());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    INFO("block " << i << " (" << blocks[i].compression << ")");
    const auto& b = c.blocks()[i];
    CHECK(b.offset == offsets[i]);
    CHECK(b.header.header_size == 48);
    CHECK(b.header.compression_label() == blocks[i].compression);
    if (i == 5) {
      CHECK(b.header.data_size == d.size());
      continue;
    }
    CHECK(b.header.data_size == 0);
    if (blocks[i].compression.empty()) {
      CHECK(b.header.used_size == 0);
      CHECK(b.header.checksum == empty_md5);
      if (i + 1 < blocks.size()) CHECK(offsets[i + 1] == offsets[i] + 54);
    }
    CHECK(b.header.allocated_size == b.header.used_size);
    CHECK(c.data(i, true).size() == 0);
  }
  CHECK(c.block_index_valid());
  REQUIRE(c.block_index().has_value());
  CHECK(c.block_index()->entries == offsets);
}

TEST_CASE("a streamed last block: flag set, data to the end of the file, no index", "[writer]") {
  TempDir dir;
  const Bytes a = pattern(1000, 1);
  const Bytes s = pattern(5000, 2);
  BlockToWrite streamed = block_of(s);
  streamed.streamed = true;

  SECTION("after another block") {
    const auto path = (dir / "streamed.asdf").string();
    const std::vector<BlockToWrite> blocks = {block_of(a, "zlib"), streamed};
    const auto offsets = write_container(path, kTree, blocks);  // block_index is on by default
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 2);
    CHECK(c.problems().empty());
    CHECK_FALSE(c.block_index().has_value());
    const auto& b = c.blocks()[1];
    CHECK(b.offset == offsets[1]);
    CHECK(b.header.streamed());
    CHECK((b.header.flags & asdfcore::format::kFlagStreamed) != 0);
    CHECK(b.header.compression_label().empty());
    CHECK(b.stored_size == s.size());
    CHECK(fs::file_size(path) == b.data_offset + s.size());
    CHECK(to_bytes(c.data(1, true).span()) == s);
    CHECK(to_bytes(c.data(0, true).span()) == a);
  }
  SECTION("as the only block, without a tree") {
    const auto path = (dir / "streamed-only.asdf").string();
    const std::vector<BlockToWrite> blocks = {streamed};
    const auto offsets = write_container(path, "", blocks);
    REQUIRE(offsets.size() == 1);
    CHECK(offsets[0] == head_for("1.6.0").size());
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 1);
    CHECK(c.blocks()[0].header.streamed());
    CHECK_FALSE(c.block_index().has_value());
    CHECK(to_bytes(c.data(0, true).span()) == s);
  }
  SECTION("empty") {
    const auto path = (dir / "streamed-empty.asdf").string();
    BlockToWrite empty;
    empty.streamed = true;
    const std::vector<BlockToWrite> blocks = {block_of(a), empty};
    write_container(path, kTree, blocks);
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 2);
    CHECK(c.blocks()[1].header.streamed());
    CHECK(c.data(1).size() == 0);
    CHECK_FALSE(c.block_index().has_value());
  }
}

TEST_CASE("a streamed block with padding never reads back longer than written", "[writer]") {
  // A streamed block runs to the end of the file, so zero padding after it would become part of
  // its data. The writer must refuse the padding or leave it out.
  TempDir dir;
  const auto path = (dir / "streamed-pad.asdf").string();
  const Bytes s = pattern(300);
  BlockToWrite streamed = block_of(s);
  streamed.streamed = true;
  streamed.padding = 50;
  const std::vector<BlockToWrite> blocks = {streamed};
  try {
    write_container(path, kTree, blocks);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(listing(dir.path()).empty());
    return;
  }
  const Container c = Container::open(path);
  REQUIRE(c.blocks().size() == 1);
  CHECK(c.data(0).size() == s.size());
  CHECK(to_bytes(c.data(0, true).span()) == s);
}

TEST_CASE("CRLF trees are accepted and kept byte for byte", "[writer]") {
  TempDir dir;
  const auto path = (dir / "crlf.asdf").string();
  const std::string tree = "%YAML 1.1\r\n--- {a: 1}\r\n...\r\n";
  const Bytes d = pattern(10);
  const std::vector<BlockToWrite> blocks = {block_of(d)};
  WriteOptions compact;
  compact.tree_padding = 0;
  const auto offsets = write_container(path, tree, blocks, compact);
  const Container c = Container::open(path);
  CHECK(c.tree_text() == tree);
  REQUIRE(c.blocks().size() == 1);
  CHECK(offsets[0] == head_for("1.6.0").size() + tree.size());
}

TEST_CASE("refused writes leave no file behind", "[writer][error]") {
  TempDir dir;
  const auto path = (dir / "out.asdf").string();
  const Bytes d = pattern(100);

  SECTION("a streamed block that is not last") {
    BlockToWrite streamed = block_of(d);
    streamed.streamed = true;
    const std::vector<BlockToWrite> blocks = {streamed, block_of(d)};
    require_refused([&] { write_container(path, kTree, blocks); }, ErrorCode::kInvalidArgument,
                    dir.path());
  }
  SECTION("a compressed streamed block (python asdf refuses to read one)") {
    BlockToWrite streamed = block_of(d, "zlib");
    streamed.streamed = true;
    const std::vector<BlockToWrite> blocks = {block_of(d), streamed};
    require_refused([&] { write_container(path, kTree, blocks); }, ErrorCode::kInvalidArgument,
                    dir.path());
  }
  SECTION("an unknown codec label") {
    const std::vector<BlockToWrite> blocks = {block_of(d), block_of(d, "zstd")};
    require_refused([&] { write_container(path, kTree, blocks); }, ErrorCode::kInvalidArgument,
                    dir.path());
  }
  SECTION("a label too long to be a codec") {
    const std::vector<BlockToWrite> blocks = {block_of(d, "zlib2")};
    require_refused([&] { write_container(path, kTree, blocks); }, ErrorCode::kInvalidArgument,
                    dir.path());
  }
  SECTION("a known label missing from the registry in use") {
    const std::vector<BlockToWrite> blocks = {block_of(d, "zlib")};
    require_refused(
        [&] { write_container(path, kTree, blocks, {}, asdfcore::compression::CodecRegistry()); },
        ErrorCode::kInvalidArgument, dir.path());
  }
  SECTION("a tree without %YAML") {
    require_refused([&] { write_container(path, "--- {a: 1}\n...\n", {}); },
                    ErrorCode::kInvalidArgument, dir.path());
  }
  SECTION("a tree without the ... end line") {
    require_refused([&] { write_container(path, "%YAML 1.1\n--- {a: 1}\n", {}); },
                    ErrorCode::kInvalidArgument, dir.path());
  }
  SECTION("a tree whose ... line has no newline") {
    require_refused([&] { write_container(path, "%YAML 1.1\n--- {a: 1}\n...", {}); },
                    ErrorCode::kInvalidArgument, dir.path());
  }
  SECTION("a tree that is not YAML at all") {
    require_refused([&] { write_container(path, "hello\n", {}); }, ErrorCode::kInvalidArgument,
                    dir.path());
  }
  SECTION("a folder that does not exist") {
    const auto missing = (dir / "no" / "such" / "out.asdf").string();
    require_refused([&] { write_container(missing, kTree, {}); }, ErrorCode::kIo, dir.path());
  }
}

TEST_CASE("an existing output file is replaced only on success", "[writer][atomic]") {
  TempDir dir;
  const auto target = dir / "out.asdf";
  const auto path = target.string();
  const std::string old_content = "previous content, not ASDF\n";
  { std::ofstream(target, std::ios::binary) << old_content; }
  const Bytes d = pattern(1000);

  // Refused before anything is written.
  {
    BlockToWrite streamed = block_of(d);
    streamed.streamed = true;
    const std::vector<BlockToWrite> blocks = {streamed, block_of(d)};
    CHECK_THROWS_AS(write_container(path, kTree, blocks), Error);
    CHECK(read_all(target) == old_content);
    CHECK(listing(dir.path()) == std::vector<std::string>{"out.asdf"});
  }
  // Failing half way: the first block is already written when the second block's codec throws.
  {
    auto codecs = asdfcore::compression::CodecRegistry::with_builtins();
    codecs.add(std::make_shared<FailingCodec>());
    const std::vector<BlockToWrite> blocks = {block_of(d, "zlib"), block_of(d, "fail")};
    try {
      write_container(path, kTree, blocks, {}, codecs);
      FAIL("the failing codec did not stop the write");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == ErrorCode::kCompression);
    }
    CHECK(read_all(target) == old_content);
    CHECK(listing(dir.path()) == std::vector<std::string>{"out.asdf"});
  }
  // Success replaces the file, and no temporary file remains.
  {
    const std::vector<BlockToWrite> blocks = {block_of(d, "zlib")};
    WriteOptions options;
    options.durable = false;
    write_container(path, kTree, blocks, options);
    CHECK(read_all(target).starts_with(head_for("1.6.0")));
    CHECK(listing(dir.path()) == std::vector<std::string>{"out.asdf"});
    const Container c = Container::open(path);
    REQUIRE(c.blocks().size() == 1);
    CHECK(to_bytes(c.data(0, true).span()) == d);
  }
  // A second success replaces the first.
  {
    write_container(path, kTree, {});
    CHECK(read_all(target) == head_for("1.6.0") + std::string(kTree));
    CHECK(listing(dir.path()) == std::vector<std::string>{"out.asdf"});
  }
}

TEST_CASE("blocks streamed from file ranges: copied by the kernel, hashed beside it",
          "[writer][file_range]") {
  fitsasdf::test::TempDir dir;
  // An input file whose middle holds the data (as a FITS image lies after its header).
  std::vector<std::uint8_t> input(3 * 1024 * 1024 + 77);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(i * 131 + 7);
  const int fd = open_input(dir, input);
  const std::uint64_t offset = 2880;
  const std::uint64_t length = input.size() - offset - 5;
  const std::span<const std::uint8_t> expected(input.data() + offset, length);
  const std::string head = "prefix";
  for (const std::string codec : {"", "zlib", "lz4"}) {
    for (const auto convention : {ChecksumConvention::kStoredBytes, ChecksumConvention::kNone}) {
      BlockToWrite block;
      block.pieces.push_back({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
      block.file_ranges.push_back(FileRange{fd, offset, length});
      block.compression = codec;
      block.padding = 10;
      WriteOptions options;
      options.checksum = convention;
      const auto out = (dir / ("out" + codec + ".asdf")).string();
      write_container(out, "", std::span(&block, 1), options);
      const Container c = Container::open(out);
      REQUIRE(c.blocks().size() == 1);
      const auto data = c.data(0, true);
      REQUIRE(data.size() == head.size() + length);
      CHECK(std::equal(head.begin(), head.end(), data.data()));
      CHECK(std::equal(expected.begin(), expected.end(), data.data() + head.size()));
      CHECK(c.blocks()[0].header.allocated_size == c.blocks()[0].header.used_size + 10);
      CHECK(c.check(0) == (convention == ChecksumConvention::kNone ? ChecksumStatus::kUnchecked
                                                                   : ChecksumStatus::kMatchesStored));
      CHECK(c.block_index_valid());
    }
  }
  ::close(fd);
}

TEST_CASE("large file-range blocks are hashed side by side, each header completed after",
          "[writer][file_range]") {
  // Five blocks of 17 MiB (hashed on threads of their own, at most one a thread: with 2, the
  // third waits for the first), a small one among them (hashed before its copy), a prefix
  // piece on one: every header carries its own block's MD5.
  fitsasdf::test::TempDir dir;
  const std::size_t size = 17u << 20;
  std::vector<std::uint8_t> input(5 * size + 4096);
  for (std::size_t i = 0; i < input.size(); ++i) {
    input[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
  }
  const int fd = open_input(dir, input);
  const std::string head = "prefix";
  for (const unsigned threads : {1u, 2u, 0u}) {
    std::vector<BlockToWrite> blocks;
    std::vector<std::vector<std::uint8_t>> expected;
    for (std::size_t b = 0; b < 6; ++b) {
      BlockToWrite block;
      const std::uint64_t offset = b == 5 ? 5 * size : b * size + b;
      const std::uint64_t length = b == 5 ? 4000 : size - b;
      std::vector<std::uint8_t> bytes;
      if (b == 2) {
        block.pieces.push_back({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
        bytes.assign(head.begin(), head.end());
      }
      block.file_ranges.push_back(FileRange{fd, offset, length});
      bytes.insert(bytes.end(), input.begin() + static_cast<std::ptrdiff_t>(offset),
                   input.begin() + static_cast<std::ptrdiff_t>(offset + length));
      expected.push_back(std::move(bytes));
      blocks.push_back(std::move(block));
    }
    std::swap(blocks[1], blocks[5]);  // the small block second
    std::swap(expected[1], expected[5]);
    WriteOptions options;
    options.threads = threads;
    const auto out = (dir / ("out" + std::to_string(threads) + ".asdf")).string();
    write_container(out, "", blocks, options);
    const Container c = Container::open(out);
    REQUIRE(c.blocks().size() == 6);
    for (std::size_t b = 0; b < 6; ++b) {
      INFO("threads " << threads << ", block " << b);
      const auto data = c.data(b, true);
      CHECK(std::equal(data.span().begin(), data.span().end(), expected[b].begin(),
                       expected[b].end()));
      CHECK(c.blocks()[b].header.checksum == md5(expected[b]));
      CHECK(c.check(b) == ChecksumStatus::kMatchesStored);
    }
    CHECK(c.block_index_valid());
  }
  ::close(fd);
}

TEST_CASE("many medium file-range blocks are hashed aside, the same bytes on any thread count",
          "[writer][file_range]") {
  // 150 blocks from 64 KiB up (hashed by the pool while the next are copied; more than the 64
  // that may wait for their digest at a time), small ones (hashed before their copy) and a
  // 17 MiB one among them, a piece before one of them.
  fitsasdf::test::TempDir dir;
  std::vector<std::uint8_t> input(64u << 20);
  for (std::size_t i = 0; i < input.size(); ++i) {
    input[i] = static_cast<std::uint8_t>((i * 2246822519u) >> 11);
  }
  const int fd = open_input(dir, input);
  const std::string head = "prefix";
  std::vector<std::string> outputs;
  for (const unsigned threads : {1u, 2u, 0u}) {
    std::vector<BlockToWrite> blocks;
    std::vector<std::vector<std::uint8_t>> expected;
    std::uint64_t at = 0;
    for (std::size_t b = 0; b < 180; ++b) {
      const std::uint64_t length = b == 90 ? (17u << 20)
                                   : b % 6 == 5 ? 100 + b  // small: hashed before the copy
                                                : (64u << 10) + b * 1531;
      REQUIRE(at + length <= input.size());
      BlockToWrite block;
      std::vector<std::uint8_t> bytes;
      if (b == 7) {
        block.pieces.push_back({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
        bytes.assign(head.begin(), head.end());
      }
      block.file_ranges.push_back(FileRange{fd, at, length});
      bytes.insert(bytes.end(), input.begin() + static_cast<std::ptrdiff_t>(at),
                   input.begin() + static_cast<std::ptrdiff_t>(at + length));
      expected.push_back(std::move(bytes));
      blocks.push_back(std::move(block));
      at += length + 13;
    }
    WriteOptions options;
    options.threads = threads;
    const auto out = (dir / ("out" + std::to_string(threads) + ".asdf")).string();
    write_container(out, "", blocks, options);
    const Container c = Container::open(out);
    REQUIRE(c.blocks().size() == blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      INFO("threads " << threads << ", block " << b);
      CHECK(c.blocks()[b].header.checksum == md5(expected[b]));
      CHECK(c.check(b) == ChecksumStatus::kMatchesStored);
    }
    outputs.push_back(read_all(out));
  }
  CHECK(outputs[0] == outputs[1]);
  CHECK(outputs[0] == outputs[2]);
  ::close(fd);
}

TEST_CASE("a block hashed aside whose file range the input does not hold is refused, no file left",
          "[writer][file_range][error]") {
  fitsasdf::test::TempDir dir;
  std::vector<std::uint8_t> input(1u << 20);
  const int fd = open_input(dir, input);
  // A medium block and a large one, each running past the end of the input, after good ones.
  for (const std::uint64_t length : {std::uint64_t{200} << 10, std::uint64_t{20} << 20}) {
    INFO("length " << length);
    std::vector<BlockToWrite> blocks(3);
    blocks[0].file_ranges.push_back(FileRange{fd, 0, 100u << 10});
    blocks[1].file_ranges.push_back(FileRange{fd, 100u << 10, 100u << 10});
    blocks[2].file_ranges.push_back(FileRange{fd, input.size() - (50u << 10), length});
    const auto out = (dir / "out.asdf").string();
    CHECK_THROWS_AS(write_container(out, "", blocks, WriteOptions{}), asdfcore::Error);
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()),
                        std::filesystem::directory_iterator{}) == 1);  // the input alone
  }
  ::close(fd);
}

TEST_CASE("a file range's transform is applied to every chunk, element aligned",
          "[writer][file_range]") {
  fitsasdf::test::TempDir dir;
  // 9 MiB + 6 bytes: three chunks of the 4 MiB stream buffer, the last one short.
  std::vector<std::uint8_t> input((9u << 20) + 6);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(i * 7 + 3);
  const int fd = open_input(dir, input);
  // Flip the top bit of the first byte of every 2-byte element, as for BZERO = 32768.
  // The chunks come in order, each with its offset in the range.
  // Failures are noted, not asserted, in the transform: a codec calls it from a worker thread.
  std::uint64_t next = 0;
  bool misplaced = false;
  const auto flip = [&next, &misplaced](std::span<std::uint8_t> chunk, std::uint64_t at) {
    if (at != next || chunk.size() % 2 != 0 || (at % (4u << 20)) != 0) misplaced = true;
    for (std::size_t i = 0; i < chunk.size(); i += 2) chunk[i] ^= 0x80;
    next += chunk.size();
  };
  std::vector<std::uint8_t> expected(input.begin() + 2, input.end());
  for (std::size_t i = 0; i < expected.size(); i += 2) expected[i] ^= 0x80;
  // A memory piece of an odd size goes first: the range's chunks still start at multiples of
  // 4 MiB from the range's own start, also when a codec reads the block in 1 MiB pieces.
  const std::string head = "odd";
  for (const std::string codec : {"", "zlib", "lz4", "bzp2"}) {
    INFO("compression '" << codec << "'");
    next = 0;
    misplaced = false;
    BlockToWrite block;
    block.pieces.push_back({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
    block.file_ranges.push_back(FileRange{fd, 2, input.size() - 2, flip});
    block.compression = codec;
    const auto out = (dir / ("t" + codec + ".asdf")).string();
    write_container(out, "", std::span(&block, 1));
    const Container c = Container::open(out);
    const auto data = c.data(0, true);
    REQUIRE(data.size() == head.size() + expected.size());
    CHECK(std::equal(head.begin(), head.end(), data.data()));
    CHECK(std::equal(expected.begin(), expected.end(), data.data() + head.size()));
    CHECK(c.check(0) == ChecksumStatus::kMatchesStored);
    CHECK(next == input.size() - 2);
    CHECK_FALSE(misplaced);
  }
  ::close(fd);
}

TEST_CASE("a compressed block whose file range the input does not hold is refused, no file left",
          "[writer][file_range][error]") {
  fitsasdf::test::TempDir dir;
  const int fd = open_input(dir, pattern(3u << 20));
  fitsasdf::test::TempDir out_dir;
  for (const std::string codec : {"zlib", "lz4", "bzp2"}) {
    INFO(codec);
    BlockToWrite block;
    // Declares 8 MiB where the file holds 3: the codec's reads fail part of the way through.
    block.file_ranges.push_back(FileRange{fd, 0, 8u << 20});
    block.compression = codec;
    WriteOptions options;
    options.threads = 2;
    require_refused(
        [&] { write_container((out_dir / "out.asdf").string(), "", std::span(&block, 1), options); },
        ErrorCode::kIo, out_dir.path());
  }
  ::close(fd);
}

TEST_CASE("on_data hears every data byte in steps of at most 4 MiB, then 0 before the commit",
          "[writer][on_data]") {
  fitsasdf::test::TempDir dir;
  const Bytes data = pattern(10u << 20);
  const int fd = open_input(dir, data);
  const auto flip = [](std::span<std::uint8_t> chunk, std::uint64_t) {
    for (auto& b : chunk) b ^= 0x80;
  };
  struct Way {
    std::string name;
    BlockToWrite block;
  };
  std::vector<Way> ways;
  ways.push_back({"memory", block_of(data)});
  ways.push_back({"memory, zlib", block_of(data, "zlib")});
  BlockToWrite copied;
  copied.file_ranges.push_back(FileRange{fd, 0, data.size()});
  ways.push_back({"file range", copied});
  BlockToWrite flipped;
  flipped.file_ranges.push_back(FileRange{fd, 0, data.size(), flip});
  ways.push_back({"transformed file range", flipped});
  copied.compression = "lz4";
  ways.push_back({"file range, lz4", copied});
  fitsasdf::test::TempDir out_dir;
  for (const Way& way : ways) {
    INFO(way.name);
    const fs::path out = out_dir / "out.asdf";
    std::vector<std::uint64_t> calls;
    WriteOptions options;
    options.threads = 2;
    options.on_data = [&](std::uint64_t n) {
      calls.push_back(n);
      CHECK(!fs::exists(out));  // every call comes before the file appears
    };
    write_container(out.string(), "", std::span(&way.block, 1), options);
    REQUIRE(!calls.empty());
    CHECK(calls.back() == 0);
    std::uint64_t sum = 0;
    for (const auto n : calls) {
      CHECK(n <= (4u << 20));
      sum += n;
    }
    CHECK(sum == data.size());
    CHECK(calls.size() >= 3);
    fs::remove(out);

    // A throw stops the write half way: nothing is left behind.
    options.on_data = [](std::uint64_t n) {
      if (n > 0) throw Error(ErrorCode::kCancelled, "stop");
    };
    require_refused([&] { write_container(out.string(), "", std::span(&way.block, 1), options); },
                    ErrorCode::kCancelled, out_dir.path());
  }
  ::close(fd);
}

TEST_CASE("the default room after a tree: a tenth, at least 1 KiB, to a 4 KiB boundary",
          "[writer]") {
  CHECK(default_tree_padding(100, 60) == 4096 - 100);
  CHECK(default_tree_padding(3000, 2900) == 4096 - 3000);
  CHECK(default_tree_padding(3100, 3000) == 8192 - 3100);  // 1 KiB would cross 4096
  CHECK(default_tree_padding(100'000, 99'000) == 110'592 - 100'000);
  CHECK((100'000 + default_tree_padding(100'000, 99'000)) % 4096 == 0);
  // Without blocks after it the tree gets none: it can grow into the end of the file.
  TempDir dir;
  const auto path = (dir / "tree-only.asdf").string();
  write_container(path, kTree, {});
  CHECK(std::filesystem::file_size(path) == head_for("1.6.0").size() + kTree.size());
}
