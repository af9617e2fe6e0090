// Binary tables (XTENSION = 'BINTABLE') and tile-compressed tables (ZTABLE = T, decompressed
// by CFITSIO): the data area (rows, gap, heap) is one block, streamed from the input, with the
// few reversible in-place changes of ARCHITECTURE.md ("Binary tables") applied row by row on
// the way: sign bits of unsigned columns flipped, logical bytes turned into bools. The `fits`
// item's structured array, its heap and the native table are all views into that block.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "hdu/hdu_converter.h"
#include "hdu/native_table.h"
#include "hdu/table_columns.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArrayNodeSpec;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

/// The in-place changes of the row bytes, as runs of evenly spaced bytes of a row (one run per
/// column, so a hostile header costs no memory per byte).
class RowEdits {
 public:
  enum class Kind : std::uint8_t {
    kFlipSign,  ///< The first byte of a big-endian integer: toggle its top bit.
    kLogical,   ///< A logical byte: 'T' -> 1, anything else -> 0.
  };

  RowEdits(std::uint64_t row_size, std::uint64_t rows) : row_size_(row_size), rows_(rows) {}
  /// Change `count` bytes of each row, `stride` bytes apart from `start`.
  void add(std::uint64_t start, std::uint64_t count, std::uint64_t stride, Kind kind) {
    if (count > 0) runs_.push_back({start, count, stride, kind});
  }
  bool empty() const noexcept { return runs_.empty() || row_size_ == 0 || rows_ == 0; }

  /// Apply the edits to `piece`, which lies `offset` bytes from the start of the data area;
  /// bytes past the rows (gap, heap) are left alone.
  void apply(std::span<std::uint8_t> piece, std::uint64_t offset) const noexcept {
    const std::uint64_t end = std::min<std::uint64_t>(offset + piece.size(), row_size_ * rows_);
    if (offset >= end) return;
    for (std::uint64_t row = offset / row_size_; row * row_size_ < end; ++row) {
      const std::uint64_t base = row * row_size_;
      const bool whole = base >= offset && base + row_size_ <= end;
      for (const Run& run : runs_) {
        for (std::uint64_t k = 0; k < run.count; ++k) {
          const std::uint64_t at = base + run.start + k * run.stride;
          if (!whole && (at < offset || at >= end)) continue;
          std::uint8_t& b = piece[static_cast<std::size_t>(at - offset)];
          b = run.kind == Kind::kFlipSign ? static_cast<std::uint8_t>(b ^ 0x80u)
                                          : static_cast<std::uint8_t>(b == 'T' ? 1 : 0);
        }
      }
    }
  }

 private:
  struct Run {
    std::uint64_t start;
    std::uint64_t count;
    std::uint64_t stride;
    Kind kind;
  };
  std::uint64_t row_size_;
  std::uint64_t rows_;
  std::vector<Run> runs_;
};

/// Where the data area of a table comes from.
struct TableSource {
  asdfcore::io::Buffer bytes;            ///< The data area as stored (at least data_size bytes).
  const fits::FitsFile* file = nullptr;  ///< Stream from this plain file at `file_offset`, or
  std::uint64_t file_offset = 0;
  /// the decompressed bytes `bytes` views, changed in place when edits are needed.
  std::shared_ptr<std::vector<std::uint8_t>> owned;
  std::size_t owned_offset = 0;  ///< Where `bytes` starts in `owned`.
};

/// Read the big-endian integer of `size` bytes at `p` as a signed value.
std::int64_t load_signed(const std::uint8_t* p, std::size_t size) noexcept {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < size; ++k) v = (v << 8) | p[k];
  if (size == 8) return static_cast<std::int64_t>(v);
  const std::uint64_t sign = std::uint64_t{1} << (8 * size - 1);
  return static_cast<std::int64_t>((v ^ sign) - sign);
}

