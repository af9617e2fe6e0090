#include "units/lexer.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::units {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// Decode UTF-8 `s` into code points; nullopt when it is not UTF-8.
std::optional<std::u32string> decode_utf8(std::string_view s) {
  std::u32string out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto byte = static_cast<unsigned char>(s[i]);
    std::size_t length = byte < 0x80           ? 1
                         : (byte >> 5) == 0x6  ? 2
                         : (byte >> 4) == 0xE  ? 3
                         : (byte >> 3) == 0x1E ? 4
                                               : 0;
    if (length == 0 || i + length > s.size()) return std::nullopt;
    char32_t cp = length == 1 ? byte : byte & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
      auto next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (next & 0x3F);
    }
    const char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_length[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return std::nullopt;
    }
    out.push_back(cp);
    i += length;
  }
  return out;
}

/// Return true for the characters Python's `str.isspace()` accepts.
bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

/// Return the ASCII digit of a superscript digit, or 0.
char superscript_digit(char32_t c) {
  switch (c) {
    case U'\u2070':
      return '0';
    case U'\u00B9':
      return '1';
    case U'\u00B2':
      return '2';
    case U'\u00B3':
      return '3';
    default:
      break;
  }
  if (c >= U'\u2074' && c <= U'\u2079') return static_cast<char>('4' + (c - U'\u2074'));
  return 0;
}

/// Return '-' or '+' for a superscript sign, or 0.
char superscript_sign(char32_t c) { return c == U'\u207B' ? '-' : (c == U'\u207A' ? '+' : 0); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

[[noreturn]] void invalid_character(std::size_t column, char c) {
  std::string shown =
      c == '\'' ? "a quote (quoted custom units are not FITS units)" : std::string("'") + c + "'";
  throw Error(ErrorCode::kInvalidArgument,
              "invalid character " + shown + " at column " + std::to_string(column) +
                  "; FITS units are written with letters, digits, spaces and . * / ^ ( ) + -");
}

}  // namespace

bool is_blank(std::string_view s) {
  std::optional<std::u32string> points = decode_utf8(s);
  if (!points) return false;
  for (char32_t c : *points) {
    if (!is_python_space(c)) return false;
  }
  return true;
}

