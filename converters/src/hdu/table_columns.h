#pragma once
// The columns of a FITS binary table as its header declares them: TFORMn (repeat count, type
// letter, the element type and maximum of a variable-length descriptor), TDIMn, the scaling,
// null, unit and comment cards, and where each column lies in the row. Pure header arithmetic:
// no data is read here, and every count is checked before it is multiplied or added, so a
// hostile header costs neither an overflow nor a large allocation.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/dtype.h"
#include "fitsasdf/convert.h"
#include "hdu/hdu_converter.h"

namespace fitsasdf::hdu {

/// One TFORMn value of a binary table, `rTa`: repeat count, type letter, and the rest.
struct BinaryFormat {
  std::uint64_t repeat = 1;  ///< r: elements per row (bits for `X`); 0 for a zero-width column.
  char code = 0;             ///< T: one of L X B I J K A E D C M P Q.
  char element = 0;          ///< P/Q only: the letter of the heap elements (0 when missing).
  std::optional<std::uint64_t> max;  ///< P/Q only: the `(max)` element count when written.

  /// Return true for a variable-length descriptor (`P` or `Q`).
  bool variable() const noexcept { return code == 'P' || code == 'Q'; }
  /// Return the bytes the column takes in a row (ceil(bits / 8) for `X`).
  std::uint64_t width() const noexcept;
};

/// Return the bytes of one element of the type letter `code` in the row (`X`: 1, a byte of bits;
/// `P`: 8 and `Q`: 16, the descriptor), or 0 for a letter that is not a binary-table type.
std::uint64_t binary_element_size(char code) noexcept;

/// Return the range of the stored integers of the column type letter `code` (`B` 0..255, `I`
/// int16, `J` int32, else int64).
std::pair<long long, long long> stored_integer_range(char code) noexcept;

/// Parse a TFORMn value as astropy and CFITSIO read it: optional blanks, decimal repeat count
/// (default 1), a type letter (either case), and for `A` any suffix (`rAw` substrings), for
/// `P`/`Q` an element letter and an optional `(max)`. Return nothing for anything else: an
/// unknown letter, a repeat count beyond 10^15, a descriptor with a repeat count above 1 or
/// without a valid element letter, text after the format.
std::optional<BinaryFormat> parse_binary_format(std::string_view text);

/// Parse a TDIMn value `(n1,n2,...)` (FITS order, first axis varies fastest; blanks allowed
/// around the numbers). Return nothing when it is not of that form, has no axis or more than
/// `max_axes`, or has an axis above 10^15.
std::optional<std::vector<std::uint64_t>> parse_tdim(std::string_view text,
                                                     std::size_t max_axes = 31);

/// How the values of a column relate to its stored integers.
enum class ColumnScaling {
  kNone,      ///< No TSCALn/TZEROn (or TSCALn = 1 and TZEROn = 0).
  kUnsigned,  ///< TZEROn = 2^(bits-1) (`B`: -128) with TSCALn = 1: the sign bit is flipped.
  kScaled,    ///< Any other TSCALn/TZEROn on a number column: stored values kept.
  kIgnored,   ///< TSCALn/TZEROn on a column that cannot be scaled (L X A P Q C M): kept as cards.
};

/// One column of a binary table, as laid out in the row.
struct BinaryColumn {
  int number = 0;            ///< n of TFORMn (1-based).
  std::string name;          ///< The field name (see `column_names`).
  BinaryFormat format;       ///< TFORMn.
  std::uint64_t offset = 0;  ///< Bytes from the start of the row.
  /// The field's element type, big-endian: the number kind (uint16/32/64 and int8 for
  /// `kUnsigned`), `[ascii, w]` for `A`, bool8 for `L`, uint8 for `X`, int32/int64 for `P`/`Q`.
  asdfcore::ndarray::DType dtype;
  /// The field's shape per row, C order: TDIMn reversed (without the string axis of `A`), else
  /// `[repeat]` when repeat > 1; `[ceil(bits / 8)]` for `X`; `[2]` for a descriptor; `[0]` for a
  /// zero-width column; empty for a single element.
  std::vector<std::uint64_t> shape;
  ColumnScaling scaling = ColumnScaling::kNone;
  double tscal = 1.0;              ///< TSCALn (1 when absent).
  double tzero = 0.0;              ///< TZEROn (0 when absent).
  std::optional<long long> tnull;  ///< TNULLn of an integer column (`B I J K`).
  std::string unit;                ///< TUNITn as written ("" when absent).
  std::string comment;             ///< TCOMMn ("" when absent).

  /// Return the bytes the column takes in a row.
  std::uint64_t width() const noexcept { return format.width(); }
  /// Return the number of `dtype` items per row: the product of `shape` (1 when empty).
  std::uint64_t items() const noexcept;
};

/// The layout of a binary table: its columns and the sizes of its data area.
struct BinaryLayout {
  std::vector<BinaryColumn> columns;  ///< In TFORMn order.
  std::uint64_t row_size = 0;         ///< NAXIS1.
  std::uint64_t rows = 0;             ///< NAXIS2.
  std::uint64_t pcount = 0;           ///< PCOUNT: the bytes after the rows (gap and heap).
  std::uint64_t heap_offset = 0;      ///< THEAP (default NAXIS1 * NAXIS2), from the data start.
  /// Return NAXIS1 * NAXIS2.
  std::uint64_t rows_size() const noexcept { return row_size * rows; }
  /// Return NAXIS1 * NAXIS2 + PCOUNT: the data area without its padding.
  std::uint64_t data_size() const noexcept { return rows_size() + pcount; }
  /// Return the bytes of the heap (PCOUNT minus the gap before THEAP).
  std::uint64_t heap_size() const noexcept { return data_size() - heap_offset; }
};

/// Read the layout of the binary table described by `header`: BITPIX 8, NAXIS 2, GCOUNT 1,
/// TFIELDS in 0..999, every TFORMn, TDIMn, TSCALn, TZEROn, TNULLn, TUNITn, TCOMMn, THEAP.
/// Throws `Error` (malformed) with `where`, naming the column, for a missing or bad TFORMn,
/// column widths whose sum is not NAXIS1, THEAP before the end of the rows or beyond the data,
/// a row wider than `asdfcore::ndarray::kMaxItemsize`, or sizes that overflow. TDIMn that
/// does not fit its column is ignored as astropy does, with a note in `report`.
BinaryLayout read_binary_layout(const HeaderView& header, const asdfcore::ErrorContext& where,
                                HduReport& report);

}  // namespace fitsasdf::hdu
