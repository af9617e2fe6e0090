// The data path (issue 9): image bytes go from FITS to ASDF and back unchanged (big-endian kept,
// no swap), through the streaming paths a large image takes (the MD5 hashed in a thread beside
// the kernel copy; the mapped block written out in pieces whose pages are released).
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "asdfcore/compression/md5.h"
#include "asdfcore/format/container.h"
#include "fitsasdf/to_fits.h"
#include "support/catch.h"
#include "support/converted.h"
#include "support/fits_builder.h"
#include "support/temp_dir.h"

namespace fb = fitsasdf::test::fits_builder;
using asdfcore::format::ChecksumStatus;
using fitsasdf::test::TempDir;

namespace {

/// A float32 primary image of `width` x `height` whose values all differ; returns the file and
/// (in `data`) the data unit's big-endian bytes, unpadded.
std::string float_image(int width, int height, std::string& data) {
  data.clear();
  data.reserve(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4);
  for (int i = 0; i < width * height; ++i) {
    data += fb::big_endian(static_cast<float>(i) * 0.25f - 1000.5f);
  }
  return fb::hdu({fb::card("SIMPLE", "T"), fb::num("BITPIX", -32), fb::num("NAXIS", 2),
                  fb::num("NAXIS1", width), fb::num("NAXIS2", height)},
                 data);
}

}  // namespace

TEST_CASE("a big-endian image is stored unswapped and reads back equal, both ways",
          "[data_path]") {
  // 17.0 MiB of data: above the size from which the writer hashes in a second thread.
  const int width = 2048;
  const int height = 2176;
  std::string data;
  const std::string fits = float_image(width, height, data);
  TempDir dir;
  const auto c = fitsasdf::test::convert_bytes(dir, fits);
  const auto array = c.array({"fits", "0", "data"});
  // Kept big-endian as in FITS.
  CHECK(array.dtype().kind() == asdfcore::ndarray::DTypeKind::kFloat32);
  CHECK(array.dtype().byte_order() == asdfcore::ndarray::ByteOrder::kBig);
  REQUIRE(c.block_count() >= 1);
  // The block holds the FITS data unit's bytes exactly: no swap, nothing added.
  const auto block = c.block(0);
  REQUIRE(block.size() == data.size());
  CHECK(std::memcmp(block.data(), data.data(), data.size()) == 0);
  // The MD5 hashed beside the copy equals the one computed serially over the same bytes.
  const auto& header = c.file.container().blocks().at(0).header;
  const auto serial = asdfcore::compression::md5(
      {reinterpret_cast<const std::uint8_t*>(data.data()), data.size()});
  CHECK(asdfcore::compression::to_hex(header.checksum) == asdfcore::compression::to_hex(serial));
  CHECK(c.file.container().check(0) == ChecksumStatus::kMatchesStored);
  const auto v = fitsasdf::test::values<float>(array);
  REQUIRE(v.size() == static_cast<std::size_t>(width) * height);
  CHECK(v[0] == -1000.5f);
  CHECK(v.back() == static_cast<float>(width * height - 1) * 0.25f - 1000.5f);

  // And back: the FITS file written from the ASDF file is the original, byte for byte.
  fitsasdf::AsdfToFitsOptions back;
  back.durable = false;
  const std::string asdf_path = (dir / "in.fits.asdf").string();
  const std::string fits_path = (dir / "back.fits").string();
  fitsasdf::convert_asdf_to_fits(asdf_path, fits_path, back);
  const bool same_file = fb::read(fits_path) == fits;  // (no 17 MiB expansion on failure)
  CHECK(same_file);
}

TEST_CASE("without checksums the image streams the same bytes and the header says none",
          "[data_path]") {
  std::string data;
  const std::string fits = float_image(300, 200, data);
  TempDir dir;
  fitsasdf::ConvertOptions options;
  options.checksum = asdfcore::format::ChecksumConvention::kNone;
  const auto c = fitsasdf::test::convert_bytes(dir, fits, options);
  const auto block = c.block(0);
  REQUIRE(block.size() == data.size());
  CHECK(std::memcmp(block.data(), data.data(), data.size()) == 0);
  CHECK(c.file.container().check(0) == ChecksumStatus::kUnchecked);
}

