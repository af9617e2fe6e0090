#include "fits/tile_compress.h"

#include <bit>
#include <cstdlib>
#include <cstring>

#include "fits/cfitsio.h"
#include "fits/header_guard.h"
#include "fits/fits_file.h"

namespace fitsasdf::fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

int compression_code(const std::string& type, const asdfcore::ErrorContext& where) {
  if (type == "RICE_1" || type == "RICE_ONE") return RICE_1;
  if (type == "GZIP_1") return GZIP_1;
  if (type == "GZIP_2") return GZIP_2;
  if (type == "PLIO_1") return PLIO_1;
  if (type == "HCOMPRESS_1") return HCOMPRESS_1;
  if (type == "NOCOMPRESS") return NOCOMPRESS;
  throw Error(ErrorCode::kMalformed,
              "ZCMPTYPE = '" + type +
                  "' is not a tile compression CFITSIO writes (RICE_1, GZIP_1, GZIP_2, PLIO_1, "
                  "HCOMPRESS_1, NOCOMPRESS)",
              where);
}

/// Read HDU 2 of `file` (closing it first so that CFITSIO completes it) as bytes.
std::vector<std::uint8_t> second_hdu(fitsfile* file, const asdfcore::ErrorContext& where) {
  int status = 0;
  int type = 0;
  fits_movabs_hdu(file, 1, &type, &status);
  fits_movabs_hdu(file, 2, &type, &status);
  check_status(status, "cannot complete the compressed HDU", where);
  return current_hdu_bytes(file, "compressed HDU", where);
}

}  // namespace

std::vector<std::uint8_t> compress_image(int bitpix, const std::vector<long>& naxes,
                                         std::span<const std::uint8_t> pixels,
                                         const std::vector<std::string>& cards,
                                         const TileCompression& params,
                                         const asdfcore::ErrorContext& where) {
  const int ctype = compression_code(params.type, where);
  const int datatype = image_datatype(bitpix);
  if (datatype == 0) {
    throw Error(ErrorCode::kMalformed, "BITPIX = " + std::to_string(bitpix) + " is not a FITS type",
                where);
  }
  const auto size = static_cast<std::size_t>(std::abs(bitpix) / 8);
  LONGLONG count = naxes.empty() ? 0 : 1;
  for (const long n : naxes) count *= n;
  if (static_cast<std::uint64_t>(count) * size != pixels.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "the image holds " + std::to_string(pixels.size()) + " bytes, not the " +
                    std::to_string(static_cast<std::uint64_t>(count) * size) + " its axes need",
                where);
  }
  // CFITSIO takes the pixels in the machine's order.
  std::vector<std::uint8_t> native(pixels.begin(), pixels.end());
  if constexpr (std::endian::native == std::endian::little) {
    for (std::size_t i = 0; i < native.size(); i += size) {
      for (std::size_t a = i, b = i + size - 1; a < b; ++a, --b) std::swap(native[a], native[b]);
    }
  }

  int status = 0;
  CfitsioHandle out;
  create_memory_file(out, where);
  fits_set_compression_type(out.f, ctype, &status);
  std::vector<long> tile = params.tile;
  if (!tile.empty()) fits_set_tile_dim(out.f, static_cast<int>(tile.size()), tile.data(), &status);
  if (params.hcomp_scale) fits_set_hcomp_scale(out.f, *params.hcomp_scale, &status);
  if (params.hcomp_smooth) fits_set_hcomp_smooth(out.f, *params.hcomp_smooth, &status);
  if (bitpix < 0) fits_set_quantize_level(out.f, 0.0f, &status);
  check_status(status, "CFITSIO refuses the compression parameters", where);
  std::vector<long> axes = naxes;
  fits_create_img(out.f, bitpix, static_cast<int>(axes.size()), axes.data(), &status);
  check_status(status, "CFITSIO cannot create the compressed image", where);
  for (const std::string& card : cards) {
    std::string text = card.substr(0, 80);
    fits_write_record(out.f, text.c_str(), &status);
  }
  check_status(status, "cannot write the compressed image's cards", where);
  fits_set_hdustruc(out.f, &status);
  fits_set_bscale(out.f, 1.0, 0.0, &status);
  if (count > 0) fits_write_img(out.f, datatype, 1, count, native.data(), &status);
  check_status(status, "CFITSIO cannot compress the image", where);
  // Leaving the HDU completes it: the heap's maximum in TFORM1 and the padding.
  return second_hdu(out.f, where);
}

std::vector<std::uint8_t> compress_table(std::span<const std::uint8_t> table, long rows_per_tile,
                                         const asdfcore::ErrorContext& where) {
  // The table behind an empty primary HDU, opened as a file in memory.
  std::string primary;
  for (const char* text :
       {"SIMPLE  =                    T", "BITPIX  =                    8",
        "NAXIS   =                    0", "EXTEND  =                    T", "END"}) {
    std::string card(text);
    card.resize(80, ' ');
    primary += card;
  }
  primary.resize(2880, ' ');
  std::vector<std::uint8_t> bytes(primary.size() + table.size());
  std::memcpy(bytes.data(), primary.data(), primary.size());
  if (!table.empty()) std::memcpy(bytes.data() + primary.size(), table.data(), table.size());
  void* memory = bytes.data();
  std::size_t size = bytes.size();
  int status = 0;
  CfitsioHandle in;
  fits_open_memfile(&in.f, "table", READONLY, &memory, &size, 0, nullptr, &status);
  check_status(status, "CFITSIO cannot open the table to compress", where);
  check_extension_headers(in.f, where);  // the table's cards come from the ASDF file
  int type = 0;
  fits_movabs_hdu(in.f, 2, &type, &status);
  check_status(status, "CFITSIO cannot read the table to compress", where);
  CfitsioHandle out;
  create_memory_file(out, where);
  if (rows_per_tile > 0) fits_set_tile_dim(out.f, 1, &rows_per_tile, &status);
  fits_compress_table(in.f, out.f, &status);
  check_status(status, "CFITSIO cannot compress the table", where);
  return second_hdu(out.f, where);
}

}  // namespace fitsasdf::fits
