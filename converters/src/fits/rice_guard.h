#pragma once
// A guard in front of CFITSIO's Rice decoder. CFITSIO 4.2's fits_rdecomp, fits_rdecomp_short
// and fits_rdecomp_byte check that they stayed inside a tile's bytes only at the end of each
// block of pixels, so a damaged tile (a long run of zero bits) makes them read far past the
// tile's buffer and crash. These functions replay the decoder's reads without decoding, and
// refuse a tile that would leave its bytes.
#include <cstdint>
#include <span>

#include <fitsio.h>

#include "asdfcore/error.h"

namespace fitsasdf::fits {

/// Return true when decoding `nx` pixels of `bytepix` bytes (1, 2, or anything else for 4) in
/// blocks of `nblock` from `tile` reads only bytes inside `tile`, as CFITSIO's decoder reads.
bool rice_tile_in_bounds(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock,
                         int bytepix);

/// For the tile-compressed image at `in`'s current HDU, when its ZCMPTYPE is RICE_1: throw
/// `Error` (malformed) with `where` naming the first tile whose bytes the decoder would read
/// past, or the first tile whose descriptor or bytes cannot be read (CFITSIO's status, as
/// `check_status` turns it into an error). Does nothing for other algorithms, or when the header
/// is too damaged to say (CFITSIO then refuses it itself). The file's current HDU is unchanged.
void check_rice_tiles(fitsfile* in, const asdfcore::ErrorContext& where);

}  // namespace fitsasdf::fits
