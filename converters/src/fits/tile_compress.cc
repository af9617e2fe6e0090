#include "fits/tile_compress.h"

#include <bit>
#include <cstdlib>
#include <cstring>

#include "fits/cfitsio.h"
#include "fits/fits_file.h"
#include "fits/header_guard.h"
#include "fits/plio_guard.h"

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

/// The values of the image CFITSIO is about to compress (machine order in `native`), as its
/// PLIO_1 writer sees them: 16-bit values with BZERO = 32768 (unsigned) are offset by 32768.
std::string plio_problem(fitsfile* out, int bitpix, std::span<const std::uint8_t> native) {
  if (bitpix != 8 && bitpix != 16 && bitpix != 32) return "";  // CFITSIO refuses the others
  double bzero = 0.0;
  int missing = 0;
  fits_read_key(out, TDOUBLE, "BZERO", &bzero, nullptr, &missing);
  const bool unsigned16 = bitpix == 16 && missing == 0 && bzero == 32768.0;
  const std::size_t count = native.size() / static_cast<std::size_t>(bitpix / 8);
  std::vector<std::int32_t> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (bitpix == 8) {
      values[i] = native[i];
    } else if (bitpix == 16) {
      std::int16_t v = 0;
      std::memcpy(&v, native.data() + 2 * i, 2);
      values[i] = unsigned16 ? v + 32768 : v;
    } else {
      std::memcpy(&values[i], native.data() + 4 * i, 4);
    }
  }
  const FITSfile& state = *out->Fptr;
  const std::span<const long> axes(state.znaxis, static_cast<std::size_t>(state.zndim));
  const std::span<const long> tile(state.tilesize, static_cast<std::size_t>(state.zndim));
  return plio_write_problem(values, axes, tile, static_cast<std::size_t>(state.maxelem));
}

/// The compressed HDU, or (PLIO_1 only) an empty one and why CFITSIO cannot write it safely.
struct Attempt {
  std::vector<std::uint8_t> hdu;
  std::string plio_problem;
};

Attempt compress_with(int bitpix, const std::vector<long>& naxes, std::vector<std::uint8_t>& native,
                      LONGLONG count, const std::vector<std::string>& cards,
                      const TileCompression& params, const asdfcore::ErrorContext& where) {
  const int ctype = compression_code(params.type, where);
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
  check_status(status, "CFITSIO cannot read the compressed image's cards back", where);
  if (ctype == PLIO_1) {
    std::string problem = plio_problem(out.f, bitpix, native);
    if (!problem.empty()) return {{}, std::move(problem)};
  }
  fits_set_bscale(out.f, 1.0, 0.0, &status);
  if (count > 0) fits_write_img(out.f, image_datatype(bitpix), 1, count, native.data(), &status);
  check_status(status, "CFITSIO cannot compress the image", where);
  // Leaving the HDU completes it: the heap's maximum in TFORM1 and the padding.
  return {second_hdu(out.f, where), ""};
}

}  // namespace

CompressedImage compress_image(int bitpix, const std::vector<long>& naxes,
                               std::span<const std::uint8_t> pixels,
                               const std::vector<std::string>& cards, const TileCompression& params,
                               const asdfcore::ErrorContext& where) {
  compression_code(params.type, where);  // a name CFITSIO does not know is refused first
  if (image_datatype(bitpix) == 0) {
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
  Attempt made = compress_with(bitpix, naxes, native, count, cards, params, where);
  if (made.plio_problem.empty()) return {std::move(made.hdu), ""};
  // CFITSIO's Rice writer checks its output's bounds, and takes every integer type.
  const std::string problem = std::move(made.plio_problem);
  TileCompression rice = params;
  rice.type = "RICE_1";
  made = compress_with(bitpix, naxes, native, count, cards, rice, where);
  return {std::move(made.hdu),
          "compressed with RICE_1 (without loss) instead of PLIO_1, which CFITSIO cannot write "
          "safely here: " +
              problem};
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
