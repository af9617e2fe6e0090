#pragma once
// A guard in front of CFITSIO's PLIO_1 reader. CFITSIO 4.2's pl_l2pi takes a line list's length
// and first instruction from the list's own header, not from the tile's size: a damaged header
// makes it read before or past the tile's words, and a length of 0 or less makes it return
// without writing the tile's pixels, which then hold whatever their buffer held.
// `plio_tile_problem` replays its reads without decoding (tile_guard.h walks the tiles). The
// writer's faults are handled where images are compressed (tile_compress.cc).
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace fitsasdf::fits {

/// Why CFITSIO's PLIO_1 reader cannot decode the `pixels` pixels of a tile from its line list
/// `words` (the COMPRESSED_DATA values as CFITSIO reads them): a list too short for its header,
/// a header that sends the reader before or past the words, or one that declares no words.
/// Nothing when every word it reads is inside `words`.
std::optional<std::string> plio_tile_problem(std::span<const std::int16_t> words,
                                             std::uint64_t pixels);

}  // namespace fitsasdf::fits
