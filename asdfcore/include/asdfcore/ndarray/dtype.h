#pragma once
/// \file
/// Element types of ASDF arrays. The ndarray layer reads the `datatype` and `byteorder` of an
/// `ndarray` node into a `DType` value (numbers, fixed-width strings, structured records), maps
/// it to numpy's names, writes it back to tree nodes, and converts elements between byte orders.
/// Every kind's size and names come from one table (`kind_info`); code that depends on the C++
/// type of an element is written once and dispatched by `visit_numeric`.

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::ndarray {

/// What one element (or one field of a record) is.
enum class DTypeKind : std::uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kComplex64,   ///< Two float32: real, then imaginary.
  kComplex128,  ///< Two float64: real, then imaginary.
  kBool8,       ///< One byte, 0 or 1.
  kAscii,       ///< `[ascii, N]`: N bytes, NUL padded.
  kUcs4,        ///< `[ucs4, N]`: N code points of 4 bytes each.
  kStructured,  ///< A record of named fields.
};

/// The order of the bytes of a multi-byte number (or UCS-4 character).
enum class ByteOrder : std::uint8_t {
  kLittle,
  kBig,
  kNotApplicable,  ///< One-byte kinds, ASCII strings and records (numpy's `|`).
};

/// Return the byte order of the machine this code runs on.
ByteOrder native_byte_order() noexcept;

/// Return the ASDF name of `order` as python asdf writes it: "little", or "big" (also for
/// `kNotApplicable`, as python asdf writes for one-byte kinds, strings and records).
std::string_view asdf_byteorder_name(ByteOrder order) noexcept;

/// Read a `byteorder` node ("big" or "little"). Throws `Error` (malformed) naming `path`
/// otherwise.
ByteOrder parse_byteorder(const tree::Node& node, const std::string& path);

/// Facts about one kind; `kind_info` is the one table mapping kinds to sizes and names.
struct KindInfo {
  DTypeKind kind;               ///< The kind described.
  std::string_view asdf_name;   ///< The ASDF `datatype` name ("int8", "ascii"); "" for records.
  std::string_view numpy_name;  ///< numpy's `dtype.name` stem ("int8", "bool", "bytes", "str").
  char numpy_code;              ///< numpy's type character: i, u, f, c, b, S, U or V.
  std::uint8_t unit_size;       ///< Bytes per element (per character for strings; 0 for records).
  std::uint8_t swap_size;       ///< Bytes per byte-swapped unit (0: never swapped).
};

/// Return the table row of `kind`.
const KindInfo& kind_info(DTypeKind kind) noexcept;

/// Return the numeric kind called `name` in ASDF ("float64", "bool8", "float16", ...), or
/// nothing. String kinds ("ascii", "ucs4") need a length and are not returned.
std::optional<DTypeKind> numeric_kind_from_asdf_name(std::string_view name) noexcept;

/// The largest element size accepted, in bytes (numpy's limit: 2^31 - 1).
inline constexpr std::uint64_t kMaxItemsize = 0x7fffffffu;

struct Field;

/// One byte-swap instruction for an element: swap `count` consecutive units of `unit` bytes
/// (2, 4 or 8) starting `offset` bytes into the element.
struct SwapRun {
  std::uint64_t offset = 0;  ///< Bytes from the start of the element.
  std::uint32_t unit = 0;    ///< Bytes per unit: 2, 4 or 8.
  std::uint64_t count = 0;   ///< Number of units.
  /// Compare offset, unit and count.
  friend bool operator==(const SwapRun&, const SwapRun&) = default;
};

/// The type of one array element: a number, a fixed-width string or a record of fields. A
/// value: cheap to copy (fields are shared and immutable) and compared with `==`.
class DType {
 public:
  /// Make float64 in the machine's byte order (numpy's default type).
  DType();

