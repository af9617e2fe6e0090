#include "asdfcore/ndarray/ndarray.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"

namespace asdfcore::ndarray {
namespace {

using tree::Node;
using tree::NodeKind;
using tree::NodePtr;

/// numpy's limit on the number of dimensions (numpy 2; numpy 1 allows 32).
constexpr std::size_t kMaxDims = 64;
/// Bytes gathered before byte-swapping and hashing them (rounded up to whole elements).
constexpr std::uint64_t kChunkBytes = 64 * 1024;
/// The smallest default limit on a materialized copy (see NDArray::to_c_order).
constexpr std::uint64_t kMinCopyLimit = std::uint64_t{1} << 30;
constexpr std::string_view kComplexTagPrefix = "tag:stsci.edu:asdf/core/complex-";

ErrorContext at(const std::string& path) {
  ErrorContext context;
  context.tree_path = path;
  return context;
}

[[noreturn]] void fail(const std::string& path, std::string message) {
  throw Error(ErrorCode::kMalformed, std::move(message), at(path));
}


bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) noexcept {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return true;
  out = a * b;
  return false;
}

bool add_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) noexcept {
  if (b > std::numeric_limits<std::uint64_t>::max() - a) return true;
  out = a + b;
  return false;
}

std::uint64_t magnitude(std::int64_t v) noexcept {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

bool is_complex_tag(const std::string& tag) { return tag.starts_with(kComplexTagPrefix); }

// ---------------------------------------------------------------------------------------------
// Python's text forms of numbers (numpy uses them when numbers go into string arrays) and
// python's complex() parser (for `!core/complex` values).

/// Return python's repr of a float; `dot_zero` adds ".0" to integral values as repr(float)
/// does (complex parts leave it out).
std::string py_float_repr(double v, bool dot_zero) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::array<char, 64> buf{};
  const auto result =
      std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::scientific);
  std::string_view sci(buf.data(), static_cast<std::size_t>(result.ptr - buf.data()));
  std::string out;
  if (sci.front() == '-') {
    out = "-";
    sci.remove_prefix(1);
  }
  const std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  const int point = exponent + 1;  // digits before the decimal point
  if (point > -4 && point <= 16) {
    if (point <= 0) {
      out += "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    } else if (static_cast<std::size_t>(point) >= digits.size()) {
      out += digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0');
      if (dot_zero) out += ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(point)) + "." +
             digits.substr(static_cast<std::size_t>(point));
    }
    return out;
  }
  out += digits[0];
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int shown = point - 1;
  out += shown < 0 ? "e-" : "e+";
  if (std::abs(shown) < 10) out += '0';
  return out + std::to_string(std::abs(shown));
}

std::string py_complex_repr(std::complex<double> z) {
  const std::string imag = py_float_repr(z.imag(), false);
  if (z.real() == 0.0 && !std::signbit(z.real())) return imag + "j";
  const bool plus = std::isnan(z.imag()) || !std::signbit(z.imag());
  return "(" + py_float_repr(z.real(), false) + (plus ? "+" : "") + imag + "j)";
}

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

/// Parse an optionally signed float at `pos` (python syntax: digits, inf, infinity, nan).
bool parse_signed(std::string_view s, std::size_t& pos, double& out, bool& had_sign) {
  bool negative = false;
  had_sign = false;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    negative = s[pos] == '-';
    had_sign = true;
    ++pos;
  }
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) return false;
  double v = 0;
  const auto r = std::from_chars(s.data() + pos, s.data() + s.size(), v);
  if (r.ec != std::errc()) {
    out = negative ? -1.0 : 1.0;  // the coefficient of a bare "j"
    return false;
  }
  pos = static_cast<std::size_t>(r.ptr - s.data());
  out = negative ? -v : v;
  return true;
}

/// Parse python float() text.
std::optional<double> parse_py_float(std::string_view text) {
  const std::string_view s = trim(text);
  std::size_t pos = 0;
  double v = 0;
  bool sign = false;
  if (!parse_signed(s, pos, v, sign) || pos != s.size()) return std::nullopt;
  return v;
}

/// Parse python complex() text: "1", "2j", "-j", "1-2j", "(nan+infj)".
std::optional<std::complex<double>> parse_py_complex(std::string_view text) {
  std::string_view s = trim(text);
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = trim(s.substr(1, s.size() - 2));
  if (s.empty()) return std::nullopt;
  const auto is_j = [&s](std::size_t p) { return p < s.size() && (s[p] == 'j' || s[p] == 'J'); };
  std::size_t pos = 0;
  double first = 0;
  bool sign = false;
  if (!parse_signed(s, pos, first, sign)) {
    if (is_j(pos) && pos + 1 == s.size()) return std::complex<double>(0.0, first);
    return std::nullopt;
  }
  if (pos == s.size()) return std::complex<double>(first, 0.0);
  if (is_j(pos)) {
    if (pos + 1 == s.size()) return std::complex<double>(0.0, first);
    return std::nullopt;
  }
  if (s[pos] != '+' && s[pos] != '-') return std::nullopt;
  double second = 0;
  parse_signed(s, pos, second, sign);
  if (!sign || !is_j(pos) || pos + 1 != s.size()) return std::nullopt;
  return std::complex<double>(first, second);
}

