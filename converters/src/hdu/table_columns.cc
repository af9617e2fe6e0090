#include "hdu/table_columns.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "hdu/native_table.h"

namespace fitsasdf::hdu {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

namespace {

/// Counts above this are refused while parsing, so a product of two of them and a small size
/// never overflows 64 bits unnoticed.
constexpr std::uint64_t kMaxCount = 1'000'000'000'000'000ULL;  // 10^15

/// One row of the one table of binary-table type letters.
struct TypeInfo {
  char code;
  std::uint8_t size;  ///< Bytes per element in the row.
  DTypeKind kind;     ///< The field kind (`A`: ascii; `X`: uint8 bytes of bits).
};

constexpr TypeInfo kTypes[] = {
    {'L', 1, DTypeKind::kBool8},       {'X', 1, DTypeKind::kUInt8},
    {'B', 1, DTypeKind::kUInt8},       {'I', 2, DTypeKind::kInt16},
    {'J', 4, DTypeKind::kInt32},       {'K', 8, DTypeKind::kInt64},
    {'A', 1, DTypeKind::kAscii},       {'E', 4, DTypeKind::kFloat32},
    {'D', 8, DTypeKind::kFloat64},     {'C', 8, DTypeKind::kComplex64},
    {'M', 16, DTypeKind::kComplex128}, {'P', 8, DTypeKind::kInt32},
    {'Q', 16, DTypeKind::kInt64},
};

const TypeInfo* type_info(char code) noexcept {
  for (const auto& t : kTypes) {
    if (t.code == code) return &t;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

/// Read decimal digits at the front of `s` (consumed); nothing when there are none or the
/// number exceeds kMaxCount.
std::optional<std::uint64_t> take_count(std::string_view& s) {
  std::size_t i = 0;
  std::uint64_t n = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
    n = n * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (n > kMaxCount) return std::nullopt;
    ++i;
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return n;
}

/// Return true when `value` is exactly the integer `decimal` (also written as a float).
bool equals_exactly(const NodePtr& value, std::string_view decimal, double as_double) {
  if (!value) return false;
  switch (value->kind()) {
    case NodeKind::kInt:
    case NodeKind::kBigInt:
      return value->integer_text() == decimal;
    case NodeKind::kFloat:
      return value->as_double() == as_double;
    default:
      return false;
  }
}

/// Return whether TZEROn = `tzero` (with TSCALn = 1) is the unsigned (signed for `B`) offset
/// of the column type `code`.
bool unsigned_offset(char code, const NodePtr& tzero) {
  switch (code) {
    case 'B':
      return equals_exactly(tzero, "-128", -128.0);
    case 'I':
      return equals_exactly(tzero, "32768", 32768.0);
    case 'J':
      return equals_exactly(tzero, "2147483648", 2147483648.0);
    case 'K':
      return equals_exactly(tzero, "9223372036854775808", 9223372036854775808.0);
    default:
      return false;
  }
}

DTypeKind unsigned_kind(char code) {
  switch (code) {
    case 'B':
      return DTypeKind::kInt8;
    case 'I':
      return DTypeKind::kUInt16;
    case 'J':
      return DTypeKind::kUInt32;
    default:
      return DTypeKind::kUInt64;
  }
}

/// Return `a * b`, or nothing when it exceeds kMaxCount.
std::optional<std::uint64_t> bounded_product(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kMaxCount / a) return std::nullopt;
  return a * b;
}

}  // namespace

std::uint64_t binary_element_size(char code) noexcept {
  const TypeInfo* t = type_info(code);
  return t ? t->size : 0;
}

std::uint64_t BinaryFormat::width() const noexcept {
  if (code == 'X') return (repeat + 7) / 8;
  return repeat * binary_element_size(code);
}

std::pair<long long, long long> stored_integer_range(char code) noexcept {
  switch (code) {
    case 'B':
      return {0, 255};
    case 'I':
      return {-32768, 32767};
    case 'J':
      return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    default:
      return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }
}

std::optional<BinaryFormat> parse_binary_format(std::string_view text) {
  std::string_view s = trim(text);
  BinaryFormat f;
  if (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front())) != 0) {
    const auto r = take_count(s);
    if (!r) return std::nullopt;
    f.repeat = *r;
  }
  if (s.empty()) return std::nullopt;
  f.code = static_cast<char>(std::toupper(static_cast<unsigned char>(s.front())));
  s.remove_prefix(1);
  if (!type_info(f.code)) return std::nullopt;
  if (!f.variable()) {
    // `rAw` and other suffixes (astropy accepts any printable text there); they do not change
    // the layout.
    for (char c : s) {
      if (c < '!' || c > '~') return std::nullopt;
    }
    return f;
  }
  if (f.repeat > 1 || s.empty()) return std::nullopt;
  f.element = static_cast<char>(std::toupper(static_cast<unsigned char>(s.front())));
  s.remove_prefix(1);
  if (!type_info(f.element) || f.element == 'P' || f.element == 'Q') return std::nullopt;
  if (!s.empty()) {
    if (s.front() != '(' || s.back() != ')') return std::nullopt;
    s = s.substr(1, s.size() - 2);
    if (!s.empty()) {
      const auto m = take_count(s);
      if (!m || !s.empty()) return std::nullopt;
      f.max = *m;
    }
  }
  return f;
}

