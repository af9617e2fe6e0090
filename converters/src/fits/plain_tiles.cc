#include "fits/plain_tiles.h"

#include <libdeflate.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "asdfcore/ndarray/dtype.h"
#include "fits/cfitsio.h"
#include "fits/hcompress_guard.h"
#include "fits/plio_guard.h"
#include "fits/rice_decode.h"

namespace fitsasdf::fits {

namespace {
/// CFITSIO's quantize level for a float image stored without loss (imcompress.c).
constexpr float kNoQuantize = 9999;
}  // namespace

bool quantized_floats(const FITSfile& parsed, int bitpix) {
  return bitpix < 0 && parsed.quantize_level != kNoQuantize;
}

std::optional<PlainTiles> plain_tiles(const FITSfile& parsed, int bitpix) {
  if (parsed.compressimg != 1 || parsed.zbitpix != bitpix) return std::nullopt;
  const bool integer = bitpix == BYTE_IMG || bitpix == SHORT_IMG || bitpix == LONG_IMG;
  if (!integer && bitpix != FLOAT_IMG && bitpix != DOUBLE_IMG) return std::nullopt;
  const bool gzip = parsed.compress_type == GZIP_1 || parsed.compress_type == GZIP_2;
  PlainTiles plain;
  plain.bytepix = (bitpix < 0 ? -bitpix : bitpix) / 8;
  plain.stored = plain.bytepix;
  if (!quantized_floats(parsed, bitpix)) {
    // Scaled integers are CFITSIO's to undo. Floats stored without loss go to GZIP: CFITSIO's
    // writer keeps another codec's in a column of their own.
    if (parsed.cn_zscale != 0 || parsed.cn_zzero != 0) return std::nullopt;
    if (!integer && !gzip) return std::nullopt;
  } else {
    // Quantized: CFITSIO's ZSCALE and ZZERO columns (a keyword's constant ones are rare and
    // left to it), and 32-bit integers in the tiles.
    if (parsed.cn_zscale <= 0 || parsed.cn_zzero <= 0) return std::nullopt;
    PlainTiles::Quantized q;
    q.method.dithered = parsed.quantize_method == SUBTRACTIVE_DITHER_1 ||
                        parsed.quantize_method == SUBTRACTIVE_DITHER_2;
    q.method.exact_zeros = parsed.quantize_method == SUBTRACTIVE_DITHER_2;
    q.method.dither_seed = parsed.dither_seed;
    // The tile guard refuses another seed.
    if (q.method.dithered && (parsed.dither_seed < 1 || parsed.dither_seed > 10000)) {
      return std::nullopt;
    }
    q.table = dither_table();
    if (q.table == nullptr) return std::nullopt;
    q.zscale_column = parsed.cn_zscale;
    q.zzero_column = parsed.cn_zzero;
    q.zblank_column = parsed.cn_zblank;
    q.zblank = parsed.zblank;
    plain.stored = 4;
    plain.quantized = q;
  }
  if (parsed.compress_type == RICE_1) {
    plain.codec = PlainTiles::Codec::kRice;
    // CFITSIO decodes a tile at its own bytes a pixel, then converts to the image's type.
    if (parsed.rice_bytepix != plain.stored || parsed.rice_blocksize <= 0) return std::nullopt;
    plain.nblock = parsed.rice_blocksize;
  } else if (parsed.compress_type == GZIP_1) {
    plain.codec = PlainTiles::Codec::kGzip1;
  } else if (parsed.compress_type == GZIP_2) {
    plain.codec = PlainTiles::Codec::kGzip2;
  } else if (parsed.compress_type == HCOMPRESS_1) {
    // CFITSIO's HCOMPRESS decoder keeps its place in the stream in a global, which only a
    // thread-safe build guards with a lock, and bands are decoded side by side.
    if (fits_is_reentrant() == 0) return std::nullopt;
    plain.codec = PlainTiles::Codec::kHcompress;
    plain.smooth = parsed.hcomp_smooth;
    // As CFITSIO chooses its decoder: 32-bit integers and quantized floats need 64 bits on the
    // way (its H-transform's sums), then are packed back to 32.
    plain.hcompress_wide = bitpix != BYTE_IMG && bitpix != SHORT_IMG;
  } else if (parsed.compress_type == PLIO_1) {
    // PLIO_1 holds integer images only. CFITSIO reads its words as 16-bit integers through the
    // column's scaling: taken when that is none (a 1PI or 1QI column without TSCAL or TZERO).
    if (!integer || parsed.cn_compressed <= 0 || parsed.cn_compressed > parsed.tfield ||
        parsed.tableptr == nullptr) {
      return std::nullopt;
    }
    const tcolumn& words = parsed.tableptr[parsed.cn_compressed - 1];
    if (words.tdatatype != -TSHORT || words.tscale != 1.0 || words.tzero != 0.0) {
      return std::nullopt;
    }
    plain.codec = PlainTiles::Codec::kPlio;
    plain.element = 2;
    // An unsigned 16-bit image (BZERO = 32768) was coded 32768 above its stored values (PLIO
    // holds no negative value); CFITSIO takes it off again for 16-bit pixels and leaves it for
    // 8-bit ones: only the usual 16-bit case is taken.
    if (parsed.cn_actual_bzero == 32768.0) {
      if (bitpix != SHORT_IMG) return std::nullopt;
      plain.plio_offset = true;
    }
  } else {
    return std::nullopt;
  }
  plain.naxis = parsed.zndim;
  if (plain.naxis < 1 || plain.naxis > MAX_COMPRESS_DIM) return std::nullopt;
  for (int k = 0; k < plain.naxis; ++k) {
    plain.axes[k] = parsed.znaxis[k];
    plain.tile[k] = parsed.tilesize[k];
    if (plain.axes[k] <= 0 || plain.tile[k] <= 0) return std::nullopt;
  }
  plain.column = parsed.cn_compressed;
  if (plain.column <= 0) return std::nullopt;
  return plain;
}

namespace {

/// Buffers each decoding thread keeps for the next tile.
struct Scratch {
  libdeflate_decompressor* inflater = libdeflate_alloc_decompressor();
  std::vector<std::uint8_t> tile;      // a tile's pixels, when they are not one run of the band
  std::vector<std::uint8_t> shuffled;  // a GZIP_2 tile's bytes, inflated
  std::vector<std::uint8_t> values;    // a quantized double tile's integers
  std::vector<LONGLONG> wide;          // HCOMPRESS_1's or PLIO_1's integers, as CFITSIO gives them
  std::vector<short> words;            // a PLIO_1 tile's line list
  ~Scratch() { libdeflate_free_decompressor(inflater); }
};

/// Store the `n` integers at `ints` at `out` as `Pixel`s less `offset`, as CFITSIO converts its
/// codecs' ints to the pixels' type (in this machine's byte order). False when one is outside
/// the type's range (CFITSIO would clip it and report an overflow; 8-bit pixels are unsigned).
template <typename Pixel>
bool narrow_integers(const int* ints, std::uint64_t n, std::int64_t offset, std::uint8_t* out) {
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::int64_t v = std::int64_t{ints[i]} - offset;
    if (v < std::numeric_limits<Pixel>::min() || v > std::numeric_limits<Pixel>::max()) {
      return false;
    }
    const auto pixel = static_cast<Pixel>(v);
    std::memcpy(out + i * sizeof(Pixel), &pixel, sizeof(Pixel));
  }
  return true;
}

/// `narrow_integers` at `width` bytes a pixel, then big-endian.
bool store_integers(const int* ints, std::uint64_t n, int width, std::int64_t offset,
                    std::span<std::uint8_t> out) {
  const bool stored = width == 1   ? narrow_integers<std::uint8_t>(ints, n, offset, out.data())
                      : width == 2 ? narrow_integers<std::int16_t>(ints, n, offset, out.data())
                                   : narrow_integers<std::int32_t>(ints, n, offset, out.data());
  if (stored && width > 1 &&
      asdfcore::ndarray::native_byte_order() != asdfcore::ndarray::ByteOrder::kBig) {
    asdfcore::ndarray::swap_units(out.data(), n, static_cast<std::uint32_t>(width));
  }
  return stored;
}

/// Decode an HCOMPRESS_1 stream of `nx` values with CFITSIO's decoder, once its guard has found
/// every byte the decoder reads inside `stream`.
bool hdecompress(const PlainTiles& plain, std::span<const std::uint8_t> stream, std::uint64_t nx,
                 std::span<std::uint8_t> out, Scratch& scratch) {
  if (nx > INT_MAX || hcompress_tile_problem(stream, nx)) return false;
  // The decoder reads its input without writing it; its prototype is not const.
  auto* input = const_cast<unsigned char*>(stream.data());
  int rows = 0, columns = 0, scale = 0, status = 0;
  // The narrow decoder writes ints; the wide one LONGLONGs, then packs them into the ints at
  // the start of the same buffer. Either way the values are ints at its start.
  scratch.wide.resize(static_cast<std::size_t>(nx));
  if (plain.hcompress_wide) {
    fits_hdecompress64(input, plain.smooth, scratch.wide.data(), &rows, &columns, &scale, &status);
  } else {
    fits_hdecompress(input, plain.smooth, reinterpret_cast<int*>(scratch.wide.data()), &rows,
                     &columns, &scale, &status);
  }
  if (status != 0) {
    fits_clear_errmsg();
    return false;
  }
  return store_integers(reinterpret_cast<const int*>(scratch.wide.data()), nx, plain.stored, 0,
                        out);
}

/// Decode a PLIO_1 line list (its big-endian words `stream`) of `nx` values with CFITSIO's
/// decoder, once its guard has found every word the decoder reads inside the list.
bool plio_decode(const PlainTiles& plain, std::span<const std::uint8_t> stream, std::uint64_t nx,
                 std::span<std::uint8_t> out, Scratch& scratch) {
  if (nx > INT_MAX) return false;
  scratch.words.resize(stream.size() / 2);
  std::memcpy(scratch.words.data(), stream.data(), scratch.words.size() * 2);
  if (asdfcore::ndarray::native_byte_order() != asdfcore::ndarray::ByteOrder::kBig) {
    asdfcore::ndarray::swap_units(reinterpret_cast<std::uint8_t*>(scratch.words.data()),
                                  scratch.words.size(), 2);
  }
  if (plio_tile_problem(scratch.words, nx)) return false;
  scratch.wide.resize(static_cast<std::size_t>(nx + 1) / 2);
  int* ints = reinterpret_cast<int*>(scratch.wide.data());
  pl_l2pi(scratch.words.data(), 1, ints, static_cast<int>(nx));
  return store_integers(ints, nx, plain.stored, plain.plio_offset ? 32768 : 0, out);
}

/// Inflate the gzip stream `stream` into exactly `out.size()` bytes (bytes after the stream's end
/// ignored, as CFITSIO ignores them).
bool inflate_exactly(libdeflate_decompressor* inflater, std::span<const std::uint8_t> stream,
                     std::span<std::uint8_t> out) {
  std::size_t in_used = 0, out_used = 0;
  return libdeflate_gzip_decompress_ex(inflater, stream.data(), stream.size(), out.data(),
                                       out.size(), &in_used, &out_used) == LIBDEFLATE_SUCCESS &&
         out_used == out.size();
}

/// Decode one tile's stream into its `nx` stored values at `out`, big-endian.
bool decode_values(const PlainTiles& plain, std::span<const std::uint8_t> stream, std::uint64_t nx,
                   std::span<std::uint8_t> out, Scratch& scratch) {
  switch (plain.codec) {
    case PlainTiles::Codec::kRice:
      return rice_decode(stream, nx, plain.nblock, plain.stored, out);
    case PlainTiles::Codec::kHcompress:
      return hdecompress(plain, stream, nx, out, scratch);
    case PlainTiles::Codec::kPlio:
      return plio_decode(plain, stream, nx, out, scratch);
    case PlainTiles::Codec::kGzip1:
      // CFITSIO stores GZIP_1 integers big-endian: what the pixels are to be.
      return inflate_exactly(scratch.inflater, stream, out);
    case PlainTiles::Codec::kGzip2: {
      if (plain.stored == 1) return inflate_exactly(scratch.inflater, stream, out);
      // GZIP_2 stores the first byte of every pixel, then every second byte, and so on.
      scratch.shuffled.resize(out.size());
      if (!inflate_exactly(scratch.inflater, stream, scratch.shuffled)) return false;
      const auto width = static_cast<std::size_t>(plain.stored);
      for (std::size_t k = 0; k < width; ++k) {
        const std::uint8_t* plane = scratch.shuffled.data() + k * nx;
        std::uint8_t* to = out.data() + k;
        for (std::uint64_t i = 0; i < nx; ++i) to[i * width] = plane[i];
      }
      return true;
    }
  }
  return false;
}

/// Read the value of table row `row` in `column` as CFITSIO reads a tile's ZSCALE, ZZERO or
/// ZBLANK (a null value of 0: none).
template <typename Value>
bool read_cell(fitsfile* f, int column, long row, Value& value) {
  int status = 0;
  int anynul = 0;
  Value none = 0;
  fits_read_col(f, std::is_same_v<Value, double> ? TDOUBLE : TINT, column,
                static_cast<LONGLONG>(row), 1, 1, &none, &value, &anynul, &status);
  if (status != 0) fits_clear_errmsg();
  return status == 0;
}

/// Decode tile `row` (its stream `stream`) into its `nx` pixels at `out`, big-endian.
bool decode_tile(fitsfile* f, const PlainTiles& plain, long row,
                 std::span<const std::uint8_t> stream, std::uint64_t nx,
                 std::span<std::uint8_t> out, Scratch& scratch) {
  if (!plain.quantized) return decode_values(plain, stream, nx, out, scratch);
  const PlainTiles::Quantized& q = *plain.quantized;
  // A float's integer fills its place; a double's are decoded aside first.
  std::span<std::uint8_t> values = out;
  if (plain.bytepix != plain.stored) {
    scratch.values.resize(static_cast<std::size_t>(nx * 4));
    values = scratch.values;
  }
  if (!decode_values(plain, stream, nx, values, scratch)) return false;
  double scale = 0, zero = 0;
  std::optional<std::int32_t> blank;
  if (!read_cell(f, q.zscale_column, row, scale) || !read_cell(f, q.zzero_column, row, zero)) {
    return false;
  }
  if (q.zblank_column == -1) blank = q.zblank;
  if (q.zblank_column > 0 && !read_cell(f, q.zblank_column, row, blank.emplace())) return false;
  unquantize(values.data(), nx, row, scale, zero, blank, q.method, q.table, plain.bytepix,
             out.data());
  return true;
}

}  // namespace

