#include "compare/data_compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "compare/element.h"
#include "fits/fits_types.h"

namespace fitsasdf::compare {
namespace {

using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::kind_info;

/// What is being filled in, with the rules for listing.
struct Collector {
  DataComparison& out;
  std::size_t max_listed;
  bool nan_bits;

  /// Count one differing element; build its listing only while there is room.
  template <typename Make>
  void differ(Make&& make) {
    ++out.differing;
    out.identical = false;
    if (out.elements.size() < max_listed) out.elements.push_back(make());
  }
};

/// Return true when `a` and `b` hold the same bytes, telling `on_bytes` (when set) of each
/// equal 4 MiB.
bool same_bytes(const asdfcore::io::Buffer& a, const asdfcore::io::Buffer& b,
                const std::function<void(std::uint64_t)>& on_bytes) {
  if (a.size() != b.size()) return false;
  constexpr std::size_t kChunk = std::size_t{4} << 20;
  for (std::size_t at = 0; at < a.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, a.size() - at);
    if (std::memcmp(a.data() + at, b.data() + at, n) != 0) return false;
    if (on_bytes) on_bytes(n);
  }
  return true;
}

std::string dims_text(const std::vector<std::uint64_t>& axes) {
  if (axes.empty()) return "(none)";
  std::string s;
  for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? " x " : "") + std::to_string(axes[i]);
  return s;
}

/// The 1-based FITS index (NAXIS1 first) of flat element `i` over `axes`.
std::vector<std::uint64_t> fits_index(std::uint64_t i, const std::vector<std::uint64_t>& axes) {
  std::vector<std::uint64_t> idx;
  for (std::uint64_t n : axes) {
    if (n == 0) break;
    idx.push_back(i % n + 1);
    i /= n;
  }
  return idx;
}

/// Compare `count` elements of `size` bytes at `a` and `b`, skipping equal stretches with
/// memcmp; call `on_diff(i)` for each element `i` that `equal(pa, pb)` rejects.
template <typename Equal, typename OnDiff>
void scan(const std::uint8_t* a, const std::uint8_t* b, std::uint64_t count, std::size_t size,
          Equal&& equal, OnDiff&& on_diff) {
  constexpr std::uint64_t kStretch = 4096;
  for (std::uint64_t start = 0; start < count; start += kStretch) {
    const std::uint64_t n = std::min(kStretch, count - start);
    const std::size_t offset = static_cast<std::size_t>(start) * size;
    if (std::memcmp(a + offset, b + offset, static_cast<std::size_t>(n) * size) == 0) continue;
    for (std::uint64_t i = start; i < start + n; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * size;
      if (!equal(a + at, b + at)) on_diff(i);
    }
  }
}

/// Byte by byte: index [byte] (1-based), values as decimal bytes.
void compare_bytes(const std::uint8_t* a, std::uint64_t size_a, const std::uint8_t* b,
                   std::uint64_t size_b, std::uint64_t base, const std::string& column,
                   Collector& c) {
  const std::uint64_t n = std::min(size_a, size_b);
  c.out.compared += n;
  scan(
      a, b, n, 1, [](const std::uint8_t* x, const std::uint8_t* y) { return *x == *y; },
      [&](std::uint64_t i) {
        c.differ([&] {
          return ElementDifference{
              {base + i + 1}, column, std::to_string(a[i]), std::to_string(b[i])};
        });
      });
}

void note(DataComparison& out, const std::string& text) {
  out.summary += (out.summary.empty() ? "" : "; ") + text;
}

/// Say when the data present is shorter than the header declares.
void check_cut(const FitsHdu& h, const char* side, DataComparison& out) {
  if (h.data.size() < h.declared_size) {
    note(out, std::string(side) + "'s data is cut short: " + std::to_string(h.data.size()) +
                  " of " + std::to_string(h.declared_size) + " bytes");
    out.identical = false;
  }
}

