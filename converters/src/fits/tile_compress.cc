#include "fits/tile_compress.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "asdfcore/ndarray/dtype.h"
#include "fits/cfitsio.h"
#include "fits/fits_file.h"
#include "fits/header_guard.h"
#include "fits/tile_compress_detail.h"

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

/// Bytes of `count` elements of a variable-length column of CFITSIO type code `type` (positive).
std::uint64_t array_bytes(int type, std::uint64_t count) {
  switch (type) {
    case TBIT:
      return (count + 7) / 8;
    case TSHORT:
      return count * 2;
    case TLONG:
    case TFLOAT:
      return count * 4;
    case TLONGLONG:
    case TDOUBLE:
    case TCOMPLEX:
      return count * 8;
    case TDBLCOMPLEX:
      return count * 16;
    default:
      return count;  // B, L, A and the like: a byte each
  }
}

/// CFITSIO 4.2's fits_compress_table allocates each variable-length array of the table by its
/// descriptor (length times element size, and half as much again for the compressed form) and
/// reads it from the heap at its offset, trusting both: a forged length of 2^30 elements took
/// 4 GB and 20 s before the read failed, a negative offset read the rows as an array. Refuses
/// (malformed) a descriptor whose array is not inside the table's heap. `f` is at the table.
void check_descriptors(fitsfile* f, const asdfcore::ErrorContext& where) {
  int status = 0;
  int columns = 0;
  LONGLONG rows = 0;
  fits_get_num_cols(f, &columns, &status);
  fits_get_num_rowsll(f, &rows, &status);
  check_status(status, "CFITSIO cannot read the table to compress", where);
  const LONGLONG row_bytes = f->Fptr->rowlength;
  const LONGLONG heap_end = row_bytes * rows + f->Fptr->heapsize;  // PCOUNT past the rows
  const LONGLONG heap = heap_end - f->Fptr->heapstart;             // THEAP may move its start
  for (int column = 1; column <= columns; ++column) {
    int type = 0;
    LONGLONG repeat = 0, width = 0;
    fits_get_coltypell(f, column, &type, &repeat, &width, &status);
    check_status(status, "CFITSIO cannot read column " + std::to_string(column), where);
    if (type >= 0) continue;
    for (LONGLONG row = 1; row <= rows; ++row) {
      LONGLONG length = 0, offset = 0;
      fits_read_descriptll(f, column, row, &length, &offset, &status);
      check_status(status,
                   "cannot read the descriptor of row " + std::to_string(row) + " of column " +
                       std::to_string(column),
                   where);
      if (length == 0) continue;  // CFITSIO skips an empty array
      const std::uint64_t bytes =
          length < 0 ? 0 : array_bytes(-type, static_cast<std::uint64_t>(length));
      if (length < 0 || offset < 0 || heap < 0 ||
          length > std::numeric_limits<LONGLONG>::max() / 16 ||
          bytes > static_cast<std::uint64_t>(heap) ||
          static_cast<std::uint64_t>(offset) > static_cast<std::uint64_t>(heap) - bytes) {
        throw Error(ErrorCode::kMalformed,
                    "row " + std::to_string(row) + " of variable-length column " +
                        std::to_string(column) + " declares " + std::to_string(length) +
                        " elements at byte " + std::to_string(offset) +
                        " of the heap, outside its " + std::to_string(std::max<LONGLONG>(heap, 0)) +
                        " bytes",
                    where);
      }
    }
  }
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

/// CFITSIO 4.2 gives each tile's compressed bytes a buffer of `Fptr->maxelem` bytes
/// (imcomp_calc_max_elem), too small for PLIO_1 and HCOMPRESS_1 data that compress badly, and
/// their encoders write on past it (PLIO's pl_p2li has no bound; HCOMPRESS's bit writer stops
/// counting at the end but writes one byte further, and its nybble writer has no bound: it
/// reports "output buffer too small" only after writing past). Raise the buffer to what the
/// encoders can write at most for a tile:
/// - PLIO_1: a 7-word header, then for each run of a value at most 2 words for the value, 1 for
///   the run and 1 for the zeros before it, a word per 4095 pixels more: within 3n + 8 + n/2047
///   words for n pixels (runs and zero stretches are at least a pixel each).
/// - HCOMPRESS_1: a header of 25 bytes, a sign bit per pixel, and for each bit plane (32 for
///   8- and 16-bit images, 64 for 32-bit ones) of each of the 4 quadrants of an nx x ny tile
///   either its quadtree code or, when that is longer, the plane itself, 4 pixels a nybble: at
///   most (nx + 3)(ny + 3) / 32 bytes and 2 bytes of codes a quadrant.
/// Only the buffer's size changes: the bytes written are CFITSIO's.
void widen_tile_buffer(fitsfile* out, int ctype, int bitpix) {
  FITSfile& state = *out->Fptr;
  if (state.zndim < 1) return;
  std::int64_t nx = std::min(state.tilesize[0], state.znaxis[0]);
  std::int64_t ny = 1;
  for (int d = 1; d < state.zndim; ++d) ny *= std::min(state.tilesize[d], state.znaxis[d]);
  const std::int64_t n = nx * ny;
  std::int64_t most = 0;
  if (ctype == PLIO_1) most = 2 * (3 * n + 16 + n / 2047);
  if (ctype == HCOMPRESS_1) {
    const std::int64_t planes = bitpix == 32 ? 64 : 32;
    most = 64 + n / 8 + planes * ((nx + 3) * (ny + 3) / 8 + 16);
  }
  if (most > state.maxelem) state.maxelem = static_cast<long>(most);
}

/// The compressed HDU, or (PLIO_1 only) an empty one and why CFITSIO cannot write the values.
struct Attempt {
  std::vector<std::uint8_t> hdu;
  std::string plio_problem;
};

Attempt compress_with(int bitpix, const std::vector<long>& naxes, std::vector<std::uint8_t>& native,
                      LONGLONG count, const std::vector<std::string>& cards,
                      const TileCompression& params, const asdfcore::ErrorContext& where) {
  CfitsioHandle out;
  const int ctype = begin_compressed_image(out, bitpix, naxes, cards, params, where);
  if (ctype == PLIO_1) {
    std::string problem = plio_range_problem(out.f, bitpix, native, 0);
    if (!problem.empty()) return {{}, std::move(problem)};
  }
  int status = 0;
  if (count > 0) fits_write_img(out.f, image_datatype(bitpix), 1, count, native.data(), &status);
  check_status(status, "CFITSIO cannot compress the image", where);
  // Leaving the HDU completes it: the heap's maximum in TFORM1 and the padding.
  return {second_hdu(out.f, where), ""};
}

}  // namespace

