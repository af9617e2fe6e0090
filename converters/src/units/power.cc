#include "units/power.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <system_error>

#include "asdfcore/error.h"

namespace fitsasdf::units {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
__extension__ typedef __int128 Wide;  // Wide enough for products of two 64-bit values.

// astropy's bounds for "effectively 1": 1 - 4 * epsneg and 1 + 4 * eps of a double.
constexpr double kJustBelowUnity = 1.0 - 4.0 * 0x1p-53;
constexpr double kJustAboveUnity = 1.0 + 4.0 * 0x1p-52;
constexpr std::int64_t kMaxDenominator = 100;

[[noreturn]] void throw_too_large() {
  throw Error(ErrorCode::kLimit,
              "a power in the unit is too large to represent; powers must fit in 64 bits");
}

std::int64_t narrow(Wide v) {
  if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min())
    throw_too_large();
  return static_cast<std::int64_t>(v);
}

Wide wide_gcd(Wide a, Wide b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    Wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// Bring `num`/`den` to lowest terms with a positive denominator.
void reduce(Wide& num, Wide& den) {
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const Wide g = wide_gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
}

/// Make a Fraction from a wide numerator and denominator (reduced before narrowing, so that a
/// product that only fits once reduced is accepted).
Power make_fraction(Wide num, Wide den) {
  reduce(num, den);
  return Power::fraction(narrow(num), narrow(den));
}

/// Return floor(a / b) for b > 0, as Python's `//`.
Wide floor_div(Wide a, Wide b) {
  Wide q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Apply astropy's `resolve_fractions`: when exactly one side is a Fraction, turn the other side
/// into a Fraction if it is a float close to one (an integer stays an integer).
void resolve_fractions(Power& a, Power& b) {
  bool a_fraction = a.kind() == Power::Kind::kFraction;
  bool b_fraction = b.kind() == Power::Kind::kFraction;
  if (a_fraction && !b_fraction && b.kind() == Power::Kind::kFloat) {
    b = maybe_simple_fraction(b.to_double());
  } else if (!a_fraction && b_fraction && a.kind() == Power::Kind::kFloat) {
    a = maybe_simple_fraction(a.to_double());
  }
}

}  // namespace

Power Power::integer(std::int64_t n) noexcept {
  Power p;
  p.kind_ = Kind::kInt;
  p.num_ = n;
  p.den_ = 1;
  return p;
}

Power Power::fraction(std::int64_t num, std::int64_t den) {
  if (den == 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "the unit has a fractional power with denominator 0; write a non-zero "
                "denominator such as m**(1/2)");
  }
  Wide n = num;
  Wide d = den;
  reduce(n, d);
  Power p;
  p.kind_ = Kind::kFraction;
  p.num_ = narrow(n);
  p.den_ = narrow(d);
  return p;
}

Power Power::real(double x) noexcept {
  Power p;
  p.kind_ = Kind::kFloat;
  p.real_ = x;
  return p;
}

double Power::to_double() const noexcept {
  switch (kind_) {
    case Kind::kInt:
      return static_cast<double>(num_);
    case Kind::kFraction:
      return static_cast<double>(num_) / static_cast<double>(den_);
    case Kind::kFloat:
      return real_;
  }
  return real_;
}

int Power::compare(const Power& other) const noexcept {
  if (kind_ != Kind::kFloat && other.kind_ != Kind::kFloat) {
    Wide lhs = static_cast<Wide>(num_) * other.den_;
    Wide rhs = static_cast<Wide>(other.num_) * den_;
    return lhs < rhs ? -1 : (lhs > rhs ? 1 : 0);
  }
  auto value = [](const Power& p) -> long double {
    if (p.kind_ == Kind::kFloat) return p.real_;
    return static_cast<long double>(p.num_) / static_cast<long double>(p.den_);
  };
  long double a = value(*this);
  long double b = value(other);
  return a < b ? -1 : (a > b ? 1 : 0);
}

bool Power::is_zero() const noexcept { return kind_ == Kind::kFloat ? real_ == 0.0 : num_ == 0; }

bool Power::is_one() const noexcept { return kind_ == Kind::kFloat ? real_ == 1.0 : num_ == den_; }

