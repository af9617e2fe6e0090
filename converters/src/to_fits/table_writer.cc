// Binary tables, ASCII tables and random groups: the inverses of ARCHITECTURE.md's "Tables,
// random groups and other HDUs in the tree". The data area (rows, gap, heap) is rebuilt from
// the item's arrays: taken straight from the block when the rows array views a whole data area
// (fitsasdf's own files), else assembled from the rows array (C order, big-endian), zeros for
// the gap and the `heap` array. The in-place changes of binary-table rows are undone row by
// row: sign bits of unsigned columns flipped back, bools back to 'T'/'F', and the original bytes
// of undefined logicals put back from `logical_originals`.
#include <algorithm>
#include <cstring>
#include <map>

#include "asdfcore/tree/walk.h"
#include "fits/fits_types.h"
#include "hdu/hdu_converter.h"
#include "hdu/table_columns.h"
#include "to_fits/writers.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::ErrorCode;
using asdfcore::io::Buffer;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

constexpr std::uint64_t kPieceRows = std::uint64_t{1} << 20;  // bytes of rows per piece

/// The bytes of a data area: either one block slice, or rows + gap + heap from arrays.
struct DataArea {
  std::optional<Buffer> whole;  ///< The data area as one slice (fast path).
  std::optional<NDArray> rows;  ///< Else: the rows array,
  std::optional<NDArray> heap;  ///< the heap array (if any),
  std::uint64_t rows_size = 0;
  std::uint64_t gap = 0;  ///< zero bytes between rows and heap.
};

/// Find the data area for rows `rows` (`row_size` bytes each) followed by `extra` bytes of
/// which the last `heap_size` are the heap (`heap` array, may be null).
DataArea locate(const ItemInput& input, const NDArray& rows, const NodePtr& heap_node,
                std::uint64_t row_size, std::uint64_t n_rows, std::uint64_t data_size,
                std::uint64_t heap_offset) {
  if (rows.dtype().itemsize() != row_size && n_rows > 0) {
    throw input.error(ErrorCode::kMalformed,
                      "the data's rows are " + std::to_string(rows.dtype().itemsize()) +
                          " bytes but the header declares NAXIS1 = " + std::to_string(row_size));
  }
  if (rows.size() != n_rows) {
    throw input.error(ErrorCode::kMalformed, "the data has " + std::to_string(rows.size()) +
                                                 " rows but the header declares " +
                                                 std::to_string(n_rows));
  }
  DataArea area;
  area.rows_size = row_size * n_rows;  // the bytes of `rows`, so no overflow
  // The header's sizes come from the file: the rows must fit before the heap, the heap inside
  // the data (a negative PCOUNT or a THEAP inside the rows would make them overlap).
  if (area.rows_size > heap_offset || heap_offset > data_size) {
    throw input.error(ErrorCode::kMalformed,
                      "the rows (NAXIS1 x NAXIS2 = " + std::to_string(area.rows_size) +
                          " bytes) and the heap (from byte " + std::to_string(heap_offset) +
                          ") do not fit the declared data size of " +
                          std::to_string(data_size) + " bytes");
  }
  const std::uint64_t heap_size = data_size - heap_offset;
  std::optional<NDArray> heap;
  if (heap_node && !heap_node->is_null()) heap = input.array(*heap_node, "heap");
  if (heap && heap->size() * heap->dtype().itemsize() != heap_size) {
    throw input.error(ErrorCode::kMalformed,
                      "`heap` holds " + std::to_string(heap->size() * heap->dtype().itemsize()) +
                          " bytes but the header declares " + std::to_string(heap_size) +
                          " (PCOUNT minus the gap before THEAP)");
  }
  if (!heap && heap_size > 0) {
    // Without a heap array, the heap can only come from the rows' block.
  }
  const bool big = rows.dtype().swap_plan(ByteOrder::kBig).empty();
  const bool same_block = !heap || (heap->source().kind == rows.source().kind &&
                                    heap->source().block == rows.source().block &&
                                    heap->offset() == heap_offset && heap->is_c_contiguous());
  if (!rows.is_inline() && rows.offset() == 0 && rows.is_c_contiguous() && big && same_block &&
      rows.data().size() >= data_size) {
    area.whole = rows.data().slice(0, static_cast<std::size_t>(data_size));
    return area;
  }
  if (heap_size > 0 && !heap) {
    throw input.error(ErrorCode::kMalformed, "the header declares a heap of " +
                                                 std::to_string(heap_size) +
                                                 " bytes but the item has no `heap`");
  }
  area.rows = rows;
  area.heap = heap;
  area.gap = heap_offset - area.rows_size;
  return area;
}

