// Arrays read with NDArray::Load::kDeferred: a large compressed block is checked against its
// declared size only, then either decoded on first use (every accessor works as for an array
// read at once) or streamed piece by piece when the array is the whole block in C order. The
// checksum of a streamed block is verified in both conventions, and a mismatch or a corrupt
// stream is an error after the pieces already handed on.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/format/container.h"
#include "asdfcore/ndarray/ndarray.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using namespace asdfcore;
using ndarray::ByteOrder;
using ndarray::DType;
using ndarray::DTypeKind;
using ndarray::NDArray;
using fitsasdf::test::TempDir;

namespace {

/// 18 MiB of float32 values, little-endian bytes: above the 16 MiB from which blocks stream.
constexpr std::size_t kElements = std::size_t{18} << 18;

std::vector<std::uint8_t> values() {
  std::vector<std::uint8_t> out(kElements * 4);
  for (std::size_t i = 0; i < kElements; ++i) {
    const float v = static_cast<float>(i % 65536) * 0.5f - static_cast<float>(i / 65536);
    std::memcpy(out.data() + i * 4, &v, 4);
  }
  return out;
}

/// Write `data` as one block compressed with `codec` and three arrays over it: `whole` (all of
/// it), `tail` (from element 10 on), and `small` in a small uncompressed block of its own.
std::string write_file(const TempDir& dir, const std::vector<std::uint8_t>& data,
                       const std::string& codec, format::ChecksumConvention convention) {
  const tree::NodePtr root = tree::Node::make_mapping();
  ndarray::NDArrayNodeSpec whole{.dtype = DType::numeric(DTypeKind::kFloat32, ByteOrder::kLittle),
                                 .shape = {kElements / 1024, 1024}};
  root->set("whole", ndarray::make_ndarray_node(whole));
  ndarray::NDArrayNodeSpec tail{.dtype = DType::numeric(DTypeKind::kFloat32, ByteOrder::kLittle),
                                .shape = {kElements - 10}};
  tail.offset = 40;
  root->set("tail", ndarray::make_ndarray_node(tail));
  ndarray::NDArrayNodeSpec small{.dtype = DType::numeric(DTypeKind::kUInt8, ByteOrder::kBig),
                                 .shape = {4}};
  small.source = std::int64_t{1};
  root->set("small", ndarray::make_ndarray_node(small));
  static const std::vector<std::uint8_t> four{1, 2, 3, 4};
  std::vector<format::BlockToWrite> blocks(2);
  blocks[0].pieces.push_back(data);
  blocks[0].compression = codec;
  blocks[1].pieces.push_back(four);
  AsdfWriteOptions options;
  options.layout.durable = false;
  options.layout.checksum = convention;
  const std::string path = (dir / ("deferred-" + codec + ".asdf")).string();
  write_asdf(path, root, blocks, options);
  return path;
}

std::vector<std::uint8_t> streamed(const NDArray& a, std::size_t* pieces = nullptr) {
  std::vector<std::uint8_t> out;
  std::size_t count = 0;
  a.stream_bytes([&](std::span<const std::uint8_t> piece) {
    out.insert(out.end(), piece.begin(), piece.end());
    ++count;
  });
  if (pieces) *pieces = count;
  return out;
}

}  // namespace

