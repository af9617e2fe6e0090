// ASDF -> FITS with block checksums (`AsdfToFitsOptions::verify_checksums`): an image block,
// uncompressed or zlib (level 0, so one payload byte can be changed and the stream's adler32
// patched to match: the stream still decodes), small (read whole) or 16 MiB and more (streamed),
// its MD5 in either convention. A changed data byte or a changed checksum field is an Error
// (checksum) naming the block and nothing is left in the folder; intact files and the other
// convention convert; --no-verify-checksums converts the damaged file; zeros are no checksum.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/format/container.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fitsasdf/to_fits.h"
#include "support/catch.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::format::ChecksumConvention;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
using fitsasdf::test::TempDir;

constexpr char kMarker[] = "MARKER-7f3a9c";  // found in a stored (level 0) deflate payload
constexpr std::uint64_t kBlockHeaderChecksum = 38;  // magic 4, header_size 2, then 32 bytes

NodePtr card(const std::string& keyword, NodePtr value) {
  NodePtr c = Node::make_sequence();
  c->push_back(Node::make_string(keyword));
  c->push_back(value);
  return c;
}

/// uint8 image bytes of `size` with the marker in the middle.
std::vector<std::uint8_t> image_bytes(std::size_t size) {
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + i / 251);
  std::memcpy(bytes.data() + size / 2, kMarker, sizeof kMarker - 1);
  return bytes;
}

/// Write an ASDF file whose fits list holds one uint8 image of `data`, plus, with `extra`, a
/// block the fits list does not use (`/extra`, 1024 bytes, uncompressed).
void write_image(const fs::path& path, const std::vector<std::uint8_t>& data,
                 const std::string& compression, ChecksumConvention convention,
                 const std::vector<std::uint8_t>* extra = nullptr) {
  NodePtr root = Node::make_mapping();
  NodePtr list = Node::make_sequence();
  list->set_tag("tag:astropy.org:astropy/fits/fits-1.0.0");
  root->set("fits", list);
  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = DType::numeric(DTypeKind::kUInt8);
  spec.shape = {data.size()};
  spec.source = 0;
  NodePtr header = Node::make_sequence();
  header->push_back(card("SIMPLE", Node::make_bool(true)));
  header->push_back(card("BITPIX", Node::make_int(8)));
  header->push_back(card("NAXIS", Node::make_int(1)));
  header->push_back(card("NAXIS1", Node::make_int(static_cast<std::int64_t>(data.size()))));
  NodePtr item = Node::make_mapping();
  item->set("header", header);
  item->set("data", asdfcore::ndarray::make_ndarray_node(spec));
  list->push_back(item);
  std::vector<asdfcore::format::BlockToWrite> blocks(1);
  blocks[0].pieces.push_back(std::span<const std::uint8_t>(data));
  blocks[0].compression = compression;
  blocks[0].level = compression.empty() ? -1 : 0;  // zlib level 0: stored deflate blocks
  if (extra) {
    spec.shape = {extra->size()};
    spec.source = 1;
    root->set("extra", asdfcore::ndarray::make_ndarray_node(spec));
    blocks.emplace_back().pieces.push_back(std::span<const std::uint8_t>(*extra));
  }
  asdfcore::AsdfWriteOptions options;
  options.asdf_standard = "1.5.0";
  options.layout.durable = false;
  options.layout.checksum = convention;
  asdfcore::write_asdf(path.string(), root, blocks, options);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(),
                                                               static_cast<std::streamsize>(bytes.size()));
}