/// Read the stored value of a `B I J K E D` element at `p` as astropy's float64 conversion does.
double load_number(const std::uint8_t* p, char code) noexcept {
  switch (code) {
    case 'B':
      return static_cast<double>(p[0]);
    case 'I':
      return static_cast<double>(load_signed(p, 2));
    case 'J':
      return static_cast<double>(load_signed(p, 4));
    case 'K':
      return static_cast<double>(load_signed(p, 8));
    case 'E': {
      const auto bits = static_cast<std::uint32_t>(load_signed(p, 4));
      float f;
      std::memcpy(&f, &bits, 4);
      return static_cast<double>(f);
    }
    default: {
      const auto bits = static_cast<std::uint64_t>(load_signed(p, 8));
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
  }
}

template <typename T>
std::vector<std::uint8_t> to_bytes(const std::vector<T>& values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// An ndarray node over a block of `kind` elements in the machine's order with `shape`.
NodePtr owned_array(BlockSink& sink, std::vector<std::uint8_t> bytes, DTypeKind kind,
                    std::vector<std::uint64_t> shape) {
  NDArrayNodeSpec spec;
  spec.dtype = DType::numeric(kind);
  spec.shape = std::move(shape);
  spec.source = sink.add_owned(std::move(bytes));
  return asdfcore::ndarray::make_ndarray_node(spec);
}

/// Return the C-order strides of `shape` for items of `itemsize` bytes.
std::vector<std::int64_t> c_strides(const std::vector<std::uint64_t>& shape,
                                    std::uint64_t itemsize) {
  std::vector<std::int64_t> strides(shape.size());
  std::uint64_t step = itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = static_cast<std::int64_t>(step);
    step *= shape[i];
  }
  return strides;
}

/// Releases the pages of a table's rows once they are scanned, about 8 MiB at a time, so that a
/// scan of a large file does not leave it resident. Call `scanned(r)` after row `r`.
class RowRelease {
 public:
  RowRelease(std::span<const std::uint8_t> rows, const BinaryLayout& layout,
             const asdfcore::io::Buffer& owner)
      : rows_(rows),
        layout_(layout),
        owner_(owner),
        window_rows_(std::max<std::uint64_t>(
            1, (std::uint64_t{8} << 20) / std::max<std::uint64_t>(1, layout.row_size))) {}
  void scanned(std::uint64_t r) {
    if ((r + 1) % window_rows_ != 0 && r + 1 != layout_.rows) return;
    const std::uint64_t end = (r + 1) * layout_.row_size;
    owner_.release(rows_.subspan(static_cast<std::size_t>(released_),
                                 static_cast<std::size_t>(end - released_)));
    released_ = end;
  }

 private:
  std::span<const std::uint8_t> rows_;
  const BinaryLayout& layout_;
  const asdfcore::io::Buffer& owner_;
  std::uint64_t window_rows_;
  std::uint64_t released_ = 0;
};

/// What scanning an `L` column found: the bytes that are neither 'T' nor 'F'.
struct LogicalScan {
  std::vector<std::uint64_t> index;  ///< Flat element index in C order over the column.
  std::vector<std::uint8_t> value;   ///< The original byte.
};

/// `owner` is the (mapped) buffer the rows lie in: the pages scanned are released every few
/// MiB, so a scan of a large file does not leave it resident.
LogicalScan scan_logical(std::span<const std::uint8_t> rows, const BinaryLayout& layout,
                         const BinaryColumn& c, const asdfcore::io::Buffer& owner) {
  LogicalScan scan;
  const std::uint64_t n = c.format.repeat;
  RowRelease release(rows, layout, owner);
  for (std::uint64_t r = 0; r < layout.rows; ++r) {
    const std::uint8_t* p = rows.data() + r * layout.row_size + c.offset;
    for (std::uint64_t k = 0; k < n; ++k) {
      if (p[k] != 'T' && p[k] != 'F') {
        scan.index.push_back(r * n + k);
        scan.value.push_back(p[k]);
      }
    }
    release.scanned(r);
  }
  return scan;
}

/// The bits of an `X` column as one bool byte each, most significant bit first.
std::vector<std::uint8_t> unpack_bits(std::span<const std::uint8_t> rows,
                                      const BinaryLayout& layout, const BinaryColumn& c) {
  const std::uint64_t bits = c.format.repeat;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(layout.rows * bits));
  for (std::uint64_t r = 0; r < layout.rows; ++r) {
    const std::uint8_t* p = rows.data() + r * layout.row_size + c.offset;
    std::uint8_t* o = out.data() + r * bits;
    for (std::uint64_t b = 0; b < bits; ++b) o[b] = (p[b / 8] >> (7 - b % 8)) & 1u;
  }
  return out;
}

