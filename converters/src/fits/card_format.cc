// Card images from [keyword, value, comment], following astropy 5.2.1's rules for a new card
// (`Card._format_image`), written here from those rules.
#include "fits/card_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/extension/core_types.h"

namespace fitsasdf::fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

constexpr std::size_t kCard = 80;
constexpr std::size_t kKeyword = 8;
constexpr std::size_t kFixedValue = 20;      // columns 11-30
constexpr std::size_t kLongValue = 67;       // characters of a string per CONTINUE card
constexpr std::size_t kLongComment = 64;     // characters of a comment per CONTINUE card
constexpr std::size_t kCommentaryText = 72;  // text of a COMMENT/HISTORY card

[[noreturn]] void refuse(std::string message) {
  throw Error(ErrorCode::kInvalidArgument, std::move(message));
}

bool printable_ascii(std::string_view s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

std::string left(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string strip(std::string_view s) {
  const std::size_t first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return "";
  return std::string(s.substr(first, s.find_last_not_of(' ') - first + 1));
}

std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool standard_keyword(std::string_view upper) {
  if (upper.size() > kKeyword) return false;
  for (const char c : upper) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

bool identifier(std::string_view s) {
  if (s.empty()) return false;
  const auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (!(word(s[0]) && !(s[0] >= '0' && s[0] <= '9'))) return false;
  for (const char c : s) {
    if (!word(c)) return false;
  }
  return true;
}

/// "AXIS.1", "NAME.2.SUB": identifiers, each optionally followed by one all-digit part.
bool field_specifier(std::string_view s) {
  bool after_identifier = false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view part =
        s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    const bool digits = !part.empty() && part.find_first_not_of("0123456789") == part.npos;
    if (digits) {
      if (!after_identifier) return false;
      after_identifier = false;
    } else if (identifier(part)) {
      after_identifier = true;
    } else {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

/// Printable ASCII without '=' (astropy's HIERARCH keyword characters).
bool hierarch_name(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '=') return false;
  }
  return true;
}

enum class KeywordKind { kStandard, kCommentary, kHierarch, kRecordValued };

struct Keyword {
  KeywordKind kind = KeywordKind::kStandard;
  std::string name;             ///< Upper-cased standard name, or the HIERARCH name.
  std::string field_specifier;  ///< Record-valued cards.
};

Keyword classify(std::string_view raw, const NodePtr& value) {
  std::string keyword(raw);
  while (!keyword.empty() && keyword.back() == ' ') keyword.pop_back();
  const std::string upper = ascii_upper(keyword);
  Keyword k;
  if (upper.starts_with("HIERARCH ")) {
    k.kind = KeywordKind::kHierarch;
    k.name = strip(std::string_view(keyword).substr(9));
    if (!hierarch_name(k.name)) refuse("'" + keyword + "' is not a valid HIERARCH keyword");
    return k;
  }
  const bool number = value && (value->is_number());
  if (const std::size_t dot = keyword.find('.'); number && dot != std::string::npos) {
    const std::string base = upper.substr(0, dot);
    if (identifier(base) && standard_keyword(base) && field_specifier(keyword.substr(dot + 1))) {
      k.kind = KeywordKind::kRecordValued;
      k.name = base;
      k.field_specifier = keyword.substr(dot + 1);
      return k;
    }
  }
  if (standard_keyword(upper)) {
    if (upper == "END") refuse("the keyword END cannot be a card of the header");
    if (upper == "CONTINUE") {
      refuse("CONTINUE is not a keyword of its own: it continues the string of the card before");
    }
    k.kind = upper.empty() || upper == "COMMENT" || upper == "HISTORY" ? KeywordKind::kCommentary
                                                                       : KeywordKind::kStandard;
    k.name = upper;
    return k;
  }
  if (hierarch_name(keyword) && keyword.front() != ' ') {
    k.kind = KeywordKind::kHierarch;
    k.name = keyword;
    return k;
  }
  refuse("'" + keyword + "' is not a FITS keyword (printable ASCII without '=')");
}

enum class ValueKind { kUndefined, kString, kOther };

struct Value {
  ValueKind kind = ValueKind::kUndefined;
  std::string text;  ///< The string (kString) or the unpadded number text (kOther).
};

Value read_value(const NodePtr& node) {
  Value v;
  if (!node || node->is_null()) return v;
  switch (node->kind()) {
    case NodeKind::kBool:
      v.kind = ValueKind::kOther;
      v.text = node->as_bool() ? "T" : "F";
      return v;
    case NodeKind::kInt:
    case NodeKind::kBigInt:
      v.kind = ValueKind::kOther;
      v.text = node->integer_text();
      return v;
    case NodeKind::kFloat:
      v.kind = ValueKind::kOther;
      v.text = format_real(node->as_double());
      return v;
    case NodeKind::kString:
      if (node->tag().starts_with("tag:stsci.edu:asdf/core/complex-")) {
        const std::complex<double> c = asdfcore::extension::parse_complex(node->as_string());
        v.kind = ValueKind::kOther;
        v.text = "(" + format_real(c.real()) + ", " + format_real(c.imag()) + ")";
        return v;
      }
      [[fallthrough]];
    case NodeKind::kTimestamp:
      v.kind = ValueKind::kString;
      v.text = node->as_string();
      if (!printable_ascii(v.text)) {
        refuse("the string value '" + v.text +
               "' has characters outside printable ASCII, which FITS header values cannot hold");
      }
      return v;
    default:
      refuse("a FITS card cannot hold " + asdfcore::tree::describe_for_error(*node) +
             " as its value (strings, numbers, booleans, complex numbers or null only)");
  }
}

/// Append `text` to `out` with its quotes doubled, as a FITS string value holds them.
void append_quoted(std::string& out, std::string_view text) {
  for (const char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
}

/// Split `s` into pieces of at most `width` characters as astropy's `_words_group` does: a piece
/// ends after the last blank before `width` characters, where the end of `s` counts as a blank
/// (so a rest of exactly `width` characters still breaks at its last blank), and a piece without
/// a blank in reach is cut at the width. With `doubled_quotes` (a quoted value, its quotes
/// doubled), a piece never ends between the two quotes of a doubled quote: astropy's would, and
/// the card before would then end in a quote that reads as an escaped one.
std::vector<std::string> words(std::string_view s, std::size_t width, bool doubled_quotes) {
  std::vector<std::string> out;
  std::size_t start = 0;
  do {
    std::size_t end = std::min(start + width, s.size());
    if (s.size() - start >= width) {
      // The last blank before start + width ends the piece; without one, cut at the width.
      const std::size_t blank = s.substr(start, width).find_last_of(' ');
      if (blank != std::string_view::npos) end = start + blank + 1;
      if (doubled_quotes && end < s.size()) {
        std::size_t quotes = 0;
        for (std::size_t i = 0; i < end; ++i) quotes += s[i] == '\'' ? 1 : 0;
        if (quotes % 2 == 1 && end - start > 1) --end;
      }
    }
    out.emplace_back(s.substr(start, end - start));
    start = end;
  } while (start < s.size());
  return out;
}

std::string pad_card(std::string s) { return left(std::move(s), kCard); }

std::string commentary(const Keyword& k, std::string_view text) {
  if (!printable_ascii(text)) {
    refuse("the " + (k.name.empty() ? std::string("blank-keyword") : k.name) +
           " text has characters outside printable ASCII, which FITS headers cannot hold");
  }
  if (text.empty()) return pad_card(left(k.name, kKeyword));
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += kCommentaryText) {
    out += pad_card(left(k.name, kKeyword) + std::string(text.substr(at, kCommentaryText)));
  }
  return out;
}

std::string long_string(const Keyword& k, std::string_view text, std::string_view comment) {
  std::string out;
  std::string escaped;
  append_quoted(escaped, text);
  const std::vector<std::string> parts = words(escaped, kLongValue, true);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string head = i == 0 ? left(k.name, kKeyword) + "= " : std::string("CONTINUE  ");
    const bool last = comment.empty() && i + 1 == parts.size();
    out += pad_card(head + "'" + parts[i] + (last ? "'" : "&'"));
  }
  if (!comment.empty()) {
    const std::vector<std::string> notes = words(comment, kLongComment, false);
    for (std::size_t i = 0; i < notes.size(); ++i) {
      const bool last = i + 1 == notes.size();
      out += pad_card(std::string(last ? "CONTINUE  '' / " : "CONTINUE  '&' / ") + notes[i]);
    }
  }
  return out;
}

}  // namespace

std::string format_real(double value) {
  if (!std::isfinite(value)) {
    refuse("a FITS header cannot hold the real value " +
           std::string(std::isnan(value) ? "NaN" : "infinity"));
  }
  // std::to_chars in general format with a precision writes what printf's %.*g does (C locale);
  // it is ten times cheaper than snprintf + strtod, and runs for every real of every header.
  char buffer[64];
  const auto general = [&](int precision) {
    return std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general,
                         precision)
        .ptr;
  };
  char* end = general(16);
  double back = 0;
  if (std::from_chars(buffer, end, back).ptr != end || back != value) end = general(17);
  std::string text(buffer, end);
  const std::size_t e = text.find('e');
  if (e != std::string::npos) {
    text[e] = 'E';
  } else if (text.find('.') == std::string::npos) {
    text += ".0";
  }
  return text;
}