/// Change one byte of block `block`'s data (of the marker in a stored deflate payload, then the
/// zlib stream's adler32 made to match the changed data, so that it still decodes).
void damage_data(const fs::path& path, std::size_t block) {
  const auto container = asdfcore::format::Container::open(path.string());
  const auto& b = container.blocks().at(block);
  std::string bytes = read_file(path);
  const std::size_t begin = b.data_offset;
  const std::size_t end = b.data_offset + b.stored_size;
  const std::size_t at = bytes.find(kMarker, begin);
  const std::size_t target = at != std::string::npos && at < end ? at : begin + 100;
  bytes[target] = static_cast<char>(bytes[target] ^ 0x20);
  if (!b.header.compression_label().empty()) {
    std::vector<std::uint8_t> decoded(b.header.data_size);
    uLongf size = static_cast<uLongf>(decoded.size());
    // uncompress checks the old adler32, which the change broke: decode raw instead.
    z_stream z{};
    REQUIRE(inflateInit2(&z, -15) == Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(bytes.data() + begin + 2);
    z.avail_in = static_cast<uInt>(b.stored_size - 6);
    z.next_out = decoded.data();
    z.avail_out = static_cast<uInt>(decoded.size());
    const int rc = inflate(&z, Z_FINISH);
    size = z.total_out;
    inflateEnd(&z);
    REQUIRE(rc == Z_STREAM_END);
    REQUIRE(size == decoded.size());
    const uLong sum = adler32(adler32(0, nullptr, 0), decoded.data(), static_cast<uInt>(size));
    for (int k = 0; k < 4; ++k) {
      bytes[end - 4 + static_cast<std::size_t>(k)] = static_cast<char>((sum >> (24 - 8 * k)) & 0xff);
    }
  }
  write_file(path, bytes);
}

/// Change one byte of block `block`'s checksum field.
void damage_checksum(const fs::path& path, std::size_t block) {
  const auto container = asdfcore::format::Container::open(path.string());
  const std::size_t at = container.blocks().at(block).offset + kBlockHeaderChecksum;
  std::string bytes = read_file(path);
  bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
  write_file(path, bytes);
}

/// How many bytes of the FITS file `fits`'s primary data differ from `data`.
std::size_t differences(const std::vector<std::uint8_t>& data, const std::string& fits) {
  if (fits.size() < 2880 + data.size()) return data.size();
  std::size_t n = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    n += data[i] != static_cast<std::uint8_t>(fits[2880 + i]) ? 1 : 0;
  }
  return n;
}

fitsasdf::AsdfToFitsOptions options(bool verify) {
  fitsasdf::AsdfToFitsOptions o;
  o.durable = false;
  o.verify_checksums = verify;
  return o;
}

/// The names in `dir`, sorted.
std::vector<std::string> listing(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

/// Expect the conversion of `in` to throw a checksum error naming block `block` and the file,
/// and to leave nothing but `in` in its folder; return the error's context.
asdfcore::ErrorContext expect_mismatch(const TempDir& dir, const fs::path& in, std::size_t block,
                                       const std::string& words = "checksum mismatch") {
  const fs::path out = dir / "out.fits";
  asdfcore::ErrorContext where;
  try {
    (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(true));
    FAIL("no error thrown");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kChecksum);
    const std::string what = e.what();
    CHECK(what.find(in.string()) != std::string::npos);
    CHECK(what.find("block " + std::to_string(block) + ", byte ") != std::string::npos);
    CHECK(what.find(words) != std::string::npos);
    CHECK(e.context().block == block);
    where = e.context();
  }
  CHECK(listing(dir) == std::vector<std::string>{in.filename().string()});
  return where;
}

}  // namespace

TEST_CASE("to_fits checksums: a damaged block fails the conversion, in either convention",
          "[to_fits][checksum]") {
  const std::size_t size = GENERATE(std::size_t{64} << 10, (std::size_t{16} << 20) + 4096);
  const std::string compression = GENERATE(std::string(), std::string("zlib"));
  const ChecksumConvention convention =
      GENERATE(ChecksumConvention::kStoredBytes, ChecksumConvention::kDecodedData);
  CAPTURE(size, compression, static_cast<int>(convention));
  const std::vector<std::uint8_t> data = image_bytes(size);
  TempDir dir;
  const fs::path in = dir / "in.asdf";
  const fs::path out = dir / "out.fits";

  SECTION("intact: converts, the data as written") {
    write_image(in, data, compression, convention);
    (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(true));
    CHECK(differences(data, read_file(out)) == 0);
  }
  SECTION("a changed data byte: an error naming block 0 and no output; converts without") {
    write_image(in, data, compression, convention);
    damage_data(in, 0);
    expect_mismatch(dir, in, 0,
                    compression.empty() ? "its data hashes to" : "and its decoded data to");
    (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(false));
    CHECK(differences(data, read_file(out)) == 1);  // the changed byte, as read
  }
  SECTION("a changed checksum field: an error naming block 0") {
    write_image(in, data, compression, convention);
    damage_checksum(in, 0);
    expect_mismatch(dir, in, 0);
    (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(false));
    CHECK(fs::exists(out));
  }
}