bool decode_plain_band(fitsfile* f, std::span<const std::uint8_t> file, const PlainTiles& plain,
                       const TileBands& cut, long band, std::uint8_t* out) {
  thread_local Scratch scratch;
  if (scratch.inflater == nullptr || !cut.tiled) return false;
  int status = 0;
  LONGLONG head = 0, data = 0, end = 0;
  fits_get_hduaddrll(f, &head, &data, &end, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return false;
  }
  const auto size = static_cast<LONGLONG>(std::min<std::uint64_t>(
      file.size(), static_cast<std::uint64_t>(std::max<LONGLONG>(f->Fptr->logfilesize, 0))));
  const LONGLONG heap = data + f->Fptr->heapstart;
  const int naxis = plain.naxis;
  const auto item = static_cast<std::uint64_t>(plain.bytepix);
  std::array<long, MAX_COMPRESS_DIM> across{};           // tiles along each axis
  std::array<std::uint64_t, MAX_COMPRESS_DIM> stride{};  // pixels between steps along each axis
  std::uint64_t step = 1;
  for (int k = 0; k < naxis; ++k) {
    across[k] = (plain.axes[k] - 1) / plain.tile[k] + 1;
    stride[k] = step;
    step *= static_cast<std::uint64_t>(plain.axes[k]);
  }
  const std::uint64_t band_first = cut.first_pixel(band);
  const std::uint64_t band_pixels = cut.band_pixels(band);
  const std::uint64_t first_row = cut.first_slab(band) * cut.tiles_per_slab + 1;
  const std::uint64_t end_row = cut.end_slab(band) * cut.tiles_per_slab + 1;
  std::array<long, MAX_COMPRESS_DIM> start{}, extent{};
  for (std::uint64_t row = first_row; row < end_row; ++row) {
    // The tile's place: its index along each axis (first axis fastest), clipped at the edges.
    std::uint64_t rest = row - 1;
    std::uint64_t nx = 1;
    std::uint64_t at = 0;  // its first pixel in the image
    bool one_run = true;   // its pixels are one run of the image's
    for (int k = 0; k < naxis; ++k) {
      start[k] = static_cast<long>(rest % static_cast<std::uint64_t>(across[k])) * plain.tile[k];
      rest /= static_cast<std::uint64_t>(across[k]);
      extent[k] = std::min(plain.tile[k], plain.axes[k] - start[k]);
      nx *= static_cast<std::uint64_t>(extent[k]);
      at += static_cast<std::uint64_t>(start[k]) * stride[k];
      if (k + 1 < naxis && extent[k] != plain.axes[k]) one_run = false;
    }
    if (rest != 0 || at < band_first) return false;  // not a tile of this band
    LONGLONG length = 0, offset = 0;
    fits_read_descriptll(f, plain.column, static_cast<LONGLONG>(row), &length, &offset, &status);
    if (status != 0) {
      fits_clear_errmsg();
      return false;
    }
    // An empty tile is kept in another column; bytes past the file are the guard's to refuse.
    if (length <= 0 || offset < 0 || length > size / plain.element || offset > size ||
        heap > size || heap + offset > size - length * plain.element) {
      return false;
    }
    const std::span<const std::uint8_t> stream = file.subspan(
        static_cast<std::size_t>(heap + offset), static_cast<std::size_t>(length * plain.element));
    if (one_run) {
      if (at - band_first + nx > band_pixels) return false;
      const std::span<std::uint8_t> pixels(out + (at - band_first) * item,
                                           static_cast<std::size_t>(nx * item));
      if (!decode_tile(f, plain, static_cast<long>(row), stream, nx, pixels, scratch)) {
        return false;
      }
      continue;
    }
    scratch.tile.resize(static_cast<std::size_t>(nx * item));
    if (!decode_tile(f, plain, static_cast<long>(row), stream, nx, scratch.tile, scratch)) {
      return false;
    }
    // Scatter the tile's lines (its first axis) to their places in the band.
    std::array<long, MAX_COMPRESS_DIM> index{};
    const std::uint64_t line = static_cast<std::uint64_t>(extent[0]) * item;
    for (std::uint64_t from = 0; from < nx * item; from += line) {
      std::uint64_t pixel = at;
      for (int k = 1; k < naxis; ++k) pixel += static_cast<std::uint64_t>(index[k]) * stride[k];
      if (pixel < band_first ||
          pixel - band_first + static_cast<std::uint64_t>(extent[0]) > band_pixels) {
        return false;
      }
      std::memcpy(out + (pixel - band_first) * item, scratch.tile.data() + from, line);
      for (int k = 1; k < naxis; ++k) {  // the next line of the tile
        if (++index[k] < extent[k]) break;
        index[k] = 0;
      }
    }
  }
  return true;
}

}  // namespace fitsasdf::fits