void compare_images(const FitsHdu& a, const FitsHdu& b, CompareMode mode, Collector& c) {
  if (a.axes != b.axes) {
    note(c.out, "dimensions differ: " + dims_text(a.axes) + " vs " + dims_text(b.axes) +
                    "; no further data comparison");
    c.out.identical = false;
    return;
  }
  const auto ka = fits::kind_for_bitpix(a.bitpix);
  const auto kb = fits::kind_for_bitpix(b.bitpix);
  if (!ka || !kb) {
    compare_bytes(a.data.data(), a.data.size(), b.data.data(), b.data.size(), 0, "", c);
    return;
  }
  const std::size_t sa = kind_info(*ka).unit_size;
  const std::size_t sb = kind_info(*kb).unit_size;
  const std::uint64_t n = std::min(a.data.size() / sa, b.data.size() / sb);
  c.out.compared += n;
  auto on_diff = [&](std::uint64_t i) {
    c.differ([&] {
      return ElementDifference{fits_index(i, a.axes), "",
                               format_element(a.data.data() + i * sa, *ka, true, c.nan_bits),
                               format_element(b.data.data() + i * sb, *kb, true, c.nan_bits)};
    });
  };
  if (*ka == *kb) {
    const ElementRule rule =
        mode == CompareMode::kVerify ? ElementRule::kBytes : ElementRule::kValues;
    scan(
        a.data.data(), b.data.data(), n, sa,
        [&](const std::uint8_t* x, const std::uint8_t* y) {
          return elements_equal(x, y, *ka, true, rule);
        },
        on_diff);
  } else if (mode == CompareMode::kVerify) {
    note(c.out, "BITPIX differs: " + std::to_string(a.bitpix) + " vs " + std::to_string(b.bitpix));
    c.out.identical = false;
  } else {
    for (std::uint64_t i = 0; i < n; ++i) {
      if (!values_equal(a.data.data() + i * sa, *ka, b.data.data() + i * sb, *kb, true)) {
        on_diff(i);
      }
    }
  }
}

void compare_groups(const FitsHdu& a, const FitsHdu& b, CompareMode mode, Collector& c) {
  if (a.axes != b.axes || a.pcount != b.pcount || a.gcount != b.gcount || a.bitpix != b.bitpix) {
    note(c.out,
         "the group structures differ (BITPIX, NAXISn, PCOUNT or GCOUNT); no further "
         "data comparison");
    c.out.identical = false;
    return;
  }
  const auto kind = fits::kind_for_bitpix(a.bitpix);
  if (!kind) {
    compare_bytes(a.data.data(), a.data.size(), b.data.data(), b.data.size(), 0, "", c);
    return;
  }
  const std::size_t size = kind_info(*kind).unit_size;
  std::uint64_t per_group = static_cast<std::uint64_t>(a.pcount);
  std::uint64_t items = 1;
  for (std::size_t i = 1; i < a.axes.size(); ++i) items *= a.axes[i];
  per_group += items;
  const std::uint64_t n = std::min(a.data.size(), b.data.size()) / size;
  c.out.compared += n;
  const ElementRule rule =
      mode == CompareMode::kVerify ? ElementRule::kBytes : ElementRule::kValues;
  scan(
      a.data.data(), b.data.data(), n, size,
      [&](const std::uint8_t* x, const std::uint8_t* y) {
        return elements_equal(x, y, *kind, true, rule);
      },
      [&](std::uint64_t i) {
        c.differ([&] {
          const std::uint64_t g = per_group ? i / per_group : 0;
          const std::uint64_t k = per_group ? i % per_group : 0;
          const bool param = k < static_cast<std::uint64_t>(a.pcount);
          return ElementDifference{
              {g + 1, param ? k + 1 : k - static_cast<std::uint64_t>(a.pcount) + 1},
              param ? "PAR" + std::to_string(k + 1) : "DATA",
              format_element(a.data.data() + i * size, *kind, true, c.nan_bits),
              format_element(b.data.data() + i * size, *kind, true, c.nan_bits)};
        });
      });
}

// ---- tables ---------------------------------------------------------------------------------

std::string rstrip_text(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.remove_suffix(1);
  return std::string(s);
}

std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\0') break;
    out += ch;
  }
  return out + "'";
}