/// Decode UTF-8 into code points; nothing when the text is not valid UTF-8.
std::optional<std::vector<char32_t>> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    int extra = 0;
    char32_t cp = 0;
    if (b0 < 0x80) {
      cp = b0;
    } else if ((b0 & 0xe0) == 0xc0) {
      cp = b0 & 0x1fu;
      extra = 1;
    } else if ((b0 & 0xf0) == 0xe0) {
      cp = b0 & 0x0fu;
      extra = 2;
    } else if ((b0 & 0xf8) == 0xf0) {
      cp = b0 & 0x07u;
      extra = 3;
    } else {
      return std::nullopt;
    }
    if (extra != 0 && i + static_cast<std::size_t>(extra) >= text.size()) return std::nullopt;
    for (int k = 1; k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((b & 0xc0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (b & 0x3fu);
    }
    if (cp > 0x10ffff) return std::nullopt;
    out.push_back(cp);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Element loads and stores in a given byte order; written once for every C++ element type.

template <typename T>
void store_raw(std::uint8_t* dst, T value, bool swap) noexcept {
  std::memcpy(dst, &value, sizeof(T));
  if (swap && sizeof(T) > 1) std::reverse(dst, dst + sizeof(T));
}

template <typename T>
T load_raw(const std::uint8_t* src, bool swap) noexcept {
  std::array<std::uint8_t, sizeof(T)> bytes;
  std::memcpy(bytes.data(), src, sizeof(T));
  if (swap) std::reverse(bytes.begin(), bytes.end());
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

template <typename T>
struct IsComplex : std::false_type {};
template <typename F>
struct IsComplex<std::complex<F>> : std::true_type {};

/// One element read back as a number: integers exactly, everything as a complex number.
struct Number {
  bool integral = false;
  bool is_unsigned = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  std::complex<double> z;
  bool is_float = false;  ///< A float kind (float16/32/64), compared with isclose.
};

Number load_number(const std::uint8_t* p, DTypeKind kind, bool swap) {
  return visit_numeric(kind, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Number n;
    if constexpr (std::is_same_v<T, bool>) {
      n.integral = true;
      n.i = *p != 0 ? 1 : 0;
      n.z = static_cast<double>(n.i);
    } else if constexpr (std::is_same_v<T, Float16>) {
      n.is_float = true;
      n.z = float16_to_double(load_raw<std::uint16_t>(p, swap));
    } else if constexpr (IsComplex<T>::value) {
      using F = typename T::value_type;
      n.z = std::complex<double>(load_raw<F>(p, swap), load_raw<F>(p + sizeof(F), swap));
    } else if constexpr (std::is_floating_point_v<T>) {
      n.is_float = true;
      n.z = static_cast<double>(load_raw<T>(p, swap));
    } else if constexpr (std::is_unsigned_v<T>) {
      n.integral = true;
      n.is_unsigned = true;
      n.u = load_raw<T>(p, swap);
      n.z = static_cast<double>(n.u);
    } else {
      n.integral = true;
      n.i = load_raw<T>(p, swap);
      n.z = static_cast<double>(n.i);
    }
    return n;
  });
}

bool is_nonzero(const Number& n) {
  if (n.integral) return n.is_unsigned ? n.u != 0 : n.i != 0;
  return n.z != std::complex<double>(0.0, 0.0);
}

bool has_nan(std::complex<double> z) { return std::isnan(z.real()) || std::isnan(z.imag()); }

std::complex<double> mask_number(const Mask& mask) {
  return std::visit(
      [](auto v) {
        if constexpr (std::is_same_v<decltype(v), std::complex<double>>) {
          return v;
        } else {
          return std::complex<double>(static_cast<double>(v), 0.0);
        }
      },
      mask.value);
}

/// numpy.ma.masked_values for one element (NaN values are handled by the caller).
bool matches_mask_value(const Number& n, const Mask& mask) {
  if (n.is_float) {
    const std::complex<double> y = mask_number(mask);
    const double x = n.z.real();
    const bool finite = std::isfinite(x) && std::isfinite(y.real()) && std::isfinite(y.imag());
    if (!finite) return std::complex<double>(x, 0.0) == y;
    return std::abs(std::complex<double>(x, 0.0) - y) <= 1e-8 + 1e-5 * std::abs(y);
  }
  if (n.integral && std::holds_alternative<std::int64_t>(mask.value)) {
    const std::int64_t v = std::get<std::int64_t>(mask.value);
    if (n.is_unsigned) return v >= 0 && n.u == static_cast<std::uint64_t>(v);
    return n.i == v;
  }
  return n.z == mask_number(mask);
}

// ---------------------------------------------------------------------------------------------
// Inline values.

/// One inline value, classified as python asdf sees it after YAML loading.
struct Value {
  enum class Type { kNull, kBool, kInt, kUInt, kFloat, kComplex, kString, kBinary };
  Type type = Type::kNull;
  bool b = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double f = 0;
  std::complex<double> z;
  const std::string* text = nullptr;
  const std::vector<std::uint8_t>* bytes = nullptr;
};

/// Where an inline value sits: the array path plus the indices down to it.
struct Where {
  const std::string& base;
  std::vector<std::size_t> indices;

  std::string str() const {
    std::string out = base;
    for (std::size_t i : indices) out += "/" + std::to_string(i);
    return out;
  }
};

/// Return where element `flat` (C order) of an array of `shape` sits.
Where cell_where(const std::string& path, const std::vector<std::uint64_t>& shape,
                 std::size_t flat) {
  Where w{path, std::vector<std::size_t>(shape.size())};
  for (std::size_t d = shape.size(); d-- > 0;) {
    w.indices[d] = static_cast<std::size_t>(flat % shape[d]);
    flat = static_cast<std::size_t>(flat / shape[d]);
  }
  return w;
}

Value classify(const Node& node, const Where& where) {
  Value v;
  const bool complex_tag = is_complex_tag(node.tag());
  switch (node.kind()) {
    case NodeKind::kNull:
      return v;
    case NodeKind::kBool:
      v.type = Value::Type::kBool;
      v.b = node.as_bool();
      return v;
    case NodeKind::kInt:
      v.type = complex_tag ? Value::Type::kComplex : Value::Type::kInt;
      v.i = node.as_int();
      v.z = static_cast<double>(v.i);
      return v;
    case NodeKind::kBigInt: {
      const std::string digits = node.integer_text();
      std::uint64_t u = 0;
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u);
      if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) {
        fail(where.str(), "integer " + digits +
                              " fits neither int64 nor uint64; python asdf cannot store it "
                              "in an array either");
      }
      v.type = complex_tag ? Value::Type::kComplex : Value::Type::kUInt;
      v.u = u;
      v.z = static_cast<double>(u);
      return v;
    }
    case NodeKind::kFloat:
      v.type = complex_tag ? Value::Type::kComplex : Value::Type::kFloat;
      v.f = node.as_double();
      v.z = v.f;
      return v;
    case NodeKind::kString:
      if (complex_tag) {
        const auto z = parse_py_complex(node.as_string());
        if (!z) {
          fail(where.str(), "'" + node.as_string() +
                                "' is not a complex number; write it as python does, "
                                "e.g. (1+2j)");
        }
        v.type = Value::Type::kComplex;
        v.z = *z;
        return v;
      }
      v.type = Value::Type::kString;
      v.text = &node.as_string();
      return v;
    case NodeKind::kBinary:
      v.type = Value::Type::kBinary;
      v.bytes = &node.as_binary();
      return v;
    default:
      break;
  }
  fail(where.str(),
       "inline array values must be numbers, booleans, strings, complex numbers "
       "or null, found " +
           tree::describe_for_error(node));
}

/// Return python's str() of a non-string value (numpy uses it to put numbers into strings).
std::string py_str(const Value& v) {
  switch (v.type) {
    case Value::Type::kNull:
      return "0";  // python asdf replaces nulls by 0 before converting
    case Value::Type::kBool:
      return v.b ? "True" : "False";
    case Value::Type::kInt:
      return std::to_string(v.i);
    case Value::Type::kUInt:
      return std::to_string(v.u);
    case Value::Type::kFloat:
      return py_float_repr(v.f, true);
    case Value::Type::kComplex:
      return py_complex_repr(v.z);
    case Value::Type::kString:
      return *v.text;
    case Value::Type::kBinary:
      break;
  }
  return std::string(v.bytes->begin(), v.bytes->end());
}

