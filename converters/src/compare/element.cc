#include "compare/element.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace fitsasdf::compare {

using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::Float16;
using asdfcore::ndarray::kind_info;

namespace {

/// Copy the element at `p` into `out` (its size), reversing each swap unit when the stored order
/// is not the machine's.
void load(const std::uint8_t* p, DTypeKind kind, bool big_endian, std::uint8_t* out) noexcept {
  const auto& info = kind_info(kind);
  std::memcpy(out, p, info.unit_size);
  const bool native_big = std::endian::native == std::endian::big;
  if (info.swap_size > 1 && big_endian != native_big) {
    for (std::size_t i = 0; i < info.unit_size; i += info.swap_size) {
      std::reverse(out + i, out + i + info.swap_size);
    }
  }
}

template <typename T>
T read_as(const std::uint8_t* p, DTypeKind kind, bool big_endian) noexcept {
  std::uint8_t raw[16] = {};
  load(p, kind, big_endian, raw);
  T value;
  std::memcpy(&value, raw, sizeof(T));
  return value;
}

/// A numeric element as (real, imaginary) long doubles; bool8 as 0/1.
struct Value {
  long double re = 0;
  long double im = 0;
};

Value read_value(const std::uint8_t* p, DTypeKind kind, bool big_endian) noexcept {
  Value v;
  switch (kind) {
    case DTypeKind::kAscii:
    case DTypeKind::kUcs4:
    case DTypeKind::kStructured:
      return v;
    default:
      break;
  }
  asdfcore::ndarray::visit_numeric(kind, [&](auto id) {
    using T = typename decltype(id)::type;
    if constexpr (std::is_same_v<T, bool>) {
      v.re = p[0] != 0 ? 1 : 0;
      return;
    } else {
      const T x = read_as<T>(p, kind, big_endian);
      if constexpr (std::is_same_v<T, Float16>) {
        v.re = asdfcore::ndarray::float16_to_double(x.bits);
      } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                           std::is_same_v<T, std::complex<double>>) {
        v.re = x.real();
        v.im = x.imag();
      } else {
        v.re = static_cast<long double>(x);
      }
    }
  });
  return v;
}

bool same(long double x, long double y) noexcept {
  return x == y || (std::isnan(x) && std::isnan(y));
}

/// `n` as a number the way Python compares it (a bool as 0 or 1), or nothing.
std::optional<long double> python_number(const asdfcore::tree::Node& n) {
  using asdfcore::tree::NodeKind;
  switch (n.kind()) {
    case NodeKind::kBool:
      return n.as_bool() ? 1 : 0;
    case NodeKind::kInt:
      return static_cast<long double>(n.as_int());
    case NodeKind::kBigInt:
      return std::strtold(n.integer_text().c_str(), nullptr);
    case NodeKind::kFloat:
      return n.as_double();
    default:
      return std::nullopt;
  }
}

bool is_floating(DTypeKind kind) noexcept {
  switch (kind) {
    case DTypeKind::kFloat16:
    case DTypeKind::kFloat32:
    case DTypeKind::kFloat64:
    case DTypeKind::kComplex64:
    case DTypeKind::kComplex128:
      return true;
    default:
      return false;
  }
}

std::string hex(std::uint64_t bits, int digits) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, bits >>= 4)
    out[static_cast<std::size_t>(i)] = kDigits[bits & 15];
  return "0x" + out;
}

template <typename F>
std::string format_float(F x, bool nan_bits) {
  if (std::isnan(x) && nan_bits) {
    if constexpr (sizeof(F) == 4)
      return "nan(" + hex(std::bit_cast<std::uint32_t>(x), 8) + ")";
    else
      return "nan(" + hex(std::bit_cast<std::uint64_t>(x), 16) + ")";
  }
  if constexpr (sizeof(F) == 4) {
    // Python shows a float32 element as numpy does: the shortest text that reads back as the
    // same float32.
    char buf[64];
    if (std::isnan(x) || std::isinf(x)) return format_double(static_cast<double>(x));
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
  } else {
    return format_double(x);
  }
}

}  // namespace

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // Python's repr: the shortest digits that read back as `value`, positional for decimal
  // exponents in [-4, 16), else d.ddde+XX.
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);
  const auto e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string digits;
  for (std::size_t i = 0; i < e; ++i) {
    if (sci[i] >= '0' && sci[i] <= '9') digits += sci[i];
  }
  const std::string sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int mag = exponent < 0 ? -exponent : exponent;
    return out + (exponent < 0 ? "e-" : "e+") + (mag < 10 ? "0" : "") + std::to_string(mag);
  }
  if (exponent < 0)
    return sign + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  const auto point = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= point) return sign + digits + std::string(point - digits.size(), '0') + ".0";
  return sign + digits.substr(0, point) + "." + digits.substr(point);
}

bool elements_equal(const std::uint8_t* a, const std::uint8_t* b, DTypeKind kind, bool big_endian,
                    ElementRule rule) noexcept {
  const std::size_t size = kind_info(kind).unit_size;
  if (std::memcmp(a, b, size) == 0) return true;
  if (rule == ElementRule::kBytes || !is_floating(kind)) return false;
  const Value x = read_value(a, kind, big_endian);
  const Value y = read_value(b, kind, big_endian);
  return same(x.re, y.re) && same(x.im, y.im);
}

bool values_equal(const std::uint8_t* a, DTypeKind kind_a, const std::uint8_t* b, DTypeKind kind_b,
                  bool big_endian) noexcept {
  const Value x = read_value(a, kind_a, big_endian);
  const Value y = read_value(b, kind_b, big_endian);
  return same(x.re, y.re) && same(x.im, y.im);
}

std::optional<bool> numbers_equal(const asdfcore::tree::Node& a, const asdfcore::tree::Node& b) {
  const auto x = python_number(a);
  const auto y = python_number(b);
  if (!x || !y) return std::nullopt;
  return same(*x, *y);
}

std::string format_element(const std::uint8_t* p, DTypeKind kind, bool big_endian, bool nan_bits) {
  switch (kind) {
    case DTypeKind::kAscii:
    case DTypeKind::kUcs4:
    case DTypeKind::kStructured:
      return format_bytes(p, kind_info(kind).unit_size);
    default:
      break;
  }
  return asdfcore::ndarray::visit_numeric(kind, [&](auto id) -> std::string {
    using T = typename decltype(id)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return p[0] != 0 ? "True" : "False";
    } else {
      const T x = read_as<T>(p, kind, big_endian);
      if constexpr (std::is_same_v<T, Float16>) {
        return format_double(asdfcore::ndarray::float16_to_double(x.bits));
      } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        return format_float(x, nan_bits);
      } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                           std::is_same_v<T, std::complex<double>>) {
        const std::string im = format_float(x.imag(), nan_bits);
        return "(" + format_float(x.real(), nan_bits) + (im.starts_with("-") ? "" : "+") + im +
               "j)";
      } else {
        return std::to_string(x);
      }
    }
  });
}

std::string format_bytes(const std::uint8_t* p, std::size_t size) {
  std::string out = "b'";
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint8_t c = p[i];
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char kDigits[] = "0123456789abcdef";
      out += "\\x";
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  return out + "'";
}

}  // namespace fitsasdf::compare
