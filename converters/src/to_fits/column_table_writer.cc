// Binary tables whose data is a table of columns (`core/table` or asdf-astropy's
// `astropy/table`: what asdf-astropy writes for a BinTableHDU, `Table(hdu.data)`): the rows are
// packed column by column in the layout the header declares (TFORMn, TDIMn), each value turned
// into its stored form: unsigned integers of a TZEROn offset with the sign bit flipped, bools as
// 'T'/'F', bits packed most significant first, text as ASCII padded with NULs (as astropy
// writes it), physical floats of a scaled integer column back to the stored integers when exact.
// Variable-length columns cannot come this way (asdf cannot store ragged columns): refused.
#include <cmath>
#include <cstring>

#include "asdfcore/tree/walk.h"
#include "fits/fits_types.h"
#include "hdu/hdu_converter.h"
#include "hdu/table_columns.h"
#include "to_fits/writers.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::ErrorCode;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

std::string lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

struct SourceColumn {
  std::string name;
  NodePtr data;
  std::string path;
};

/// The columns of a `core/table` or `astropy/table` node.
std::vector<SourceColumn> table_columns(const ItemInput& input, const Node& table) {
  const NodePtr columns = table.get("columns");
  if (!columns || !columns->is_sequence()) {
    throw input.error(ErrorCode::kMalformed, "the table in `data` has no `columns` list");
  }
  const NodePtr names = table.get("colnames");
  std::vector<SourceColumn> out;
  for (std::size_t i = 0; i < columns->size(); ++i) {
    const NodePtr c = columns->items()[i];
    SourceColumn s;
    s.path = "data/columns/" + std::to_string(i);
    if (names && names->is_sequence() && i < names->size() && names->items()[i]->is_string()) {
      s.name = names->items()[i]->as_string();
    }
    if (asdfcore::tree::is_ndarray(*c)) {
      s.data = c;
    } else if (c->is_mapping() && c->get("data")) {
      s.data = c->get("data");
      s.path += "/data";
      if (const NodePtr n = c->get("name"); n && n->is_string()) s.name = n->as_string();
    } else if (c->is_mapping() && c->get("value")) {  // a quantity column
      s.data = c->get("value");
      s.path += "/value";
    }
    if (!s.data || !asdfcore::tree::is_ndarray(*s.data)) {
      throw input.error(ErrorCode::kMalformed,
                        "column " + std::to_string(i + 1) +
                            " of the table in `data` has no ndarray (only plain columns can be "
                            "written to a binary table)");
    }
    out.push_back(std::move(s));
  }
  return out;
}

void store_be(std::uint8_t* out, std::uint64_t bits, std::size_t size) {
  for (std::size_t k = 0; k < size; ++k) {
    out[k] = static_cast<std::uint8_t>(bits >> (8 * (size - 1 - k)));
  }
}

