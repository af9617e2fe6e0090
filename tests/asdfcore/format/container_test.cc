// Container on real files of the corpus: prologue, tree text, blocks, index, zero-copy data.
#include "asdfcore/format/container.h"

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "support/catch.h"
#include "support/paths.h"

using namespace asdfcore;
using namespace asdfcore::format;
using fitsasdf::test::corpus_dir;

namespace {
Container open_ref(const std::string& version, const std::string& name) {
  return Container::open((corpus_dir() / "asdf-reference" / version / name).string());
}
std::string md5_hex(const io::Buffer& b) { return compression::to_hex(compression::md5(b.span())); }
}  // namespace

TEST_CASE("prologue: versions, comments and the tree's position", "[container]") {
  const Container c = open_ref("1.6.0", "basic.asdf");
  CHECK(c.prologue().file_format_version == "1.0.0");
  CHECK(c.prologue().asdf_standard == "1.6.0");
  CHECK(c.prologue().asdf_standard_declared);
  REQUIRE(c.prologue().tree_offset.has_value());
  CHECK(c.tree_text().starts_with("%YAML 1.1"));
  CHECK(c.tree_text().ends_with("\n...\n"));
  REQUIRE(c.blocks().size() == 1);
  CHECK(c.blocks()[0].offset == 664);
  CHECK(c.block_index_valid());
  CHECK(c.problems().empty());
}

TEST_CASE("an uncompressed block is a zero-copy view that outlives the container",
          "[container]") {
  io::Buffer data;
  const std::uint8_t* file_start = nullptr;
  {
    const Container c = open_ref("1.6.0", "basic.asdf");
    file_start = c.bytes().data();
    data = c.data(0, true);
    CHECK(data.data() == file_start + c.blocks()[0].data_offset);
  }
  // The mapping is still alive through `data`.
  CHECK(data.size() == 64);
  CHECK(md5_hex(data) == md5_hex(data));
  CHECK(data.data()[0] == 0);
}

TEST_CASE("compressed blocks decode, checksums are verified", "[container]") {
  const Container c = open_ref("1.6.0", "compressed.asdf");
  REQUIRE(c.blocks().size() == 2);
  CHECK(c.blocks()[0].header.compression_label() == "zlib");
  CHECK(c.blocks()[1].header.compression_label() == "bzp2");
  const auto a = c.data(0, true);
  const auto b = c.data(1, true);
  CHECK(a.size() == 1024);
  CHECK(md5_hex(a) == "7f1a85bed4cf6d03b940e3d7f95dbc5a");
  CHECK(md5_hex(b) == md5_hex(a));
  CHECK(c.check(0) != ChecksumStatus::kMismatch);
}

TEST_CASE("a streamed block runs to the end of the file and has no index", "[container]") {
  const Container c = open_ref("1.6.0", "stream.asdf");
  REQUIRE(c.blocks().size() == 1);
  CHECK(c.blocks()[0].header.streamed());
  CHECK(c.blocks()[0].stored_size == 512);
  CHECK(c.data(0).size() == 512);
  CHECK_FALSE(c.block_index().has_value());
}

TEST_CASE("files with no blocks and a tree only", "[container]") {
  const Container c = open_ref("1.6.0", "scalars.asdf");
  CHECK(c.blocks().empty());
  CHECK_FALSE(c.block_index().has_value());
  CHECK_FALSE(c.tree_text().empty());
}

TEST_CASE("a stale block index (edited tree) is ignored in favour of the headers",
          "[container]") {
  // block0.asdf's tree was edited by hand: its index still says 359, the block is at 373.
  const Container c = Container::open((corpus_dir() / "asdf-pyasdf" / "block0.asdf").string());
  REQUIRE(c.blocks().size() == 1);
  CHECK(c.blocks()[0].offset == 373);
  REQUIRE(c.block_index().has_value());
  CHECK(c.block_index()->entries == std::vector<std::uint64_t>{359});
  CHECK_FALSE(c.block_index_valid());
  REQUIRE(c.problems().size() == 1);
  CHECK(c.problems()[0].kind == LayoutProblem::Kind::kStaleIndex);
  CHECK(c.data(0, true).size() == 80000);
}

TEST_CASE("a block with a wrong checksum is named with its offset", "[container]") {
  const Container c = Container::open((corpus_dir() / "asdf-pyasdf" / "block1.asdf").string());
  REQUIRE(c.blocks().size() == 1);
  // block1.asdf is intact; flip the stored digest in a copy of its bytes.
  std::vector<std::uint8_t> bytes(c.bytes().span().begin(), c.bytes().span().end());
  bytes[c.blocks()[0].offset + 6 + 32] ^= 0xff;
  const Container bad = Container::from_buffer(io::Buffer::from_vector(bytes), "bad.asdf");
  CHECK(bad.check(0) == ChecksumStatus::kMismatch);
  try {
    bad.data(0, true);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kChecksum);
    CHECK(e.context().block == 0u);
    CHECK(e.context().offset == c.blocks()[0].offset);
    CHECK(std::string(e.what()).find("bad.asdf") != std::string::npos);
  }
  CHECK(bad.data(0, false).size() == 80000);  // reading without verification still works
}
