#pragma once
// Writing one header card from its [keyword, value, comment] in the FITS fixed format, the way
// astropy 5.2.1 formats a new `Card`: logical, integer, real and complex values right-justified
// to column 30, strings from column 11 with quotes doubled and padded to 8 characters, comments
// after " / ", commentary cards (COMMENT, HISTORY, blank keyword), long strings continued on
// CONTINUE cards, HIERARCH and record-valued keywords. Pure C++: no CFITSIO.
#include <string>
#include <string_view>

#include "asdfcore/tree/node.h"

namespace fitsasdf::fits {

/// The END card that closes a header: END and 77 blanks.
inline constexpr std::string_view kEndCard =
    "END                                                                             ";
static_assert(kEndCard.size() == 80);

/// A card written out: one or more 80-byte images.
struct FormattedCard {
  std::string images;              ///< 80 * n bytes (n > 1 for CONTINUE and long commentary).
  bool comment_truncated = false;  ///< The comment did not fit a single card and was cut.
};

/// Format the card `keyword` = `value` / `comment` as astropy does for a new card, with two
/// differences that keep values exact: a real number takes the shortest of 16 and 17
/// significant digits that reads back as the same double (astropy always writes 16), and a
/// string whose comment does not fit one card continues on CONTINUE cards (astropy cuts the
/// comment). `value` may be nullptr or null (undefined: "KEY     =", or a blank card for the
/// blank keyword), a bool, an integer of any size, a finite float, a string, a string tagged
/// `core/complex` ("(1+2j)"), or a timestamp (written as its text). A keyword longer than 8
/// characters, or with characters outside A-Z, 0-9, '_' and '-', or written "HIERARCH name",
/// makes a HIERARCH card; "KEY.FIELD" with a number makes a record-valued card ("KEY     =
/// 'FIELD: 1.0'"). A number that does not fit with its comment is written without the padding
/// to column 30, and only then is the comment cut (`comment_truncated`). Throws
/// `asdfcore::Error` (invalid-argument, no context) for a value FITS cannot hold (a mapping, a
/// non-finite float, text outside printable ASCII), the keyword END, or a HIERARCH card too long
/// for 80 bytes.
FormattedCard format_card(std::string_view keyword, const asdfcore::tree::NodePtr& value,
                          std::string_view comment);

/// Return `value` as a FITS real: %.16G (or %.17G when 16 digits do not read back as the same
/// double), with a decimal point added to an integral value ("1.0") and a two-digit exponent at
/// least ("1E-05"). Throws `asdfcore::Error` (invalid-argument) for a NaN or an infinity.
std::string format_real(double value);

}  // namespace fitsasdf::fits
