#pragma once
// A guard in front of CFITSIO's PLIO_1 writer. CFITSIO 4.2 gives each tile's PLIO line list a
// buffer of 4 bytes a pixel (imcomp_calc_max_elem) and writes the list without a bound
// (pl_p2li), but a list can take up to 3 words a pixel plus a 7-word header: a tile of small
// runs whose values jump by more than 4095 makes it write past the buffer. A value outside
// 0 to 2^24 - 1 is refused by CFITSIO, but the tile's buffer is then leaked. `plio_write_problem`
// finds both before CFITSIO is asked, so that the image can be compressed another way.
//
// Its PLIO_1 reader (pl_l2pi) takes the list's length and first instruction from the list's
// header, not from the tile's size: a damaged header makes it read before or past the tile's
// words, and a length of 0 or less makes it return without writing the tile's pixels, which then
// hold whatever their buffer held. `plio_tile_problem` replays its reads without decoding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace fitsasdf::fits {

/// The number of 16-bit words of the PLIO line list CFITSIO's pl_p2li makes of `pixels`
/// (its 7-word header included); 0 for no pixels. Negative values count as 0, as in pl_p2li.
std::size_t plio_line_list_words(std::span<const std::int32_t> pixels);

/// Why CFITSIO's PLIO_1 writer cannot compress the image of `values` (FITS order: the first
/// axis varies fastest; as CFITSIO sees them, after its offset of unsigned 16-bit values) with
/// axes `axes` and tiles `tile` (FITS order, as CFITSIO chose them) when it allots `max_bytes`
/// to each tile's line list: a value outside 0 to 16777215, or a tile whose list is longer.
/// Empty when it can.
std::string plio_write_problem(std::span<const std::int32_t> values, std::span<const long> axes,
                               std::span<const long> tile, std::size_t max_bytes);

/// Why CFITSIO's PLIO_1 reader cannot decode the `pixels` pixels of a tile from its line list
/// `words` (the COMPRESSED_DATA values as CFITSIO reads them): a list too short for its header,
/// a header that sends the reader before or past the words, or one that declares no words.
/// Nothing when every word it reads is inside `words`.
std::optional<std::string> plio_tile_problem(std::span<const std::int16_t> words,
                                             std::uint64_t pixels);

}  // namespace fitsasdf::fits
