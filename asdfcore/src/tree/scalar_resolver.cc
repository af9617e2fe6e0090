// The YAML 1.1 implicit typing of plain scalars as PyYAML's SafeLoader (and so python asdf)
// applies it, the construction of scalars carrying an explicit standard tag (`!!int`, ...), and
// the float text PyYAML writes.
//
// PyYAML decides a plain scalar's type with one anchored regular expression per type, tried in
// a fixed order (bool, float, int, merge, null, timestamp, value). The matchers below are hand
// written, one per alternative of those expressions, because each alternative is a simple
// left-to-right pattern in which greedy matching never needs to back up. The conversions then
// follow PyYAML's constructors, including where they fail ("0b_" matches the int pattern but has
// no digits; "2001-02-30" matches the timestamp pattern but is no date): those throw, as PyYAML
// does.

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"
#include "tree/plain_scalar.h"

namespace asdfcore::tree {
namespace {

constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";
constexpr std::string_view kValueTag = "tag:yaml.org,2002:value";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_digit_or_underscore(char c) { return is_digit(c) || c == '_'; }
bool is_sign(char c) { return c == '+' || c == '-'; }

bool all_of(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char to_lower_ascii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string without_underscores(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

std::string_view trim_ascii_space(std::string_view text) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

[[noreturn]] void fail(std::string message) {
  throw Error(ErrorCode::kMalformed, std::move(message));
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// ---------------------------------------------------------------------------------------------
// Integers of any size.

// An unsigned integer of any size as base-10^9 limbs, least significant first: enough to turn
// binary, octal, hex and sexagesimal literals of any length into decimal text.
class BigUnsigned {
 public:
  // Set the value to value * factor + addend (factor <= 60, addend < 10^9).
  void mul_add(std::uint32_t factor, std::uint32_t addend) {
    std::uint64_t carry = addend;
    for (auto& limb : limbs_) {
      const std::uint64_t v = std::uint64_t{limb} * factor + carry;
      limb = static_cast<std::uint32_t>(v % kLimbBase);
      carry = v / kLimbBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<std::uint32_t>(carry % kLimbBase));
      carry /= kLimbBase;
    }
  }

  bool is_zero() const {
    for (auto limb : limbs_) {
      if (limb != 0) return false;
    }
    return true;
  }

  std::string to_decimal() const {
    std::size_t top = limbs_.size();
    while (top > 0 && limbs_[top - 1] == 0) --top;
    if (top == 0) return "0";
    std::string out = std::to_string(limbs_[top - 1]);
    for (std::size_t i = top - 1; i-- > 0;) {
      const std::string part = std::to_string(limbs_[i]);
      out.append(9 - part.size(), '0');
      out += part;
    }
    return out;
  }

 private:
  static constexpr std::uint64_t kLimbBase = 1'000'000'000;
  std::vector<std::uint32_t> limbs_;
};

// Return false when a character of `digits` is not a digit of `base`.
bool accumulate_digits(BigUnsigned& value, std::string_view digits, int base) {
  for (char c : digits) {
    const int d = hex_value(c);
    if (d < 0 || d >= base) return false;
    value.mul_add(static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(d));
  }
  return true;
}

NodePtr signed_integer(bool negative, const BigUnsigned& magnitude) {
  std::string text = magnitude.to_decimal();
  if (negative && !magnitude.is_zero()) text.insert(0, 1, '-');
  return Node::make_integer_text(std::move(text));
}

// Convert `text` the way PyYAML's int constructor does: drop underscores, take one sign, then
// "0" is zero, "0b..." binary, "0x..." hex, a leading 0 octal, colons sexagesimal (base 60),
// anything else decimal.
NodePtr integer_from_text(std::string_view original) {
  // The common case first: a decimal without underscores or a leading zero that fits 64 bits
  // is the value from_chars reads (a "+" sign aside), without the arbitrary-size arithmetic.
  {
    // from_chars reads a "-" but not a "+": skip only the latter.
    const bool plus = !original.empty() && original.front() == '+';
    const std::string_view number = original.substr(plus ? 1 : 0);
    const std::string_view digits = number.substr(!plus && number.starts_with('-') ? 1 : 0);
    if (!digits.empty() && digits.front() != '0' && all_of(digits, is_digit)) {
      std::int64_t value = 0;
      const char* end = number.data() + number.size();
      const auto [ptr, ec] = std::from_chars(number.data(), end, value);
      if (ec == std::errc() && ptr == end) return Node::make_int(value);
    }
  }
  const std::string text = without_underscores(original);
  std::string_view v = text;
  const auto bad = [&](std::string_view why) -> NodePtr {
    fail("scalar " + quoted(original) + " is typed as an int but " + std::string(why) +
         "; quote it (or tag it !!str) to keep it a string");
  };
  if (v.empty()) return bad("has no digits");
  const bool negative = v.front() == '-';
  if (is_sign(v.front())) v.remove_prefix(1);
  if (v.empty()) return bad("has no digits");
  BigUnsigned magnitude;
  if (v == "0") return Node::make_int(0);
  if (v.starts_with("0b") || v.starts_with("0x")) {
    const int base = v[1] == 'b' ? 2 : 16;
    v.remove_prefix(2);
    if (v.empty()) return bad("has no digits after its base prefix");
    if (!accumulate_digits(magnitude, v, base)) return bad("holds a digit outside its base");
    return signed_integer(negative, magnitude);
  }
  if (v.front() == '0') {
    // Python's int(text, 8) also takes an "0o" prefix.
    std::string_view octal = v;
    if (octal.size() > 1 && (octal[1] == 'o' || octal[1] == 'O')) octal.remove_prefix(2);
    if (octal.empty()) return bad("has no digits after its base prefix");
    if (!accumulate_digits(magnitude, octal, 8)) return bad("holds a digit outside base 8");
    return signed_integer(negative, magnitude);
  }
  if (v.find(':') != std::string_view::npos) {
    // Sexagesimal: each part is a decimal number; the value is the parts in base 60.
    bool first = true;
    while (true) {
      const std::size_t colon = v.find(':');
      const std::string_view part = v.substr(0, colon);
      if (part.empty()) return bad("has an empty sexagesimal part");
      BigUnsigned part_value;
      if (!accumulate_digits(part_value, part, 10)) return bad("has a non-digit");
      if (first) {
        magnitude = part_value;
        first = false;
      } else {
        // A later part can be any size in PyYAML's arithmetic, not only 0..59.
        std::uint32_t small = 0;
        if (part.size() > 9) return bad("has a sexagesimal part too large");
        for (char c : part) small = small * 10 + static_cast<std::uint32_t>(c - '0');
        magnitude.mul_add(60, small);
      }
      if (colon == std::string_view::npos) break;
      v.remove_prefix(colon + 1);
    }
    return signed_integer(negative, magnitude);
  }
  if (!accumulate_digits(magnitude, v, 10)) return bad("has a non-digit");
  return signed_integer(negative, magnitude);
}

// ---------------------------------------------------------------------------------------------
// Floats.

// Parse `text` as Python's float() does for the forms YAML produces: an optional sign, decimal
// digits with an optional point and exponent, or inf/infinity/nan. Values too large become
// infinite and values too small become zero, as in Python.
bool python_float(std::string_view text, double& out) {
  text = trim_ascii_space(text);
  bool negative = false;
  if (!text.empty() && is_sign(text.front())) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || is_sign(text.front())) return false;
  double value = 0;
  const auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (ptr != text.data() + text.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Decide overflow or underflow from the decimal exponent of the first significant digit.
    long long exponent = 0;
    std::size_t e = text.find_first_of("eE");
    if (e != std::string_view::npos) {
      std::string_view digits = text.substr(e + 1);
      const bool exp_negative = !digits.empty() && digits.front() == '-';
      if (!digits.empty() && is_sign(digits.front())) digits.remove_prefix(1);
      for (char c : digits) {
        if (exponent < 1'000'000'000) exponent = exponent * 10 + (c - '0');
      }
      if (exp_negative) exponent = -exponent;
    } else {
      e = text.size();
    }
    const std::string_view mantissa = text.substr(0, e);
    const std::size_t point = mantissa.find('.');
    const std::size_t int_digits = point == std::string_view::npos ? mantissa.size() : point;
    const std::size_t first = mantissa.find_first_of("123456789");
    long long position = 0;  // Decimal exponent of the first significant digit, plus one.
    if (first != std::string_view::npos) {
      position = first < int_digits ? static_cast<long long>(int_digits - first)
                                    : -static_cast<long long>(first - int_digits - 1);
    }
    value = position + exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (ec != std::errc()) {
    return false;
  }
  out = negative ? -value : value;
  return true;
}

// Convert `text` the way PyYAML's float constructor does: drop underscores, lower-case, take one
// sign, then ".inf", ".nan", colons sexagesimal (parts summed from the last, in base 60), else
// Python's float().
double float_from_text(std::string_view original) {
  std::string text = without_underscores(original);
  for (char& c : text) c = to_lower_ascii(c);
  std::string_view v = trim_ascii_space(text);
  const auto bad = [&]() -> double {
    fail("scalar " + quoted(original) +
         " is typed as a float but is not a number; quote it (or tag it !!str) to keep it a "
         "string");
  };
  if (v.empty()) return bad();
  const double sign = v.front() == '-' ? -1.0 : 1.0;
  if (is_sign(v.front())) v.remove_prefix(1);
  if (v == ".inf") return sign * std::numeric_limits<double>::infinity();
  // PyYAML builds its NaN as -inf/inf, which on IEEE hardware is the quiet NaN with the sign
  // bit set (0xfff8000000000000); arrays filled from inline data keep those exact bits.
  if (v == ".nan") return -std::numeric_limits<double>::quiet_NaN();
  if (v.find(':') != std::string_view::npos) {
    std::vector<double> parts;
    while (true) {
      const std::size_t colon = v.find(':');
      double part = 0;
      if (!python_float(v.substr(0, colon), part)) return bad();
      parts.push_back(part);
      if (colon == std::string_view::npos) break;
      v.remove_prefix(colon + 1);
    }
    double value = 0.0;
    double base = 1.0;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      value += *it * base;
      base *= 60;
    }
    return sign * value;
  }
  double value = 0;
  if (!python_float(v, value)) return bad();
  return sign * value;
}

// ---------------------------------------------------------------------------------------------
// The implicit patterns.

bool is_bool_word(std::string_view s, bool& value) {
  // Every word below is 2 to 5 letters long and starts with one of these: most scalars are
  // ruled out by those two tests alone.
  if (s.size() < 2 || s.size() > 5 || std::string_view("yYtTnNfFoO").find(s.front()) ==
                                          std::string_view::npos) {
    return false;
  }
  static constexpr std::array<std::string_view, 9> kTrue = {"yes",  "Yes", "YES", "true", "True",
                                                            "TRUE", "on",  "On",  "ON"};
  static constexpr std::array<std::string_view, 9> kFalse = {
      "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto w : kTrue) {
    if (s == w) {
      value = true;
      return true;
    }
  }
  for (auto w : kFalse) {
    if (s == w) {
      value = false;
      return true;
    }
  }
  return false;
}

bool is_null_word(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// Consume ":" followed by one digit or two digits the first of which is 0..5, as many times as
// possible from `i`; return the number of groups.
std::size_t skip_sexagesimal_groups(std::string_view s, std::size_t& i) {
  std::size_t groups = 0;
  while (i < s.size() && s[i] == ':') {
    std::size_t j = i + 1;
    if (j + 1 < s.size() && s[j] >= '0' && s[j] <= '5' && is_digit(s[j + 1])) {
      j += 2;
    } else if (j < s.size() && is_digit(s[j])) {
      j += 1;
    } else {
      break;
    }
    i = j;
    ++groups;
  }
  return groups;
}

// `[eE][-+][0-9]+` at `i` through the end.
bool is_exponent_tail(std::string_view s, std::size_t i) {
  if (i == s.size()) return true;
  if (s[i] != 'e' && s[i] != 'E') return false;
  if (i + 1 >= s.size() || !is_sign(s[i + 1])) return false;
  if (i + 2 >= s.size()) return false;
  for (std::size_t j = i + 2; j < s.size(); ++j) {
    if (!is_digit(s[j])) return false;
  }
  return true;
}

bool matches_float(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = is_sign(s[0]) ? 1 : 0;
  const bool signed_text = i == 1;
  if (i >= s.size()) return false;
  if (s[i] == '.') {
    const std::string_view rest = s.substr(i + 1);
    if (rest == "inf" || rest == "Inf" || rest == "INF") return true;
    if (signed_text) return false;
    if (rest == "nan" || rest == "NaN" || rest == "NAN") return true;
    // \.[0-9][0-9_]*(exponent)?
    if (rest.empty() || !is_digit(rest[0])) return false;
    std::size_t j = i + 2;
    while (j < s.size() && is_digit_or_underscore(s[j])) ++j;
    return is_exponent_tail(s, j);
  }
  if (!is_digit(s[i])) return false;
  std::size_t j = i + 1;
  while (j < s.size() && is_digit_or_underscore(s[j])) ++j;
  if (j < s.size() && s[j] == '.') {
    // [0-9][0-9_]*\.[0-9_]*(exponent)?
    ++j;
    while (j < s.size() && is_digit_or_underscore(s[j])) ++j;
    return is_exponent_tail(s, j);
  }
  if (j < s.size() && s[j] == ':') {
    // [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
    if (skip_sexagesimal_groups(s, j) == 0) return false;
    if (j >= s.size() || s[j] != '.') return false;
    return all_of(s.substr(j + 1), is_digit_or_underscore);
  }
  return false;
}

bool matches_int(std::string_view s) {
  std::string_view v = s;
  if (!v.empty() && is_sign(v.front())) v.remove_prefix(1);
  if (v.empty()) return false;
  if (v.starts_with("0b")) {
    return v.size() > 2 &&
           all_of(v.substr(2), [](char c) { return c == '0' || c == '1' || c == '_'; });
  }
  if (v.starts_with("0x")) {
    return v.size() > 2 &&
           all_of(v.substr(2), [](char c) { return hex_value(c) >= 0 || c == '_'; });
  }
  if (v.front() == '0') {
    return v.size() == 1 ||
           all_of(v.substr(1), [](char c) { return (c >= '0' && c <= '7') || c == '_'; });
  }
  if (v.front() < '1' || v.front() > '9') return false;
  std::size_t j = 1;
  while (j < v.size() && is_digit_or_underscore(v[j])) ++j;
  if (j == v.size()) return true;
  if (v[j] != ':') return false;
  return skip_sexagesimal_groups(v, j) > 0 && j == v.size();
}

// The fields of a timestamp, as PyYAML's constructor reads them.
struct Timestamp {
  int year = 0, month = 0, day = 0;
  bool has_time = false;
  int hour = 0, minute = 0, second = 0;
  bool has_offset = false;  // A numeric zone offset (a "Z" zone is UTC and always valid).
  bool offset_negative = false;
  int offset_hour = 0, offset_minute = 0;
};

// Read `count_min`..`count_max` digits at `i` as a number.
bool read_digits(std::string_view s, std::size_t& i, int count_min, int count_max, int& value) {
  int n = 0;
  value = 0;
  while (n < count_max && i < s.size() && is_digit(s[i])) {
    value = value * 10 + (s[i] - '0');
    ++i;
    ++n;
  }
  return n >= count_min;
}

// Match PyYAML's timestamp pattern. With `implicit`, a date without a time needs two-digit month
// and day (the resolver's pattern); otherwise one digit is enough (the constructor's pattern).
bool match_timestamp(std::string_view s, bool implicit, Timestamp& ts) {
  std::size_t i = 0;
  if (!read_digits(s, i, 4, 4, ts.year)) return false;
  if (i >= s.size() || s[i++] != '-') return false;
  const std::size_t month_start = i;
  if (!read_digits(s, i, 1, 2, ts.month)) return false;
  const bool two_digit_month = i - month_start == 2;
  if (i >= s.size() || s[i++] != '-') return false;
  const std::size_t day_start = i;
  if (!read_digits(s, i, 1, 2, ts.day)) return false;
  const bool two_digit_day = i - day_start == 2;
  if (i == s.size()) return !implicit || (two_digit_month && two_digit_day);
  // (?:[Tt]|[ \t]+)
  if (s[i] == 'T' || s[i] == 't') {
    ++i;
  } else if (s[i] == ' ' || s[i] == '\t') {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  } else {
    return false;
  }
  ts.has_time = true;
  if (!read_digits(s, i, 1, 2, ts.hour)) return false;
  if (i >= s.size() || s[i++] != ':') return false;
  if (!read_digits(s, i, 2, 2, ts.minute)) return false;
  if (i >= s.size() || s[i++] != ':') return false;
  if (!read_digits(s, i, 2, 2, ts.second)) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i == s.size()) return true;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i >= s.size()) return false;
  if (s[i] == 'Z') return i + 1 == s.size();
  if (!is_sign(s[i])) return false;
  ts.has_offset = true;
  ts.offset_negative = s[i] == '-';
  ++i;
  if (!read_digits(s, i, 1, 2, ts.offset_hour)) return false;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (!read_digits(s, i, 2, 2, ts.offset_minute)) return false;
  }
  return i == s.size();
}

// Check the fields as Python's datetime does; return "" or what is wrong.
std::string timestamp_problem(const Timestamp& ts) {
  if (ts.year < 1) return "year " + std::to_string(ts.year) + " is out of range";
  if (ts.month < 1 || ts.month > 12) return "month must be in 1..12";
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (ts.year % 4 == 0 && ts.year % 100 != 0) || ts.year % 400 == 0;
  const int days = kDays[static_cast<std::size_t>(ts.month - 1)] + (ts.month == 2 && leap ? 1 : 0);
  if (ts.day < 1 || ts.day > days) return "day is out of range for month";
  if (!ts.has_time) return "";
  if (ts.hour > 23) return "hour must be in 0..23";
  if (ts.minute > 59) return "minute must be in 0..59";
  if (ts.second > 59) return "second must be in 0..59";
  if (ts.has_offset && ts.offset_hour * 60 + ts.offset_minute >= 24 * 60) {
    return "the zone offset must be less than 24 hours";
  }
  return "";
}

NodePtr timestamp_from_text(std::string_view text, bool implicit) {
  Timestamp ts;
  if (!match_timestamp(text, implicit, ts)) {
    fail("scalar " + quoted(text) + " is tagged !!timestamp but is not a YAML timestamp");
  }
  const std::string problem = timestamp_problem(ts);
  if (!problem.empty()) {
    fail("scalar " + quoted(text) + " is typed as a timestamp but " + problem +
         "; quote it (or tag it !!str) to keep it a string");
  }
  return Node::make_timestamp(std::string(text));
}

// ---------------------------------------------------------------------------------------------
// Base64, as Python's base64.decodebytes reads it: characters outside the alphabet are skipped.

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

NodePtr binary_from_base64(std::string_view text) {
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  std::size_t count = 0;
  std::size_t padding = 0;
  for (char c : text) {
    if (c == '=') {
      ++padding;
      if (count % 4 >= 2 && padding >= 4 - count % 4) break;
      continue;
    }
    const int v = base64_value(c);
    if (v < 0) continue;
    padding = 0;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    ++count;
    if (count % 4 == 0) {
      out.push_back(static_cast<std::uint8_t>(bits >> 16));
      out.push_back(static_cast<std::uint8_t>(bits >> 8));
      out.push_back(static_cast<std::uint8_t>(bits));
      bits = 0;
    }
  }
  const std::size_t rest = count % 4;
  if (rest == 1) fail("!!binary data is not valid base64: a lone character at the end");
  if (rest != 0 && padding < 4 - rest) fail("!!binary data is not valid base64: incorrect padding");
  if (rest == 2) {
    out.push_back(static_cast<std::uint8_t>(bits >> 4));
  } else if (rest == 3) {
    out.push_back(static_cast<std::uint8_t>(bits >> 10));
    out.push_back(static_cast<std::uint8_t>(bits >> 2));
  }
  return Node::make_binary(std::move(out));
}

NodePtr tagged_string(std::string_view text, std::string_view tag) {
  NodePtr node = Node::make_string(std::string(text));
  node->set_tag(std::string(tag));
  return node;
}

}  // namespace

NodePtr resolve_plain_scalar(std::string_view text) {
  // PyYAML's order: bool, float, int, merge, null, timestamp, value; the patterns do not overlap.
  bool flag = false;
  if (is_bool_word(text, flag)) return Node::make_bool(flag);
  if (matches_float(text)) return Node::make_float(float_from_text(text));
  if (matches_int(text)) return integer_from_text(text);
  if (text == "<<") return tagged_string(text, kMergeTag);
  if (is_null_word(text)) return Node::make_null();
  Timestamp ts;
  if (!text.empty() && is_digit(text.front()) && match_timestamp(text, true, ts)) {
    return timestamp_from_text(text, true);
  }
  if (text == "=") return tagged_string(text, kValueTag);
  return Node::make_string(std::string(text));
}

bool plain_scalar_is_string(std::string_view text) {
  // The tests of resolve_plain_scalar, in its order; a pattern that matches makes another type
  // (or refuses the text), never the same string.
  bool flag = false;
  if (is_bool_word(text, flag) || matches_float(text) || matches_int(text) || text == "<<" ||
      is_null_word(text) || text == "=") {
    return false;
  }
  Timestamp ts;
  return text.empty() || !is_digit(text.front()) || !match_timestamp(text, true, ts);
}

NodePtr construct_standard_scalar(std::string_view tag, std::string_view text) {
  if (!tag.starts_with(kYamlTagPrefix)) return tagged_string(text, tag);
  const std::string_view name = tag.substr(kYamlTagPrefix.size());
  if (name == "str") return Node::make_string(std::string(text));
  if (name == "null") return Node::make_null();
  if (name == "bool") {
    std::string lower(text);
    for (char& c : lower) c = to_lower_ascii(c);
    bool value = false;
    if (lower == "yes" || lower == "true" || lower == "on") {
      value = true;
    } else if (!(lower == "no" || lower == "false" || lower == "off")) {
      fail("scalar " + quoted(text) + " is tagged !!bool but is none of yes/no/true/false/on/off");
    }
    return Node::make_bool(value);
  }
  if (name == "int") return integer_from_text(trim_ascii_space(text));
  if (name == "float") return Node::make_float(float_from_text(text));
  if (name == "timestamp") return timestamp_from_text(text, false);
  if (name == "binary") return binary_from_base64(text);
  if (name == "map" || name == "seq" || name == "omap" || name == "set" || name == "pairs") {
    fail("a scalar is tagged !!" + std::string(name) + ", which needs a collection");
  }
  return tagged_string(text, tag);
}

std::string format_float(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  // The shortest digits that read back exactly, as Python's repr() chooses them.
  std::array<char, 64> buf{};
  const auto result =
      std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::scientific);
  const std::string_view sci(buf.data(), static_cast<std::size_t>(result.ptr - buf.data()));
  const std::size_t e = sci.find('e');
  std::string_view mantissa = sci.substr(0, e);
  int exponent = 0;
  std::string_view exp_text = sci.substr(e + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);

  std::string out;
  if (!mantissa.empty() && mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  if (exponent < -4 || exponent >= 16) {
    // d.ddd followed by an exponent of at least two digits, with ".0" when there is one digit.
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += exponent < 0 ? "e-" : "e+";
    const std::string magnitude = std::to_string(exponent < 0 ? -exponent : exponent);
    if (magnitude.size() < 2) out += '0';
    out += magnitude;
  } else if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    out += digits;
  } else {
    const auto int_digits = static_cast<std::size_t>(exponent + 1);
    if (digits.size() <= int_digits) {
      out += digits;
      out.append(int_digits - digits.size(), '0');
      out += ".0";
    } else {
      out += digits.substr(0, int_digits);
      out += '.';
      out += digits.substr(int_digits);
    }
  }
  return out;
}

}  // namespace asdfcore::tree
