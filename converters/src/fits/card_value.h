#pragma once
// One FITS card image read the way astropy 5.2.1's `Card` reads it: the keyword, the value and
// the comment, with astropy's leniency (free-format values, lower-case keywords, D exponents,
// HIERARCH, record-valued keywords, CONTINUE long strings) and its failures (what astropy
// cannot parse throws here). Text stays Latin-1 as in the file; the keyword is UTF-8.

#include <string>
#include <string_view>

namespace fitsasdf::fits {

/// A card value as astropy types it.
struct CardValue {
  enum class Kind { kString, kBool, kInteger, kFloat, kComplex, kUndefined };
  Kind kind = Kind::kUndefined;
  std::string text;      ///< kString: the Latin-1 text; kInteger: decimal text ("-12", no '+').
  bool boolean = false;  ///< kBool.
  double real = 0;       ///< kFloat: the value; kComplex: the real part.
  double imag = 0;       ///< kComplex: the imaginary part.
};

/// What astropy shows for one logical card.
struct CardFields {
  std::string keyword;  ///< UTF-8 (upper-cased where astropy upper-cases it).
  CardValue value;
  std::string comment;  ///< Latin-1.
  std::string problem;  ///< Why the value was fixed (fix_unparsable only); "" otherwise.
};

/// Parse `image`: one 80-byte card, or a card followed by its CONTINUE cards (80·n bytes).
/// Throws `asdfcore::Error` (kMalformed, no context) where astropy's `Card.value` raises, except
/// that with `fix_unparsable` a single card whose value field does not parse is fixed the way
/// astropy's `verify('fix')` does it (string value before the first '/', comment after it).
CardFields parse_card(std::string_view image, bool fix_unparsable = false);

/// Return `latin1` re-encoded as UTF-8.
std::string latin1_to_utf8(std::string_view latin1);

}  // namespace fitsasdf::fits