std::string normalize_unit_string(std::string_view s) {
  bool ascii = true;
  for (char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) return std::string(s);
  std::optional<std::u32string> decoded = decode_utf8(s);
  if (!decoded) {
    throw Error(ErrorCode::kInvalidArgument,
                "the unit string is not valid UTF-8; FITS units are ASCII");
  }
  // Canonical composition turns the Kelvin sign into 'K'; astropy then reads U+2212 as '-'.
  std::u32string points;
  for (char32_t c : *decoded) {
    if (c == U'\u212A') c = U'K';
    if (c == U'\u2212') c = U'-';
    points.push_back(c);
  }
  // Superscript powers become parenthesised numbers: "m⁻²" -> "m(-2)".
  std::u32string rewritten;
  for (std::size_t i = 0; i < points.size();) {
    char sign = superscript_sign(points[i]);
    std::size_t start = sign != 0 ? i + 1 : i;
    std::size_t end = start;
    while (end < points.size() && superscript_digit(points[end]) != 0) ++end;
    if (end == start) {
      rewritten.push_back(points[i]);
      ++i;
      continue;
    }
    rewritten.push_back(U'(');
    if (sign != 0) rewritten.push_back(static_cast<char32_t>(sign));
    for (std::size_t k = start; k < end; ++k) {
      rewritten.push_back(static_cast<char32_t>(superscript_digit(points[k])));
    }
    rewritten.push_back(U')');
    i = end;
  }
  // A degree sign alone is "deg"; anywhere else astropy rewrites it to "deg_", no FITS unit.
  if (rewritten == U"\u00B0") return "deg";
  std::string out;
  for (std::size_t i = 0; i < rewritten.size(); ++i) {
    char32_t c = rewritten[i];
    if (c == U'\u00B0') {
      throw Error(ErrorCode::kInvalidArgument,
                  "a degree sign is only read as a whole unit string; write 'deg' instead");
    }
    if (c >= 0x80) {
      throw Error(ErrorCode::kInvalidArgument,
                  "the unit string has a non-ASCII character (code point " + std::to_string(c) +
                      "); FITS unit names are ASCII");
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  auto push = [&tokens](TokenKind kind, std::string text, std::size_t column) -> Token& {
    Token token;
    token.kind = kind;
    token.text = std::move(text);
    token.column = column;
    tokens.push_back(std::move(token));
    return tokens.back();
  };
  while (i < s.size()) {
    char c = s[i];
    std::size_t start = i;
    if (c == ' ') {
      ++i;
      continue;
    }
    // Numbers: ((\d+\.?\d*)|(\.\d+))([eE][+-]?\d+)?
    bool number = is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]));
    if (number) {
      std::size_t j = i;
      if (is_digit(s[j])) {
        while (j < s.size() && is_digit(s[j])) ++j;
        if (j < s.size() && s[j] == '.') ++j;
        while (j < s.size() && is_digit(s[j])) ++j;
      } else {
        ++j;
        while (j < s.size() && is_digit(s[j])) ++j;
      }
      std::size_t mantissa_end = j;
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && is_digit(s[k])) {
          while (k < s.size() && is_digit(s[k])) ++k;
          j = k;
        }
      }
      std::string text(s.substr(i, j - i));
      bool has_exponent = j != mantissa_end;
      bool has_point = text.find('.') != std::string::npos;
      if (!has_exponent && !has_point) {
        push(TokenKind::kUint, text, start);
      } else if (!has_exponent && text.back() == '.') {
        push(TokenKind::kUint, text.substr(0, text.size() - 1), start);
      } else {
        double value = 0.0;
        std::from_chars(text.data(), text.data() + text.size(), value);
        push(TokenKind::kUfloat, text, start).real = value;
      }
      i = j;
      continue;
    }
    if ((c == '+' || c == '-') && i + 1 < s.size() && is_digit(s[i + 1])) {
      push(TokenKind::kSign, std::string(1, c), start).sign = c == '-' ? -1 : 1;
      ++i;
      continue;
    }
    if (is_name_char(c)) {
      std::size_t j = i;
      while (j < s.size() && is_name_char(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      // A function name wins over a unit name when '(' follows, after optional spaces.
      bool is_function = false;
      for (std::string_view function : {"sqrt", "ln", "exp", "log", "mag", "dB", "dex"}) {
        if (s.substr(i, function.size()) != function) continue;
        std::size_t k = i + function.size();
        while (k < s.size() && s[k] == ' ') ++k;
        if (k < s.size() && s[k] == '(') {
          push(TokenKind::kFuncname, std::string(function), start);
          j = i + function.size();
          is_function = true;
          break;
        }
      }
      if (!is_function) push(TokenKind::kUnit, std::string(word), start);
      i = j;
      continue;
    }
    switch (c) {
      case '%':
        push(TokenKind::kUnit, "%", start);
        break;
      case '*':
        if (i + 1 < s.size() && s[i + 1] == '*') {
          push(TokenKind::kDoubleStar, "**", start);
          ++i;
        } else {
          push(TokenKind::kStar, "*", start);
        }
        break;
      case '^':
        push(TokenKind::kCaret, "^", start);
        break;
      case '.':
        push(TokenKind::kPeriod, ".", start);
        break;
      case '/':
        push(TokenKind::kSolidus, "/", start);
        break;
      case ',':
        push(TokenKind::kComma, ",", start);
        break;
      case '(':
        push(TokenKind::kOpenParen, "(", start);
        break;
      case ')':
        push(TokenKind::kCloseParen, ")", start);
        break;
      default:
        invalid_character(start, c);
    }
    ++i;
  }
  push(TokenKind::kEnd, "", s.size());
  return tokens;
}

}  // namespace fitsasdf::units