/// The physical values of a scaled column as astropy computes them: the stored value as
/// float64, times TSCALn when not 1, plus TZEROn when not 0; TNULLn elements NaN.
std::vector<double> physical_values(std::span<const std::uint8_t> rows, const BinaryLayout& layout,
                                    const BinaryColumn& c) {
  const std::uint64_t n = c.format.repeat;
  const std::uint64_t size = binary_element_size(c.format.code);
  std::vector<double> out(static_cast<std::size_t>(layout.rows * n));
  for (std::uint64_t r = 0; r < layout.rows; ++r) {
    const std::uint8_t* p = rows.data() + r * layout.row_size + c.offset;
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint8_t* e = p + k * size;
      double v = load_number(e, c.format.code);
      if (c.tscal != 1.0) v *= c.tscal;
      if (c.tzero != 0.0) v += c.tzero;
      if (c.tnull && c.format.code != 'E' && c.format.code != 'D') {
        const std::int64_t stored = c.format.code == 'B' ? e[0] : load_signed(e, size);
        if (stored == *c.tnull) v = std::nan("");
      }
      out[static_cast<std::size_t>(r * n + k)] = v;
    }
  }
  return out;
}

/// Return the bytes `count` heap elements of the descriptor element letter `element` take
/// (`X`: bits, rounded up to bytes), or nothing when that overflows.
std::optional<std::uint64_t> heap_array_bytes(char element, std::uint64_t count) noexcept {
  if (element == 'X') return (count + 7) / 8;
  const std::uint64_t size = std::max<std::uint64_t>(1, binary_element_size(element));
  if (count > std::numeric_limits<std::uint64_t>::max() / size) return std::nullopt;
  return count * size;
}

/// What scanning the descriptors of one `P`/`Q` column found.
struct DescriptorScan {
  std::uint64_t past_heap = 0;        ///< Arrays reaching past the end of the heap.
  std::uint64_t first_past_heap = 0;  ///< Its first row (0-based).
  std::int64_t first_count = 0;       ///< That row's element count and offset.
  std::int64_t first_offset = 0;
  std::uint64_t negative = 0;        ///< Descriptors with a negative count or offset.
  std::uint64_t first_negative = 0;  ///< Its first row (0-based).
  std::uint64_t over_max = 0;        ///< Counts above the `(max)` of TFORMn.
  std::uint64_t first_over_max = 0;  ///< Its first row (0-based) and count.
  std::int64_t first_over_max_count = 0;
};