/// The width numpy gives a number's type when it meets strings (int64 -> U21, float -> U32).
std::uint64_t py_str_width(const Value& v) {
  switch (v.type) {
    case Value::Type::kBool:
      return 5;
    case Value::Type::kInt:
      return 21;
    case Value::Type::kUInt:
      return 20;
    case Value::Type::kFloat:
      return 32;
    case Value::Type::kComplex:
      return 64;
    default:
      return 0;
  }
}

template <typename T>
T to_integer(const Value& v, const Where& where) {
  const auto out_of_range = [&where](const std::string& text) -> T {
    fail(where.str(), "value " + text + " does not fit the array's integer datatype");
  };
  switch (v.type) {
    case Value::Type::kNull:
      return T{0};
    case Value::Type::kBool:
      return static_cast<T>(v.b ? 1 : 0);
    case Value::Type::kInt:
      return std::in_range<T>(v.i) ? static_cast<T>(v.i) : out_of_range(std::to_string(v.i));
    case Value::Type::kUInt:
      return std::in_range<T>(v.u) ? static_cast<T>(v.u) : out_of_range(std::to_string(v.u));
    case Value::Type::kFloat: {
      const double t = std::trunc(v.f);
      const double low = static_cast<double>(std::numeric_limits<T>::min());
      const double high = std::ldexp(1.0, std::numeric_limits<T>::digits);
      if (!(t >= low && t < high)) return out_of_range(py_float_repr(v.f, true));
      return static_cast<T>(t);
    }
    case Value::Type::kString: {
      const std::string_view s = trim(*v.text);
      const char* begin = s.data() + (s.starts_with('+') ? 1 : 0);
      T out{};
      const auto r = std::from_chars(begin, s.data() + s.size(), out);
      if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty()) return out;
      fail(where.str(), "'" + *v.text + "' is not an integer");
    }
    default:
      break;
  }
  fail(where.str(),
       "a " + std::string(v.type == Value::Type::kComplex ? "complex number" : "binary value") +
           " cannot be stored in an integer array");
}

double to_real(const Value& v, const Where& where) {
  switch (v.type) {
    case Value::Type::kNull:
      return 0.0;
    case Value::Type::kBool:
      return v.b ? 1.0 : 0.0;
    case Value::Type::kInt:
      return static_cast<double>(v.i);
    case Value::Type::kUInt:
      return static_cast<double>(v.u);
    case Value::Type::kFloat:
      return v.f;
    case Value::Type::kString:
      if (const auto f = parse_py_float(*v.text)) return *f;
      fail(where.str(), "'" + *v.text + "' is not a number");
    default:
      break;
  }
  fail(where.str(),
       "a " + std::string(v.type == Value::Type::kComplex ? "complex number" : "binary value") +
           " cannot be stored in a real array; use complex64 or complex128");
}

std::complex<double> to_complex(const Value& v, const Where& where) {
  if (v.type == Value::Type::kComplex) return v.z;
  if (v.type == Value::Type::kString) {
    if (const auto z = parse_py_complex(*v.text)) return *z;
    fail(where.str(), "'" + *v.text + "' is not a complex number");
  }
  return {to_real(v, where), 0.0};
}

bool to_bool(const Value& v, const Where& where) {
  switch (v.type) {
    case Value::Type::kNull:
      return false;
    case Value::Type::kBool:
      return v.b;
    case Value::Type::kInt:
      return v.i != 0;
    case Value::Type::kUInt:
      return v.u != 0;
    case Value::Type::kFloat:
      return v.f != 0.0;
    case Value::Type::kComplex:
      return v.z != std::complex<double>(0.0, 0.0);
    default:
      break;
  }
  fail(where.str(), "a string cannot be stored in a bool8 array");
}

/// Write `v` as one element of the non-record type `dtype` at `dst`.
void encode_value(std::uint8_t* dst, const DType& dtype, const Value& v, const Where& where) {
  const bool swap =
      dtype.byte_order() != ByteOrder::kNotApplicable && dtype.byte_order() != native_byte_order();
  if (dtype.kind() == DTypeKind::kAscii) {
    const std::string text = py_str(v);
    for (char c : text) {
      if (v.type != Value::Type::kBinary && static_cast<unsigned char>(c) >= 0x80) {
        fail(where.str(), "'" + text + "' is not ASCII; use a ucs4 datatype for other text");
      }
    }
    const std::size_t n = std::min<std::size_t>(text.size(), dtype.length());
    std::memcpy(dst, text.data(), n);
    std::memset(dst + n, 0, dtype.length() - n);
    return;
  }
  if (dtype.kind() == DTypeKind::kUcs4) {
    if (v.type == Value::Type::kBinary) {
      fail(where.str(), "a binary value cannot be stored in a ucs4 array");
    }
    const auto points = decode_utf8(py_str(v));
    if (!points) fail(where.str(), "string is not valid UTF-8");
    const std::size_t n = std::min<std::size_t>(points->size(), dtype.length());
    for (std::size_t k = 0; k < n; ++k) {
      store_raw<std::uint32_t>(dst + 4 * k, static_cast<std::uint32_t>((*points)[k]), swap);
    }
    std::memset(dst + 4 * n, 0, 4 * (dtype.length() - n));
    return;
  }
  visit_numeric(dtype.kind(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      *dst = to_bool(v, where) ? 1 : 0;
    } else if constexpr (std::is_same_v<T, Float16>) {
      store_raw<std::uint16_t>(dst, double_to_float16(to_real(v, where)), swap);
    } else if constexpr (IsComplex<T>::value) {
      using F = typename T::value_type;
      const std::complex<double> z = to_complex(v, where);
      store_raw<F>(dst, static_cast<F>(z.real()), swap);
      store_raw<F>(dst + sizeof(F), static_cast<F>(z.imag()), swap);
    } else if constexpr (std::is_floating_point_v<T>) {
      store_raw<T>(dst, static_cast<T>(to_real(v, where)), swap);
    } else {
      store_raw<T>(dst, to_integer<T>(v, where), swap);
    }
  });
}

bool is_container(const Node& n) { return n.is_sequence() || n.is_mapping(); }

bool record_fits(const Node& node, const DType& dtype);

/// True when `node` holds the sub-array of `field` from dimension `depth` on.
bool subarray_fits(const Node& node, const Field& field, std::size_t depth) {
  if (depth == field.shape.size()) {
    return field.dtype.is_structured() ? record_fits(node, field.dtype) : !is_container(node);
  }
  if (!node.is_sequence() || node.items().size() != field.shape[depth]) return false;
  return std::all_of(node.items().begin(), node.items().end(),
                     [&](const NodePtr& item) { return subarray_fits(*item, field, depth + 1); });
}

/// True when `node` is one record of `dtype`: a list with one entry per field.
bool record_fits(const Node& node, const DType& dtype) {
  const auto fields = dtype.fields();
  if (!node.is_sequence() || node.items().size() != fields.size()) return false;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (!subarray_fits(*node.items()[i], fields[i], 0)) return false;
  }
  return true;
}