TEST_CASE("a large BZERO image changes on the way while a second thread hashes it",
          "[data_path]") {
  // 17.0 MiB of int16 with BZERO = 32768: the sign bits are flipped chunk by chunk as the
  // bytes stream, each chunk hashed in a thread while the next one is read.
  const int width = 4096;
  const int height = 2176;
  std::string data;
  data.reserve(static_cast<std::size_t>(width) * height * 2);
  for (int i = 0; i < width * height; ++i) {
    data += fb::big_endian(static_cast<std::int16_t>((std::int64_t{i} * 7919) % 65536 - 32768));
  }
  const std::string fits =
      fb::hdu({fb::card("SIMPLE", "T"), fb::num("BITPIX", 16), fb::num("NAXIS", 2),
               fb::num("NAXIS1", width), fb::num("NAXIS2", height), fb::num("BZERO", 32768)},
              data);
  std::string expected = data;
  for (std::size_t i = 0; i < expected.size(); i += 2) {
    expected[i] = static_cast<char>(expected[i] ^ 0x80);
  }
  TempDir dir;
  const auto c = fitsasdf::test::convert_bytes(dir, fits);
  const auto array = c.array({"fits", "0", "data"});
  CHECK(array.dtype().kind() == asdfcore::ndarray::DTypeKind::kUInt16);
  CHECK(array.dtype().byte_order() == asdfcore::ndarray::ByteOrder::kBig);
  const auto block = c.block(0);
  REQUIRE(block.size() == expected.size());
  CHECK(std::memcmp(block.data(), expected.data(), expected.size()) == 0);
  const auto serial = asdfcore::compression::md5(
      {reinterpret_cast<const std::uint8_t*>(expected.data()), expected.size()});
  CHECK(asdfcore::compression::to_hex(c.file.container().blocks().at(0).header.checksum) ==
        asdfcore::compression::to_hex(serial));

  fitsasdf::AsdfToFitsOptions back;
  back.durable = false;
  const std::string fits_path = (dir / "back.fits").string();
  fitsasdf::convert_asdf_to_fits((dir / "in.fits.asdf").string(), fits_path, back);
  const bool same_file = fb::read(fits_path) == fits;  // (no 17 MiB expansion on failure)
  CHECK(same_file);
}

TEST_CASE("a compressed image goes back to FITS from its block a few MiB at a time",
          "[data_path]") {
  // 17.0 MiB images in zlib and lz4 blocks (above the 16 MiB from which a block streams): the
  // writer decodes the block piece by piece, swapping a little-endian image and flipping the
  // sign bits of a BZERO one on the way, and the FITS file comes back byte for byte. A damaged
  // block, found part way, leaves no output.
  const std::string codec = GENERATE("zlib", "lz4");
  const bool native = GENERATE(false, true);
  TempDir dir;
  std::string fits;
  if (native) {
    std::string data;
    fits = float_image(2048, 2176, data);
  } else {
    std::string data;
    for (int i = 0; i < 4096 * 2176; ++i) {
      data += fb::big_endian(static_cast<std::int16_t>((std::int64_t{i} * 7919) % 65536 - 32768));
    }
    fits = fb::hdu({fb::card("SIMPLE", "T"), fb::num("BITPIX", 16), fb::num("NAXIS", 2),
                    fb::num("NAXIS1", 4096), fb::num("NAXIS2", 2176), fb::num("BZERO", 32768)},
                   data);
  }
  fitsasdf::ConvertOptions options;
  options.compression = codec;
  options.native_byte_order = native;
  const auto c = fitsasdf::test::convert_bytes(dir, fits, options);
  REQUIRE(c.file.container().blocks().at(0).header.compression_label() == codec);
  const auto deferred = c.file.array(*c.at({"fits", "0", "data"}), "/fits/0/data",
                                     asdfcore::ndarray::NDArray::Load::kDeferred);
  CHECK(deferred.can_stream());
  if (native) {
    CHECK(deferred.dtype().byte_order() == asdfcore::ndarray::ByteOrder::kLittle);
  }

  fitsasdf::AsdfToFitsOptions back;
  back.durable = false;
  const std::string asdf_path = (dir / "in.fits.asdf").string();
  const std::string fits_path = (dir / "back.fits").string();
  fitsasdf::convert_asdf_to_fits(asdf_path, fits_path, back);
  const bool same_file = fb::read(fits_path) == fits;  // (no 17 MiB expansion on failure)
  CHECK(same_file);

  // The block damaged in its second half: the error comes after pieces were written, and the
  // half-written output is not left behind.
  const auto& block = c.file.container().blocks().at(0);
  {
    std::fstream f(asdf_path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(block.data_offset + block.stored_size * 3 / 4));
    const std::string junk(64, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const std::string bad_path = (dir / "bad.fits").string();
  try {
    fitsasdf::convert_asdf_to_fits(asdf_path, bad_path, back);
    // lz4 has no checksum of its own: damaged data may decode, to other values.
    CHECK(codec == "lz4");
  } catch (const asdfcore::Error& e) {
    CHECK((e.code() == asdfcore::ErrorCode::kCompression ||
           e.code() == asdfcore::ErrorCode::kChecksum));
    CHECK_FALSE(std::filesystem::exists(bad_path));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
  }
}