/// Write column `c`'s values from `values` into `rows`.
void pack(const ItemInput& input, const hdu::BinaryColumn& c, const NDArray& values,
          std::vector<std::uint8_t>& rows, std::uint64_t row_size, std::uint64_t n_rows,
          HduReport& report) {
  const std::string what = "column " + std::to_string(c.number) + " ('" + c.name + "')";
  const DTypeKind kind = values.dtype().kind();
  const std::uint64_t items = c.format.code == 'X' ? c.format.repeat : c.items();
  if (values.size() != n_rows * (c.format.code == 'A' ? c.items() : items)) {
    throw input.error(ErrorCode::kMalformed, what + " has " + std::to_string(values.size()) +
                                                 " values, not " + std::to_string(n_rows * items) +
                                                 " as the header's layout needs");
  }
  if (values.has_mask()) {
    report.notes.push_back(what + " has a mask: the values under it are written as they are");
  }
  const auto put = [&](std::uint64_t element, const std::uint8_t* bytes, std::uint64_t size) {
    const std::uint64_t r = element / (items == 0 ? 1 : items);
    const std::uint64_t k = element % (items == 0 ? 1 : items);
    std::memcpy(rows.data() + r * row_size + c.offset + k * size, bytes, size);
  };
  switch (c.format.code) {
    case 'L': {
      if (kind != DTypeKind::kBool8) break;
      const auto v = values.to_c_order(ByteOrder::kBig);
      for (std::uint64_t i = 0; i < v.size(); ++i) {
        const std::uint8_t b = v[i] != 0 ? 'T' : 'F';
        put(i, &b, 1);
      }
      return;
    }
    case 'X': {
      if (kind != DTypeKind::kBool8) break;
      const auto v = values.to_c_order(ByteOrder::kBig);
      for (std::uint64_t r = 0; r < n_rows; ++r) {
        std::uint8_t* p = rows.data() + r * row_size + c.offset;
        for (std::uint64_t b = 0; b < c.format.repeat; ++b) {
          if (v[r * c.format.repeat + b] != 0)
            p[b / 8] |= static_cast<std::uint8_t>(0x80u >> (b % 8));
        }
      }
      return;
    }
    case 'A': {
      if (!values.dtype().is_string()) break;
      const std::uint64_t width = c.dtype.length();
      const std::uint64_t chars = values.dtype().length();
      const auto v = values.to_c_order(ByteOrder::kBig);
      const std::uint64_t unit = values.dtype().kind() == DTypeKind::kUcs4 ? 4 : 1;
      for (std::uint64_t i = 0; i < values.size(); ++i) {
        std::vector<std::uint8_t> text(static_cast<std::size_t>(width), 0);
        for (std::uint64_t k = 0; k < chars; ++k) {
          std::uint32_t cp = 0;
          for (std::uint64_t u = 0; u < unit; ++u) cp = (cp << 8) | v[(i * chars + k) * unit + u];
          if (cp == 0) break;
          if (cp > 0x7f) {
            throw input.error(ErrorCode::kMalformed,
                              what + " has a character outside ASCII, which FITS text cannot hold");
          }
          if (k >= width) {
            throw input.error(ErrorCode::kMalformed, what + " has a value longer than its " +
                                                         std::to_string(width) +
                                                         " characters (TFORM)");
          }
          text[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(cp);
        }
        put(i, text.data(), width);
      }
      return;
    }
    case 'P':
    case 'Q':
      throw input.error(ErrorCode::kMalformed,
                        what +
                            " is a variable-length column, which a table of columns cannot "
                            "hold: write the HDU from fitsasdf's own `fits` item instead");
    default: {
      const std::uint64_t size = c.dtype.itemsize();
      // The column's field type (uint16 for an unsigned `I`): flip unsigned values back; the
      // stored type itself (int16 for `I`, uint8 for `B`): as it is.
      const bool unsigned_column = c.scaling == hdu::ColumnScaling::kUnsigned;
      const auto stored_kind = fits::kind_for_tform(c.format.code);
      if (values.dtype().itemsize() == size && values.dtype().is_numeric() &&
          (kind == c.dtype.kind() || (stored_kind && kind == *stored_kind))) {
        auto v = values.to_c_order(ByteOrder::kBig);
        const bool flip = unsigned_column && kind == c.dtype.kind();
        for (std::uint64_t i = 0; i < values.size(); ++i) {
          if (flip) v[i * size] ^= 0x80;
          put(i, v.data() + i * size, size);
        }
        return;
      }
      if (c.scaling == hdu::ColumnScaling::kUnsigned || c.scaling == hdu::ColumnScaling::kScaled) {
        // Physical values: back to stored integers when exact.
        if (kind != DTypeKind::kFloat64 && kind != DTypeKind::kFloat32) break;
        const auto v = values.to_c_order(asdfcore::ndarray::native_byte_order());
        for (std::uint64_t i = 0; i < values.size(); ++i) {
          double x = 0;
          if (kind == DTypeKind::kFloat64) {
            std::memcpy(&x, v.data() + i * 8, 8);
          } else {
            float f;
            std::memcpy(&f, v.data() + i * 4, 4);
            x = f;
          }
          const double s = std::nearbyint((x - c.tzero) / c.tscal);
          if (!std::isfinite(s) || s * c.tscal + c.tzero != x || std::fabs(s) > 9.2e18) {
            throw input.error(ErrorCode::kMalformed,
                              what + ": the value " + std::to_string(x) +
                                  " is no stored integer times TSCAL plus TZERO");
          }
          std::uint8_t be[8];
          store_be(be, static_cast<std::uint64_t>(static_cast<long long>(s)), size);
          put(i, be, size);
        }
        return;
      }
      break;
    }
  }
  throw input.error(ErrorCode::kMalformed, what + " (TFORM '" + std::string(1, c.format.code) +
                                               "') cannot be written from values of type " +
                                               values.dtype().name());
}

}  // namespace

HduPlan plan_column_table(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "binary table (from table columns)";
  const hdu::BinaryLayout layout = binary_layout(input, plan.report);
  if (layout.pcount != 0) {
    throw input.error(ErrorCode::kMalformed,
                      "PCOUNT = " + std::to_string(layout.pcount) +
                          ": a table of columns has no heap to write (variable-length columns "
                          "need fitsasdf's own `fits` item)");
  }
  const std::vector<SourceColumn> sources = table_columns(input, *input.item.data);
  auto rows = std::make_shared<std::vector<std::uint8_t>>(
      static_cast<std::size_t>(layout.rows_size()), std::uint8_t{0});
  for (const auto& c : layout.columns) {
    if (c.width() == 0) continue;
    const SourceColumn* found = nullptr;
    for (const auto& s : sources) {
      if (s.name == c.name) found = &s;
    }
    for (const auto& s : sources) {
      if (!found && lower(s.name) == lower(c.name)) found = &s;
    }
    if (!found) {
      throw input.error(ErrorCode::kMalformed, "the table in `data` has no column '" + c.name +
                                                   "' (TTYPE" + std::to_string(c.number) + ")");
    }
    pack(input, c, input.array(*found->data, found->path), *rows, layout.row_size, layout.rows,
         plan.report);
  }
  plan.data_size = rows->size();
  plan.write_data = [rows](DataSink& sink) { sink.write(*rows); };
  return plan;
}

}  // namespace fitsasdf::to_fits