  /// Make a numeric kind (int8 ... bool8) in `order`; one-byte kinds always get
  /// `kNotApplicable`. Throws `Error` (invalid-argument) for string and record kinds.
  static DType numeric(DTypeKind kind, ByteOrder order = native_byte_order());
  /// Make `[ascii, length]`: `length` bytes. Throws (invalid-argument) when too long.
  static DType ascii(std::uint64_t length);
  /// Make `[ucs4, length]`: `length` characters of 4 bytes in `order`. Throws when too long.
  static DType ucs4(std::uint64_t length, ByteOrder order = native_byte_order());
  /// Make a record of `fields`, packed one after another like numpy: each field's `offset` is
  /// recomputed. Throws `Error` (invalid-argument) for duplicate names (an empty name counts as
  /// numpy's "f<position>") or a record larger than `kMaxItemsize`.
  static DType structured(std::vector<Field> fields);

  /// Read a `datatype` node as python asdf does: a numeric name, `[ascii, N]`, `[ucs4, N]`, or a
  /// list of fields (each a datatype or a mapping with `datatype` and optional `name`,
  /// `byteorder`, `shape`). `byteorder` applies to every part that does not give its own.
  /// Throws `Error` (malformed) naming `path` (the JSON pointer of the node) for an unknown name,
  /// a string type without a non-negative integer length, a field without a datatype, duplicate
  /// field names, or a type larger than `kMaxItemsize`.
  static DType from_node(const tree::Node& datatype, ByteOrder byteorder,
                         const std::string& path = "");

  /// Return the `datatype` node python asdf writes for this type: a name, `[ascii, N]`,
  /// `[ucs4, N]`, or a list of mappings `{name, datatype, byteorder, shape}`. Field byte orders
  /// are written when `include_byteorder` (python asdf leaves them out for inline arrays).
  tree::NodePtr to_node(bool include_byteorder = true) const;

  /// Return the kind.
  DTypeKind kind() const noexcept { return kind_; }
  /// Return the byte order (`kNotApplicable` for one-byte kinds, ASCII and records).
  ByteOrder byte_order() const noexcept { return order_; }
  /// Return the size of one element in bytes.
  std::uint64_t itemsize() const noexcept { return itemsize_; }
  /// Return the number of characters of a string kind (0 otherwise).
  std::uint64_t length() const noexcept { return length_; }
  /// Return the fields of a record (empty otherwise).
  std::span<const Field> fields() const noexcept;

  /// True for records.
  bool is_structured() const noexcept { return kind_ == DTypeKind::kStructured; }
  /// True for ASCII and UCS-4 strings.
  bool is_string() const noexcept {
    return kind_ == DTypeKind::kAscii || kind_ == DTypeKind::kUcs4;
  }
  /// True for integers, floats, complex numbers and bool8.
  bool is_numeric() const noexcept { return !is_string() && !is_structured(); }

  /// Return this type with every multi-byte number and UCS-4 string, fields included, in
  /// `order` (`kNotApplicable` leaves the type unchanged).
  DType with_byte_order(ByteOrder order) const;
  /// Return how to convert one element of this type to `target` order: the runs of units whose
  /// order differs (empty when nothing changes; always empty for `kNotApplicable`).
  std::vector<SwapRun> swap_plan(ByteOrder target) const;

  /// Return numpy's `dtype.str`: "<f8", ">i4", "|u1", "|b1", "|S8", "<U4", "<c16", "|V8".
  std::string numpy_str() const;
  /// Return numpy's `dtype.name` ("float64", "bool", "bytes64", "str128"); for a record, the
  /// text of its descr list (see `descr`).
  std::string name() const;
  /// Return python's text of numpy's `dtype.descr`: "[('a', '|u1'), ('k', '<f4', (3, 3))]";
  /// a non-record type gives one unnamed entry: "[('', '<f8')]".
  std::string descr() const;
  /// Return numpy's `dtype.descr` as a tree: a sequence of `[name, type]` or
  /// `[name, type, [dims]]`, where `type` is a `numpy_str` or a nested descr sequence.
  tree::NodePtr descr_node() const;
  /// Return python's `str(dtype)` as on a little-endian machine: "int32" for native numbers,
  /// ">i4" for swapped ones, "|S5", "<U2", "[('a', 'u1'), ('b', 'S3'), ('c', '<f4')]".
  std::string to_string() const;