/// Write the data area, each piece of rows changed by `edit(bytes, first_row)` first.
void write_area(const DataArea& area, std::uint64_t row_size,
                const std::function<void(std::span<std::uint8_t>, std::uint64_t)>& edit,
                DataSink& sink) {
  std::span<const std::uint8_t> rows;
  std::vector<std::uint8_t> copy;
  if (area.whole) {
    rows = area.whole->span().first(static_cast<std::size_t>(area.rows_size));
  } else if (area.rows_size > 0) {
    copy = area.rows->to_c_order(ByteOrder::kBig);
    rows = copy;
  }
  // Pages of a mapped block are released once written: bounded memory for any table size.
  const auto release = [&area](std::span<const std::uint8_t> done) {
    if (area.whole) area.whole->release(done);
  };
  if (!edit) {
    constexpr std::size_t kPiece = std::size_t{16} << 20;
    for (std::size_t at = 0; at < rows.size(); at += kPiece) {
      const auto part = rows.subspan(at, std::min(kPiece, rows.size() - at));
      sink.write(part);
      release(part);
    }
  } else if (row_size > 0) {
    const std::uint64_t per_piece = std::max<std::uint64_t>(1, kPieceRows / row_size);
    std::vector<std::uint8_t> piece;
    for (std::uint64_t first = 0; first * row_size < rows.size(); first += per_piece) {
      const std::uint64_t n = std::min<std::uint64_t>(per_piece, rows.size() / row_size - first);
      const auto part = rows.subspan(static_cast<std::size_t>(first * row_size),
                                     static_cast<std::size_t>(n * row_size));
      piece.assign(part.begin(), part.end());
      edit(piece, first);
      sink.write(piece);
      release(part);
    }
  }
  if (area.whole) {
    sink.write(area.whole->span().subspan(static_cast<std::size_t>(area.rows_size)));
    return;
  }
  const std::vector<std::uint8_t> zeros(
      static_cast<std::size_t>(std::min<std::uint64_t>(area.gap, 1 << 16)));
  for (std::uint64_t left = area.gap; left > 0;) {
    const std::uint64_t n = std::min<std::uint64_t>(left, zeros.size());
    sink.write(std::span(zeros).first(static_cast<std::size_t>(n)));
    left -= n;
  }
  if (area.heap) write_big_endian(*area.heap, false, sink);
}

/// The item's `data` array, of which the header declares `size` bytes of `what` ("table data");
/// throws (malformed) when `data` is not an ndarray.
NDArray declared_data(const ItemInput& input, std::uint64_t size, const std::string& what) {
  const NodePtr& data = input.item.data;
  if (!data || !asdfcore::tree::is_ndarray(*data)) {
    throw input.error(ErrorCode::kMalformed, "the header declares " + std::to_string(size) +
                                                 " bytes of " + what +
                                                 " but the item's `data` is not an ndarray");
  }
  return input.array(*data, "data");
}

/// The original bytes of a logical column's undefined elements: flat index -> byte.
struct Originals {
  std::vector<std::uint64_t> index;
  std::vector<std::uint8_t> value;
};

Originals read_originals(const ItemInput& input, const std::string& field) {
  Originals out;
  const NodePtr all = input.item.node->get("logical_originals");
  if (!all || all->is_null()) return out;
  const NodePtr entry = all->get(field);
  if (!entry) return out;
  const NodePtr index = entry->get("index");
  const NodePtr value = entry->get("value");
  if (!index || !value || !asdfcore::tree::is_ndarray(*index) ||
      !asdfcore::tree::is_ndarray(*value)) {
    throw input.error(ErrorCode::kMalformed,
                      "logical_originals/" + field + " must have `index` and `value` ndarrays");
  }
  const NDArray i = input.array(*index, "logical_originals/" + field + "/index");
  const NDArray v = input.array(*value, "logical_originals/" + field + "/value");
  if (i.dtype().kind() != DTypeKind::kUInt64 || v.dtype().itemsize() != 1 || i.size() != v.size()) {
    throw input.error(ErrorCode::kMalformed,
                      "logical_originals/" + field +
                          ": `index` must be uint64 and `value` uint8, of the same length");
  }
  const auto ib = i.to_c_order(asdfcore::ndarray::native_byte_order());
  out.index.resize(i.size());
  if (!ib.empty()) std::memcpy(out.index.data(), ib.data(), ib.size());
  out.value = v.to_c_order(ByteOrder::kBig);
  return out;
}

}  // namespace

hdu::BinaryLayout binary_layout(const ItemInput& input, HduReport& notes) {
  std::vector<Card> cards;
  cards.reserve(input.item.header.size());
  for (const auto& c : input.item.header) {
    Card card;
    card.keyword = c.keyword;
    card.value = c.value;
    card.comment = c.comment;
    cards.push_back(std::move(card));
  }
  try {
    return hdu::read_binary_layout(hdu::HeaderView(cards), input.where, notes);
  } catch (const asdfcore::Error& e) {
    throw e.with_context(input.where);
  }
}