void encode_record(std::uint8_t* dst, const DType& dtype, const Node& record, Where& where);

void encode_field_items(std::uint8_t* dst, const Field& field, const Node& node, std::size_t depth,
                        Where& where) {
  if (depth == field.shape.size()) {
    if (field.dtype.is_structured()) {
      encode_record(dst, field.dtype, node, where);
      return;
    }
    Value v = classify(node, where);
    if (v.type == Value::Type::kNull) {
      const auto kind = field.dtype.kind();
      if (kind != DTypeKind::kFloat16 && kind != DTypeKind::kFloat32 &&
          kind != DTypeKind::kFloat64 && kind != DTypeKind::kComplex64 &&
          kind != DTypeKind::kComplex128) {
        fail(where.str(), "null inside a record can only stand for NaN in a float field");
      }
      v.type = Value::Type::kFloat;
      v.f = std::numeric_limits<double>::quiet_NaN();
    }
    encode_value(dst, field.dtype, v, where);
    return;
  }
  std::uint64_t step = field.dtype.itemsize();
  for (std::size_t d = depth + 1; d < field.shape.size(); ++d) step *= field.shape[d];
  const auto& items = node.items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    where.indices.push_back(i);
    encode_field_items(dst + i * step, field, *items[i], depth + 1, where);
    where.indices.pop_back();
  }
}

void encode_record(std::uint8_t* dst, const DType& dtype, const Node& record, Where& where) {
  const auto fields = dtype.fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    where.indices.push_back(i);
    encode_field_items(dst + fields[i].offset, fields[i], *record.items()[i], 0, where);
    where.indices.pop_back();
  }
}

/// Collect the nodes at depth `shape.size()` in C order, checking that every list at depth d
/// has `shape[d]` entries (no ragged data).
void collect_cells(const Node& node, const std::vector<std::uint64_t>& shape, std::size_t depth,
                   bool records, std::vector<const Node*>& out, Where& where) {
  if (depth == shape.size()) {
    if (!records && node.is_sequence()) {
      fail(where.str(),
           "inline data is ragged: this entry is nested deeper than the first "
           "entry; every row must have the same shape " +
               shape_text(shape));
    }
    out.push_back(&node);
    return;
  }
  if (!node.is_sequence() || node.items().size() != shape[depth]) {
    fail(where.str(), "inline data is ragged: expected a list of " + std::to_string(shape[depth]) +
                          " entries here, as the first rows "
                          "give shape " +
                          shape_text(shape));
  }
  const auto& items = node.items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    where.indices.push_back(i);
    collect_cells(*items[i], shape, depth + 1, records, out, where);
    where.indices.pop_back();
  }
}

/// Infer the type of inline values without a datatype, as numpy does for python values.
DType infer_dtype(const std::vector<Value>& values, const std::string& path) {
  bool any_string = false, any_binary = false, any_complex = false, any_float = false;
  bool any_int = false, any_uint = false, any_bool = false, any_other = false;
  std::uint64_t text_width = 0, number_width = 0, binary_width = 0;
  for (const Value& v : values) {
    switch (v.type) {
      case Value::Type::kNull:
        break;
      case Value::Type::kBool:
        any_bool = true;
        break;
      case Value::Type::kInt:
        any_int = true;
        break;
      case Value::Type::kUInt:
        any_uint = true;
        break;
      case Value::Type::kFloat:
        any_float = true;
        break;
      case Value::Type::kComplex:
        any_complex = true;
        break;
      case Value::Type::kString: {
        any_string = true;
        const auto points = decode_utf8(*v.text);
        if (!points) fail(path, "inline string is not valid UTF-8");
        text_width = std::max<std::uint64_t>(text_width, points->size());
        break;
      }
      case Value::Type::kBinary:
        any_binary = true;
        binary_width = std::max<std::uint64_t>(binary_width, v.bytes->size());
        break;
    }
    if (v.type != Value::Type::kString && v.type != Value::Type::kBinary) {
      number_width = std::max(number_width, py_str_width(v));
    }
    any_other = any_other || (v.type != Value::Type::kNull && v.type != Value::Type::kBinary);
  }
  if (any_binary) {
    if (any_other) {
      fail(path, "inline data mixes binary values with other values; give a `datatype`");
    }
    return DType::ascii(binary_width);
  }
  if (any_string) return DType::ucs4(std::max(text_width, number_width));
  if (any_complex) return DType::numeric(DTypeKind::kComplex128);
  if (any_float || (any_int && any_uint)) return DType::numeric(DTypeKind::kFloat64);
  if (any_uint) return DType::numeric(DTypeKind::kUInt64);
  if (any_int) return DType::numeric(DTypeKind::kInt64);
  if (any_bool) return DType::numeric(DTypeKind::kBool8);
  return DType::numeric(DTypeKind::kFloat64);  // empty or all null (python: float64 / object)
}

// ---------------------------------------------------------------------------------------------
// Walking the elements of a strided layout.

/// Call `sink(pointer, bytes)` for the elements of the layout in C order, in runs of whole
/// elements (a contiguous innermost row is one run). Needs at least one element and a
/// layout already checked to lie inside the bytes at `base`.
template <typename Sink>
void gather(const std::uint8_t* base, std::uint64_t offset, const std::vector<std::uint64_t>& shape,
            const std::vector<std::int64_t>& strides, std::uint64_t itemsize, Sink&& sink) {
  const std::uint8_t* row = base + offset;
  const std::size_t nd = shape.size();
  if (nd == 0) {
    sink(row, itemsize);
    return;
  }
  const std::uint64_t inner_n = shape[nd - 1];
  const std::int64_t inner_stride = strides[nd - 1];
  const bool inner_contiguous = inner_n == 1 || inner_stride == static_cast<std::int64_t>(itemsize);
  std::vector<std::uint64_t> index(nd, 0);
  for (;;) {
    if (inner_contiguous) {
      sink(row, inner_n * itemsize);
    } else {
      const std::uint8_t* p = row;
      for (std::uint64_t i = 0; i < inner_n; ++i) {
        sink(p, itemsize);
        if (i + 1 < inner_n) p += inner_stride;
      }
    }
    std::size_t d = nd - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < shape[d]) {
        row += strides[d];
        break;
      }
      row -= strides[d] * static_cast<std::int64_t>(shape[d] - 1);
      index[d] = 0;
    }
  }
}

std::string format_source_describe(const Source& s) {
  switch (s.kind) {
    case SourceKind::kBlock:
      if (s.index < 0)
        return "block " + std::to_string(s.index) + " (= " + std::to_string(s.block) + ")";
      return "block " + std::to_string(s.block);
    case SourceKind::kExternal:
      return "external '" + s.uri + "'";
    case SourceKind::kInline:
      break;
  }
  return "inline data";
}

}  // namespace

