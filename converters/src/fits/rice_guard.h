#pragma once
// A guard in front of CFITSIO's Rice decoder. CFITSIO 4.2's fits_rdecomp, fits_rdecomp_short
// and fits_rdecomp_byte check that they stayed inside a tile's bytes only at the end of each
// block of pixels, so a damaged tile (a long run of zero bits) makes them read far past the
// tile's buffer and crash. `rice_tile_in_bounds` replays the decoder's reads without decoding,
// so that a tile that would leave its bytes is refused (tile_guard.h walks the tiles). It counts
// the bits each code takes rather than decoding, several times faster than CFITSIO decodes.
#include <cstdint>
#include <span>

namespace fitsasdf::fits {

/// Return true when decoding `nx` pixels of `bytepix` bytes (1, 2, or anything else for 4) in
/// blocks of `nblock` from `tile` reads only bytes inside `tile`, as CFITSIO's decoder reads.
bool rice_tile_in_bounds(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock,
                         int bytepix);

}  // namespace fitsasdf::fits
