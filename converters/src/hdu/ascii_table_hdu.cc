// ASCII tables (XTENSION = 'TABLE'): the rows are text. The `fits` item's data is a structured
// ndarray of `[ascii, w]` fields over the rows as stored (one block, streamed from the input),
// so the text survives exactly; the native view is a core/table whose columns are parsed the
// way astropy 5.2.1 parses them (`FITS_rec._convert_ascii`), each numeric column in its own
// block with a bool mask for null fields, text columns as views into the row block.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/yaml.h"
#include "hdu/hdu_converter.h"
#include "hdu/native_table.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::Field;
using asdfcore::ndarray::NDArrayNodeSpec;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

/// The most columns a table may declare (FITS: TFIELDS <= 999).
constexpr long long kMaxFields = 999;

/// One ASDF field or string may not be longer than this many bytes (numpy's limit).
constexpr std::uint64_t kMaxWidth = asdfcore::ndarray::kMaxItemsize;

/// A TFORMn of an ASCII table as astropy reads it: the letter (A, I, J, F, E or D), the field
/// width in characters and the decimals (0 for A, I and J).
struct AsciiFormat {
  char code = 'A';
  std::uint64_t width = 0;
  std::uint64_t precision = 0;
  bool lower_case = false;  ///< The letter was written in lower case (astropy rejects that).
};

/// Everything about one column.
struct AsciiColumn {
  std::string name;
  std::string tform;  ///< As written.
  AsciiFormat format;
  std::uint64_t start = 0;          ///< Offset of the field in the row, in bytes (0-based).
  std::optional<std::string> null;  ///< TNULLn as astropy's `str(column.null)`.
  double scale = 1.0;
  double zero = 0.0;
  std::string unit;
  std::string description;

  bool numeric() const noexcept { return format.code != 'A'; }
  bool scaled() const noexcept { return scale != 1.0 || zero != 0.0; }
};

bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// Return `s` without the whitespace Python's `bytes.strip()` removes.
std::string_view strip(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Return `text` with every byte outside printable ASCII shown as '?', for messages.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c < ' ' || c > '~') c = '?';
  }
  return out;
}

/// Return the label of column `n` named `name` for messages: "column 3 ('flux')".
std::string label(long long n, const std::string& name) {
  return "column " + std::to_string(n) + " ('" + name + "')";
}

/// Read a run of decimal digits at `at` as astropy's `int()` would (no sign); nothing when
/// there are none or the number does not fit in 63 bits.
std::optional<std::uint64_t> read_digits(std::string_view s, std::size_t& at) {
  const std::size_t begin = at;
  std::uint64_t value = 0;
  bool too_big = false;
  while (at < s.size() && is_digit(s[at])) {
    const auto digit = static_cast<std::uint64_t>(s[at] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() / 4 - digit) / 10) too_big = true;
    if (!too_big) value = value * 10 + digit;
    ++at;
  }
  if (at == begin || too_big) return std::nullopt;
  return value;
}