std::string Source::describe() const { return format_source_describe(*this); }

/// A block read with Load::kDeferred: where to get it, and the bytes once they are decoded.
struct NDArray::Deferred {
  Deferred(const BlockProvider* provider, std::int64_t index, std::uint64_t declared,
           std::string node_path)
      : blocks(provider), block(index), size(declared), path(std::move(node_path)) {}

  const BlockProvider* blocks;
  std::int64_t block;
  std::uint64_t size;  ///< The block's declared decoded size.
  std::string path;    ///< The ndarray node's path, for errors.
  std::once_flag once;
  io::Buffer bytes;    ///< The decoded block, once read.
};

/// Builds an NDArray from its node; a friend of NDArray so it can fill the private members.
class NDArrayReader {
 public:
  NDArrayReader(const BlockProvider& blocks, const std::string& path,
                NDArray::Load load = NDArray::Load::kNow)
      : blocks_(blocks), path_(path), load_(load) {}

  NDArray read(const Node& node) {
    NDArray a;
    if (node.is_sequence()) {
      read_inline(a, node, nullptr, nullptr, path_);
      return a;
    }
    if (!node.is_mapping()) {
      fail(path_, "an ndarray must be a mapping or a list of values, found " + tree::describe_for_error(node));
    }
    const NodePtr source = present(node.get("source"));
    const NodePtr data = present(node.get("data"));
    if (source && data) {
      fail(path_, "ndarray has both `source` and `data`; keep one of them");
    }
    if (data) {
      read_inline(a, *data, present(node.get("datatype")).get(), present(node.get("shape")).get(),
                  path_ + "/data");
    } else if (source) {
      read_block(a, node, *source);
    } else {
      fail(path_,
           "ndarray has neither `source` nor `data`; give a block index, a URI or "
           "inline values");
    }
    read_mask(a, present(node.get("mask")));
    return a;
  }

 private:
  static NodePtr present(NodePtr node) { return node && !node->is_null() ? node : nullptr; }

  const Node& require(const Node& node, std::string_view key) {
    const NodePtr value = present(node.get(key));
    if (!value) {
      fail(path_, "ndarray with a `source` needs `" + std::string(key) +
                      "`; the standard requires shape, datatype and byteorder next to source");
    }
    return *value;
  }