  /// Compare kind, byte order, lengths and fields (names, types, shapes).
  friend bool operator==(const DType& a, const DType& b);

 private:
  DTypeKind kind_;
  ByteOrder order_;
  std::uint64_t itemsize_;
  std::uint64_t length_ = 0;
  std::shared_ptr<const std::vector<Field>> fields_;
};

/// One field of a record.
struct Field {
  std::string name;                  ///< As written; "" when unnamed (numpy calls it "f<i>").
  DType dtype;                       ///< The type of one item of the field.
  std::vector<std::uint64_t> shape;  ///< Sub-array shape; empty for a single item.
  std::uint64_t offset = 0;          ///< Bytes from the start of the record (set by DType).

  /// Return the number of items (the product of `shape`, 1 when empty).
  std::uint64_t count() const noexcept;
  /// Return the size of the field in bytes.
  std::uint64_t size() const noexcept { return dtype.itemsize() * count(); }
  /// Compare name, type, shape and offset.
  friend bool operator==(const Field& a, const Field& b);
};

/// Return the name numpy uses for field `index` of `dtype`: its own, or "f<index>".
std::string effective_field_name(const DType& dtype, std::size_t index);

/// An IEEE 754 binary16 number kept as its bits (the C++ type of kFloat16 elements).
struct Float16 {
  std::uint16_t bits = 0;  ///< Sign, 5 exponent bits, 10 fraction bits.
};

/// Return the value of the binary16 number `bits`.
double float16_to_double(std::uint16_t bits) noexcept;
/// Return the binary16 number nearest to `value` (ties to even; overflow to infinity).
std::uint16_t double_to_float16(double value) noexcept;

/// Call `f(std::type_identity<T>{})` with the C++ type `T` of numeric `kind`: std::int8_t ...
/// std::uint64_t, Float16, float, double, std::complex<float>, std::complex<double>, bool.
/// Throws `Error` (invalid-argument) for string and record kinds.
template <typename F>
decltype(auto) visit_numeric(DTypeKind kind, F&& f) {
  switch (kind) {
    case DTypeKind::kInt8:
      return f(std::type_identity<std::int8_t>{});
    case DTypeKind::kInt16:
      return f(std::type_identity<std::int16_t>{});
    case DTypeKind::kInt32:
      return f(std::type_identity<std::int32_t>{});
    case DTypeKind::kInt64:
      return f(std::type_identity<std::int64_t>{});
    case DTypeKind::kUInt8:
      return f(std::type_identity<std::uint8_t>{});
    case DTypeKind::kUInt16:
      return f(std::type_identity<std::uint16_t>{});
    case DTypeKind::kUInt32:
      return f(std::type_identity<std::uint32_t>{});
    case DTypeKind::kUInt64:
      return f(std::type_identity<std::uint64_t>{});
    case DTypeKind::kFloat16:
      return f(std::type_identity<Float16>{});
    case DTypeKind::kFloat32:
      return f(std::type_identity<float>{});
    case DTypeKind::kFloat64:
      return f(std::type_identity<double>{});
    case DTypeKind::kComplex64:
      return f(std::type_identity<std::complex<float>>{});
    case DTypeKind::kComplex128:
      return f(std::type_identity<std::complex<double>>{});
    case DTypeKind::kBool8:
      return f(std::type_identity<bool>{});
    case DTypeKind::kAscii:
    case DTypeKind::kUcs4:
    case DTypeKind::kStructured:
      break;
  }
  throw Error(ErrorCode::kInvalidArgument,
              "visit_numeric needs a numeric kind, not " + std::string(kind_info(kind).numpy_name));
}

/// Reverse the bytes of each of `count` units of `unit` bytes (2, 4 or 8) starting at `data`.
void swap_units(std::uint8_t* data, std::uint64_t count, std::uint32_t unit) noexcept;

/// Apply `plan` (from `DType::swap_plan`) to every whole element of `itemsize` bytes in
/// `elements`, in place.
void apply_swap_plan(std::span<std::uint8_t> elements, std::uint64_t itemsize,
                     std::span<const SwapRun> plan) noexcept;

}  // namespace asdfcore::ndarray