TEST_CASE("a deferred whole-block array streams its compressed block in pieces",
          "[ndarray][deferred]") {
  TempDir dir;
  const std::vector<std::uint8_t> data = values();
  const std::string codec = GENERATE("zlib", "lz4", "bzp2");
  const auto convention = GENERATE(format::ChecksumConvention::kStoredBytes,
                                   format::ChecksumConvention::kDecodedData);
  const std::string path = write_file(dir, data, codec, convention);
  OpenOptions options;
  options.verify_checksums = true;
  const AsdfFile file = AsdfFile::open(path, options);

  const NDArray whole = file.array(*file.tree()->get("whole"), "/whole", NDArray::Load::kDeferred);
  CHECK(whole.can_stream());
  CHECK(whole.shape() == std::vector<std::uint64_t>{kElements / 1024, 1024});
  std::size_t pieces = 0;
  const std::vector<std::uint8_t> got = streamed(whole, &pieces);
  const bool same = got == data;  // (no 18 MiB expansion on failure)
  CHECK(same);
  CHECK(pieces >= 4);  // 18 MiB in pieces of 4 MiB (zlib, bzp2) or python's 4 MiB chunks (lz4)

  // Decoded on first use, every accessor works, and it is the same bytes again.
  const bool same_copy = whole.to_c_order(ByteOrder::kLittle) == data;
  CHECK(same_copy);
  CHECK(whole.data().size() == data.size());

  // A view into the block cannot stream; it decodes on first use.
  const NDArray tail = file.array(*file.tree()->get("tail"), "/tail", NDArray::Load::kDeferred);
  CHECK_FALSE(tail.can_stream());
  CHECK(tail.size() == kElements - 10);
  const std::vector<std::uint8_t> tail_bytes = tail.to_c_order(ByteOrder::kLittle);
  const bool same_tail = std::equal(tail_bytes.begin(), tail_bytes.end(), data.begin() + 40);
  CHECK(same_tail);
  CHECK_THROWS_AS(tail.stream_bytes([](std::span<const std::uint8_t>) {}), Error);

  // Small and uncompressed blocks are read at once, as without deferral.
  const NDArray small = file.array(*file.tree()->get("small"), "/small", NDArray::Load::kDeferred);
  CHECK_FALSE(small.can_stream());
  CHECK(small.to_c_order(ByteOrder::kBig) == std::vector<std::uint8_t>{1, 2, 3, 4});

  // Read at once (the default), the same array does not stream.
  CHECK_FALSE(file.array(*file.tree()->get("whole"), "/whole").can_stream());
}

TEST_CASE("a streamed block whose checksum or stream is damaged is an error at its end",
          "[ndarray][deferred][error]") {
  TempDir dir;
  const std::vector<std::uint8_t> data = values();
  const std::string path = write_file(dir, data, "zlib", format::ChecksumConvention::kStoredBytes);
  const auto header_at = format::Container::open(path).blocks().at(0).offset;
  const auto data_at = format::Container::open(path).blocks().at(0).data_offset;
  const auto stored = format::Container::open(path).blocks().at(0).stored_size;
  const auto patch = [&path](std::uint64_t at, std::uint8_t flip) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ flip);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(&c, 1);
  };
  OpenOptions options;
  options.verify_checksums = true;
  SECTION("a checksum that matches neither convention") {
    patch(header_at + 6 + 42, 0x01);  // a byte of the MD5 (after magic, sizes and label)
    const AsdfFile file = AsdfFile::open(path, options);
    const NDArray a = file.array(*file.tree()->get("whole"), "/whole", NDArray::Load::kDeferred);
    REQUIRE(a.can_stream());
    std::uint64_t handed = 0;
    try {
      a.stream_bytes([&handed](std::span<const std::uint8_t> p) { handed += p.size(); });
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kChecksum);
      CHECK(e.context().tree_path == "/whole/source");
    }
    CHECK(handed == data.size());  // the pieces went out before the mismatch was known
    // Without verification the same file streams.
    const AsdfFile lax = AsdfFile::open(path);
    CHECK(streamed(lax.array(*lax.tree()->get("whole"), "/whole", NDArray::Load::kDeferred)) ==
          data);
  }
  SECTION("a corrupt byte in the middle of the stream") {
    patch(data_at + stored / 2, 0x40);
    const AsdfFile file = AsdfFile::open(path);
    const NDArray a = file.array(*file.tree()->get("whole"), "/whole", NDArray::Load::kDeferred);
    try {
      (void)streamed(a);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kCompression);
      CHECK(e.context().file == path);
    }
    // Decoded on first use instead: the same refusal.
    const NDArray b = file.array(*file.tree()->get("whole"), "/whole", NDArray::Load::kDeferred);
    CHECK_THROWS_AS(b.data(), Error);
  }
}