  /// Read `shape` entries; a leading "*" sets `star` and reads as 0 until resolved.
  std::vector<std::uint64_t> parse_shape(const Node& node, const std::string& path, bool& star) {
    star = false;
    if (!node.is_sequence()) {
      fail(path, "shape must be a list of non-negative integers, found " + tree::describe_for_error(node));
    }
    const auto& items = node.items();
    if (items.size() > kMaxDims) {
      fail(path, "shape has " + std::to_string(items.size()) + " dimensions; at most " +
                     std::to_string(kMaxDims) + " are supported");
    }
    std::vector<std::uint64_t> shape;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Node& dim = *items[i];
      if (i == 0 && dim.is_string() && dim.as_string() == "*") {
        star = true;
        shape.push_back(0);
        continue;
      }
      if (dim.is_string() && dim.as_string() == "*") {
        fail(path + "/" + std::to_string(i), "'*' may only be the first entry of a shape");
      }
      if (dim.kind() != NodeKind::kInt || dim.as_int() < 0) {
        fail(path + "/" + std::to_string(i),
             "shape entries must be non-negative integers, found " + tree::describe_for_error(dim));
      }
      shape.push_back(static_cast<std::uint64_t>(dim.as_int()));
    }
    return shape;
  }

  io::Buffer fetch(NDArray& a, const Node& source) {
    const std::string path = path_ + "/source";
    try {
      if (source.kind() == NodeKind::kInt) {
        const std::int64_t index = source.as_int();
        const std::uint64_t count = blocks_.block_count();
        const std::uint64_t wanted = index < 0 ? magnitude(index) - 1 : magnitude(index);
        if (wanted >= count) {
          const std::string reason = blocks_.missing_blocks_reason();
          fail(path, "source " + std::to_string(index) + " names no block: the file has " +
                         std::to_string(count) + " block(s)" +
                         (reason.empty() ? "" : " (" + reason + ")"));
        }
        a.source_.kind = SourceKind::kBlock;
        a.source_.index = index;
        a.source_.block = index < 0 ? count - magnitude(index) : magnitude(index);
        const auto block = static_cast<std::int64_t>(a.source_.block);
        if (load_ == NDArray::Load::kDeferred) {
          if (const auto size = blocks_.streamable_block_size(block)) {
            a.deferred_ = std::make_shared<NDArray::Deferred>(&blocks_, block, *size, path_);
            return {};
          }
        }
        return blocks_.block(block);
      }
      if (source.is_string()) {
        a.source_.kind = SourceKind::kExternal;
        a.source_.uri = source.as_string();
        return blocks_.external(a.source_.uri);
      }
    } catch (const Error& e) {
      throw e.with_context(at(path));
    }
    fail(path, "source must be a block index or a URI string, found " + tree::describe_for_error(source));
  }

  void read_block(NDArray& a, const Node& node, const Node& source) {
    const Node& datatype = require(node, "datatype");
    const Node& byteorder = require(node, "byteorder");
    const Node& shape_node = require(node, "shape");
    const ByteOrder order = parse_byteorder(byteorder, path_ + "/byteorder");
    a.dtype_ = DType::from_node(datatype, order, path_ + "/datatype");
    a.shape_ = parse_shape(shape_node, path_ + "/shape", a.streamed_);
    if (const NodePtr offset = present(node.get("offset"))) {
      if (offset->kind() != NodeKind::kInt || offset->as_int() < 0) {
        fail(path_ + "/offset",
             "offset must be a non-negative integer (bytes), found " + tree::describe_for_error(*offset));
      }
      a.offset_ = static_cast<std::uint64_t>(offset->as_int());
    }
    if (const NodePtr strides = present(node.get("strides"))) {
      const std::string spath = path_ + "/strides";
      if (!strides->is_sequence() || strides->items().size() != a.shape_.size()) {
        fail(spath, "strides must be a list of " + std::to_string(a.shape_.size()) +
                        " integers (bytes), one per dimension of the shape");
      }
      for (std::size_t i = 0; i < strides->items().size(); ++i) {
        const Node& s = *strides->items()[i];
        if (s.kind() != NodeKind::kInt || s.as_int() == 0) {
          fail(spath + "/" + std::to_string(i),
               "strides must be non-zero integers (bytes), found " + tree::describe_for_error(s));
        }
        a.strides_.push_back(s.as_int());
      }
      a.explicit_strides_ = true;
    }
    a.data_ = fetch(a, source);
    if (a.streamed_) resolve_star(a);
    check_layout(a);
  }

  /// Resolve a leading '*' from the block size as python asdf does: whole rows after `offset`.
  void resolve_star(NDArray& a) {
    std::uint64_t row = a.dtype_.itemsize();
    for (std::size_t d = 1; d < a.shape_.size(); ++d) {
      if (mul_overflows(row, a.shape_[d], row)) {
        fail(path_ + "/shape", "shape " + shape_text(a.shape_) + " is too large");
      }
    }
    if (a.explicit_strides_) {
      if (a.strides_[0] < 0) {
        fail(path_ + "/strides", "a streamed array ('*' in shape) needs a positive first stride");
      }
      row = static_cast<std::uint64_t>(a.strides_[0]);
    }
    if (row == 0) {
      fail(path_ + "/shape",
           "cannot resolve '*': a row of shape " + shape_text(a.shape_) + " holds no bytes");
    }
    const std::uint64_t size = a.byte_size();
    a.shape_[0] = a.offset_ <= size ? (size - a.offset_) / row : 0;
  }

  /// Check sizes and that every element lies inside the bytes, before any byte is read.
  void check_layout(NDArray& a) {
    const std::uint64_t itemsize = a.dtype_.itemsize();
    std::uint64_t count = 1;
    std::uint64_t nonzero = itemsize;  // numpy's overflow check skips zero dimensions
    for (std::uint64_t dim : a.shape_) {
      bool overflow = mul_overflows(count, dim, count);
      if (dim != 0) overflow = overflow || mul_overflows(nonzero, dim, nonzero);
      if (overflow ||
          nonzero > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(path_ + "/shape", "shape " + shape_text(a.shape_) + " with " +
                                   std::to_string(itemsize) +
                                   "-byte elements is larger than 2^63 bytes");
      }
    }
    a.size_ = count;
    a.nbytes_ = count * itemsize;
    if (!a.explicit_strides_) {
      a.strides_.assign(a.shape_.size(), 0);
      std::uint64_t step = itemsize;
      for (std::size_t d = a.shape_.size(); d-- > 0;) {
        a.strides_[d] = static_cast<std::int64_t>(step);
        if (a.shape_[d] != 0) step *= a.shape_[d];
      }
    }
    const std::uint64_t size = a.byte_size();
    const std::string where = a.source_.describe();
    if (a.offset_ > size) {
      fail(path_, "offset " + std::to_string(a.offset_) + " lies past the end of " + where +
                      ", which holds " + std::to_string(size) + " bytes");
    }
    if (count == 0) return;
    std::uint64_t forward = 0;
    std::uint64_t backward = 0;
    bool overflow = false;
    for (std::size_t d = 0; d < a.shape_.size(); ++d) {
      std::uint64_t reach = 0;
      overflow = overflow || mul_overflows(magnitude(a.strides_[d]), a.shape_[d] - 1, reach);
      std::uint64_t& total = a.strides_[d] < 0 ? backward : forward;
      overflow = overflow || add_overflows(total, reach, total);
    }
    std::uint64_t end = 0;
    overflow =
        overflow || add_overflows(a.offset_, forward, end) || add_overflows(end, itemsize, end);
    if (overflow || backward > a.offset_ || end > size) {
      const std::string low = backward > a.offset_ ? "-" + std::to_string(backward - a.offset_)
                                                   : std::to_string(a.offset_ - backward);
      const std::string span = overflow ? std::string("beyond 2^64 bytes")
                                        : "bytes [" + low + ", " + std::to_string(end) + ")";
      fail(path_, "ndarray of shape " + shape_text(a.shape_) + " at offset " +
                      std::to_string(a.offset_) + " spans " + span + ", outside " + where +
                      ", which holds " + std::to_string(size) +
                      " bytes; fix offset, strides or shape");
    }
  }

  void read_inline(NDArray& a, const Node& data, const Node* datatype, const Node* shape_node,
                   const std::string& path) {
    if (!data.is_sequence()) {
      fail(path, "inline data must be a list, found " + tree::describe_for_error(data));
    }
    a.source_.kind = SourceKind::kInline;
    std::optional<DType> dtype;
    if (datatype) {
      dtype = DType::from_node(*datatype, native_byte_order(), path_ + "/datatype");
    }
    const bool records = dtype && dtype->is_structured();
    // The shape: the lengths of the first entries down to a value (or, for records, down to
    // the first list that reads as one record, as python asdf searches for it).
    const Node* cur = &data;
    while (records ? !record_fits(*cur, *dtype) : cur->is_sequence()) {
      if (!cur->is_sequence() || cur->items().empty()) {
        if (cur->is_sequence()) {
          a.shape_.push_back(0);
          break;
        }
        fail(path, "inline data cannot be read as records of " + dtype->descr() +
                       ": each record must be a list with one entry per field");
      }
      a.shape_.push_back(cur->items().size());
      if (a.shape_.size() > kMaxDims) {
        fail(path, "inline data nests deeper than " + std::to_string(kMaxDims) + " dimensions");
      }
      cur = cur->items()[0].get();
    }
    std::vector<const Node*> cells;
    Where where{path, {}};
    collect_cells(data, a.shape_, 0, records, cells, where);
    if (records) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (!record_fits(*cells[i], *dtype)) {
          fail(path, "inline entry " + std::to_string(i) + " (C order) is not a record of " +
                         dtype->descr());
        }
      }
    }
    std::vector<Value> values;
    if (!records) {
      values.reserve(cells.size());
      for (std::size_t i = 0; i < cells.size(); ++i) {
        values.push_back(classify(*cells[i], cell_where(path, a.shape_, i)));
      }
    }
    a.dtype_ = dtype ? *dtype : infer_dtype(values, path);
    if (dtype && !records && dtype->length() == 0 &&
        (dtype->kind() == DTypeKind::kAscii || dtype->kind() == DTypeKind::kUcs4)) {
      // numpy's unsized string: as long as the longest value, at least 1 (python asdf reads
      // [ascii, 0] with data [abc, d] as S3).
      std::uint64_t width = 1;
      for (const Value& v : values) {
        if (v.type == Value::Type::kNull) continue;
        const std::string text = py_str(v);
        if (dtype->kind() == DTypeKind::kAscii) {
          width = std::max<std::uint64_t>(width, text.size());
        } else if (const auto points = decode_utf8(text)) {
          width = std::max<std::uint64_t>(width, points->size());
        }
      }
      a.dtype_ = dtype->kind() == DTypeKind::kAscii ? DType::ascii(width)
                                                    : DType::ucs4(width, dtype->byte_order());
    }
    a.size_ = cells.size();
    const std::uint64_t itemsize = a.dtype_.itemsize();
    if (itemsize != 0 && a.size_ > NDArray::kMaxInlineBytes / itemsize) {
      throw Error(ErrorCode::kLimit,
                  "inline array of " + std::to_string(a.size_) + " elements of " +
                      std::to_string(itemsize) + " bytes exceeds the " +
                      std::to_string(NDArray::kMaxInlineBytes) +
                      "-byte limit for inline data; store it in a block",
                  at(path));
    }
    a.nbytes_ = a.size_ * itemsize;
    if (shape_node) check_declared_shape(a, *shape_node);
    // At least one byte, so that every element has a valid address even when the dtype is
    // 0 bytes long (a string of length 0): the values are still checked, and memcpy or memset
    // of 0 bytes is given a real pointer (fuzz finding 10).
    std::vector<std::uint8_t> bytes(std::max<std::uint64_t>(a.nbytes_, 1));
    bool any_null = false;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::uint8_t* dst = bytes.data() + i * itemsize;
      Where cell = cell_where(path, a.shape_, i);
      if (records) {
        encode_record(dst, a.dtype_, *cells[i], cell);
      } else {
        any_null = any_null || values[i].type == Value::Type::kNull;
        encode_value(dst, a.dtype_, values[i], cell);
      }
    }
    if (any_null) {
      a.mask_.nulls.resize(cells.size());
      for (std::size_t i = 0; i < cells.size(); ++i) {
        a.mask_.nulls[i] = values[i].type == Value::Type::kNull ? 1 : 0;
      }
    }
    bytes.resize(a.nbytes_);
    a.data_ = io::Buffer::from_vector(std::move(bytes));
    a.strides_.assign(a.shape_.size(), 0);
    std::uint64_t step = itemsize;
    for (std::size_t d = a.shape_.size(); d-- > 0;) {
      a.strides_[d] = static_cast<std::int64_t>(step);
      if (a.shape_[d] != 0) step *= a.shape_[d];
    }
  }

  void check_declared_shape(const NDArray& a, const Node& shape_node) {
    bool star = false;
    std::vector<std::uint64_t> declared = parse_shape(shape_node, path_ + "/shape", star);
    if (star && !a.shape_.empty()) declared[0] = a.shape_[0];
    if (declared != a.shape_) {
      fail(path_ + "/shape", "shape " + shape_text(declared) +
                                 " does not match the inline "
                                 "data, whose shape is " +
                                 shape_text(a.shape_));
    }
  }

  void read_mask(NDArray& a, const NodePtr& mask) {
    if (!mask) return;
    const std::string path = path_ + "/mask";
    if (is_container(*mask)) {
      auto array = std::make_shared<NDArray>(NDArrayReader(blocks_, path).read(*mask));
      if (!array->dtype().is_numeric()) {
        fail(path, "a mask array must be numeric (bool8), not " + array->dtype().numpy_str());
      }
      if (array->size() != 1 && array->size() != a.size_) {
        fail(path, "mask of shape " + shape_text(array->shape()) +
                       " does not fit the array "
                       "of shape " +
                       shape_text(a.shape_) +
                       "; it needs one element or as many "
                       "as the array");
      }
      a.mask_.kind = MaskKind::kArray;
      a.mask_.array = std::move(array);
      return;
    }
    a.mask_.kind = MaskKind::kValue;
    switch (mask->kind()) {
      case NodeKind::kBool:
        a.mask_.value = std::int64_t{mask->as_bool() ? 1 : 0};
        return;
      case NodeKind::kInt:
        a.mask_.value = mask->as_int();
        return;
      case NodeKind::kBigInt:
      case NodeKind::kFloat:
        a.mask_.value = mask->as_double();
        return;
      case NodeKind::kString:
        if (is_complex_tag(mask->tag())) {
          if (const auto z = parse_py_complex(mask->as_string())) {
            a.mask_.value = *z;
            return;
          }
        }
        break;
      default:
        break;
    }
    fail(path,
         "mask must be a number, a complex number or an ndarray, found " + tree::describe_for_error(*mask));
  }

  const BlockProvider& blocks_;
  const std::string& path_;
  NDArray::Load load_;
};