int begin_compressed_image(CfitsioHandle& out, int bitpix, const std::vector<long>& naxes,
                           const std::vector<std::string>& cards, const TileCompression& params,
                           const asdfcore::ErrorContext& where) {
  const int ctype = compression_code(params.type, where);
  int status = 0;
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
  fits_set_bscale(out.f, 1.0, 0.0, &status);
  widen_tile_buffer(out.f, ctype, bitpix);
  return ctype;
}

std::string plio_range_problem(fitsfile* out, int bitpix, std::span<const std::uint8_t> native,
                               std::uint64_t first_pixel) {
  if (bitpix != 8 && bitpix != 16 && bitpix != 32) return "";  // CFITSIO refuses the others
  double bzero = 0.0;
  int missing = 0;
  fits_read_key(out, TDOUBLE, "BZERO", &bzero, nullptr, &missing);
  const bool unsigned16 = bitpix == 16 && missing == 0 && bzero == 32768.0;
  const std::size_t count = native.size() / static_cast<std::size_t>(bitpix / 8);
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t v = 0;
    if (bitpix == 8) {
      v = native[i];
    } else if (bitpix == 16) {
      std::int16_t narrow = 0;
      std::memcpy(&narrow, native.data() + 2 * i, 2);
      v = unsigned16 ? narrow + 32768 : narrow;
    } else {
      std::int32_t wide = 0;
      std::memcpy(&wide, native.data() + 4 * i, 4);
      v = wide;
    }
    if (v < 0 || v > 16777215) {
      return "pixel " + std::to_string(first_pixel + i) + " (FITS order) is " + std::to_string(v) +
             ", outside PLIO_1's 0 to 16777215";
    }
  }
  return "";
}


CompressedImage compress_image(int bitpix, const std::vector<long>& naxes,
                               std::vector<std::uint8_t> pixels,
                               const std::vector<std::string>& cards, const TileCompression& params,
                               const asdfcore::ErrorContext& where) {
  compression_code(params.type, where);  // a name CFITSIO does not know is refused first
  if (naxes.empty()) {
    // CFITSIO 4.2 makes a plain image of no axes instead, whose scaling it then sets through a
    // null pointer (fuzz finding 25); it reads no compressed image with ZNAXIS = 0 either.
    throw Error(ErrorCode::kMalformed,
                "a tile-compressed image needs at least one axis (its NAXIS is 0)", where);
  }
  for (std::size_t k = 0; k < naxes.size(); ++k) {
    if (naxes[k] <= 0) {
      // CFITSIO 4.2 divides by the axis when it lays out the tiles (imcomp_init_table): the
      // process dies of SIGFPE.
      throw Error(ErrorCode::kMalformed,
                  "a tile-compressed image needs pixels: its NAXIS" + std::to_string(k + 1) +
                      " is " + std::to_string(naxes[k]),
                  where);
    }
  }
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
  // CFITSIO takes the pixels in the machine's order: turned in place (the caller's copy).
  std::vector<std::uint8_t>& native = pixels;
  if (size > 1 && asdfcore::ndarray::native_byte_order() != asdfcore::ndarray::ByteOrder::kBig) {
    asdfcore::ndarray::swap_units(native.data(), native.size() / size,
                                  static_cast<std::uint32_t>(size));
  }
  Attempt made = compress_with(bitpix, naxes, native, count, cards, params, where);
  if (made.plio_problem.empty()) return {std::move(made.hdu), ""};
  // CFITSIO's Rice writer checks its output's bounds, and takes every integer type.
  const std::string problem = std::move(made.plio_problem);
  TileCompression rice = params;
  rice.type = "RICE_1";
  made = compress_with(bitpix, naxes, native, count, cards, rice, where);
  return {
      std::move(made.hdu),
      "compressed with RICE_1 (without loss) instead of PLIO_1, which cannot hold it: " + problem};
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
  check_descriptors(in.f, where);
  CfitsioHandle out;
  create_memory_file(out, where);
  if (rows_per_tile > 0) fits_set_tile_dim(out.f, 1, &rows_per_tile, &status);
  fits_compress_table(in.f, out.f, &status);
  check_status(status, "CFITSIO cannot compress the table", where);
  return second_hdu(out.f, where);
}

}  // namespace fitsasdf::fits
