#include "fits/tile_bands.h"

namespace fitsasdf::fits {

TileBands cut_into_bands(const FITSfile& parsed, std::span<const long> naxes, std::uint64_t item,
                         std::uint64_t band_bytes) {
  TileBands cut;
  cut.item = item;
  const auto naxis = static_cast<int>(naxes.size());
  cut.pixels = naxis > 0 ? 1 : 0;
  for (const long n : naxes) cut.pixels *= static_cast<std::uint64_t>(n);
  cut.tiled = parsed.zndim == naxis && naxis > 0;
  for (int k = 0; cut.tiled && k < naxis; ++k) cut.tiled = parsed.tilesize[k] > 0;
  std::uint64_t plane = cut.pixels;
  cut.slab_height = 1;
  if (cut.tiled) {
    plane = 1;
    cut.tiles_per_slab = 1;
    for (int k = 0; k + 1 < naxis; ++k) {
      plane *= static_cast<std::uint64_t>(naxes[k]);
      if (naxes[k] > 0) {
        cut.tiles_per_slab *= static_cast<std::uint64_t>((naxes[k] - 1) / parsed.tilesize[k] + 1);
      }
    }
    cut.slab_height = std::min<std::uint64_t>(static_cast<std::uint64_t>(naxes[naxis - 1]),
                                              static_cast<std::uint64_t>(parsed.tilesize[naxis - 1]));
  }
  cut.slab_pixels = std::max<std::uint64_t>(plane * cut.slab_height, 1);
  cut.slabs = cut.pixels == 0 ? 0 : (cut.pixels - 1) / cut.slab_pixels + 1;
  cut.slabs_per_band =
      std::max<std::uint64_t>(1, band_bytes / std::max<std::uint64_t>(cut.slab_pixels * item, 1));
  cut.bands = static_cast<long>(cut.slabs == 0 ? 0 : (cut.slabs - 1) / cut.slabs_per_band + 1);
  return cut;
}

}  // namespace fitsasdf::fits
