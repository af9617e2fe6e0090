#pragma once
// Private to src/fits: the pixels of a quantized float tile-compressed image, made from the
// tile's integers as CFITSIO 4.2 makes them when it reads the image as floats (or doubles),
// bit for bit, so that a tile decoded here (plain_tiles.h) gives the bytes the guarded CFITSIO
// path gives.
//
// The tiled-image convention (Pence et al., "Tiled image convention for storing compressed
// images in FITS binary tables") stores a float pixel as the integer i with
// value = (i - r + 0.5) * ZSCALE + ZZERO under subtractive dithering (ZQUANTIZ
// SUBTRACTIVE_DITHER_1 or _2), r taken in turn from a fixed table of 10,000 random numbers
// starting at an entry set by the tile's row and ZDITHER0, or value = i * ZSCALE + ZZERO without
// dithering. ZBLANK marks an undefined pixel (read as NaN, every bit set, as funpack writes
// it); under SUBTRACTIVE_DITHER_2 the integer -2147483646 is an exact 0.0.
#include <cstdint>
#include <optional>

namespace fitsasdf::fits {

struct Quantization {
  bool dithered = false;     ///< SUBTRACTIVE_DITHER_1 or SUBTRACTIVE_DITHER_2.
  bool exact_zeros = false;  ///< SUBTRACTIVE_DITHER_2: -2147483646 is 0.0.
  int dither_seed = 1;       ///< ZDITHER0, 1 to 10,000 when dithered.
};

/// The convention's table of random numbers: 10,000 floats in (0, 1), from the multiplicative
/// congruential generator of Park and Miller (a = 16807, m = 2^31 - 1, first seed 1). Nothing
/// when the table did not come out as the convention says it must (its last seed 1043618065).
const float* dither_table();

/// Turn the `nx` big-endian 32-bit integers at `in`, the tile of table row `row` (from 1), into
/// big-endian pixels of `width` bytes (4: float, 8: double) at `out`, as CFITSIO reads them with
/// a null value of NaN. `blank` is the tile's ZBLANK, if the image has one. `in` may be `out`
/// when `width` is 4. `table` is `dither_table()`.
void unquantize(const std::uint8_t* in, std::uint64_t nx, long row, double scale, double zero,
                std::optional<std::int32_t> blank, const Quantization& q, const float* table,
                int width, std::uint8_t* out);

}  // namespace fitsasdf::fits