Power maybe_simple_fraction(double x) {
  if (x == 0.0) return Power::real(x);
  if (!std::isfinite(x)) {
    throw Error(ErrorCode::kInvalidArgument,
                "the unit has an infinite or NaN power; write a finite power such as m**(0.5)");
  }
  if (std::fabs(x) >= 0x1p62) throw_too_large();
  // The exact ratio n/d of x (Python's float.as_integer_ratio), with d a power of two.
  int exponent = 0;
  double mantissa = std::frexp(x, &exponent);
  auto m = static_cast<std::int64_t>(std::ldexp(mantissa, 53));
  int shift = exponent - 53;
  while (shift < 0 && (m % 2) == 0) {
    m /= 2;
    ++shift;
  }
  // Below 2**-120 no fraction with a denominator up to 100 is close: |x| < 1/101.
  if (shift < -120) return Power::real(x);
  Wide n = m;
  Wide d = 1;
  if (shift >= 0) {
    n <<= shift;
  } else {
    d <<= -shift;
  }
  // Walk the continued fraction of n/d, as astropy's maybe_simple_fraction does.
  Wide a = floor_div(n, d);
  Wide n0 = 1;
  Wide d0 = 0;
  Wide n1 = a;
  Wide d1 = 1;
  while (d1 <= kMaxDenominator) {
    double ratio = static_cast<double>(n1) / (static_cast<double>(d1) * x);
    if (kJustBelowUnity <= ratio && ratio <= kJustAboveUnity) return make_fraction(n1, d1);
    Wide rest = n - a * d;
    n = d;
    d = rest;
    if (d == 0) return Power::real(x);
    a = n / d;
    if (a > 2 * kMaxDenominator) return Power::real(x);  // The next denominator exceeds 100.
    Wide n2 = n0 + a * n1;
    Wide d2 = d0 + a * d1;
    n0 = n1;
    n1 = n2;
    d0 = d1;
    d1 = d2;
  }
  return Power::real(x);
}

Power validate_power(const Power& p) {
  Power q = p;
  if (q.kind() == Power::Kind::kFloat) {
    q = maybe_simple_fraction(q.to_double());
    if (q.kind() == Power::Kind::kFloat) return q;
  }
  if (q.kind() == Power::Kind::kFraction) {
    if (q.denominator() == 1) return Power::integer(q.numerator());
    if (is_power_of_two(q.denominator())) return Power::real(q.to_double());
  }
  return q;
}

Power multiply(const Power& lhs, const Power& rhs) {
  Power a = lhs;
  Power b = rhs;
  resolve_fractions(a, b);
  if (a.kind() == Power::Kind::kFloat || b.kind() == Power::Kind::kFloat) {
    return Power::real(a.to_double() * b.to_double());
  }
  if (a.kind() == Power::Kind::kInt && b.kind() == Power::Kind::kInt) {
    return Power::integer(narrow(static_cast<Wide>(a.numerator()) * b.numerator()));
  }
  return make_fraction(static_cast<Wide>(a.numerator()) * b.numerator(),
                       static_cast<Wide>(a.denominator()) * b.denominator());
}

Power add(const Power& lhs, const Power& rhs) {
  Power a = lhs;
  Power b = rhs;
  resolve_fractions(a, b);
  if (a.kind() == Power::Kind::kFloat || b.kind() == Power::Kind::kFloat) {
    return Power::real(a.to_double() + b.to_double());
  }
  if (a.kind() == Power::Kind::kInt && b.kind() == Power::Kind::kInt) {
    return Power::integer(narrow(static_cast<Wide>(a.numerator()) + b.numerator()));
  }
  return make_fraction(static_cast<Wide>(a.numerator()) * b.denominator() +
                           static_cast<Wide>(b.numerator()) * a.denominator(),
                       static_cast<Wide>(a.denominator()) * b.denominator());
}

std::string format_power(const Power& p) {
  Power q = p;
  if (q.kind() == Power::Kind::kFloat) {
    q = maybe_simple_fraction(q.to_double());
    if (q.kind() == Power::Kind::kFloat) return python_float_repr(q.to_double());
  }
  if (q.denominator() == 1) return std::to_string(q.numerator());
  return std::to_string(q.numerator()) + "/" + std::to_string(q.denominator());
}

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  // The shortest digits that read back as x, in scientific form "d.ddde±XX".
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific);
  std::string sci(buffer, ec == std::errc() ? end : buffer);
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  std::size_t e_at = sci.find('e');
  std::string digits = sci.substr(0, e_at);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  int exponent = std::stoi(sci.substr(e_at + 1));
  int point = exponent + 1;  // Digits before the decimal point.
  auto n = static_cast<int>(digits.size());
  std::string out;
  if (point > -4 && point <= 16) {
    if (point <= 0) {
      out = "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    } else if (point >= n) {
      out = digits + std::string(static_cast<std::size_t>(point - n), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<std::size_t>(point)) + "." +
            digits.substr(static_cast<std::size_t>(point));
    }
  } else {
    out = digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    int e = point - 1;
    std::string e_digits = std::to_string(e < 0 ? -e : e);
    if (e_digits.size() < 2) e_digits = "0" + e_digits;
    out += std::string("e") + (e < 0 ? "-" : "+") + e_digits;
  }
  return sign + out;
}

std::string format_g8(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.8g", x);
  return buffer;
}

bool is_effectively_unity(double x) noexcept {
  return kJustBelowUnity <= x && x <= kJustAboveUnity;
}

}  // namespace fitsasdf::units