std::optional<std::vector<std::uint64_t>> parse_tdim(std::string_view text, std::size_t max_axes) {
  std::string_view s = trim(text);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<std::uint64_t> dims;
  while (true) {
    s = trim(s);
    const auto n = take_count(s);
    if (!n || dims.size() >= max_axes) return std::nullopt;
    dims.push_back(*n);
    s = trim(s);
    if (s.empty()) break;
    if (s.front() != ',') return std::nullopt;
    s.remove_prefix(1);
  }
  return dims;
}

std::uint64_t BinaryColumn::items() const noexcept {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

BinaryLayout read_binary_layout(const HeaderView& header, const ErrorContext& where,
                                HduReport& report) {
  const auto fail = [&where](const std::string& message) {
    throw Error(ErrorCode::kMalformed, message, where);
  };
  const auto integer = [&](std::string_view keyword, long long fallback) {
    const NodePtr v = header.value(keyword);
    if (!v) return fallback;
    if (v->kind() != NodeKind::kInt) {
      fail(std::string(keyword) + " must be an integer, not " +
           asdfcore::tree::describe_for_error(*v));
    }
    return static_cast<long long>(v->as_int());
  };
  if (const long long bitpix = integer("BITPIX", 0); bitpix != 8) {
    fail("a binary table needs BITPIX = 8, not " + std::to_string(bitpix));
  }
  if (const long long naxis = integer("NAXIS", 0); naxis != 2) {
    fail("a binary table needs NAXIS = 2, not " + std::to_string(naxis));
  }
  if (const long long gcount = integer("GCOUNT", 1); gcount != 1) {
    fail("a binary table needs GCOUNT = 1, not " + std::to_string(gcount));
  }
  const long long naxis1 = integer("NAXIS1", -1);
  const long long naxis2 = integer("NAXIS2", -1);
  const long long pcount = integer("PCOUNT", 0);
  if (naxis1 < 0 || naxis2 < 0 || pcount < 0) {
    fail("NAXIS1, NAXIS2 and PCOUNT must be present and not negative (NAXIS1 = " +
         std::to_string(naxis1) + ", NAXIS2 = " + std::to_string(naxis2) +
         ", PCOUNT = " + std::to_string(pcount) + ")");
  }
  BinaryLayout layout;
  layout.row_size = static_cast<std::uint64_t>(naxis1);
  layout.rows = static_cast<std::uint64_t>(naxis2);
  layout.pcount = static_cast<std::uint64_t>(pcount);
  if (layout.row_size > asdfcore::ndarray::kMaxItemsize) {
    throw Error(ErrorCode::kLimit,
                "rows of NAXIS1 = " + std::to_string(naxis1) + " bytes are wider than the " +
                    std::to_string(asdfcore::ndarray::kMaxItemsize) + " bytes a record may have",
                where);
  }
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if ((layout.rows != 0 && layout.row_size > kMax / layout.rows) ||
      layout.rows_size() > kMax - layout.pcount) {
    fail("NAXIS1 * NAXIS2 + PCOUNT overflows");
  }
  const long long tfields = integer("TFIELDS", -1);
  if (tfields < 0 || tfields > 999) {
    fail("TFIELDS must be present and in 0..999, not " + std::to_string(tfields));
  }

  const std::vector<std::string> names = column_names(header, tfields);
  std::uint64_t offset = 0;
  bool has_descriptors = false;
  for (long long n = 1; n <= tfields; ++n) {
    const std::string num = std::to_string(n);
    BinaryColumn c;
    c.number = static_cast<int>(n);
    c.name = names[static_cast<std::size_t>(n - 1)];
    const std::string what = "column " + num + " ('" + c.name + "')";
    const NodePtr tform = header.value("TFORM" + num);
    if (!tform || !tform->is_string()) {
      fail("TFORM" + num + " of " + what + " is missing or not a string");
    }
    const auto format = parse_binary_format(tform->as_string());
    if (!format) {
      fail("TFORM" + num + " = '" + tform->as_string() + "' of " + what +
           " is not a binary-table format (rT with T one of L X B I J K A E D C M, or 1Pt(max) / "
           "1Qt(max); repeat counts up to 10^15)");
    }
    c.format = *format;
    has_descriptors = has_descriptors || c.format.variable();
    c.offset = offset;
    if (c.width() > layout.row_size - std::min(offset, layout.row_size)) {
      fail("the columns through " + what + " (TFORM" + num + " = '" + tform->as_string() +
           "') take more than the NAXIS1 = " + std::to_string(naxis1) +
           " bytes of a row; fix TFORMn or NAXIS1");
    }
    offset += c.width();

    const TypeInfo& type = *type_info(c.format.code);
    const std::uint64_t repeat = c.format.repeat;
    // The field: element type and shape.
    std::optional<std::vector<std::uint64_t>> dims;
    if (const NodePtr tdim = header.value("TDIM" + num)) {
      if (c.format.variable() || c.format.code == 'X' || repeat == 0) {
        // A descriptor's TDIM shapes its heap arrays; bits and empty columns have none.
      } else if (!tdim->is_string() || !(dims = parse_tdim(tdim->as_string()))) {
        report.notes.push_back("TDIM" + num + " of " + what +
                               " is not of the form '(n1,n2,...)': ignored (card kept)");
      } else {
        std::optional<std::uint64_t> product = 1;
        for (std::uint64_t d : *dims) product = product ? bounded_product(*product, d) : product;
        if (!product || *product != repeat || (*dims)[0] == 0) {
          report.notes.push_back("TDIM" + num + " = '" + tdim->as_string() + "' of " + what +
                                 " does not match its " + std::to_string(repeat) +
                                 " elements: ignored (card kept), the field has shape [" +
                                 std::to_string(repeat) + "]");
          dims.reset();
        }
      }
    }
    if (repeat == 0) {
      c.dtype = type.kind == DTypeKind::kAscii ? DType::ascii(1)
                                               : DType::numeric(type.kind, ByteOrder::kBig);
      c.shape = {0};
    } else if (c.format.code == 'A') {
      const std::uint64_t length = dims ? (*dims)[0] : repeat;
      c.dtype = DType::ascii(length);
      if (dims) {
        for (std::size_t i = dims->size(); i-- > 1;) c.shape.push_back((*dims)[i]);
      }
    } else if (c.format.code == 'X') {
      c.dtype = DType::numeric(DTypeKind::kUInt8);
      c.shape = {c.width()};
    } else if (c.format.variable()) {
      c.dtype = DType::numeric(type.kind, ByteOrder::kBig);
      c.shape = {2};
    } else {
      c.dtype = DType::numeric(type.kind, ByteOrder::kBig);
      if (dims) {
        for (std::size_t i = dims->size(); i-- > 0;) c.shape.push_back((*dims)[i]);
      } else if (repeat > 1) {
        c.shape = {repeat};
      }
    }

    // Scaling, nulls, unit, description.
    const NodePtr tscal = header.value("TSCAL" + num);
    const NodePtr tzero = header.value("TZERO" + num);
    for (const auto& [key, node] : {std::pair{"TSCAL", tscal}, std::pair{"TZERO", tzero}}) {
      if (node && !node->is_number()) {
        fail(std::string(key) + num + " of " + what + " must be a number, not " +
             asdfcore::tree::describe_for_error(*node));
      }
    }
    c.tscal = tscal ? tscal->as_double() : 1.0;
    c.tzero = tzero ? tzero->as_double() : 0.0;
    const bool integer_type = std::string_view("BIJK").find(c.format.code) != std::string::npos;
    const bool number_type = integer_type || c.format.code == 'E' || c.format.code == 'D';
    if (c.tscal != 1.0 || c.tzero != 0.0) {
      if (integer_type && c.tscal == 1.0 && unsigned_offset(c.format.code, tzero)) {
        c.scaling = ColumnScaling::kUnsigned;
        c.dtype = DType::numeric(unsigned_kind(c.format.code), ByteOrder::kBig);
      } else if (number_type && repeat > 0) {
        c.scaling = ColumnScaling::kScaled;
      } else {
        c.scaling = ColumnScaling::kIgnored;
      }
    }
    if (const NodePtr tnull = header.value("TNULL" + num)) {
      const std::string shown = asdfcore::tree::describe_for_error(*tnull);
      if (!integer_type) {
        report.notes.push_back("TNULL" + num + " of " + what +
                               " applies only to integer columns (B I J K): ignored (card kept)");
        report.findings.push_back(
            Finding{report.index, "tnull-not-integer-column",
                    "TNULL" + num + " = " + shown + " on " + what + " of type '" +
                        std::string(1, c.format.code) +
                        "': the FITS standard allows TNULLn only on integer columns (B I J K)"});
      } else if (tnull->kind() != NodeKind::kInt) {
        report.notes.push_back("TNULL" + num + " of " + what +
                               " is not an integer: ignored (card kept)");
        report.findings.push_back(
            Finding{report.index, "tnull-out-of-range",
                    "TNULL" + num + " = " + shown + " of " + what + " is not an integer"});
      } else {
        c.tnull = tnull->as_int();
        const auto [low, high] = stored_integer_range(c.format.code);
        if (*c.tnull < low || *c.tnull > high) {
          report.findings.push_back(Finding{
              report.index, "tnull-out-of-range",
              "TNULL" + num + " = " + std::to_string(*c.tnull) + " of " + what + " (type '" +
                  std::string(1, c.format.code) + "') lies outside the stored values " +
                  std::to_string(low) + ".." + std::to_string(high) + ": no element can be null"});
        }
      }
    }
    c.unit = header.string("TUNIT" + num);
    c.comment = header.string("TCOMM" + num);
    layout.columns.push_back(std::move(c));
  }
  if (offset != layout.row_size) {
    fail("the " + std::to_string(tfields) + " columns take " + std::to_string(offset) +
         " bytes of a row but NAXIS1 = " + std::to_string(naxis1) + "; fix TFORMn or NAXIS1");
  }

  layout.heap_offset = layout.rows_size();
  if (const NodePtr theap = header.value("THEAP")) {
    if (theap->kind() != NodeKind::kInt) {
      fail("THEAP must be an integer, not " + asdfcore::tree::describe_for_error(*theap));
    }
    const std::int64_t value = theap->as_int();
    const bool in_range = value >= 0 && static_cast<std::uint64_t>(value) >= layout.rows_size() &&
                          static_cast<std::uint64_t>(value) <= layout.data_size();
    if (in_range) {
      layout.heap_offset = static_cast<std::uint64_t>(value);
    } else if (layout.pcount == 0 && !has_descriptors) {
      report.notes.push_back("THEAP = " + std::to_string(value) +
                             " points outside a table that has no heap: ignored (card kept)");
    } else {
      fail("THEAP = " + std::to_string(value) + " must lie between the end of the rows (" +
           std::to_string(layout.rows_size()) + " = NAXIS1 * NAXIS2) and the end of the data (" +
           std::to_string(layout.data_size()) + " = NAXIS1 * NAXIS2 + PCOUNT)");
    }
  }
  return layout;
}

}  // namespace fitsasdf::hdu