NDArray NDArray::from_node(const tree::Node& node, const BlockProvider& blocks,
                           const std::string& path) {
  return NDArrayReader(blocks, path).read(node);
}

NDArray NDArray::from_node(const tree::Node& node, const BlockProvider& blocks,
                           const std::string& path, Load load) {
  return NDArrayReader(blocks, path, load).read(node);
}

const io::Buffer& NDArray::data() const {
  if (!deferred_) return data_;
  Deferred& d = *deferred_;
  // A throw leaves the flag unset: the next use tries again (and reports again).
  std::call_once(d.once, [&d] {
    try {
      d.bytes = d.blocks->block(d.block);
    } catch (const Error& e) {
      throw e.with_context(ErrorContext{.tree_path = d.path + "/source"});
    }
  });
  return d.bytes;
}

std::uint64_t NDArray::byte_size() const noexcept {
  return deferred_ ? deferred_->size : data_.size();
}

bool NDArray::can_stream() const noexcept {
  return deferred_ && offset_ == 0 && nbytes_ == deferred_->size && is_c_contiguous();
}

void NDArray::stream_bytes(
    const std::function<void(std::span<const std::uint8_t>)>& write) const {
  if (!can_stream()) {
    throw Error(ErrorCode::kInvalidArgument,
                "stream_bytes needs an array that is the whole of a deferred block in C order");
  }
  try {
    deferred_->blocks->stream_block(deferred_->block, write);
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.tree_path = deferred_->path + "/source"});
  }
}

bool NDArray::is_c_contiguous() const noexcept {
  if (size_ == 0) return true;
  std::int64_t expected = static_cast<std::int64_t>(dtype_.itemsize());
  for (std::size_t d = shape_.size(); d-- > 0;) {
    if (shape_[d] != 1 && strides_[d] != expected) return false;
    expected *= static_cast<std::int64_t>(shape_[d]);
  }
  return true;
}

std::optional<io::Buffer> NDArray::contiguous_view() const {
  if (!is_c_contiguous()) return std::nullopt;
  return data().slice(static_cast<std::size_t>(offset_), static_cast<std::size_t>(nbytes_));
}

std::vector<std::uint8_t> NDArray::to_c_order(ByteOrder target,
                                              std::optional<std::uint64_t> max_bytes) const {
  const std::uint64_t limit =
      max_bytes.value_or(std::max<std::uint64_t>(byte_size(), kMinCopyLimit));
  if (nbytes_ > limit) {
    throw Error(ErrorCode::kLimit, "copying this array needs " + std::to_string(nbytes_) +
                                       " bytes, more than the "
                                       "limit of " +
                                       std::to_string(limit) +
                                       " (its strides overlap); raise max_bytes "
                                       "to allow it");
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(nbytes_));
  if (nbytes_ == 0) return out;
  std::uint8_t* cursor = out.data();
  if (is_c_contiguous()) {
    std::memcpy(cursor, data().data() + offset_, out.size());
  } else {
    gather(data().data(), offset_, shape_, strides_, dtype_.itemsize(),
           [&cursor](const std::uint8_t* p, std::uint64_t n) {
             std::memcpy(cursor, p, static_cast<std::size_t>(n));
             cursor += n;
           });
  }
  const std::vector<SwapRun> plan = dtype_.swap_plan(target);
  apply_swap_plan(out, dtype_.itemsize(), plan);
  return out;
}