/// Check every descriptor of the variable-length column `c` against the heap (FITS 4.0 section
/// 7.3.5: the array of `count` elements at byte `offset` of the heap lies inside the heap,
/// whose size is PCOUNT minus the gap before THEAP) and against the `(max)` of its TFORMn. Reads
/// the descriptors only, row by row, releasing the scanned pages of `owner` every few MiB; never
/// the heap.
DescriptorScan scan_descriptors(std::span<const std::uint8_t> rows, const BinaryLayout& layout,
                                const BinaryColumn& c, const asdfcore::io::Buffer& owner) {
  DescriptorScan scan;
  const std::size_t half = c.format.code == 'P' ? 4 : 8;
  const std::uint64_t heap = layout.heap_size();
  RowRelease release(rows, layout, owner);
  for (std::uint64_t r = 0; r < layout.rows; ++r) {
    const std::uint8_t* p = rows.data() + r * layout.row_size + c.offset;
    const std::int64_t count = load_signed(p, half);
    const std::int64_t offset = load_signed(p + half, half);
    if (count < 0 || offset < 0) {
      if (scan.negative++ == 0) scan.first_negative = r;
    } else {
      // (An empty array's offset too must lie within the heap, as fitsverify checks it.)
      const auto bytes = heap_array_bytes(c.format.element, static_cast<std::uint64_t>(count));
      const auto start = static_cast<std::uint64_t>(offset);
      if (!bytes || start > heap || *bytes > heap - start) {
        if (scan.past_heap++ == 0) {
          scan.first_past_heap = r;
          scan.first_count = count;
          scan.first_offset = offset;
        }
      }
      if (c.format.max && static_cast<std::uint64_t>(count) > *c.format.max) {
        if (scan.over_max++ == 0) {
          scan.first_over_max = r;
          scan.first_over_max_count = count;
        }
      }
    }
    release.scanned(r);
  }
  return scan;
}

/// Add the findings of the descriptor scans of `layout`'s variable-length columns: one per
/// column and kind, with the count and the first row (1-based, as FITS counts rows).
void add_descriptor_findings(std::span<const std::uint8_t> rows, const BinaryLayout& layout,
                             const asdfcore::io::Buffer& owner, HduReport& report) {
  for (const auto& c : layout.columns) {
    if (!c.format.variable() || layout.rows == 0) continue;
    const DescriptorScan scan = scan_descriptors(rows, layout, c, owner);
    const std::string column = "column " + std::to_string(c.number) + " ('" + c.name + "', 1" +
                               c.format.code +
                               std::string(c.format.element ? 1 : 0, c.format.element) + ")";
    if (scan.past_heap > 0) {
      report.findings.push_back(Finding{
          report.index, "descriptor-past-heap",
          column + ": " + std::to_string(scan.past_heap) + " of " + std::to_string(layout.rows) +
              " rows have an array reaching past the end of the " +
              std::to_string(layout.heap_size()) +
              "-byte heap (PCOUNT = " + std::to_string(layout.pcount) + ", heap at byte " +
              std::to_string(layout.heap_offset) + " of the data), first row " +
              std::to_string(scan.first_past_heap + 1) + " (" + std::to_string(scan.first_count) +
              " elements at heap offset " + std::to_string(scan.first_offset) +
              "); descriptors and heap kept as stored"});
    }
    if (scan.over_max > 0) {
      report.findings.push_back(
          Finding{report.index, "descriptor-over-max",
                  column + ": " + std::to_string(scan.over_max) + " of " +
                      std::to_string(layout.rows) + " rows hold more elements than the maximum " +
                      std::to_string(*c.format.max) + " TFORM" + std::to_string(c.number) +
                      " declares, first row " + std::to_string(scan.first_over_max + 1) + " (" +
                      std::to_string(scan.first_over_max_count) + " elements)"});
    }
    if (scan.negative > 0) {
      report.findings.push_back(Finding{
          report.index, "descriptor-negative",
          column + ": " + std::to_string(scan.negative) + " of " + std::to_string(layout.rows) +
              " rows have a descriptor with a negative element count or heap offset, first "
              "row " +
              std::to_string(scan.first_negative + 1) + "; descriptors kept as stored"});
    }
  }
}

/// Everything the conversion of one table needs besides its bytes.
struct TableContext {
  const std::vector<Card>& cards;
  const ErrorContext& where;
  BlockSink& sink;
  const ConvertOptions& options;
  bool item_header = true;  ///< See HduInput::item_header.
};