FormattedCard format_card(std::string_view keyword, const NodePtr& value,
                          std::string_view comment) {
  FormattedCard out;
  const Keyword k = classify(keyword, value);
  if (!printable_ascii(comment)) {
    refuse("the comment of '" + std::string(keyword) +
           "' has characters outside printable ASCII, which FITS headers cannot hold");
  }
  if (k.kind == KeywordKind::kCommentary) {
    std::string text;
    if (value && !value->is_null()) {
      text = value->is_string() || value->kind() == NodeKind::kTimestamp ? value->as_string()
                                                                         : read_value(value).text;
    }
    out.images = commentary(k, text);
    out.comment_truncated = !comment.empty();
    return out;
  }
  const Value v = read_value(value);
  // The value as written without the padding to column 30 (`compact`), and the blanks the
  // fixed format puts before it (numbers, right-justified) or after it (strings, to column 30).
  std::string compact;
  std::size_t pad_before = 0;
  std::size_t pad_after = 0;
  if (v.kind == ValueKind::kString) {
    if (v.text.empty()) {
      compact = "''";
    } else {
      compact.reserve(v.text.size() + 10);
      compact += '\'';
      append_quoted(compact, v.text);
      if (compact.size() < 9) compact.append(9 - compact.size(), ' ');  // 8 characters at least
      compact += '\'';
      if (compact.size() < kFixedValue) pad_after = kFixedValue - compact.size();
    }
  } else if (v.kind == ValueKind::kOther) {
    compact = v.text;
    if (compact.size() < kFixedValue) pad_before = kFixedValue - compact.size();
  }

  std::string head;
  head.reserve(kCard);
  switch (k.kind) {
    case KeywordKind::kRecordValued:
      head = left(k.name, kKeyword) + "= ";
      compact = "'" + k.field_specifier + ": " + compact + "'";
      pad_before = pad_after = 0;
      break;
    case KeywordKind::kHierarch: {
      head = "HIERARCH " + k.name + " = ";
      pad_before = pad_after = 0;
      if (head.size() + compact.size() > kCard) {
        head = "HIERARCH " + k.name + "= ";
        if (head.size() + compact.size() > kCard) {
          refuse("the HIERARCH keyword '" + k.name + "' with its value is longer than one card");
        }
      }
      break;
    }
    default:
      head = k.name;
      head.resize(std::max(head.size(), kKeyword), ' ');
      head += "= ";
      break;
  }
  const std::size_t note = comment.empty() ? 0 : 3 + comment.size();
  const std::size_t fixed_size = head.size() + pad_before + compact.size() + pad_after + note;
  const std::size_t compact_size = head.size() + compact.size() + note;
  if (fixed_size > kCard && compact_size > kCard && v.kind == ValueKind::kString &&
      k.kind == KeywordKind::kStandard) {
    out.images = long_string(k, v.text, comment);
    return out;
  }
  // One card: the fixed format if it fits, else without the padding, else cut at 80 columns.
  const bool padded = fixed_size <= kCard;
  std::string& image = out.images;
  image = std::move(head);
  if (padded) image.append(pad_before, ' ');
  image += compact;
  if (padded) image.append(pad_after, ' ');
  if (note > 0) {
    image += " / ";
    image += comment;
  }
  out.comment_truncated = image.size() > kCard;
  image.resize(kCard, ' ');
  return out;
}

}  // namespace fitsasdf::fits
