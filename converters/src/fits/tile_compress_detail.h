#pragma once
// Private to src/fits: the steps of `compress_image` (tile_compress.h) that the band-by-band
// compressor (tile_writer.h) repeats for each band, so that both make the same HDU.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fits/cfitsio.h"
#include "fits/tile_compress.h"

namespace fitsasdf::fits {

/// Create `out` as a file in memory holding the empty compressed image HDU `compress_image`
/// fills: made by CFITSIO with `params`, its cards written, scaling off, each tile's output
/// buffer large enough for PLIO_1 and HCOMPRESS_1. Return CFITSIO's code for the algorithm.
/// Throws `asdfcore::Error` with `where` when CFITSIO refuses the parameters.
int begin_compressed_image(CfitsioHandle& out, int bitpix, const std::vector<long>& naxes,
                           const std::vector<std::string>& cards, const TileCompression& params,
                           const asdfcore::ErrorContext& where);

/// Why CFITSIO's PLIO_1 writer cannot take the pixels `native` (machine order) of the image made
/// in `out`, the first of them pixel `first_pixel` of the image (FITS order): a value outside 0
/// to 2^24 - 1, as the writer sees it (16-bit values with BZERO = 32768, unsigned, are offset by
/// 32768 first). CFITSIO refuses such a tile itself, but leaks its buffer. Empty when every
/// value fits.
std::string plio_range_problem(fitsfile* out, int bitpix, std::span<const std::uint8_t> native,
                               std::uint64_t first_pixel);

}  // namespace fitsasdf::fits
