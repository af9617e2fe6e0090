// Undefined pixels of tile-compressed float images: a quantized image keeps them as ZBLANK,
// which comes back as NaN (the convention; funpack). They used to come back as numbers (CFITSIO
// dequantizes ZBLANK like any integer unless it is handed a null value), silently. The oracle is
// CFITSIO's fits_img_decompress, funpack's own path, byte for byte, NaN's bits included.
#include <fitsio.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/cfitsio_memory.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using fitsasdf::test::CfitsioReading;
using fitsasdf::test::CfitsioWriting;
using Bytes = std::vector<std::uint8_t>;

struct Case {
  int bitpix = FLOAT_IMG;
  int compression = RICE_1;
  float quantize = 4;  // CFITSIO's q; 0: lossless (GZIP only)
  int dither = SUBTRACTIVE_DITHER_1;
};

/// A 200 x 150 image of noise with NaN pixels (single, a row's run, a whole tile row), an
/// infinity and zeros, compressed by CFITSIO as fpack compresses it.
Bytes compressed(const Case& c) {
  std::mt19937_64 random(42);
  std::normal_distribution<double> noise(100, 5);
  std::vector<double> pixels(200 * 150);
  for (auto& p : pixels) p = noise(random);
  pixels[7] = NAN;
  for (int x = 20; x < 60; ++x) pixels[30 * 200 + x] = NAN;
  for (int x = 0; x < 200; ++x) pixels[90 * 200 + x] = NAN;
  pixels[100 * 200 + 3] = INFINITY;
  pixels[110 * 200 + 4] = 0.0;
  CfitsioWriting plain;
  int status = 0;
  long axes[2] = {200, 150};
  fits_create_img(plain.f, c.bitpix, 2, axes, &status);
  fits_write_img(plain.f, TDOUBLE, 1, static_cast<LONGLONG>(pixels.size()), pixels.data(),
                 &status);
  CfitsioWriting packed;
  fits_create_img(packed.f, BYTE_IMG, 0, nullptr, &status);
  fits_set_compression_type(packed.f, c.compression, &status);
  fits_set_quantize_level(packed.f, c.quantize, &status);
  if (c.quantize != 0) fits_set_quantize_method(packed.f, c.dither, &status);
  fits_img_compress(plain.f, packed.f, &status);
  REQUIRE(status == 0);
  return packed.bytes();
}

/// funpack's pixels of the image in `fz`'s second HDU: decompressed by fits_img_decompress into
/// a new file, whose data bytes (big-endian, nulls as CFITSIO's NaN) are returned.
std::string funpacked(const Bytes& fz) {
  CfitsioReading in(fz);
  CfitsioWriting out;
  int status = 0;
  fits_img_decompress(in.f, out.f, &status);
  LONGLONG head = 0, data = 0, end = 0;
  fits_get_hduaddrll(out.f, &head, &data, &end, &status);
  long axes[2] = {0, 0};
  int bitpix = 0, naxis = 0;
  fits_get_img_param(out.f, 2, &bitpix, &naxis, axes, &status);
  fits_flush_file(out.f, &status);
  REQUIRE(status == 0);
  const auto bytes = static_cast<std::size_t>(axes[0] * axes[1] * std::abs(bitpix) / 8);
  return std::string(static_cast<const char*>(out.memory) + data, bytes);
}

/// fitsasdf's pixels of `fz` converted to ASDF (big-endian, as the block holds them).
std::string converted(const fitsasdf::test::TempDir& dir, const Bytes& fz) {
  const fs::path in = dir / "in.fits.fz";
  const fs::path out = dir / "out.asdf";
  std::ofstream(in, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(fz.data()), static_cast<std::streamsize>(fz.size()));
  fitsasdf::ConvertOptions options;
  options.durable = false;
  options.overwrite = true;
  fitsasdf::convert_fits_to_asdf(in.string(), out.string(), options);
  const auto file = asdfcore::AsdfFile::open(out.string());
  const auto array = file.array(*file.tree()->get("fits")->items()[1]->get("data"));
  REQUIRE(array.dtype().byte_order() == asdfcore::ndarray::ByteOrder::kBig);
  const auto data = array.data();
  return std::string(reinterpret_cast<const char*>(data.data()), data.size());
}

std::size_t nans(const std::string& big_endian, int bitpix) {
  std::size_t n = 0;
  const std::size_t width = bitpix == FLOAT_IMG ? 4 : 8;
  for (std::size_t at = 0; at < big_endian.size(); at += width) {
    std::uint64_t bits = 0;
    for (std::size_t k = 0; k < width; ++k) {
      bits = (bits << 8) | static_cast<unsigned char>(big_endian[at + k]);
    }
    const bool nan = width == 4 ? std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                                : std::isnan(std::bit_cast<double>(bits));
    n += nan ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST_CASE("tile-compressed float images: undefined pixels come back as NaN, as funpack gives them",
          "[tile][nulls]") {
  fitsasdf::test::TempDir dir;
  const std::vector<Case> cases = {
      {FLOAT_IMG, RICE_1, 4, SUBTRACTIVE_DITHER_1},  {FLOAT_IMG, RICE_1, 4, SUBTRACTIVE_DITHER_2},
      {FLOAT_IMG, RICE_1, 4, NO_DITHER},             {FLOAT_IMG, GZIP_1, 4, SUBTRACTIVE_DITHER_1},
      {FLOAT_IMG, GZIP_2, 16, SUBTRACTIVE_DITHER_1}, {FLOAT_IMG, HCOMPRESS_1, 4, SUBTRACTIVE_DITHER_1},
      {DOUBLE_IMG, RICE_1, 4, SUBTRACTIVE_DITHER_1}, {DOUBLE_IMG, GZIP_1, 4, SUBTRACTIVE_DITHER_2},
      {FLOAT_IMG, GZIP_1, 0, 0},                     {DOUBLE_IMG, GZIP_2, 0, 0},
  };
  for (const Case& c : cases) {
    INFO("BITPIX " << c.bitpix << ", compression " << c.compression << ", q " << c.quantize
                   << ", dither " << c.dither);
    const Bytes fz = compressed(c);
    const std::string theirs = funpacked(fz);
    const std::string ours = converted(dir, fz);
    // 1 + 40 + 200 NaN pixels, and the infinity (which quantization cannot keep; lossless
    // compression stores it as CFITSIO's NaN too).
    CHECK(nans(theirs, c.bitpix) == 242);
    CHECK(nans(ours, c.bitpix) == 242);
    CHECK(ours == theirs);
  }
}
