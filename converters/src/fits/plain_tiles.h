#pragma once
// Private to src/fits: the tiles of a compressed image each read once, in place in the memory
// CFITSIO reads the HDU from, and decoded without CFITSIO's tile reader. RICE_1 tiles go through
// the bounded Rice decoder (rice_decode.h), GZIP_1 and GZIP_2 tiles through libdeflate straight
// into the pixels: both are the guard (tile_guard.h) and the decoding at once. HCOMPRESS_1 and
// PLIO_1 tiles are checked by their guards (hcompress_guard.h, plio_guard.h) and then handed,
// from the same memory, to CFITSIO's own codec functions (fits_hdecompress, pl_l2pi). The tiles
// of a quantized float image are 32-bit integers made into pixels as CFITSIO makes them
// (unquantize.h). Only tiles that CFITSIO would decode to the same bytes are taken; a band
// holding any other tile (damaged, kept in another column, of an older layout, with a value
// CFITSIO would clip) is left to the guarded CFITSIO path, which decodes it or refuses it with
// its usual error.
#include <fitsio.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "fits/tile_bands.h"
#include "fits/unquantize.h"

namespace fitsasdf::fits {

struct PlainTiles {
  enum class Codec { kRice, kGzip1, kGzip2, kHcompress, kPlio };
  Codec codec = Codec::kRice;
  int element = 1;  ///< Bytes a value of COMPRESSED_DATA: 2 for PLIO_1's 16-bit words, else 1.
  int stored = 0;   ///< Bytes a value in a tile.
  int bytepix = 0;  ///< Bytes a pixel as given: `stored`, but for a quantized double image.
  int nblock = 0;   ///< Rice's pixels a block.
  int smooth = 0;   ///< HCOMPRESS_1's smoothing (ZVAL2), as CFITSIO decodes with it.
  bool hcompress_wide = false;  ///< HCOMPRESS_1 decoded at 64 bits (not an 8- or 16-bit image).
  bool plio_offset = false;     ///< PLIO_1 of a BZERO = 32768 image: values 32768 above stored.
  int naxis = 0;
  std::array<long, MAX_COMPRESS_DIM> axes{};
  std::array<long, MAX_COMPRESS_DIM> tile{};
  int column = 0;  ///< COMPRESSED_DATA.

  /// A quantized float image's tiles: 32-bit integers, scaled by their row's ZSCALE and ZZERO.
  struct Quantized {
    Quantization method;
    int zscale_column = 0;
    int zzero_column = 0;
    int zblank_column = 0;         ///< 0: no ZBLANK; -1: the ZBLANK keyword's; else its column.
    std::int32_t zblank = 0;       ///< The keyword's value.
    const float* table = nullptr;  ///< dither_table()
  };
  std::optional<Quantized> quantized;
};

/// True when the compressed image CFITSIO parsed into `parsed`, of `bitpix` (the image's), holds
/// quantized floats: integers that CFITSIO scales back (its quantize level is not ZQUANTIZ =
/// 'NONE''s), with ZBLANK for undefined pixels.
bool quantized_floats(const FITSfile& parsed, int bitpix);

/// How the tiles of the compressed image CFITSIO parsed into `parsed` can be decoded here, tiled
/// along every axis (`bitpix` is the image's):
/// - 8-, 16- or 32-bit integers in RICE_1 (its bytes a pixel the image's), GZIP_1, GZIP_2,
///   HCOMPRESS_1 (CFITSIO built thread-safe) or PLIO_1 (its words 16-bit integers, unscaled; of
///   an image with BZERO = 32768, 16-bit only), with no ZSCALE or ZZERO;
/// - floats or doubles stored without loss (ZQUANTIZ = 'NONE', or no ZSCALE and ZZERO columns)
///   in GZIP_1 or GZIP_2;
/// - quantized floats or doubles in RICE_1 (4 bytes a value), GZIP_1, GZIP_2 or HCOMPRESS_1
///   (CFITSIO built thread-safe), with ZSCALE and ZZERO columns, dithered or not (a dithered
///   image's ZDITHER0 from 1 to 10,000).
/// Nothing when it is anything else.
std::optional<PlainTiles> plain_tiles(const FITSfile& parsed, int bitpix);

/// Decode band `band` of `cut` (`cut.band_bytes(band)` bytes at `out`, big-endian) from the
/// tiles of the compressed image at `f`'s current HDU, whose memory file is `file`. Return false
/// when a tile of the band is not one `plain` can decode as CFITSIO would (its descriptor
/// unreadable or empty, its bytes outside the file, its stream damaged or of another length than
/// its pixels, or a value CFITSIO would clip to the pixels' type): the band is then to be decoded
/// by CFITSIO behind the tile guard.
bool decode_plain_band(fitsfile* f, std::span<const std::uint8_t> file, const PlainTiles& plain,
                       const TileBands& cut, long band, std::uint8_t* out);

}  // namespace fitsasdf::fits