/// Parse TFORMn as astropy 5.2.1's `_parse_ascii_tformat` does (not strict): after stripping
/// blanks the text must begin with `A`, `I` or `J` and optional digits, or `F`, `E` or `D` and
/// optional `w` or `w.d` (upper case only; anything after that is ignored, as astropy's regular
/// expression only anchors the start). A missing width takes astropy's default (A1, I10, J15,
/// E15.7, F16.7, D25.17); a float format with a width but no decimals gets 1 decimal. A letter
/// in lower case is read as CFITSIO reads it (astropy rejects it) and flagged. Throws for text
/// both reject: another letter, a width of 0, decimals not below the width.
AsciiFormat parse_ascii_tform(const std::string& tform, const std::string& column,
                              const ErrorContext& where) {
  const std::string_view text = strip(tform);
  const auto fail = [&](const std::string& why) {
    return Error(ErrorCode::kMalformed,
                 "the TFORM '" + tform + "' of " + column + " is not an ASCII table format (" +
                     why + "); ASCII tables take Aw, Iw, Fw.d, Ew.d and Dw.d",
                 where);
  };
  if (text.empty()) throw fail("empty");
  AsciiFormat f;
  f.code = text[0];
  if (f.code >= 'a' && f.code <= 'z') {
    f.code = static_cast<char>(f.code - 'a' + 'A');
    f.lower_case = true;
  }
  std::size_t at = 1;
  if (f.code == 'A' || f.code == 'I' || f.code == 'J') {
    if (at < text.size() && is_digit(text[at])) {
      const auto width = read_digits(text, at);
      if (!width) throw fail("the width is too large");
      f.width = *width;
      if (f.width == 0) throw fail("the width must be positive");
    } else {
      f.width = f.code == 'A' ? 1 : f.code == 'I' ? 10 : 15;
    }
    return f;
  }
  if (f.code != 'F' && f.code != 'E' && f.code != 'D') {
    throw fail("the letter '" + std::string(1, f.code) + "' is not one of A, I, J, F, E, D");
  }
  if (at < text.size() && is_digit(text[at])) {
    const auto width = read_digits(text, at);
    if (!width) throw fail("the width is too large");
    f.width = *width;
    f.precision = 1;
    if (at + 1 < text.size() && text[at] == '.' && is_digit(text[at + 1])) {
      ++at;
      const auto precision = read_digits(text, at);
      if (!precision) throw fail("the number of decimals is too large");
      f.precision = *precision;
    }
    if (f.width == 0) throw fail("the width must be positive");
    if (f.precision >= f.width) throw fail("the decimals must be fewer than the width");
  } else {
    f.width = f.code == 'E' ? 15 : f.code == 'F' ? 16 : 25;
    f.precision = f.code == 'E' ? 7 : f.code == 'F' ? 7 : 17;
  }
  return f;
}

/// Return python's `str()` of a card value, as astropy turns TNULLn into the null string.
std::string python_str(const Node& value) {
  switch (value.kind()) {
    case NodeKind::kString:
      return value.as_string();
    case NodeKind::kBool:
      return value.as_bool() ? "True" : "False";
    case NodeKind::kInt:
      return std::to_string(value.as_int());
    case NodeKind::kBigInt:
      return value.integer_text();
    case NodeKind::kFloat: {
      // PyYAML's spelling of Python's repr: undo the ".0" it adds before an exponent and its
      // spelling of the non-finite values.
      std::string s = asdfcore::tree::format_float(value.as_double());
      if (s == ".inf") return "inf";
      if (s == "-.inf") return "-inf";
      if (s == ".nan") return "nan";
      const std::size_t e = s.find('e');
      if (e != std::string::npos && e >= 2 && s.compare(e - 2, 2, ".0") == 0) s.erase(e - 2, 2);
      return s;
    }
    default:
      return "";
  }
}

