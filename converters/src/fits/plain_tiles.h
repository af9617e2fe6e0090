#pragma once
// Private to src/fits: the tiles of a compressed integer image decoded without CFITSIO, each
// read once, in place in the memory CFITSIO reads the HDU from. RICE_1 tiles go through the
// bounded Rice decoder (rice_decode.h), GZIP_1 and GZIP_2 tiles through libdeflate straight into
// the pixels: both are the guard (tile_guard.h) and the decoding at once. Only tiles that
// CFITSIO would decode to the same bytes are taken; a band holding any other tile (damaged, kept
// in another column, of an older layout) is left to the guarded CFITSIO path, which decodes it or
// refuses it with its usual error.
#include <fitsio.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "fits/tile_bands.h"

namespace fitsasdf::fits {

struct PlainTiles {
  enum class Codec { kRice, kGzip1, kGzip2 };
  Codec codec = Codec::kRice;
  int bytepix = 0;  ///< Bytes a pixel, as stored and as given.
  int nblock = 0;   ///< Rice's pixels a block.
  int naxis = 0;
  std::array<long, MAX_COMPRESS_DIM> axes{};
  std::array<long, MAX_COMPRESS_DIM> tile{};
  int column = 0;  ///< COMPRESSED_DATA.
};

/// How the tiles of the compressed image CFITSIO parsed into `parsed` can be decoded here: an
/// image of 8-, 16- or 32-bit integers (`bitpix`, the image's) in RICE_1 (its bytes a pixel the
/// image's), GZIP_1 or GZIP_2, tiled along every axis, with no ZSCALE or ZZERO. Nothing when
/// it is anything else.
std::optional<PlainTiles> plain_tiles(const FITSfile& parsed, int bitpix);

/// Decode band `band` of `cut` (`cut.band_bytes(band)` bytes at `out`, big-endian) from the
/// tiles of the compressed image at `f`'s current HDU, whose memory file is `file`. Return false
/// when a tile of the band is not one `plain` can decode as CFITSIO would (its descriptor
/// unreadable or empty, its bytes outside the file, its stream damaged or of another length than
/// its pixels): the band is then to be decoded by CFITSIO behind the tile guard.
bool decode_plain_band(fitsfile* f, std::span<const std::uint8_t> file, const PlainTiles& plain,
                       const TileBands& cut, long band, std::uint8_t* out);

}  // namespace fitsasdf::fits