/// The native column of `c` (nullptr when it has none) and its notes.
NodePtr native_column_data(const BinaryColumn& c, const BinaryLayout& layout,
                           std::span<const std::uint8_t> rows, std::int64_t block,
                           const LogicalScan* logical, const TableContext& ctx, HduReport& report) {
  std::vector<std::uint64_t> shape{layout.rows};
  shape.insert(shape.end(), c.shape.begin(), c.shape.end());
  if (c.format.variable()) {
    report.notes.push_back("variable-length column '" + c.name +
                           "' is left out of the native table (ragged data is not an ndarray); "
                           "its descriptors are in the `fits` item's data, its values in `heap`");
    return nullptr;
  }
  if (c.format.code == 'X' && c.format.repeat > 0) {
    return owned_array(ctx.sink, unpack_bits(rows, layout, c), DTypeKind::kBool8,
                       {layout.rows, c.format.repeat});
  }
  if (c.scaling == ColumnScaling::kScaled && ctx.options.scaling == ScalingPolicy::kPhysical) {
    NodePtr array = owned_array(ctx.sink, to_bytes(physical_values(rows, layout, c)),
                                DTypeKind::kFloat64, shape);
    if (c.tnull && c.format.code != 'E' && c.format.code != 'D') {
      array->set("mask", Node::make_float(std::nan("")));
    }
    return array;
  }
  // A view into the table's block.
  NDArrayNodeSpec spec;
  spec.dtype = c.dtype;
  spec.shape = shape;
  spec.source = block;
  if (layout.rows > 0 && c.items() > 0) {
    // (An empty column reads no element: it needs neither, and a zero stride is not allowed.)
    spec.offset = c.offset;
    spec.strides = c_strides(c.shape, c.dtype.itemsize());
    spec.strides.insert(spec.strides.begin(), static_cast<std::int64_t>(layout.row_size));
  }
  NodePtr array = asdfcore::ndarray::make_ndarray_node(spec);
  if (c.format.code == 'L' && logical && !logical->index.empty()) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(layout.rows * c.items()));
    for (std::uint64_t i : logical->index) mask[static_cast<std::size_t>(i)] = 1;
    array->set("mask", owned_array(ctx.sink, std::move(mask), DTypeKind::kBool8, shape));
  }
  if (c.tnull) {
    const auto [low, high] = stored_integer_range(c.format.code);
    if (*c.tnull < low || *c.tnull > high) {
      report.notes.push_back("TNULL" + std::to_string(c.number) + " of column '" + c.name +
                             "' lies outside the column's values: no mask");
    } else if (c.scaling != ColumnScaling::kUnsigned) {
      array->set("mask", Node::make_int(*c.tnull));
    } else if (c.format.code != 'K') {
      // The mask is compared with the values as read: the stored value plus TZERO.
      const std::int64_t tzero = c.format.code == 'B'   ? -128
                                 : c.format.code == 'I' ? 32768
                                                        : 2147483648LL;
      array->set("mask", Node::make_int(*c.tnull + tzero));
    } else if (*c.tnull < 0) {
      // Stored -n reads as 2^63 - n: still an int64.
      array->set("mask", Node::make_int(*c.tnull + std::numeric_limits<std::int64_t>::max() + 1));
    } else {
      // A uint64 value beyond int64 would be an integer literal python asdf warns about:
      // mark the null elements in a mask array instead.
      std::vector<std::uint8_t> mask(static_cast<std::size_t>(layout.rows * c.items()));
      for (std::uint64_t r = 0; r < layout.rows; ++r) {
        const std::uint8_t* p = rows.data() + r * layout.row_size + c.offset;
        for (std::uint64_t k = 0; k < c.items(); ++k) {
          mask[static_cast<std::size_t>(r * c.items() + k)] = load_signed(p + 8 * k, 8) == *c.tnull;
        }
      }
      array->set("mask", owned_array(ctx.sink, std::move(mask), DTypeKind::kBool8, shape));
    }
  }
  return array;
}

