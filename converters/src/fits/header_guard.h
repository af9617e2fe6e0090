#pragma once
// A guard in front of CFITSIO's reading of extension headers. CFITSIO 4.2 parses an extension's
// header every time it moves to or past that HDU (counting the HDUs included), and some headers
// end the process there instead of giving an error:
// - A tile-compressed image's ZTILEn of 0 (the number of tiles) and RICE_1 block size of 0
//   (ZVAL1, the bound on a tile's compressed size): CFITSIO divides by both unchecked (SIGFPE).
//   It reads them as integers, so 0.5 or '0' are 0 too.
// - An integer keyword of a compressed HDU that CFITSIO cannot convert, 29 characters or
//   longer: its error message overflows its buffer, and glibc aborts the process.
// - A table's column name (TTYPEn) written as an unquoted token of 70 characters: CFITSIO
//   copies it into a 70-byte field with its terminator, and glibc aborts the process.
// - A keyword a tile-compressed HDU is decoded by (ZNAXISn, ZTILEn, ZVALn, ZTILELEN, TFIELDS, ...)
//   given twice with different values: CFITSIO looks keywords up from where its last look-up
//   ended, so the card it takes depends on the order of its reads, and the checks made before
//   it decodes (tile_guard.h) cannot be sure to see what it sees.
#include <fitsio.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "asdfcore/error.h"

namespace fitsasdf::fits {

/// Walk the headers of `in` that follow its current HDU (the primary, just after opening), by
/// the sizes their own BITPIX, NAXISn, PCOUNT and GCOUNT give, reading raw bytes through
/// CFITSIO (so a gzip-compressed file is walked as CFITSIO sees it), and throw `Error`
/// (malformed, with the HDU and the card's offset added to `where`) for the first header that
/// would end the process inside CFITSIO (the cases above). A header the file ends in (no END) is
/// checked as far as it goes: CFITSIO parses its cards all the same (fuzz finding 14). Stops
/// quietly after such a header, and where the headers stop making sense (no XTENSION, a size that
/// does not parse or overflows): CFITSIO cannot move past them either, and says so itself.
/// Leaves the current HDU as it was.
void check_extension_headers(fitsfile* in, const asdfcore::ErrorContext& where);

/// The length of CFITSIO 4.2's field for a table's column name, terminator included.
inline constexpr std::size_t kColumnNameField = 70;

/// A column name CFITSIO would copy past its field.
struct OverlongColumnName {
  std::string keyword;     ///< As CFITSIO names the card ("TTYPE01" stays so).
  long index = 0;          ///< The column's number, as CFITSIO reads it from the keyword.
  std::size_t length = 0;  ///< The characters CFITSIO copies (70 or more).
};

/// Read the 80-byte `card` the way CFITSIO 4.2 reads a table's column name: the keyword is the
/// text up to the first blank or '=' (at most 74 characters), a column name when it is 'T',
/// then "TYPE" in any case, then a number (all of the rest, as strtol reads it: "TTYPE0001" and
/// "TType1" name column 1), and the value starts after "= " in columns 9-10, or else after the
/// card's first '='. CFITSIO keeps a quoted name below 70 characters; an unquoted one
/// (a token up to a blank or '/', or a complex value up to its ')') it copies whole. Return the
/// card's name when CFITSIO would copy 70 characters or more, nothing otherwise (any other
/// card, a name that fits, no value). CFITSIO does this only for a table, and only for a column
/// number from 1 to its TFIELDS.
std::optional<OverlongColumnName> overlong_column_name(std::string_view card);

}  // namespace fitsasdf::fits
