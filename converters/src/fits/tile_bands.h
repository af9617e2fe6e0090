#pragma once
// Private to src/fits: how a tile-compressed image is cut for work done a band at a time, by
// the reader (tile_reader.h) and the writer (tile_writer.h) alike. The image is cut across its
// last axis into slabs one tile high along it (a row of whole tiles, a run of whole planes of
// the image), and the slabs are grouped into bands of about a given size.
#include <fitsio.h>

#include <algorithm>
#include <cstdint>
#include <span>

namespace fitsasdf::fits {

struct TileBands {
  std::uint64_t item = 0;         ///< Bytes a pixel.
  std::uint64_t pixels = 0;       ///< Pixels of the image.
  bool tiled = false;             ///< False: CFITSIO's tiling was unusable; one slab, no tiles.
  std::uint64_t slab_height = 1;  ///< Planes of the image a slab holds.
  std::uint64_t slab_pixels = 1;
  std::uint64_t slabs = 0;
  std::uint64_t tiles_per_slab = 0;
  std::uint64_t slabs_per_band = 1;
  long bands = 0;

  std::uint64_t first_slab(long band) const {
    return static_cast<std::uint64_t>(band) * slabs_per_band;
  }
  std::uint64_t end_slab(long band) const {
    return std::min<std::uint64_t>(first_slab(band) + slabs_per_band, slabs);
  }
  std::uint64_t first_pixel(long band) const { return first_slab(band) * slab_pixels; }
  /// Pixels of band `band`.
  std::uint64_t band_pixels(long band) const {
    return std::min(pixels, end_slab(band) * slab_pixels) - first_pixel(band);
  }
  /// Where band `band`'s pixels start in the data, in bytes.
  std::uint64_t band_offset(long band) const { return first_pixel(band) * item; }
  /// Bytes of band `band`'s pixels.
  std::uint64_t band_bytes(long band) const { return band_pixels(band) * item; }
};

/// Cut the image of axes `naxes` (FITS order, non-negative) and `item` bytes a pixel with the
/// tiling CFITSIO parsed into `parsed` (ZNDIM, ZTILEn) into bands of about `band_bytes` (at least
/// a slab each). When that tiling does not fit the axes, the whole image is one slab.
TileBands cut_into_bands(const FITSfile& parsed, std::span<const long> naxes, std::uint64_t item,
                         std::uint64_t band_bytes);

}  // namespace fitsasdf::fits
