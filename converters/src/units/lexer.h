#pragma once
/// \file
/// Splitting a FITS unit string into the tokens of astropy 5.2.1's unit grammar, with the same
/// priorities as its lexer: numbers before signs before function names before unit names, "**"
/// before "*", a number's trailing '.' eaten ("2." is the integer 2), spaces skipped.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fitsasdf::units {

/// The kinds of token.
enum class TokenKind {
  kUint,        ///< Unsigned integer: "17", "010", "2." (digits kept in `text`).
  kUfloat,      ///< Unsigned float: "1.5", ".5", "1e-17" (value in `real`).
  kSign,        ///< '+' or '-' directly before a digit (value in `sign`).
  kFuncname,    ///< sqrt, ln, exp, log, mag, dB or dex before '('.
  kUnit,        ///< A unit name: letters and '_' ("km"), or '%'.
  kDoubleStar,  ///< "**"
  kCaret,       ///< "^"
  kStar,        ///< "*"
  kPeriod,      ///< "."
  kSolidus,     ///< "/"
  kComma,       ///< ","
  kOpenParen,   ///< "("
  kCloseParen,  ///< ")"
  kEnd,         ///< The end of the string.
};

/// One token and where it starts.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;        ///< The characters (for kUint: the digits only).
  std::size_t column = 0;  ///< 0-based offset into the normalised string.
  double real = 0.0;       ///< The value of a kUfloat.
  int sign = 1;            ///< The value of a kSign: +1 or -1.
};

/// Return `s` with the non-ASCII spellings astropy accepts rewritten in ASCII: superscript
/// powers ("m²" -> "m(2)"), U+2212 minus, the Kelvin sign, a lone degree sign ("°" -> "deg").
/// Throw `asdfcore::Error` (invalid argument) for bytes that are not UTF-8 and for other
/// non-ASCII characters, which no FITS unit contains.
std::string normalize_unit_string(std::string_view s);

/// Split the (normalised) `s` into tokens, ending with a kEnd token. Throw `asdfcore::Error`
/// (invalid argument) at a character no token can start with.
std::vector<Token> tokenize(std::string_view s);

/// Return true when Python's `str.strip()` leaves nothing of `s` (UTF-8): astropy reads such a
/// string as the dimensionless unit.
bool is_blank(std::string_view s);

}  // namespace fitsasdf::units
