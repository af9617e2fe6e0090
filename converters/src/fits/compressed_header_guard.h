#pragma once
// A guard in front of CFITSIO's reading of tile-compressed image headers. CFITSIO 4.2 reads a
// compressed image's parameters every time it moves to or past that HDU (counting the HDUs
// included), and divides by two of them unchecked: a ZTILEn of 0 (the number of tiles) and a
// RICE_1 block size of 0 (ZVAL1, the bound on a tile's compressed size). One such card ends the
// process with SIGFPE. CFITSIO reads both as integers, so 0.5 or '0' are 0 too. And an integer
// keyword of a compressed HDU that CFITSIO cannot convert, 29 characters or longer, overflows
// the buffer of its error message: glibc aborts the process.
#include <fitsio.h>

#include "asdfcore/error.h"

namespace fitsasdf::fits {

/// Walk the headers of `in` that follow its current HDU (the primary, just after opening), by
/// the sizes their own BITPIX, NAXISn, PCOUNT and GCOUNT give, reading raw bytes through
/// CFITSIO (so a gzip-compressed file is walked as CFITSIO sees it), and throw `Error`
/// (malformed, with the HDU and the card's offset added to `where`) for the first tile-compressed
/// image (a BINTABLE with ZIMAGE = T) whose ZTILEn or RICE_1 block size CFITSIO would read as 0,
/// or tile-compressed image or table (ZTABLE = T) with such an unconvertible integer keyword.
/// Stops quietly where the headers stop making sense (no XTENSION, no END, a size that does not
/// parse or overflows): CFITSIO cannot move past such a header either, and says so itself.
/// Leaves the current HDU as it was.
void check_compressed_image_headers(fitsfile* in, const asdfcore::ErrorContext& where);

}  // namespace fitsasdf::fits