std::string NDArray::md5_le() const {
  // The same bound as to_c_order: a view whose strides overlap could make a small block hash
  // as terabytes.
  const std::uint64_t limit = std::max<std::uint64_t>(byte_size(), kMinCopyLimit);
  if (nbytes_ > limit) {
    throw Error(ErrorCode::kLimit, "hashing this array reads " + std::to_string(nbytes_) +
                                       " bytes, more than the limit of " + std::to_string(limit) +
                                       " (its strides overlap)");
  }
  compression::Md5 md5;
  const std::vector<SwapRun> plan = dtype_.swap_plan(ByteOrder::kLittle);
  const std::uint64_t itemsize = dtype_.itemsize();
  if (nbytes_ != 0 && is_c_contiguous() && plan.empty()) {
    md5.update(std::span<const std::uint8_t>(data().data() + offset_, nbytes_));
  } else if (nbytes_ != 0) {
    const std::uint64_t capacity = std::max<std::uint64_t>(kChunkBytes / itemsize, 1) * itemsize;
    std::vector<std::uint8_t> chunk(static_cast<std::size_t>(capacity));
    std::uint64_t used = 0;
    const auto flush = [&] {
      const std::span<std::uint8_t> filled(chunk.data(), static_cast<std::size_t>(used));
      apply_swap_plan(filled, itemsize, plan);
      md5.update(filled);
      used = 0;
    };
    const auto sink = [&](const std::uint8_t* p, std::uint64_t n) {
      while (n > 0) {
        const std::uint64_t take = std::min(n, capacity - used);
        std::memcpy(chunk.data() + used, p, static_cast<std::size_t>(take));
        used += take;
        p += take;
        n -= take;
        if (used == capacity) flush();
      }
    };
    if (is_c_contiguous()) {
      sink(data().data() + offset_, nbytes_);
    } else {
      gather(data().data(), offset_, shape_, strides_, itemsize, sink);
    }
    if (used) flush();
  }
  const compression::Md5Digest digest = md5.finish();
  return compression::to_hex(digest);
}

std::vector<std::uint8_t> NDArray::mask_c_order() const {
  const std::uint64_t limit = std::max<std::uint64_t>(byte_size(), kMinCopyLimit);
  if (size_ > limit) {
    throw Error(ErrorCode::kLimit, "the mask of this array would need " + std::to_string(size_) +
                                       " bytes, more than " + std::to_string(limit));
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(size_), 0);
  if (!mask_.nulls.empty()) out = mask_.nulls;
  if (size_ == 0) return out;
  if (mask_.kind == MaskKind::kArray) {
    const NDArray& m = *mask_.array;
    const std::vector<std::uint8_t> bytes = m.to_c_order(native_byte_order());
    const std::uint64_t step = m.dtype().itemsize();
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(m.size()));
    for (std::size_t i = 0; i < flags.size(); ++i) {
      flags[i] = is_nonzero(load_number(bytes.data() + i * step, m.dtype().kind(), false)) ? 1 : 0;
    }
    if (flags.size() == 1) {
      if (flags[0]) std::fill(out.begin(), out.end(), std::uint8_t{1});
    } else {
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = out[i] | flags[i];
    }
  } else if (mask_.kind == MaskKind::kValue && dtype_.is_numeric() && dtype_.itemsize() != 0) {
    const bool nan_mask = has_nan(mask_number(mask_));
    const bool swap = dtype_.byte_order() != ByteOrder::kNotApplicable &&
                      dtype_.byte_order() != native_byte_order();
    const DTypeKind kind = dtype_.kind();
    const std::uint64_t itemsize = dtype_.itemsize();
    std::size_t i = 0;
    const auto visit = [&](const std::uint8_t* p, std::uint64_t n) {
      for (; n >= itemsize; n -= itemsize, p += itemsize, ++i) {
        const Number x = load_number(p, kind, swap);
        const bool hit = nan_mask ? (!x.integral && has_nan(x.z)) : matches_mask_value(x, mask_);
        if (hit) out[i] = 1;
      }
    };
    if (is_c_contiguous()) {
      visit(data().data() + offset_, nbytes_);
    } else {
      gather(data().data(), offset_, shape_, strides_, itemsize, visit);
    }
  }
  return out;
}

std::uint64_t NDArray::masked_count() const {
  if (!has_mask()) return 0;
  const std::vector<std::uint8_t> flags = mask_c_order();
  return static_cast<std::uint64_t>(std::count(flags.begin(), flags.end(), std::uint8_t{1}));
}

tree::NodePtr make_ndarray_node(const NDArrayNodeSpec& spec) {
  if (spec.version.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "make_ndarray_node needs a tag version (\"1.0.0\")");
  }
  if (!spec.strides.empty() && spec.strides.size() != spec.shape.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "make_ndarray_node: " + std::to_string(spec.strides.size()) + " strides for " +
                    std::to_string(spec.shape.size()) + " dimensions");
  }
  if (spec.streamed && spec.shape.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "make_ndarray_node: a streamed array needs at least one dimension");
  }
  NodePtr node = Node::make_mapping();
  node->set_tag(std::string(tree::kAsdfTagPrefix) + "core/ndarray-" + spec.version);
  if (std::holds_alternative<std::int64_t>(spec.source)) {
    node->set("source", Node::make_int(std::get<std::int64_t>(spec.source)));
  } else {
    node->set("source", Node::make_string(std::get<std::string>(spec.source)));
  }
  node->set("datatype", spec.dtype.to_node(true));
  const ByteOrder order = spec.byteorder.value_or(spec.dtype.byte_order());
  node->set("byteorder", Node::make_string(std::string(asdf_byteorder_name(order))));
  NodePtr shape = Node::make_sequence();
  shape->collection_style = tree::CollectionStyle::kFlow;
  for (std::size_t d = 0; d < spec.shape.size(); ++d) {
    shape->push_back(d == 0 && spec.streamed
                         ? Node::make_string("*")
                         : Node::make_int(static_cast<std::int64_t>(spec.shape[d])));
  }
  node->set("shape", shape);
  if (spec.offset != 0) node->set("offset", Node::make_int(static_cast<std::int64_t>(spec.offset)));
  if (!spec.strides.empty()) {
    NodePtr strides = Node::make_sequence();
    strides->collection_style = tree::CollectionStyle::kFlow;
    for (std::int64_t s : spec.strides) strides->push_back(Node::make_int(s));
    node->set("strides", strides);
  }
  return node;
}

}  // namespace asdfcore::ndarray