TEST_CASE("to_fits checksums: no checksum (zeros) is not an error", "[to_fits][checksum]") {
  const std::string compression = GENERATE(std::string(), std::string("zlib"));
  TempDir dir;
  const fs::path in = dir / "in.asdf";
  const std::vector<std::uint8_t> data = image_bytes(4096);
  write_image(in, data, compression, ChecksumConvention::kNone);
  damage_data(in, 0);
  const fs::path out = dir / "out.fits";
  (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(true));
  CHECK(differences(data, read_file(out)) == 1);
}

TEST_CASE("to_fits checksums: a block the output does not read is verified too",
          "[to_fits][checksum]") {
  TempDir dir;
  const fs::path in = dir / "in.asdf";
  const std::vector<std::uint8_t> extra(1024, 5);
  write_image(in, image_bytes(4096), "", ChecksumConvention::kStoredBytes, &extra);
  damage_data(in, 1);
  expect_mismatch(dir, in, 1);
  const fs::path out = dir / "out.fits";
  (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(false));
  CHECK(fs::exists(out));
}

TEST_CASE("to_fits checksums: a tree without a fits list is verified too",
          "[to_fits][checksum]") {
  TempDir dir;
  const fs::path in = dir / "in.asdf";
  const std::vector<std::uint8_t> data = image_bytes(4096);
  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = DType::numeric(DTypeKind::kUInt8);
  spec.shape = {64, 64};
  spec.source = 0;
  NodePtr root = Node::make_mapping();
  root->set("science", asdfcore::ndarray::make_ndarray_node(spec));
  std::vector<asdfcore::format::BlockToWrite> blocks(1);
  blocks[0].pieces.push_back(std::span<const std::uint8_t>(data));
  asdfcore::AsdfWriteOptions write;
  write.layout.durable = false;
  asdfcore::write_asdf(in.string(), root, blocks, write);
  damage_checksum(in, 0);
  expect_mismatch(dir, in, 0);
  const fs::path out = dir / "out.fits";
  (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(false));
  CHECK(fs::exists(out));
}

TEST_CASE("to_fits checksums: a tree without a fits list reads its images where they are, and a "
          "damaged one is named by its block and its tree path",
          "[to_fits][checksum]") {
  // The images of such a tree are read by the writer from the input's own blocks (read whole,
  // or streamed from 16 MiB on): an error there names the input's array, not an output HDU.
  const std::size_t size = GENERATE(std::size_t{64} << 10, (std::size_t{16} << 20) + 4096);
  const std::string compression = GENERATE(std::string(), std::string("zlib"));
  const bool field = GENERATE(false, true);  // the checksum field changed, else a data byte
  CAPTURE(size, compression, field);
  TempDir dir;
  const fs::path in = dir / "in.asdf";
  const std::vector<std::uint8_t> data = image_bytes(size);
  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = DType::numeric(DTypeKind::kUInt8);
  spec.shape = {size};
  spec.source = 0;
  NodePtr root = Node::make_mapping();
  NodePtr science = Node::make_mapping();
  science->set("image", asdfcore::ndarray::make_ndarray_node(spec));
  root->set("science", science);
  std::vector<asdfcore::format::BlockToWrite> blocks(1);
  blocks[0].pieces.push_back(std::span<const std::uint8_t>(data));
  blocks[0].compression = compression;
  blocks[0].level = compression.empty() ? -1 : 0;
  asdfcore::AsdfWriteOptions write;
  write.layout.durable = false;
  asdfcore::write_asdf(in.string(), root, blocks, write);
  const fs::path out = dir / "out.fits";

  SECTION("intact: the image HDU holds the block's bytes") {
    (void)fitsasdf::convert_asdf_to_fits(in.string(), out.string(), options(true));
    const std::string fits = read_file(out);
    const std::size_t at = fits.find("EXTNAME = 'SCIENCE.IMAGE'");
    REQUIRE(at != std::string::npos);
    const std::size_t data_at = (at / 2880 + 1) * 2880;
    REQUIRE(fits.size() >= data_at + size);
    CHECK(std::equal(data.begin(), data.end(),
                     reinterpret_cast<const std::uint8_t*>(fits.data() + data_at)));
  }
  SECTION("damaged: an error naming the block and /science/image, no HDU, no output") {
    if (field) {
      damage_checksum(in, 0);
    } else {
      damage_data(in, 0);
    }
    const asdfcore::ErrorContext where = expect_mismatch(dir, in, 0);
    CHECK(where.file == in.string());
    CHECK(where.tree_path.starts_with("/science/image"));
    CHECK_FALSE(where.hdu.has_value());
  }
}