/// Convert a binary table with these cards and this data area.
HduOutput convert_table(const TableContext& ctx, const TableSource& source, HduReport report) {
  const HeaderView header(ctx.cards);
  const BinaryLayout layout = read_binary_layout(header, ctx.where, report);
  if (source.bytes.size() < layout.data_size()) {
    throw Error(ErrorCode::kTruncated,
                "the table's data holds " + std::to_string(source.bytes.size()) + " of the " +
                    std::to_string(layout.data_size()) +
                    " bytes the header declares (NAXIS1 * NAXIS2 + PCOUNT): the file is cut",
                ctx.where);
  }
  const asdfcore::io::Buffer data =
      source.bytes.slice(0, static_cast<std::size_t>(layout.data_size()));
  const std::span<const std::uint8_t> rows =
      data.span().first(static_cast<std::size_t>(layout.rows_size()));

  add_descriptor_findings(rows, layout, data, report);

  // Scan the logical columns before their bytes are changed.
  std::map<int, LogicalScan> logical;
  RowEdits edits(layout.row_size, layout.rows);
  std::vector<std::string> unsigned_names;
  std::vector<std::string> scaled_names;
  for (const auto& c : layout.columns) {
    if (c.format.code == 'L' && c.format.repeat > 0) {
      logical[c.number] = scan_logical(rows, layout, c, data);
      edits.add(c.offset, c.format.repeat, 1, RowEdits::Kind::kLogical);
    } else if (c.scaling == ColumnScaling::kUnsigned) {
      edits.add(c.offset, c.items(), c.dtype.itemsize(), RowEdits::Kind::kFlipSign);
      unsigned_names.push_back(c.name + " (" + c.dtype.name() + ")");
    } else if (c.scaling == ColumnScaling::kScaled) {
      scaled_names.push_back(c.name);
    }
    if (c.scaling == ColumnScaling::kIgnored) {
      report.notes.push_back("TSCAL" + std::to_string(c.number) + "/TZERO" +
                             std::to_string(c.number) + " of column '" + c.name + "' (TFORM '" +
                             std::string(1, c.format.code) +
                             "') are kept as cards; the values are not scaled");
    }
  }

  std::int64_t block = 0;
  if (edits.empty()) {
    block = source.owned ? ctx.sink.add_view(data)
                         : ctx.sink.add_input(*source.file, source.file_offset, data);
  } else if (source.owned) {
    std::span<std::uint8_t> bytes(source.owned->data() + source.owned_offset,
                                  static_cast<std::size_t>(layout.data_size()));
    edits.apply(bytes, 0);
    block = ctx.sink.add_view(data);
  } else {
    block = ctx.sink.add_input(
        *source.file, source.file_offset, data,
        [edits = std::move(edits)](std::span<std::uint8_t> piece, std::uint64_t offset) {
          edits.apply(piece, offset);
        });
  }
  if (!unsigned_names.empty()) {
    std::string list;
    for (const auto& n : unsigned_names) list += (list.empty() ? "" : ", ") + n;
    report.notes.push_back(
        "TZEROn offsets read as unsigned (signed for B) integers, exact, "
        "cards kept: " +
        list);
  }
  if (!scaled_names.empty()) {
    std::string list;
    for (const auto& n : scaled_names) list += (list.empty() ? "" : ", ") + n;
    report.notes.push_back(
        "TSCALn/TZEROn kept as cards; the data holds the stored values" +
        std::string(ctx.options.scaling == ScalingPolicy::kPhysical
                        ? " and the native table the physical float64 values"
                        : " (--scaling physical adds physical values to the native table)") +
        ": " + list);
  }
  if (ctx.options.native_byte_order) {
    report.notes.push_back(
        "--native-byteorder does not apply to tables: the fields mirror the "
        "FITS row, big-endian");
  }

  HduOutput out;
  out.item = Node::make_mapping();
  if (ctx.item_header) out.item->set("header", header_node(ctx.cards));
  std::vector<asdfcore::ndarray::Field> fields;
  for (const auto& c : layout.columns) {
    asdfcore::ndarray::Field f;
    f.name = c.name;
    f.dtype = c.dtype;
    f.shape = c.shape;
    fields.push_back(std::move(f));
  }
  NDArrayNodeSpec spec;
  spec.dtype = DType::structured(std::move(fields));
  spec.shape = {layout.rows};
  spec.source = block;
  out.item->set("data", asdfcore::ndarray::make_ndarray_node(spec));
  if (layout.heap_size() > 0) {
    NDArrayNodeSpec heap;
    heap.dtype = DType::numeric(DTypeKind::kUInt8);
    heap.shape = {layout.heap_size()};
    heap.offset = layout.heap_offset;
    heap.source = block;
    out.item->set("heap", asdfcore::ndarray::make_ndarray_node(heap));
  }
  NodePtr originals;
  for (const auto& c : layout.columns) {
    const auto found = logical.find(c.number);
    if (found == logical.end() || found->second.index.empty()) continue;
    if (!originals) originals = Node::make_mapping();
    NodePtr entry = Node::make_mapping();
    const auto count = static_cast<std::uint64_t>(found->second.index.size());
    entry->set("index",
               owned_array(ctx.sink, to_bytes(found->second.index), DTypeKind::kUInt64, {count}));
    entry->set("value", owned_array(ctx.sink, found->second.value, DTypeKind::kUInt8, {count}));
    originals->set(c.name, entry);
    report.notes.push_back("logical column '" + c.name + "' has " + std::to_string(count) +
                           " undefined or invalid values: false in the data, originals under "
                           "`logical_originals`");
  }
  if (originals) out.item->set("logical_originals", originals);

  if (ctx.options.native_view) {
    std::vector<NativeColumn> columns;
    for (const auto& c : layout.columns) {
      const auto found = logical.find(c.number);
      NodePtr array = native_column_data(
          c, layout, rows, block, found == logical.end() ? nullptr : &found->second, ctx, report);
      if (array) columns.push_back(NativeColumn{c.name, array, c.unit, c.comment});
    }
    out.native = make_native_table(columns, report);
  }
  out.report = std::move(report);
  return out;
}

class BinaryTableConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "binary table"; }
  bool accepts(const HduInput& input) const override {
    return input.extent.type == 2 && !input.extent.tile_compressed;
  }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions& options) const override {
    HduReport report;
    report.index = input.extent.index;
    report.kind = "binary table";
    const ErrorContext where = input.where();
    TableSource source;
    source.bytes = input.data;
    source.file = &input.file;
    source.file_offset = input.extent.data_start;
    return convert_table(TableContext{input.cards, where, sink, options, input.item_header}, source,
                         std::move(report));
  }
};

class CompressedTableConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "tile-compressed table"; }
  bool accepts(const HduInput& input) const override { return input.extent.compressed_table; }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions& options) const override {
    const ErrorContext where = input.where();
    std::vector<int> relabelled;
    auto table = std::make_shared<std::vector<std::uint8_t>>(
        input.file.decompress_table(input.extent.index, &relabelled));
    auto [cards, end] = read_decompressed_header(*table, input, "table");
    TableSource source;
    source.bytes = asdfcore::io::Buffer(
        table, std::span<const std::uint8_t>(table->data() + end, table->size() - end));
    source.owned = table;
    source.owned_offset = end;
    HduOutput out = convert_table(TableContext{cards, where, sink, options, input.item_header},
                                  source, decompressed_report(input, "tile-compressed table"));
    for (const int n : relabelled) {
      out.report.notes.push_back("column " + std::to_string(n) + " is named GZIP_2 (ZCTYP" +
                                 std::to_string(n) +
                                 ") but its type is one CFITSIO stores unshuffled; read as "
                                 "GZIP_1, as CFITSIO's compressor wrote it");
    }
    keep_compressed_header(out, input, std::move(cards));
    return out;
  }
};

}  // namespace

std::shared_ptr<const HduConverter> make_bintable_converter() {
  return std::make_shared<BinaryTableConverter>();
}
std::shared_ptr<const HduConverter> make_compressed_table_converter() {
  return std::make_shared<CompressedTableConverter>();
}

}  // namespace fitsasdf::hdu