std::uint64_t read_be_unsigned(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

/// One table with its bytes.
struct TableView {
  const FitsHdu& hdu;
  std::uint64_t rows_present() const {
    const auto& t = hdu.table;
    if (t.row_size == 0) return t.rows;
    return std::min<std::uint64_t>(t.rows, hdu.data.size() / t.row_size);
  }
  const std::uint8_t* field(std::uint64_t row, const Column& col) const {
    return hdu.data.data() + row * hdu.table.row_size + col.offset;
  }
  /// The heap bytes of a variable-length field (nullptr when they lie outside the data).
  const std::uint8_t* heap(std::uint64_t offset, std::uint64_t size) const {
    const std::uint64_t start = hdu.table.heap_offset + offset;
    if (start > hdu.data.size() || size > hdu.data.size() - start) return nullptr;
    return hdu.data.data() + start;
  }
};

/// A variable-length field's descriptor (count, heap offset).
std::pair<std::uint64_t, std::uint64_t> descriptor(const std::uint8_t* p, char type) {
  const std::size_t half = type == 'P' ? 4 : 8;
  return {read_be_unsigned(p, half), read_be_unsigned(p + half, half)};
}

std::uint64_t heap_item_size(char heap_type, std::uint64_t count) {
  if (heap_type == 'X') return (count + 7) / 8;
  const auto kind = fits::kind_for_tform(heap_type);
  return count * (kind ? kind_info(*kind).unit_size : 1);
}

/// The text of a variable-length field: its count and its first items.
std::string heap_text(const TableView& t, const std::uint8_t* p, const Column& col, bool nan_bits) {
  const auto [count, offset] = descriptor(p, col.type);
  const std::uint64_t size = heap_item_size(col.heap_type, count);
  const std::uint8_t* data = t.heap(offset, size);
  std::string s = "array of " + std::to_string(count);
  if (data == nullptr)
    return s + " at heap offset " + std::to_string(offset) + " (outside the heap)";
  const auto kind = fits::kind_for_tform(col.heap_type);
  if (col.heap_type == 'A') return s + ": " + quoted({reinterpret_cast<const char*>(data), size});
  if (!kind)
    return s + ": " +
           format_bytes(data, static_cast<std::size_t>(std::min<std::uint64_t>(size, 16)));
  s += ": [";
  const std::size_t unit = kind_info(*kind).unit_size;
  for (std::uint64_t i = 0; i < count && i < 8; ++i) {
    s += (i ? ", " : "") + format_element(data + i * unit, *kind, true, nan_bits);
  }
  return s + (count > 8 ? ", ...]" : "]");
}

/// The text of a cell (the whole field, or its item `item` for a numeric vector).
std::string cell_text(const TableView& t, std::uint64_t row, const Column& col,
                      std::optional<std::uint64_t> item, bool nan_bits) {
  const std::uint8_t* p = t.field(row, col);
  const std::string_view text(reinterpret_cast<const char*>(p), col.width);
  // Verification shows every byte of a text field; fitsdiff's rules ignore trailing blanks.
  if (t.hdu.table.ascii || col.type == 'A')
    return nan_bits ? quoted(text) : quoted(rstrip_text(text));
  switch (col.type) {
    case 'L': {
      std::string s;
      for (std::uint64_t i = 0; i < col.repeat; ++i) {
        const char ch = static_cast<char>(p[i]);
        s += ch == 'T' || ch == 'F' ? std::string(1, ch) : "\\x" + std::to_string(p[i]);
        if (i + 1 < col.repeat) s += ",";
      }
      return s;
    }
    case 'X':
      return format_bytes(p, static_cast<std::size_t>(col.width));
    case 'P':
    case 'Q':
      return heap_text(t, p, col, nan_bits);
    default:
      break;
  }
  const auto kind = fits::kind_for_tform(col.type);
  if (!kind) return format_bytes(p, static_cast<std::size_t>(col.width));
  const std::size_t unit = kind_info(*kind).unit_size;
  return format_element(p + item.value_or(0) * unit, *kind, true, nan_bits);
}

/// Parse an ASCII-table number as astropy reads it (D exponents allowed, blanks around).
std::optional<double> ascii_number(std::string_view text) {
  std::string s(text);
  for (char& ch : s) {
    if (ch == 'D' || ch == 'd') ch = 'E';
  }
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  const char* begin = s.c_str() + first;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  while (*end == ' ') ++end;
  if (*end != '\0') return std::nullopt;
  return v;
}

/// Whether the cells of `col` (in both tables) differ at `row`; `item` gets the first differing
/// item of a numeric vector.
bool cells_differ(const TableView& ta, const Column& ca, const TableView& tb, const Column& cb,
                  std::uint64_t row, CompareMode mode, std::optional<std::uint64_t>& item) {
  const std::uint8_t* pa = ta.field(row, ca);
  const std::uint8_t* pb = tb.field(row, cb);
  const bool exact = mode == CompareMode::kVerify;
  if (ca.width == cb.width && std::memcmp(pa, pb, static_cast<std::size_t>(ca.width)) == 0 &&
      (exact || (ca.type != 'P' && ca.type != 'Q'))) {
    return false;
  }
  if (exact) {
    if (const auto kind = fits::kind_for_tform(ca.type);
        kind && !ta.hdu.table.ascii && ca.repeat > 1) {
      const std::size_t unit = kind_info(*kind).unit_size;
      for (std::uint64_t i = 0; i < ca.repeat; ++i) {
        if (std::memcmp(pa + i * unit, pb + i * unit, unit) != 0) {
          item = i;
          break;
        }
      }
    }
    return true;
  }
  const std::string_view sa(reinterpret_cast<const char*>(pa), ca.width);
  const std::string_view sb(reinterpret_cast<const char*>(pb), cb.width);
  if (ta.hdu.table.ascii) {
    if (ca.type != 'A') {
      const auto x = ascii_number(sa);
      const auto y = ascii_number(sb);
      if (x && y) return !(*x == *y || (std::isnan(*x) && std::isnan(*y)));
    }
    return rstrip_text(sa) != rstrip_text(sb);
  }
  switch (ca.type) {
    case 'A':
      return rstrip_text(sa) != rstrip_text(sb);
    case 'L':
    case 'X':
      return sa != sb;
    case 'P':
    case 'Q': {
      const auto [na, oa] = descriptor(pa, ca.type);
      const auto [nb, ob] = descriptor(pb, cb.type);
      if (na != nb || ca.heap_type != cb.heap_type) return true;
      const std::uint64_t size = heap_item_size(ca.heap_type, na);
      const std::uint8_t* ha = ta.heap(oa, size);
      const std::uint8_t* hb = tb.heap(ob, size);
      if (ha == nullptr || hb == nullptr) return ha != hb || oa != ob;
      if (std::memcmp(ha, hb, static_cast<std::size_t>(size)) == 0) return false;
      const auto kind = fits::kind_for_tform(ca.heap_type);
      if (!kind) return true;
      const std::size_t unit = kind_info(*kind).unit_size;
      for (std::uint64_t i = 0; i < na; ++i) {
        if (!elements_equal(ha + i * unit, hb + i * unit, *kind, true, ElementRule::kValues)) {
          return true;
        }
      }
      return false;
    }
    default:
      break;
  }
  const auto kind = fits::kind_for_tform(ca.type);
  if (!kind) return sa != sb;
  const std::size_t unit = kind_info(*kind).unit_size;
  for (std::uint64_t i = 0; i < ca.repeat; ++i) {
    if (!elements_equal(pa + i * unit, pb + i * unit, *kind, true, ElementRule::kValues)) {
      if (ca.repeat > 1) item = i;
      return true;
    }
  }
  return false;
}

void compare_column(const TableView& ta, const Column& ca, const TableView& tb, const Column& cb,
                    std::uint64_t rows, CompareMode mode, Collector& c) {
  c.out.compared += rows;
  const bool numeric_vector = !ta.hdu.table.ascii && fits::kind_for_tform(ca.type) && ca.repeat > 1;
  for (std::uint64_t row = 0; row < rows; ++row) {
    std::optional<std::uint64_t> item;
    if (!cells_differ(ta, ca, tb, cb, row, mode, item)) continue;
    c.differ([&] {
      ElementDifference d;
      d.index = {row + 1};
      if (numeric_vector) d.index.push_back(item.value_or(0) + 1);
      d.column = ca.name;
      d.a = cell_text(ta, row, ca, item, c.nan_bits);
      d.b = cell_text(tb, row, cb, item, c.nan_bits);
      return d;
    });
  }
}

bool same_layout(const TableLayout& a, const TableLayout& b) {
  if (a.ascii != b.ascii || a.row_size != b.row_size || a.rows != b.rows ||
      a.columns.size() != b.columns.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.columns.size(); ++i) {
    const Column& x = a.columns[i];
    const Column& y = b.columns[i];
    if (x.type != y.type || x.heap_type != y.heap_type || x.repeat != y.repeat ||
        x.offset != y.offset || x.width != y.width) {
      return false;
    }
  }
  return true;
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

void compare_tables(const FitsHdu& a, const FitsHdu& b, CompareMode mode, Collector& c) {
  const TableView ta{a};
  const TableView tb{b};
  if (!a.table.problem.empty() || !b.table.problem.empty()) {
    note(c.out, "the columns cannot be read (" +
                    (a.table.problem.empty() ? b.table.problem : a.table.problem) +
                    "); compared byte by byte");
    compare_bytes(a.data.data(), a.data.size(), b.data.data(), b.data.size(), 0, "", c);
    return;
  }
  if (mode == CompareMode::kVerify) {
    if (!same_layout(a.table, b.table)) {
      note(c.out,
           "the table layouts differ (NAXIS1, NAXIS2 or the columns); compared byte by "
           "byte");
      compare_bytes(a.data.data(), a.data.size(), b.data.data(), b.data.size(), 0, "", c);
      return;
    }
    const std::uint64_t rows = std::min(ta.rows_present(), tb.rows_present());
    for (std::size_t i = 0; i < a.table.columns.size(); ++i) {
      compare_column(ta, a.table.columns[i], tb, b.table.columns[i], rows, mode, c);
    }
    // Bytes between the columns (ASCII tables), then the gap and the heap after the rows.
    const std::uint64_t rows_end = rows * a.table.row_size;
    const std::uint64_t heap = a.table.heap_offset;
    const std::uint64_t end_a = a.data.size();
    const std::uint64_t end_b = b.data.size();
    if (rows_end < std::max(end_a, end_b)) {
      const std::uint64_t gap_end = std::max(rows_end, std::min({heap, end_a, end_b}));
      compare_bytes(a.data.data() + rows_end, std::min(gap_end, end_a) - rows_end,
                    b.data.data() + rows_end, std::min(gap_end, end_b) - rows_end, 0, "gap", c);
      if (gap_end < std::min(end_a, end_b)) {
        compare_bytes(a.data.data() + gap_end, end_a - gap_end, b.data.data() + gap_end,
                      end_b - gap_end, gap_end - std::min(heap, gap_end), "heap", c);
      }
    }
    if (a.table.ascii) {  // the filler bytes between ASCII columns
      std::vector<bool> covered(static_cast<std::size_t>(a.table.row_size), false);
      for (const auto& col : a.table.columns) {
        for (std::uint64_t k = 0; k < col.width; ++k)
          covered[static_cast<std::size_t>(col.offset + k)] = true;
      }
      for (std::uint64_t row = 0; row < rows; ++row) {
        for (std::size_t k = 0; k < covered.size(); ++k) {
          const std::uint64_t at = row * a.table.row_size + k;
          if (!covered[k] && a.data.data()[at] != b.data.data()[at]) {
            c.differ([&] {
              return ElementDifference{{row + 1, k + 1},
                                       "(between columns)",
                                       std::to_string(a.data.data()[at]),
                                       std::to_string(b.data.data()[at])};
            });
          }
        }
      }
    }
    return;
  }

  // fitsdiff: common columns by name (case-insensitive); different row counts stop there.
  std::map<std::string, const Column*> by_name_b;
  for (const auto& col : b.table.columns) by_name_b[upper(col.name)] = &col;
  std::map<std::string, std::pair<const Column*, const Column*>> common;
  std::string only_a;
  std::string only_b;
  for (const auto& col : a.table.columns) {
    const auto it = by_name_b.find(upper(col.name));
    if (it == by_name_b.end()) {
      only_a += (only_a.empty() ? "" : ", ") + col.name;
    } else {
      common[col.name] = {&col, it->second};
    }
  }
  for (const auto& col : b.table.columns) {
    bool found = false;
    for (const auto& x : a.table.columns) found = found || upper(x.name) == upper(col.name);
    if (!found) only_b += (only_b.empty() ? "" : ", ") + col.name;
  }
  if (!only_a.empty() || !only_b.empty()) {
    note(c.out, "columns only in a: [" + only_a + "], only in b: [" + only_b + "]");
    c.out.identical = false;
  }
  if (a.table.rows != b.table.rows) {
    note(c.out, "the tables have different numbers of rows: " + std::to_string(a.table.rows) +
                    " vs " + std::to_string(b.table.rows));
    c.out.identical = false;
    return;
  }
  const std::uint64_t rows = std::min(ta.rows_present(), tb.rows_present());
  for (const auto& [name, pair] : common) {
    const Column& ca = *pair.first;
    const Column& cb = *pair.second;
    if (ca.type != cb.type || ca.repeat != cb.repeat || ca.heap_type != cb.heap_type ||
        (a.table.ascii && ca.width != cb.width && ca.type == 'A')) {
      note(c.out, "column " + name + " has different formats; its values are not compared");
      c.out.identical = false;
      continue;
    }
    compare_column(ta, ca, tb, cb, rows, mode, c);
  }
}

/// The number of elements (image pixels, group items, table cells, other bytes) in `h`'s data.
std::uint64_t units(const FitsHdu& h) {
  if (h.xtension == "BINTABLE" || h.xtension == "TABLE") {
    return h.table.problem.empty() ? h.table.rows * h.table.columns.size() : h.data.size();
  }
  const auto kind = fits::kind_for_bitpix(h.bitpix);
  if ((h.index == 1 || h.xtension == "IMAGE" || h.decompressed) && kind) {
    return h.data.size() / kind_info(*kind).unit_size;
  }
  return h.data.size();
}

}  // namespace

DataComparison compare_hdu_data(const FitsHdu& a, const FitsHdu& b, CompareMode mode,
                                std::size_t max_listed,
                                const std::function<void(std::uint64_t)>& on_bytes) {
  DataComparison out;
  Collector c{out, max_listed, mode == CompareMode::kVerify};
  check_cut(a, "a", out);
  check_cut(b, "b", out);
  const bool equal_bytes = same_bytes(a.data, b.data, on_bytes);
  const bool same_structure = a.kind == b.kind && a.axes == b.axes && a.bitpix == b.bitpix &&
                              a.pcount == b.pcount && a.gcount == b.gcount;
  if (equal_bytes && same_structure) {
    out.compared = units(a);
    return out;
  }
  const bool table_a = a.xtension == "BINTABLE" || a.xtension == "TABLE";
  const bool table_b = b.xtension == "BINTABLE" || b.xtension == "TABLE";
  const bool image_a =
      !table_a && !a.groups && (a.index == 1 || a.xtension == "IMAGE" || a.decompressed);
  const bool image_b =
      !table_b && !b.groups && (b.index == 1 || b.xtension == "IMAGE" || b.decompressed);
  if (a.decompressed || b.decompressed || (image_a && image_b)) {
    if (image_a && image_b) {
      compare_images(a, b, mode, c);
    } else {
      note(out, "a is " + a.kind + ", b is " + b.kind + "; the data are not compared");
      out.identical = false;
    }
  } else if (table_a && table_b && a.xtension == b.xtension) {
    compare_tables(a, b, mode, c);
  } else if (a.groups && b.groups) {
    compare_groups(a, b, mode, c);
  } else if (a.xtension == b.xtension) {
    compare_bytes(a.data.data(), a.data.size(), b.data.data(), b.data.size(), 0, "", c);
  } else {
    note(out, "a is " + a.kind + ", b is " + b.kind + "; the data are not compared");
    out.identical = false;
  }
  if (a.data.size() != b.data.size() && out.identical) {
    note(out, "the data sizes differ: " + std::to_string(a.data.size()) + " vs " +
                  std::to_string(b.data.size()) + " bytes");
    out.identical = false;
  }
  if (mode == CompareMode::kVerify && !equal_bytes && out.identical) {
    // Equal by structure yet not by bytes: say where the bytes part.
    compare_bytes(a.data.data(), a.data.size(), b.data.data(), b.data.size(), 0, "", c);
  }
  return out;
}

}  // namespace fitsasdf::compare
