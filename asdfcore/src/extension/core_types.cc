#include "asdfcore/extension/core_types.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"

namespace asdfcore::extension {
namespace {

[[noreturn]] void bad_complex(std::string_view text) {
  throw Error(ErrorCode::kMalformed,
              "'" + std::string(text) + "' is not a complex number (like '(1+2j)')");
}

/// Read one real number at `p` (digits, '.', exponent, inf, nan; optional sign). Returns the
/// number of characters used, 0 when there is none.
std::size_t read_real(std::string_view s, double& out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  auto word = [&](const char* w) {
    const std::size_t n = std::strlen(w);
    if (s.size() - i >= n && (s.substr(i, n) == w)) {
      i += n;
      return true;
    }
    return false;
  };
  if (word("inf") || word("INF")) {
    out = negative ? -INFINITY : INFINITY;
    return i;
  }
  if (word("nan") || word("NAN")) {
    out = NAN;
    return i;
  }
  const std::size_t start = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == start) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    const std::size_t digits = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j > digits) i = j;
  }
  const std::string number(s.substr(start, i - start));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) return 0;
  out = negative ? -v : v;
  return i;
}

bool is_imag_mark(char c) { return c == 'j' || c == 'J' || c == 'i' || c == 'I'; }

}  // namespace

std::complex<double> parse_complex(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  double first = 0;
  const std::size_t n = read_real(s, first);
  if (n == 0) bad_complex(text);
  if (n == s.size()) return {first, 0.0};
  if (n + 1 == s.size() && is_imag_mark(s[n])) return {0.0, first};
  double second = 0;
  const std::string_view rest = s.substr(n);
  if (rest.front() != '+' && rest.front() != '-') bad_complex(text);
  const std::size_t m = read_real(rest, second);
  if (m == 0 || m + 1 != rest.size() || !is_imag_mark(rest[m])) bad_complex(text);
  return {first, second};
}

std::string format_complex(std::complex<double> value) {
  // Python's complex repr: "(re+imj)" with repr() of each part ("nan", "inf"), "0" parts kept
  // as "-0" when negative; the real part is left out only when it is +0.
  auto part = [](double v) {
    if (std::isnan(v)) return std::string("nan");
    if (std::isinf(v)) return std::string(v > 0 ? "inf" : "-inf");
    // PyYAML's float text is Python's repr with ".0" forced in; complex parts use plain repr.
    std::string s = tree::format_float(v);
    if (s.ends_with(".0")) s.resize(s.size() - 2);
    if (const std::size_t at = s.find(".0e"); at != std::string::npos) s.erase(at, 2);
    return s;
  };
  const double re = value.real();
  const double im = value.imag();
  std::string imag = part(im);
  if (re == 0 && !std::signbit(re)) return imag + "j";
  const std::string sign = (std::signbit(im) && !std::isnan(im)) ? "" : "+";
  return "(" + part(re) + sign + imag + "j)";
}

std::string words_to_decimal(std::span<const std::uint32_t> words, bool negative) {
  std::vector<std::uint32_t> n(words.begin(), words.end());
  while (!n.empty() && n.back() == 0) n.pop_back();
  if (n.empty()) return "0";
  std::string digits;
  // Repeated division by 10^9, most significant word first.
  while (!n.empty()) {
    std::uint64_t rem = 0;
    for (std::size_t i = n.size(); i-- > 0;) {
      const std::uint64_t cur = (rem << 32) | n[i];
      n[i] = static_cast<std::uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    while (!n.empty() && n.back() == 0) n.pop_back();
    std::string chunk = std::to_string(rem);
    if (!n.empty()) chunk.insert(0, 9 - chunk.size(), '0');
    digits.insert(0, chunk);
  }
  return negative ? "-" + digits : digits;
}

}  // namespace asdfcore::extension
