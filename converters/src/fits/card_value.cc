// Card parsing that mirrors astropy 5.2.1 (astropy/io/fits/card.py): `_parse_keyword`,
// `_parse_value`, `_parse_comment`, `_split` and the regular expressions they use
// (`_value_NFSC_RE`, `_strg_comment_RE`, `_rvkc_keyword_val_comm_RE`), rewritten as small
// deterministic scanners. Python's str methods act on the Latin-1 decoded text, so `strip()`
// also removes \t\n\v\f\r, \x1c-\x1f, \x85 and \xa0, and `upper()` maps Latin-1 letters.
#include "fits/card_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

constexpr std::size_t kCard = 80;
constexpr std::size_t kKeywordLength = 8;

[[noreturn]] void fail(std::string message) {
  throw Error(ErrorCode::kMalformed, std::move(message));
}

// ---- Python str semantics on Latin-1 text ------------------------------------------------

bool py_space(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0;
}

std::string_view py_rstrip(std::string_view s) {
  // A card's field ends in dozens of blanks: drop them eight at a time first.
  constexpr std::uint64_t kBlanks = 0x2020202020202020ULL;
  while (s.size() >= 8) {
    std::uint64_t tail;
    std::memcpy(&tail, s.data() + s.size() - 8, 8);
    if (tail != kBlanks) break;
    s.remove_suffix(8);
  }
  while (!s.empty() && py_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view py_lstrip(std::string_view s) {
  while (!s.empty() && py_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view py_strip(std::string_view s) { return py_rstrip(py_lstrip(s)); }

bool printable(char c) { return c >= 0x20 && c <= 0x7e; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// Python's `\w` on one Latin-1 character (str.isalnum() or '_').
bool py_word(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if (c < 0x80) return ascii_alpha(ch) || digit(ch) || ch == '_';
  return c == 0xaa || c == 0xb2 || c == 0xb3 || c == 0xb5 || c == 0xb9 || c == 0xba ||
         (c >= 0xbc && c <= 0xbe) || (c >= 0xc0 && c != 0xd7 && c != 0xf7);
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

/// Return true when every character of `s` is ASCII (below 0x80).
bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

/// ASCII upper case, enough to compare with astropy's (ASCII) special keywords.
std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  return out;
}

/// Python's `str.upper()` of Latin-1 text, as UTF-8 ("ß" becomes "SS", "ÿ" U+0178).
std::string py_upper(std::string_view latin1) {
  if (is_ascii(latin1)) {
    return ascii_upper(latin1);  // a keyword almost always: one copy, changed in place
  }
  std::string out;
  out.reserve(latin1.size());
  for (const char ch : latin1) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 'a' && c <= 'z') {
      out += static_cast<char>(c - 32);
    } else if (c == 0xdf) {
      out += "SS";
    } else if (c == 0xff) {
      append_utf8(out, 0x178);
    } else if (c == 0xb5) {
      append_utf8(out, 0x39c);
    } else if (c >= 0xe0 && c != 0xf7) {
      append_utf8(out, c - 32u);
    } else {
      append_utf8(out, c);
    }
  }
  return out;
}

bool is_commentary(std::string_view keyword) {
  return keyword.empty() || keyword == "COMMENT" || keyword == "HISTORY" || keyword == "END";
}

bool is_special(std::string_view keyword) {
  return is_commentary(keyword) || keyword == "CONTINUE";
}

/// Python's `$`: the end of `s`, or just before a final newline.
bool at_end(std::string_view s, std::size_t p) {
  return p == s.size() || (p + 1 == s.size() && s[p] == '\n');
}

std::size_t skip_spaces(std::string_view s, std::size_t p) {
  while (p < s.size() && s[p] == ' ') ++p;
  return p;
}

std::size_t skip_digits(std::string_view s, std::size_t p) {
  while (p < s.size() && digit(s[p])) ++p;
  return p;
}

// ---- numbers ---------------------------------------------------------------------------

/// Python's float() of "[+-]digits[.digits][e[+-]digits]": correctly rounded, overflow to
/// infinity and underflow to zero instead of an error.
double py_float(std::string_view text) {
  bool negative = false;
  std::string_view s = text;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // Decide between overflow and underflow from the decimal exponent of the first digit.
    const std::size_t e_at = s.find_first_of("eE");
    const std::string_view mantissa = s.substr(0, e_at);
    long long exponent = 0;
    if (e_at != std::string_view::npos) {
      std::string_view e = s.substr(e_at + 1);
      const bool e_negative = !e.empty() && e.front() == '-';
      if (!e.empty() && (e.front() == '+' || e.front() == '-')) e.remove_prefix(1);
      for (const char c : e) {
        exponent = std::min<long long>(exponent * 10 + (c - '0'), 1'000'000'000LL);
      }
      if (e_negative) exponent = -exponent;
    }
    const std::size_t dot = mantissa.find('.');
    const std::string_view int_part = mantissa.substr(0, dot);
    const std::size_t first = int_part.find_first_not_of('0');
    long long position = 0;
    if (first != std::string_view::npos) {
      position = static_cast<long long>(int_part.size() - first) - 1;
    } else if (dot != std::string_view::npos) {
      const std::string_view frac = mantissa.substr(dot + 1);
      position = -static_cast<long long>(frac.find_first_not_of('0')) - 1;
    }
    value = exponent + position > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (ec != std::errc() || ptr != s.data() + s.size()) {
    fail("'" + std::string(text) + "' is not a number");
  }
  return negative ? -value : value;
}

/// Python's `_str_to_num`: int() when the text is a plain integer, else float().
CardValue py_str_to_num(std::string_view text) {
  CardValue v;
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (!s.empty() && skip_digits(s, 0) == s.size()) {
    const std::size_t first = s.find_first_not_of('0');
    v.kind = CardValue::Kind::kInteger;
    if (first == std::string_view::npos) {
      v.text = "0";
    } else {
      v.text = (negative ? "-" : "") + std::string(s.substr(first));
    }
    return v;
  }
  v.kind = CardValue::Kind::kFloat;
  v.real = py_float(text);
  return v;
}

double as_double(const CardValue& v) {
  return v.kind == CardValue::Kind::kInteger ? py_float(v.text) : v.real;
}

/// Scan astropy's `_numr_NFSC` at `p`:
/// `[+-]? *(\.\d+|\d+(\.\d*)?) *([deDE] *[+-]? *\d+)?`. Return the end, or npos.
std::size_t scan_number_nfsc(std::string_view s, std::size_t p) {
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
  p = skip_spaces(s, p);
  if (p < s.size() && s[p] == '.') {
    const std::size_t q = skip_digits(s, p + 1);
    if (q == p + 1) return std::string_view::npos;
    p = q;
  } else {
    const std::size_t q = skip_digits(s, p);
    if (q == p) return std::string_view::npos;
    p = q;
    if (p < s.size() && s[p] == '.') p = skip_digits(s, p + 1);
  }
  const std::size_t before_exponent = p;
  std::size_t q = skip_spaces(s, p);
  if (q < s.size() && (s[q] == 'd' || s[q] == 'D' || s[q] == 'e' || s[q] == 'E')) {
    q = skip_spaces(s, q + 1);
    if (q < s.size() && (s[q] == '+' || s[q] == '-')) ++q;
    q = skip_spaces(s, q);
    const std::size_t r = skip_digits(s, q);
    if (r > q) return r;
  }
  return before_exponent;
}

/// astropy's conversion of a matched number: sign kept, spaces dropped, D read as E.
CardValue number_value(std::string_view numr) {
  std::string text;
  for (const char c : numr) {
    if (c == ' ') continue;
    text += (c == 'd' || c == 'D') ? static_cast<char>(c + 1) : c;
  }
  return py_str_to_num(text);
}

/// Scan astropy's strict `_numr_FSC` at `p`: `[+-]?(\.\d+|\d+(\.\d*)?)([DE][+-]?\d+)?`.
std::size_t scan_number_fsc(std::string_view s, std::size_t p) {
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
  if (p < s.size() && s[p] == '.') {
    const std::size_t q = skip_digits(s, p + 1);
    if (q == p + 1) return std::string_view::npos;
    p = q;
  } else {
    const std::size_t q = skip_digits(s, p);
    if (q == p) return std::string_view::npos;
    p = q;
    if (p < s.size() && s[p] == '.') p = skip_digits(s, p + 1);
  }
  if (p < s.size() && (s[p] == 'D' || s[p] == 'E')) {
    std::size_t q = p + 1;
    if (q < s.size() && (s[q] == '+' || s[q] == '-')) ++q;
    const std::size_t r = skip_digits(s, q);
    if (r > q) return r;
  }
  return p;
}

// ---- the value/comment field -----------------------------------------------------------

/// A match of `_value_NFSC_RE`.
struct NfscMatch {
  CardValue value;
  std::string_view comment;  ///< The `comm` group; empty when absent.
};

/// The tail of `_value_NFSC_RE` from `p`: ` *(/ *(?P<comm>(.|\n)*))?$`.
bool nfsc_tail(std::string_view s, std::size_t p, std::string_view& comment) {
  p = skip_spaces(s, p);
  if (at_end(s, p)) {
    comment = {};
    return true;
  }
  if (s[p] != '/') return false;
  p = skip_spaces(s, p + 1);
  comment = s.substr(p);
  return true;
}

/// The string alternative `'(?P<strg>([ -~]+?|''|) *?)'(?=$|/| )` at `p` (an opening quote):
/// the shortest content whose closing quote satisfies `accept(end)`, where `end` is the index
/// after the closing quote; a non-empty content is preferred over the empty one.
template <typename Accept>
std::optional<std::string_view> match_quoted(std::string_view s, std::size_t p, Accept accept) {
  if (p >= s.size() || s[p] != '\'') return std::nullopt;
  auto lookahead = [&](std::size_t q) {
    return at_end(s, q) || (q < s.size() && (s[q] == '/' || s[q] == ' '));
  };
  for (std::size_t last = p + 1; last < s.size() && printable(s[last]); ++last) {
    const std::size_t quote = last + 1;
    if (quote < s.size() && s[quote] == '\'' && lookahead(quote + 1) && accept(quote + 1)) {
      return s.substr(p + 1, last - p);
    }
  }
  if (p + 1 < s.size() && s[p + 1] == '\'' && lookahead(p + 2) && accept(p + 2)) {
    return s.substr(p + 1, 0);
  }
  return std::nullopt;
}

std::string replace_doubled_quotes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') ++i;
  }
  return out;
}

/// Match `_value_NFSC_RE` against the value/comment field `s`.
std::optional<NfscMatch> match_nfsc(std::string_view s) {
  NfscMatch m;
  const std::size_t p = skip_spaces(s, 0);
  std::string_view comment;
  auto tail = [&](std::size_t q) { return nfsc_tail(s, q, comment); };

  if (const auto strg = match_quoted(s, p, tail)) {
    m.value.kind = CardValue::Kind::kString;
    m.value.text = replace_doubled_quotes(*strg);
    m.comment = comment;
    return m;
  }
  if (p < s.size() && (s[p] == 'T' || s[p] == 'F') && tail(p + 1)) {
    m.value.kind = CardValue::Kind::kBool;
    m.value.boolean = s[p] == 'T';
    m.comment = comment;
    return m;
  }
  if (const std::size_t e = scan_number_nfsc(s, p); e != std::string_view::npos && tail(e)) {
    m.value = number_value(s.substr(p, e - p));
    m.comment = comment;
    return m;
  }
  if (p < s.size() && s[p] == '(') {
    const std::size_t r0 = skip_spaces(s, p + 1);
    const std::size_t r1 = scan_number_nfsc(s, r0);
    if (r1 != std::string_view::npos) {
      std::size_t q = skip_spaces(s, r1);
      if (q < s.size() && s[q] == ',') {
        const std::size_t i0 = skip_spaces(s, q + 1);
        const std::size_t i1 = scan_number_nfsc(s, i0);
        if (i1 != std::string_view::npos) {
          q = skip_spaces(s, i1);
          if (q < s.size() && s[q] == ')' && tail(q + 1)) {
            // Python: value = real; value += imag * 1j (complex arithmetic on doubles).
            const double re = as_double(number_value(s.substr(r0, r1 - r0)));
            const double x = as_double(number_value(s.substr(i0, i1 - i0)));
            const double prod_re = x * 0.0 - 0.0 * 1.0;
            const double prod_im = x * 1.0 + 0.0 * 0.0;
            m.value.kind = CardValue::Kind::kComplex;
            m.value.real = re + prod_re;
            m.value.imag = 0.0 + prod_im;
            m.comment = comment;
            return m;
          }
        }
      }
    }
  }
  if (tail(p)) {
    m.value.kind = CardValue::Kind::kUndefined;
    m.comment = comment;
    return m;
  }
  return std::nullopt;
}

// ---- keywords ----------------------------------------------------------------------------

/// Check a record-valued keyword field specifier: `[a-zA-Z_]\w*(\.\d+)?(\.[a-zA-Z_]\w*(\.\d+)?)*`.
bool valid_field_specifier(std::string_view fs) {
  bool previous_digits = true;  // The first token must be an identifier.
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = fs.find('.', start);
    const std::string_view token = fs.substr(start, dot - start);
    if (token.empty()) return false;
    if (skip_digits(token, 0) == token.size()) {
      if (previous_digits) return false;
      previous_digits = true;
    } else {
      if (!(ascii_alpha(token[0]) || token[0] == '_')) return false;
      for (const char c : token) {
        if (!py_word(c)) return false;
      }
      previous_digits = false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

/// A record-valued keyword card: "DP1     = 'AXIS.1: 1'".
struct Rvkc {
  std::string field_specifier;  ///< Latin-1.
  CardValue value;              ///< Python's _int_or_float of the number.
};

/// Match `_rvkc_keyword_val_comm_RE` against the text after the value indicator
/// (`_check_if_rvkc_image`).
std::optional<Rvkc> match_rvkc(std::string_view rest) {
  rest = py_lstrip(rest);
  if (rest.empty() || rest[0] != '\'') return std::nullopt;
  const std::size_t colon_space = rest.find(": ");
  if (colon_space == std::string_view::npos || colon_space < 2) return std::nullopt;
  const std::size_t colon = rest.find(':');
  const std::string_view fs = rest.substr(1, colon - 1);
  if (!valid_field_specifier(fs)) return std::nullopt;
  std::size_t p = colon + 1;
  if (p >= rest.size() || rest[p] != ' ') return std::nullopt;
  p = skip_spaces(rest, p);
  const std::size_t e = scan_number_fsc(rest, p);
  if (e == std::string_view::npos || e >= rest.size() || rest[e] != '\'') return std::nullopt;
  const std::string_view number = rest.substr(p, e - p);
  std::size_t q = skip_spaces(rest, e + 1);
  if (!at_end(rest, q)) {
    if (rest[q] != '/') return std::nullopt;
    q = skip_spaces(rest, q + 1);
    while (q < rest.size() && printable(rest[q])) ++q;
    if (!at_end(rest, q)) return std::nullopt;
  }
  Rvkc r;
  r.field_specifier = std::string(fs);
  if (number.find('D') != std::string_view::npos) {
    // _int_or_float: neither int() nor float() reads a D exponent; astropy raises ValueError.
    fail("record-valued keyword value '" + std::string(number) +
         "' has a D exponent, which astropy cannot read; write it with E");
  }
  r.value = py_str_to_num(number);
  return r;
}

/// How astropy classified the keyword of a card image.
struct KeywordInfo {
  std::string keyword;  ///< UTF-8.
  bool hierarch = false;
  bool invalid = false;
  std::optional<Rvkc> rvkc;
};

/// astropy `Card._parse_keyword`.
KeywordInfo parse_keyword(std::string_view image) {
  KeywordInfo info;
  const std::string_view keyword = py_strip(image.substr(0, kKeywordLength));
  std::string upper = py_upper(keyword);
  if (is_special(upper)) {
    info.keyword = std::move(upper);
    return info;
  }
  if (upper == "HIERARCH" && image[kKeywordLength] == ' ' &&
      image.find('=') != std::string_view::npos) {
    info.hierarch = true;
    info.keyword = latin1_to_utf8(py_strip(image.substr(0, image.find('=')).substr(9)));
    return info;
  }
  const std::size_t indicator = image.find("= ");
  if (indicator != std::string_view::npos && indicator <= kKeywordLength) {
    const std::string_view name = keyword.substr(0, indicator);
    if (auto rvkc = match_rvkc(image.substr(indicator + 2))) {
      info.keyword = py_upper(name) + "." + latin1_to_utf8(rvkc->field_specifier);
      info.rvkc = std::move(rvkc);
      return info;
    }
    info.keyword = py_upper(name);
    return info;
  }
  // "The following header keyword is invalid or follows an unrecognized non-standard
  // convention": the whole card is kept as text.
  info.invalid = true;
  info.keyword = latin1_to_utf8(keyword);
  return info;
}

/// One card in the middle of being parsed: astropy's `Card` state.
struct CardState {
  std::string_view image;
  KeywordInfo info;
};

/// astropy `Card._split` for one 80-byte image: the value/comment field.
std::string split_single(const CardState& card, std::string* keyword_out) {
  const std::string_view image = card.image;
  std::string_view kw;
  std::string_view vc;
  if (is_special(card.info.keyword)) {
    const std::size_t space = image.find(' ');
    if (space == std::string_view::npos) {
      fail("the card has no blank after its keyword, so astropy cannot split it");
    }
    kw = image.substr(0, space);
    vc = image.substr(space + 1);
  } else {
    const std::string_view indicator = card.info.hierarch ? "=" : "= ";
    const std::size_t at = image.find(indicator);
    if (at == std::string_view::npos || (at > 10 && image.substr(0, 9) != "HIERARCH ")) {
      kw = image.substr(0, kKeywordLength);
      vc = image.substr(kKeywordLength);
    } else {
      kw = image.substr(0, at);
      vc = image.substr(at + indicator.size());
    }
  }
  if (keyword_out) *keyword_out = std::string(py_strip(kw));
  return std::string(py_strip(vc));
}

CardFields parse_state(CardState& card, bool fix_unparsable);

/// astropy `Card._split` for a card followed by CONTINUE cards: the string parts joined
/// (trailing '&' dropped) and the comments joined with blanks, as "'value' / comments".
std::string split_long(const CardState& card) {
  std::string values;
  std::string comments;
  bool have_comment = false;
  std::optional<std::string> keyword;
  for (std::size_t at = 0; at + kCard <= card.image.size(); at += kCard) {
    CardState sub{card.image.substr(at, kCard), {}};
    sub.info = parse_keyword(sub.image);
    const CardFields fields = parse_state(sub, false);
    if (fields.value.kind != CardValue::Kind::kString) {
      fail("CONTINUE cards must have string values (astropy refuses this long string)");
    }
    std::string kw;
    const std::string vc = split_single(sub, &kw);
    if (!keyword) keyword = kw;
    if (is_commentary(*keyword)) {
      values += vc;
      continue;
    }
    // _strg_comment_RE: "('(?P<strg>...)')? *(/ *(?P<comm>.*))?", matched without an anchor.
    const auto strg = match_quoted(vc, 0, [](std::size_t) { return true; });
    std::size_t p = strg ? strg->size() + 2 : 0;
    std::string value(py_rstrip(strg ? *strg : std::string_view()));
    value = replace_doubled_quotes(value);
    if (!value.empty() && value.back() == '&') value.pop_back();
    values += value;
    p = skip_spaces(vc, p);
    if (p < vc.size() && vc[p] == '/') {
      const std::string_view comm = std::string_view(vc).substr(skip_spaces(vc, p + 1));
      if (!comm.empty()) {
        if (have_comment) comments += ' ';
        comments += py_rstrip(comm);
        have_comment = true;
      }
    }
  }
  if (keyword && is_commentary(*keyword)) return values;
  return "'" + values + "' / " + comments;
}

std::string value_comment_field(const CardState& card) {
  return card.image.size() > kCard ? split_long(card) : split_single(card, nullptr);
}

/// astropy `Card.value` then `Card.comment` for a card whose keyword is parsed.
CardFields parse_state(CardState& card, bool fix_unparsable) {
  CardFields out;
  out.keyword = card.info.keyword;
  if (card.info.rvkc) {
    out.value.kind = CardValue::Kind::kFloat;
    out.value.real = as_double(card.info.rvkc->value);
  } else if (is_commentary(ascii_upper(card.info.keyword)) || card.info.invalid) {
    out.value.kind = CardValue::Kind::kString;
    out.value.text = std::string(py_rstrip(card.image.substr(kKeywordLength)));
    if (is_commentary(card.info.keyword) || card.info.invalid) return out;
  } else {
    // `_parse_value` checks the image for a record-valued keyword once more; it can only newly
    // succeed on a CONTINUE card with "= " in columns 9-10, which then takes the keyword
    // "CONTINUE.<field>" for its comment (the value is int or float).
    std::optional<Rvkc> late;
    if (card.info.keyword == "CONTINUE") {
      const std::size_t indicator = card.image.find("= ");
      if (indicator != std::string_view::npos && indicator <= 9) {
        late = match_rvkc(card.image.substr(indicator + 2));
      }
    }
    if (late) {
      out.value = late->value;
      card.info.keyword = "CONTINUE." + latin1_to_utf8(late->field_specifier);
    } else {
      const std::string field = value_comment_field(card);
      const auto m = match_nfsc(field);
      if (!m) {
        std::string problem = "astropy cannot parse the value of this card (" +
                              field.substr(0, 40) +
                              "); quote strings, close quotes, and put a '/' before the comment";
        if (!fix_unparsable || card.image.size() > kCard) fail(std::move(problem));
        // Card._fix_value: "value / comment" split at the first '/', both stripped.
        const std::size_t slash = field.find('/');
        std::string text(py_strip(std::string_view(field).substr(0, slash)));
        // astropy's value setter refuses what is not printable ASCII, so its fix fails there;
        // such characters become '?', as fits.open shows bytes it cannot decode.
        bool replaced = false;
        for (char& c : text) {
          if (!printable(c)) {
            c = '?';
            replaced = true;
          }
        }
        if (replaced) problem += " (and it holds characters that are not printable ASCII, kept as '?')";
        out.value.kind = CardValue::Kind::kString;
        out.value.text = std::string(py_rstrip(text));
        if (slash != std::string::npos) {
          out.comment = std::string(py_strip(std::string_view(field).substr(slash + 1)));
        }
        out.problem = std::move(problem);
        return out;
      }
      out.value = m->value;
      if (out.value.kind == CardValue::Kind::kString) {
        out.value.text = std::string(py_rstrip(out.value.text));
      }
      out.comment = std::string(py_rstrip(m->comment));
      return out;
    }
  }
  // `_parse_comment` for the cases where the value did not come from the NFSC match.
  const std::string field = value_comment_field(card);
  if (const auto m = match_nfsc(field)) {
    out.comment = std::string(py_rstrip(m->comment));
  } else if (const std::size_t slash = field.find('/'); slash != std::string::npos) {
    out.comment = std::string(py_strip(std::string_view(field).substr(slash + 1)));
  }
  return out;
}

}  // namespace

std::string latin1_to_utf8(std::string_view latin1) {
  if (is_ascii(latin1)) {
    return std::string(latin1);  // ASCII is its own UTF-8
  }
  std::string out;
  out.reserve(latin1.size());
  for (const char c : latin1) append_utf8(out, static_cast<unsigned char>(c));
  return out;
}

CardFields parse_card(std::string_view image, bool fix_unparsable) {
  if (image.size() < kCard || image.size() % kCard != 0) {
    fail("a card image is " + std::to_string(image.size()) +
         " bytes; FITS cards are 80 bytes each");
  }
  CardState card{image, parse_keyword(image)};
  return parse_state(card, fix_unparsable);
}

}  // namespace fitsasdf::fits