HduPlan plan_bintable(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "binary table";
  HduReport layout_notes;
  const hdu::BinaryLayout layout = binary_layout(input, layout_notes);
  plan.data_size = layout.data_size();
  if (plan.data_size == 0) return plan;
  const NDArray rows = declared_data(input, plan.data_size, "table data");
  const DataArea area = locate(input, rows, input.item.node->get("heap"), layout.row_size,
                               layout.rows, layout.data_size(), layout.heap_offset);

  // The edits, per column, decided by the field's type: the converted type (bool, unsigned)
  // is changed back; the stored type is taken as it is.
  struct Edit {
    std::uint64_t offset;  // in the row
    std::uint64_t count;   // elements
    std::uint64_t size;    // bytes per element
    bool logical;
    Originals originals;
  };
  std::vector<Edit> edits;
  std::map<std::uint64_t, const asdfcore::ndarray::Field*> fields;
  for (const auto& f : rows.dtype().fields()) fields[f.offset] = &f;
  for (const auto& c : layout.columns) {
    if (c.width() == 0) continue;
    const auto found = fields.find(c.offset);
    if (found == fields.end() || found->second->size() != c.width()) {
      throw input.error(ErrorCode::kMalformed, "no field of the data's rows lies where column " +
                                                   std::to_string(c.number) + " ('" + c.name +
                                                   "') does (byte " + std::to_string(c.offset) +
                                                   ", " + std::to_string(c.width()) + " bytes)");
    }
    const DTypeKind kind = found->second->dtype.kind();
    if (c.format.code == 'L' && kind == DTypeKind::kBool8) {
      edits.push_back({c.offset, c.items(), 1, true, read_originals(input, found->second->name)});
    } else if (c.scaling == hdu::ColumnScaling::kUnsigned && kind == c.dtype.kind()) {
      edits.push_back({c.offset, c.items(), c.dtype.itemsize(), false, {}});
    }
  }
  std::function<void(std::span<std::uint8_t>, std::uint64_t)> edit;
  if (!edits.empty()) {
    const std::uint64_t row_size = layout.row_size;
    edit = [edits = std::move(edits), row_size](std::span<std::uint8_t> piece,
                                                std::uint64_t first_row) {
      const std::uint64_t n_rows = piece.size() / row_size;
      for (const Edit& e : edits) {
        for (std::uint64_t r = 0; r < n_rows; ++r) {
          std::uint8_t* p = piece.data() + r * row_size + e.offset;
          for (std::uint64_t k = 0; k < e.count; ++k) {
            if (e.logical) {
              p[k] = p[k] != 0 ? 'T' : 'F';
            } else {
              p[k * e.size] ^= 0x80;
            }
          }
        }
        if (!e.logical) continue;
        // Put back the original bytes of the undefined elements of these rows.
        const std::uint64_t lo = first_row * e.count;
        const std::uint64_t hi = (first_row + n_rows) * e.count;
        for (std::size_t i = 0; i < e.originals.index.size(); ++i) {
          const std::uint64_t at = e.originals.index[i];
          if (at < lo || at >= hi) continue;
          const std::uint64_t r = at / e.count - first_row;
          piece[static_cast<std::size_t>(r * row_size + e.offset + at % e.count)] =
              e.originals.value[i];
        }
      }
    };
  }
  const std::uint64_t row_size = layout.row_size;
  plan.write_data = [area, row_size, edit](DataSink& sink) {
    write_area(area, row_size, edit, sink);
  };
  return plan;
}

HduPlan plan_ascii_table(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "ASCII table";
  plan.fill = ' ';
  const CardLookup cards(input.item.header);
  plan.data_size = declared_data_size(cards, input);
  if (plan.data_size == 0) return plan;
  const NDArray rows = declared_data(input, plan.data_size, "table text");
  const auto row_size = static_cast<std::uint64_t>(cards.integer("NAXIS1", 0));
  const auto n_rows = static_cast<std::uint64_t>(cards.integer("NAXIS2", 0));
  const DataArea area =
      locate(input, rows, nullptr, row_size, n_rows, plan.data_size, plan.data_size);
  plan.write_data = [area, row_size](DataSink& sink) { write_area(area, row_size, {}, sink); };
  return plan;
}

HduPlan plan_groups(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "random groups";
  const CardLookup cards(input.item.header);
  plan.data_size = declared_data_size(cards, input);
  if (plan.data_size == 0) return plan;
  const NDArray array = declared_data(input, plan.data_size, "groups");
  const long long bitpix = cards.integer("BITPIX", 0);
  const auto stored = fits::kind_for_bitpix(bitpix);
  if (!array.dtype().is_numeric() || array.dtype().kind() != *stored) {
    throw input.error(ErrorCode::kMalformed,
                      "random groups of BITPIX = " + std::to_string(bitpix) + " are " +
                          std::string(asdfcore::ndarray::kind_info(*stored).asdf_name) +
                          " values, but the data is " + array.dtype().name());
  }
  if (array.size() * array.dtype().itemsize() != plan.data_size) {
    throw input.error(ErrorCode::kMalformed,
                      "the data holds " + std::to_string(array.size() * array.dtype().itemsize()) +
                          " bytes but the header declares " + std::to_string(plan.data_size) +
                          " (GCOUNT groups of PCOUNT parameters and the NAXISn array)");
  }
  plan.write_data = [array](DataSink& sink) { write_big_endian(array, false, sink); };
  return plan;
}

}  // namespace fitsasdf::to_fits
