#pragma once
/// \file
/// `ArrayView<T>`: the elements of an ASDF ndarray as C++ values of type `T`, in the machine's
/// byte order, with numpy's shape and strides. A view of an uncompressed block stored in the
/// machine's byte order points straight into the file's memory mapping (no copy); any other
/// array (compressed, byte-swapped, inline, cast) is decoded or converted once, when the view
/// is made. The view keeps the bytes alive: it stays valid after the `File` is gone.
///
/// \code
///   asdfcore::File file = asdfcore::File::open("image.asdf");
///   asdfcore::ArrayView<float> sci = file.array<float>("/sci");  // exact type, or an error
///   float corner = sci(0, 0);                                   // row 0, column 0
///   asdfcore::ArrayView<double> dq = file.array_as<double>("/dq");  // uint32 -> double
///   for (double v : dq.to_vector()) { /* C order */ }
/// \endcode
///
/// Element types: `std::int8_t` ... `std::uint64_t`, `float`, `double`, `ndarray::Float16`,
/// `std::complex<float>`, `std::complex<double>` and `bool` (numpy's bool8; read as 0 or 1).

#include <complex>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/ndarray/ndarray.h"

namespace asdfcore {

/// Return the ndarray kind whose elements are the C++ type `T` (see the file comment).
template <typename T>
constexpr ndarray::DTypeKind kind_of() noexcept {
  using ndarray::DTypeKind;
  if constexpr (std::is_same_v<T, std::int8_t>) return DTypeKind::kInt8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DTypeKind::kInt16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DTypeKind::kInt32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DTypeKind::kInt64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DTypeKind::kUInt8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return DTypeKind::kUInt16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return DTypeKind::kUInt32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return DTypeKind::kUInt64;
  else if constexpr (std::is_same_v<T, ndarray::Float16>) return DTypeKind::kFloat16;
  else if constexpr (std::is_same_v<T, float>) return DTypeKind::kFloat32;
  else if constexpr (std::is_same_v<T, double>) return DTypeKind::kFloat64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DTypeKind::kComplex64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return DTypeKind::kComplex128;
  else if constexpr (std::is_same_v<T, bool>) return DTypeKind::kBool8;
  else static_assert(sizeof(T) == 0, "no ndarray kind has this C++ element type");
}

/// Return true when numpy's safe casting allows `from` to `to` (`numpy.can_cast(from, to,
/// "safe")`): every value of `from` is exactly a value of `to` (int16 -> float32 yes, int64 ->
/// float64 yes as numpy says, float64 -> float32 no, anything -> bool only from bool).
bool can_cast_safely(ndarray::DTypeKind from, ndarray::DTypeKind to) noexcept;

namespace detail {

/// The bytes behind a typed view: where element (0, 0, ...) lies, and the strides in bytes.
struct TypedBytes {
  io::Buffer owner;                    ///< Keeps the bytes alive (a mapping or a copy).
  const std::uint8_t* base = nullptr;  ///< The first element (index 0 in every dimension).
  std::vector<std::uint64_t> shape;    ///< Elements per dimension.
  std::vector<std::int64_t> strides;   ///< Elements (not bytes) per step in each dimension.
  bool zero_copy = false;              ///< True when `owner` is the file's own bytes.
};

/// Return the elements of `array` (or of its record field `field`, when not empty) as elements
/// of kind `want`, in the machine's byte order: the stored bytes when they already are (and
/// aligned for `itemsize` bytes), else a converted C-order copy. With `cast`, any kind that
/// `can_cast_safely` to `want` is converted; without it, the kind must be `want`. Throws
/// `Error` (wrong-type) naming both types, (not-found) for a field the record does not have.
TypedBytes typed_bytes(const ndarray::NDArray& array, ndarray::DTypeKind want,
                       std::size_t alignment, bool cast, const std::string& field);

}  // namespace detail

/// A typed, read-only N-dimensional view of an ndarray's elements (see the file comment).
/// Copies share the bytes. Reading one view from several threads at once is safe.
template <typename T>
class ArrayView {
 public:
  /// Make an empty view (no dimensions, no elements).
  ArrayView() = default;

  /// View `array`'s elements as `T`. With `cast`, convert from any type that numpy casts to
  /// `T` safely; without, the array's type must be `T` (any byte order). `field` picks one
  /// field of a record array (its sub-array shape is appended to the array's shape). `file`
  /// and `path` name the array in errors. Throws `Error` (wrong-type) for another element
  /// type, naming both, and (not-found) for a missing field.
  ArrayView(std::shared_ptr<const ndarray::NDArray> array, bool cast, const std::string& field,
            const std::string& file, const std::string& path)
      : array_(std::move(array)) {
    try {
      bytes_ = detail::typed_bytes(*array_, kind_of<T>(), alignof(T), cast, field);
    } catch (const Error& e) {
      throw e.with_context(ErrorContext{.file = file, .tree_path = path});
    }
    size_ = 1;
    for (std::uint64_t n : bytes_.shape) size_ *= n;
    contiguous_ = compute_contiguous();
  }

