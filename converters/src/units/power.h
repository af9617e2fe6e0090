#pragma once
/// \file
/// Unit powers with the number semantics astropy gives them: a power is a Python `int`, a
/// `fractions.Fraction` or a `float`, and the kind decides how sums, products and the printed
/// form come out (`m(1/2)` for a Fraction, `m(0.333)` for a float).

#include <cstdint>
#include <string>

namespace fitsasdf::units {

/// A power of a unit: an integer, a fraction or a floating-point number, kept apart as astropy
/// keeps them apart.
class Power {
 public:
  /// The Python type the power has in astropy.
  enum class Kind { kInt, kFraction, kFloat };

  /// Make the integer power `n`.
  static Power integer(std::int64_t n) noexcept;
  /// Make the fraction `num/den` in lowest terms (a Fraction even when `den` divides `num`).
  /// Throw `Error` (invalid argument) when `den` is 0.
  static Power fraction(std::int64_t num, std::int64_t den);
  /// Make the floating-point power `x`.
  static Power real(double x) noexcept;

  /// Return the kind.
  Kind kind() const noexcept { return kind_; }
  /// Return the numerator (integer and fraction kinds).
  std::int64_t numerator() const noexcept { return num_; }
  /// Return the denominator, 1 for integers (integer and fraction kinds).
  std::int64_t denominator() const noexcept { return den_; }
  /// Return the value as a double (a fraction is divided once, rounding to nearest).
  double to_double() const noexcept;

  /// Return -1, 0 or 1 as this power is below, equal to or above `other` in value.
  int compare(const Power& other) const noexcept;
  /// Return true when the value is 0.
  bool is_zero() const noexcept;
  /// Return true when the value is 1.
  bool is_one() const noexcept;

 private:
  Kind kind_ = Kind::kInt;
  std::int64_t num_ = 0;
  std::int64_t den_ = 1;
  double real_ = 0.0;
};

/// Return `p` as astropy's `validate_power` leaves it: integer-valued fractions become integers,
/// fractions over a power of two become floats, floats close to a simple fraction become it.
Power validate_power(const Power& p);

/// Return the fraction with denominator at most 100 that is `x` to within 4 ulp (astropy's
/// `maybe_simple_fraction`), else the float `x`. Throw `Error` for infinities and NaN.
Power maybe_simple_fraction(double x);

/// Return `a * b` after astropy's `resolve_fractions` (a float meeting a fraction is first turned
/// into a fraction when it is close to one).
Power multiply(const Power& a, const Power& b);

/// Return `a + b` after astropy's `resolve_fractions`.
Power add(const Power& a, const Power& b);

/// Return the text astropy's `format_power` gives `p`: "2", "-1/2", "0.333".
std::string format_power(const Power& p);

/// Return Python's `repr(x)` of a float: "0.5", "1e-05", "1e+16", "100.0".
std::string python_float_repr(double x);

/// Return Python's `f"{x:.8g}"`: "1e-17", "1000", "0.1".
std::string format_g8(double x);

/// Return true when `x` is 1 to within a few ulp (astropy's `is_effectively_unity`).
bool is_effectively_unity(double x) noexcept;

}  // namespace fitsasdf::units
