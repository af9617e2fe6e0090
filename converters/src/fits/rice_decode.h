#pragma once
// A Rice decoder for the tiles of RICE_1-compressed images that checks its bounds as it goes:
// the guard in front of CFITSIO's decoder (rice_guard.h) and the decoding in one pass over the
// tile's bytes, so that a tile is read once, not walked by the guard and then decoded again by
// CFITSIO. It decodes what CFITSIO 4.2's fits_rdecomp, fits_rdecomp_short and fits_rdecomp_byte
// decode, and gives up on a tile where they would read past its bytes (the guard refuses it) or
// meet a block code they leave undefined.
#include <cstdint>
#include <span>

namespace fitsasdf::fits {

/// Decode `nx` pixels of `bytepix` bytes (1, 2 or 4) in blocks of `nblock` from the Rice stream
/// `tile` into `out` (`nx * bytepix` bytes), each pixel big-endian: the values CFITSIO's decoder
/// gives. Return false, with `out` partly written, when CFITSIO's decoder would read a byte past
/// `tile` (as `rice_tile_in_bounds` says), when a block's code is beyond the largest the pixel
/// size defines (a 32-bit block code of 27 to 31), or when `nblock`, `bytepix` or `out` do not
/// fit.
bool rice_decode(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock, int bytepix,
                 std::span<std::uint8_t> out);

}  // namespace fitsasdf::fits