  /// Return the number of dimensions.
  std::size_t ndim() const noexcept { return bytes_.shape.size(); }
  /// Return the number of elements in each dimension (C order: the last varies fastest).
  const std::vector<std::uint64_t>& shape() const noexcept { return bytes_.shape; }
  /// Return the step between neighbours along each dimension, in elements (may be negative).
  const std::vector<std::int64_t>& strides() const noexcept { return bytes_.strides; }
  /// Return the number of elements.
  std::uint64_t size() const noexcept { return size_; }
  /// Return true when the view reads the file's own bytes (no copy was made).
  bool zero_copy() const noexcept { return bytes_.zero_copy; }
  /// Return the array as stored (its dtype, byte order, source, mask).
  const ndarray::NDArray& array() const noexcept { return *array_; }

  /// Return the element at `index...` (one index per dimension, 0-based, unchecked).
  template <typename... I>
  const T& operator()(I... index) const noexcept {
    static_assert((std::is_integral_v<I> && ...), "indices are integers");
    std::int64_t offset = 0;
    std::size_t d = 0;
    ((offset += static_cast<std::int64_t>(index) * bytes_.strides[d++]), ...);
    return element(offset);
  }
  /// Return the element at `index` (one 0-based index per dimension). Throws `Error`
  /// (not-found) when an index is past its dimension or the count of indices is wrong.
  const T& at(std::span<const std::uint64_t> index) const {
    if (index.size() != ndim()) {
      throw Error(ErrorCode::kNotFound, "the view has " + std::to_string(ndim()) +
                                            " dimensions, not " + std::to_string(index.size()));
    }
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      if (index[d] >= bytes_.shape[d]) {
        throw Error(ErrorCode::kNotFound, "index " + std::to_string(index[d]) +
                                              " is past dimension " + std::to_string(d) +
                                              " of length " + std::to_string(bytes_.shape[d]));
      }
      offset += static_cast<std::int64_t>(index[d]) * bytes_.strides[d];
    }
    return element(offset);
  }
  /// Return the element at `index` (see the overload taking a span).
  const T& at(std::initializer_list<std::uint64_t> index) const {
    return at(std::span<const std::uint64_t>(index.begin(), index.size()));
  }
  /// Return the element number `i` in C order (0-based, unchecked).
  const T& flat(std::uint64_t i) const noexcept {
    if (contiguous_) return element(static_cast<std::int64_t>(i));
    std::int64_t offset = 0;
    for (std::size_t d = ndim(); d-- > 0;) {
      offset += static_cast<std::int64_t>(i % bytes_.shape[d]) * bytes_.strides[d];
      i /= bytes_.shape[d];
    }
    return element(offset);
  }

  /// Return true when the elements lie in C order without gaps.
  bool is_contiguous() const noexcept { return contiguous_; }
  /// Return the elements in C order without copying. Throws `Error` (invalid-argument) when
  /// the view is not contiguous (a strided view of a file): use `to_vector` then.
  std::span<const T> span() const {
    if (!contiguous_) {
      throw Error(ErrorCode::kInvalidArgument,
                  "the array is a strided view, not contiguous: use to_vector()");
    }
    return {reinterpret_cast<const T*>(bytes_.base), static_cast<std::size_t>(size_)};
  }
  /// Return a copy of the elements in C order.
  std::vector<T> to_vector() const {
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(size_));
    for (std::uint64_t i = 0; i < size_; ++i) out.push_back(flat(i));
    return out;
  }

  /// Return true when the array has a mask (a `mask` entry or inline nulls).
  bool has_mask() const noexcept { return array_ && array_->has_mask(); }
  /// Return one byte per element in C order, 1 where the element is masked (python asdf's
  /// rules; see `ndarray::NDArray::mask_c_order`); empty without a mask.
  std::vector<std::uint8_t> mask() const {
    return has_mask() ? array_->mask_c_order() : std::vector<std::uint8_t>{};
  }

 private:
  const T& element(std::int64_t offset) const noexcept {
    return reinterpret_cast<const T*>(bytes_.base)[offset];
  }
  bool compute_contiguous() const noexcept {
    std::int64_t expected = 1;
    for (std::size_t d = ndim(); d-- > 0;) {
      if (bytes_.shape[d] != 1 && bytes_.strides[d] != expected) return false;
      expected *= static_cast<std::int64_t>(bytes_.shape[d]);
    }
    return true;
  }

  std::shared_ptr<const ndarray::NDArray> array_;
  detail::TypedBytes bytes_;
  std::uint64_t size_ = 0;
  bool contiguous_ = true;
};

}  // namespace asdfcore