/// Append the digits of a Python digit part (`digit ('_'? digit)*`) at `at` to `out`; return
/// how many digits there were.
std::size_t digit_part(std::string_view s, std::size_t& at, std::string& out) {
  std::size_t count = 0;
  while (at < s.size()) {
    if (is_digit(s[at])) {
      out += s[at++];
      ++count;
    } else if (s[at] == '_' && count > 0 && at + 1 < s.size() && is_digit(s[at + 1])) {
      ++at;
    } else {
      break;
    }
  }
  return count;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

/// Parse `s` (already stripped) as Python's `int()` does: optional sign, decimal digits with
/// single underscores between them. Nothing when Python raises or the value leaves int64 (numpy
/// raises OverflowError there).
std::optional<std::int64_t> python_int(std::string_view s, std::string& scratch) {
  std::size_t at = 0;
  bool negative = false;
  if (at < s.size() && (s[at] == '+' || s[at] == '-')) negative = s[at++] == '-';
  scratch.clear();
  if (digit_part(s, at, scratch) == 0 || at != s.size()) return std::nullopt;
  std::uint64_t magnitude = 0;
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
  for (char c : scratch) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (kLimit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  if (negative) {
    return magnitude == kLimit ? std::numeric_limits<std::int64_t>::min()
                               : -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude == kLimit) return std::nullopt;
  return static_cast<std::int64_t>(magnitude);
}

/// Parse `s` (already stripped) as Python's `float()` does: optional sign, then `inf`,
/// `infinity` or `nan` in any case, or digits with an optional point and an optional `e`/`E`
/// exponent (single underscores between digits allowed); correctly rounded, overflow to
/// infinity, underflow to zero. Nothing when Python raises.
std::optional<double> python_float(std::string_view s, std::string& scratch) {
  std::size_t at = 0;
  bool negative = false;
  if (at < s.size() && (s[at] == '+' || s[at] == '-')) negative = s[at++] == '-';
  const std::string_view rest = s.substr(at);
  if (equals_ignoring_case(rest, "inf") || equals_ignoring_case(rest, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (equals_ignoring_case(rest, "nan")) {
    return std::copysign(std::numeric_limits<double>::quiet_NaN(), negative ? -1.0 : 1.0);
  }
  scratch.clear();
  at = 0;
  const std::size_t int_digits = digit_part(rest, at, scratch);
  std::size_t frac_digits = 0;
  if (at < rest.size() && rest[at] == '.') {
    scratch += '.';
    ++at;
    frac_digits = digit_part(rest, at, scratch);
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  const std::size_t mantissa_end = scratch.size();
  long long exponent = 0;
  if (at < rest.size() && (rest[at] == 'e' || rest[at] == 'E')) {
    scratch += 'e';
    ++at;
    bool exponent_negative = false;
    if (at < rest.size() && (rest[at] == '+' || rest[at] == '-')) {
      exponent_negative = rest[at] == '-';
      scratch += rest[at++];
    }
    const std::size_t first = scratch.size();
    if (digit_part(rest, at, scratch) == 0) return std::nullopt;
    for (std::size_t i = first; i < scratch.size(); ++i) {
      exponent = std::min<long long>(exponent * 10 + (scratch[i] - '0'), 1'000'000'000);
    }
    if (exponent_negative) exponent = -exponent;
  }
  if (at != rest.size()) return std::nullopt;
  double value = 0.0;
  const auto [end, ec] = std::from_chars(scratch.data(), scratch.data() + scratch.size(), value,
                                         std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    // Too large or too small for a double: the decimal exponent of the first significant digit
    // says which (|x| >= 1e308 or < 1e-323 when this happens).
    long long magnitude = 0;
    const std::string_view mantissa(scratch.data(), mantissa_end);
    const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
    const std::size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) {
      value = 0.0;
    } else {
      magnitude = first < point ? static_cast<long long>(point - first - 1)
                                : -static_cast<long long>(first - point);
      value = magnitude + exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    }
  } else if (ec != std::errc() || end != scratch.data() + scratch.size()) {
    return std::nullopt;
  }
  return negative ? -value : value;
}

/// A numeric column read into values (int64 or float64, the machine's byte order) and a mask.
struct ParsedColumn {
  std::vector<std::uint8_t> values;
  std::vector<std::uint8_t> mask;  ///< One byte per row, 1 for a null field.
  bool any_null = false;
  /// The first field astropy cannot read (row is 0-based), when there is one.
  std::optional<std::pair<std::uint64_t, std::string>> failure;
};

/// Read a numeric column as astropy's `_convert_ascii` does: trailing NULs count as blanks (numpy
/// drops them, astropy pads with blanks), every `D` becomes `E`, and a field that is then blank
/// or equal to the stripped TNULL (cut to the width; without TNULLn astropy compares with the
/// text "None") is null: 0, masked. Other fields are parsed as Python's int() (I, J) or float()
/// (F, E, D). With `physical`, values become float64 `value * TSCAL + TZERO` (each step only when
/// it changes something, as astropy does).
ParsedColumn parse_column(std::span<const std::uint8_t> rows, std::uint64_t row_size,
                          std::uint64_t nrows, const AsciiColumn& column, bool physical) {
  ParsedColumn out;
  const bool integer = column.format.code == 'I' || column.format.code == 'J';
  const bool as_float = !integer || physical;
  out.values.resize(static_cast<std::size_t>(nrows * 8));
  out.mask.resize(static_cast<std::size_t>(nrows));
  std::string null_text(strip(column.null.value_or("None")));
  if (null_text.size() > column.format.width) null_text.resize(column.format.width);
  std::string field;
  std::string scratch;
  for (std::uint64_t r = 0; r < nrows; ++r) {
    const auto* p = reinterpret_cast<const char*>(rows.data() + r * row_size + column.start);
    field.assign(p, static_cast<std::size_t>(column.format.width));
    for (std::size_t i = field.size(); i > 0 && field[i - 1] == '\0'; --i) field[i - 1] = ' ';
    std::replace(field.begin(), field.end(), 'D', 'E');
    const std::string_view text = strip(field);
    std::int64_t ivalue = 0;
    double fvalue = 0.0;
    if (text.empty() || text == null_text) {
      out.mask[r] = 1;
      out.any_null = true;
    } else if (integer) {
      const auto v = python_int(text, scratch);
      if (!v) {
        out.failure.emplace(r, printable(std::string_view(p, field.size())));
        return out;
      }
      ivalue = *v;
      fvalue = static_cast<double>(ivalue);
    } else {
      const auto v = python_float(text, scratch);
      if (!v) {
        out.failure.emplace(r, printable(std::string_view(p, field.size())));
        return out;
      }
      fvalue = *v;
    }
    std::uint8_t* dst = out.values.data() + r * 8;
    if (as_float) {
      if (physical && column.scale != 1.0) fvalue = fvalue * column.scale;
      if (physical && column.zero != 0.0) fvalue = fvalue + column.zero;
      std::memcpy(dst, &fvalue, 8);
    } else {
      std::memcpy(dst, &ivalue, 8);
    }
  }
  return out;
}

class AsciiTableConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "ascii table"; }
  bool accepts(const HduInput& input) const override {
    return input.extent.type == 1 && !input.extent.tile_compressed;
  }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions& options) const override;
};

HduOutput AsciiTableConverter::convert(const HduInput& input, BlockSink& sink,
                                       const ConvertOptions& options) const {
  const HeaderView header(input.cards);
  const ErrorContext where = input.where();
  HduOutput out;
  out.report.index = input.extent.index;
  out.report.kind = "ascii table";
  HduReport& report = out.report;

  const long long bitpix = header.integer("BITPIX", 0);
  const long long naxis = header.integer("NAXIS", 0);
  if (bitpix != 8 || naxis != 2) {
    throw Error(ErrorCode::kMalformed,
                "an ASCII table needs BITPIX = 8 and NAXIS = 2, not " + std::to_string(bitpix) +
                    " and " + std::to_string(naxis),
                where);
  }
  const long long naxis1 = header.integer("NAXIS1", -1);
  const long long naxis2 = header.integer("NAXIS2", -1);
  if (naxis1 < 0 || naxis2 < 0) {
    throw Error(ErrorCode::kMalformed, "NAXIS1 and NAXIS2 must be present and not negative", where);
  }
  const auto row_size = static_cast<std::uint64_t>(naxis1);
  const auto nrows = static_cast<std::uint64_t>(naxis2);
  if (row_size > kMaxWidth) {
    throw Error(ErrorCode::kLimit,
                "rows of " + std::to_string(row_size) + " characters (NAXIS1) are longer than " +
                    std::to_string(kMaxWidth) + ", the longest record an ndarray can hold",
                where);
  }
  const long long tfields = header.integer("TFIELDS", 0);
  if (tfields < 0 || tfields > kMaxFields) {
    throw Error(ErrorCode::kMalformed,
                "TFIELDS = " + std::to_string(tfields) + " is outside 0..999", where);
  }
  // The data area: the rows, then whatever PCOUNT declares (nothing in a valid ASCII table).
  const std::uint64_t size = declared_data_size(header, where);
  if (nrows != 0 && row_size > std::numeric_limits<std::uint64_t>::max() / nrows) {
    throw Error(ErrorCode::kMalformed, "NAXIS1 * NAXIS2 overflows", where);
  }
  const std::uint64_t rows_size = row_size * nrows;
  if (rows_size > size) {
    throw Error(ErrorCode::kMalformed,
                "GCOUNT = " + std::to_string(header.integer("GCOUNT", 1)) +
                    " leaves no room for the rows; an ASCII table has GCOUNT = 1",
                where);
  }
  if (input.data.size() < size) {
    throw Error(ErrorCode::kTruncated,
                "the data holds " + std::to_string(input.data.size()) + " of the " +
                    std::to_string(size) + " bytes the header declares",
                where);
  }
  if (size > rows_size) {
    report.notes.push_back("the data area has " + std::to_string(size - rows_size) +
                           " bytes after the rows (PCOUNT); they are kept in the block");
  }

  // The columns, checked against the row before any data is read.
  const std::vector<std::string> names = column_names(header, tfields);
  std::vector<AsciiColumn> columns;
  std::uint64_t previous_end = 0;
  for (long long n = 1; n <= tfields; ++n) {
    const std::string key = std::to_string(n);
    AsciiColumn c;
    c.name = names[static_cast<std::size_t>(n - 1)];
    const std::string what = label(n, c.name);
    const NodePtr tform = header.value("TFORM" + key);
    if (!tform || !tform->is_string()) {
      throw Error(ErrorCode::kMalformed, what + " has no TFORM" + key + " string", where);
    }
    c.tform = tform->as_string();
    c.format = parse_ascii_tform(c.tform, what, where);
    if (c.format.lower_case) {
      report.notes.push_back(what + ": TFORM" + key + " = '" + c.tform +
                             "' is in lower case; "
                             "read as CFITSIO reads it (astropy 5.2.1 rejects it)");
    }
    const long long tbcol = header.integer("TBCOL" + key, 0);
    if (tbcol < 0) {
      throw Error(ErrorCode::kMalformed,
                  what + " starts at TBCOL" + key + " = " + std::to_string(tbcol) +
                      "; it must be at least 1",
                  where);
    }
    if (tbcol == 0) {
      // astropy places a column without TBCOLn right after the previous one.
      c.start = previous_end;
      report.notes.push_back(what + " has no TBCOL" + key + ": placed at character " +
                             std::to_string(c.start + 1) +
                             ", after the previous column, as "
                             "astropy does");
    } else {
      c.start = static_cast<std::uint64_t>(tbcol - 1);
    }
    if (c.start > row_size || c.format.width > row_size - c.start) {
      throw Error(ErrorCode::kMalformed,
                  what + " (TBCOL" + key + " = " + std::to_string(c.start + 1) + ", TFORM" + key +
                      " = '" + c.tform + "') ends at character " +
                      std::to_string(c.start + c.format.width) +
                      ", beyond the row of NAXIS1 = " + std::to_string(row_size) + " characters",
                  where);
    }
    previous_end = c.start + c.format.width;
    if (const NodePtr null = header.value("TNULL" + key)) c.null = python_str(*null);
    c.scale = header.number("TSCAL" + key, 1.0);
    c.zero = header.number("TZERO" + key, 0.0);
    c.unit = header.string("TUNIT" + key);
    c.description = header.string("TCOMM" + key);
    columns.push_back(std::move(c));
  }

  // The fits item: text fields at their places, the bytes between them as filler fields.
  out.item = Node::make_mapping();
  out.item->set("header", header_node(input.cards));
  std::int64_t block = -1;
  if (row_size == 0) {
    out.item->set("data", Node::make_null());
  } else {
    block = sink.add_input(input.file, input.extent.data_start,
                           input.data.slice(0, static_cast<std::size_t>(size)));
    std::vector<const AsciiColumn*> by_start;
    for (const auto& c : columns) by_start.push_back(&c);
    std::stable_sort(
        by_start.begin(), by_start.end(),
        [](const AsciiColumn* a, const AsciiColumn* b) { return a->start < b->start; });
    bool overlap = false;
    for (std::size_t i = 1; i < by_start.size(); ++i) {
      if (by_start[i - 1]->start + by_start[i - 1]->format.width > by_start[i]->start) {
        overlap = true;
      }
    }
    std::set<std::string> taken(names.begin(), names.end());
    const auto filler_name = [&taken](const std::string& stem) {
      std::string name = stem;
      while (taken.count(name) != 0) name += "_";
      taken.insert(name);
      return name;
    };
    std::vector<Field> fields;
    if (overlap) {
      fields.push_back(Field{filler_name("_row"), DType::ascii(row_size), {}, 0});
      report.notes.push_back(
          "columns overlap in the row: the fits item's data has one field, "
          "`" +
          fields.back().name + "`, holding each whole row");
    } else {
      std::uint64_t at = 0;
      for (const AsciiColumn* c : by_start) {
        if (c->start > at) {
          fields.push_back(
              Field{filler_name("_gap" + std::to_string(at)), DType::ascii(c->start - at), {}, 0});
        }
        fields.push_back(Field{c->name, DType::ascii(c->format.width), {}, 0});
        at = c->start + c->format.width;
      }
      if (at < row_size) {
        fields.push_back(
            Field{filler_name("_gap" + std::to_string(at)), DType::ascii(row_size - at), {}, 0});
      }
    }
    NDArrayNodeSpec spec;
    spec.dtype = DType::structured(std::move(fields));
    spec.shape = {nrows};
    spec.source = block;
    out.item->set("data", asdfcore::ndarray::make_ndarray_node(spec));
  }

  if (!options.native_view || columns.empty()) return out;

  // The native table: typed columns.
  const std::span<const std::uint8_t> rows = input.data.span().subspan(0, rows_size);
  const bool physical = options.scaling == ScalingPolicy::kPhysical;
  std::vector<NativeColumn> native;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const AsciiColumn& c = columns[i];
    const std::string what = label(static_cast<long long>(i + 1), c.name);
    NDArrayNodeSpec spec;
    spec.shape = {nrows};
    NodePtr data;
    const auto text_view = [&]() {
      NDArrayNodeSpec view;
      view.dtype = DType::ascii(c.format.width);
      view.shape = {nrows};
      view.source = block;
      if (nrows > 0) {
        view.offset = c.start;
        view.strides = {static_cast<std::int64_t>(row_size)};
      }
      return asdfcore::ndarray::make_ndarray_node(view);
    };
    if (!c.numeric()) {
      data = text_view();
      if (c.null) {
        // astropy's Table.read compares the text with TNULLn ignoring trailing blanks.
        std::string null_text = *c.null;
        while (!null_text.empty() && null_text.back() == ' ') null_text.pop_back();
        std::vector<std::uint8_t> mask(static_cast<std::size_t>(nrows));
        bool any = false;
        for (std::uint64_t r = 0; r < nrows; ++r) {
          std::string_view text(reinterpret_cast<const char*>(rows.data() + r * row_size + c.start),
                                static_cast<std::size_t>(c.format.width));
          while (!text.empty() && (text.back() == ' ' || text.back() == '\0'))
            text.remove_suffix(1);
          if (text == null_text) {
            mask[static_cast<std::size_t>(r)] = 1;
            any = true;
          }
        }
        if (any) {
          NDArrayNodeSpec m;
          m.dtype = DType::numeric(DTypeKind::kBool8);
          m.shape = {nrows};
          m.source = sink.add_owned(std::move(mask));
          data->set("mask", asdfcore::ndarray::make_ndarray_node(m));
        }
      }
    } else {
      ParsedColumn parsed = parse_column(rows, row_size, nrows, c, physical && c.scaled());
      if (parsed.failure) {
        report.notes.push_back(what + ", row " + std::to_string(parsed.failure->first + 1) + ": '" +
                               parsed.failure->second +
                               "' is not a value astropy reads "
                               "as TFORM '" +
                               c.tform +
                               "' (it raises ValueError); the native "
                               "column holds the text");
        data = text_view();
      } else {
        const bool as_float = c.format.code != 'I' && c.format.code != 'J';
        spec.dtype = DType::numeric(as_float || (physical && c.scaled()) ? DTypeKind::kFloat64
                                                                         : DTypeKind::kInt64);
        spec.source = sink.add_owned(std::move(parsed.values));
        data = asdfcore::ndarray::make_ndarray_node(spec);
        if (parsed.any_null) {
          NDArrayNodeSpec m;
          m.dtype = DType::numeric(DTypeKind::kBool8);
          m.shape = {nrows};
          m.source = sink.add_owned(std::move(parsed.mask));
          data->set("mask", asdfcore::ndarray::make_ndarray_node(m));
        }
        if (c.scaled()) {
          report.notes.push_back(
              what + ": TSCAL/TZERO " +
              (physical ? std::string("applied, float64 physical values")
                        : std::string("not applied (the native column holds the stored values; "
                                      "--scaling physical applies them)")));
        }
      }
    }
    native.push_back(NativeColumn{c.name, data, c.unit, c.description});
  }
  out.native = make_native_table(native, report);
  return out;
}

}  // namespace

std::shared_ptr<const HduConverter> make_ascii_table_converter() {
  return std::make_shared<AsciiTableConverter>();
}

}  // namespace fitsasdf::hdu
