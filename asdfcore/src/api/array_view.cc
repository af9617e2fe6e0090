// Typed views of ndarrays: numpy's safe-casting table and the bytes behind a view (the file's
// own when they can be used as they are, else one converted C-order copy).
#include "asdfcore/array_view.h"

#include <algorithm>
#include <cstring>

namespace asdfcore {
namespace {

using ndarray::DType;
using ndarray::DTypeKind;

/// The numpy name of `kind` for messages ("float32", "bool").
std::string kind_name(DTypeKind kind) { return std::string(ndarray::kind_info(kind).numpy_name); }

/// numpy's categories, in the order safe casting may climb them.
enum class Family { kBool, kSigned, kUnsigned, kFloat, kComplex, kOther };

Family family(DTypeKind k) {
  switch (k) {
    case DTypeKind::kBool8: return Family::kBool;
    case DTypeKind::kInt8: case DTypeKind::kInt16: case DTypeKind::kInt32: case DTypeKind::kInt64:
      return Family::kSigned;
    case DTypeKind::kUInt8: case DTypeKind::kUInt16: case DTypeKind::kUInt32:
    case DTypeKind::kUInt64:
      return Family::kUnsigned;
    case DTypeKind::kFloat16: case DTypeKind::kFloat32: case DTypeKind::kFloat64:
      return Family::kFloat;
    case DTypeKind::kComplex64: case DTypeKind::kComplex128: return Family::kComplex;
    default: return Family::kOther;
  }
}

/// Significant binary digits a float kind holds exactly (11, 24, 53); for complex, per part.
int mantissa_bits(DTypeKind k) {
  switch (k) {
    case DTypeKind::kFloat16: return 11;
    case DTypeKind::kFloat32: case DTypeKind::kComplex64: return 24;
    default: return 53;
  }
}

/// Bytes of one element (of one part, for complex numbers).
int part_size(DTypeKind k) {
  const int size = ndarray::kind_info(k).unit_size;
  return family(k) == Family::kComplex ? size / 2 : size;
}

/// Read one element of C++ type `Src` at `p` (the machine's byte order, any alignment).
template <typename Src>
Src load(const std::uint8_t* p) noexcept {
  Src v;
  std::memcpy(&v, p, sizeof(Src));
  return v;
}

/// Return `v` as the C++ type `Dst`; the caller allowed only safe casts.
template <typename Dst, typename Src>
Dst convert(Src v) noexcept {
  if constexpr (std::is_same_v<Src, ndarray::Float16>) {
    if constexpr (std::is_same_v<Dst, ndarray::Float16>) return v;
    else return convert<Dst>(ndarray::float16_to_double(v.bits));
  } else if constexpr (std::is_same_v<Dst, ndarray::Float16>) {
    if constexpr (std::is_same_v<Src, std::complex<float>> || std::is_same_v<Src, std::complex<double>>) {
      return ndarray::Float16{ndarray::double_to_float16(static_cast<double>(v.real()))};
    } else {
      return ndarray::Float16{ndarray::double_to_float16(static_cast<double>(v))};
    }
  } else if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src{};
  } else if constexpr (std::is_same_v<Dst, std::complex<float>> ||
                       std::is_same_v<Dst, std::complex<double>>) {
    using Part = typename Dst::value_type;
    if constexpr (std::is_same_v<Src, std::complex<float>> || std::is_same_v<Src, std::complex<double>>) {
      return Dst(static_cast<Part>(v.real()), static_cast<Part>(v.imag()));
    } else {
      return Dst(static_cast<Part>(v), Part{});
    }
  } else if constexpr (std::is_same_v<Src, std::complex<float>> ||
                       std::is_same_v<Src, std::complex<double>>) {
    return static_cast<Dst>(v.real());
  } else {
    return static_cast<Dst>(v);
  }
}

}  // namespace

bool can_cast_safely(DTypeKind from, DTypeKind to) noexcept {
  if (from == to) return true;
  const Family f = family(from);
  const Family t = family(to);
  if (f == Family::kOther || t == Family::kOther) return false;
  if (f == Family::kBool) return true;
  if (t == Family::kBool) return false;
  const int fs = part_size(from);
  const int ts = part_size(to);
  switch (f) {
    case Family::kSigned:
      if (t == Family::kSigned) return ts >= fs;
      if (t == Family::kUnsigned) return false;
      // An integer of n bytes fits a float whose mantissa holds its 8n-1 value bits; numpy
      // lets int64 (and uint64) go to float64 all the same.
      return fs == 8 ? mantissa_bits(to) == 53 : mantissa_bits(to) >= 8 * fs;
    case Family::kUnsigned:
      if (t == Family::kUnsigned) return ts >= fs;
      if (t == Family::kSigned) return ts > fs;
      return fs == 8 ? mantissa_bits(to) == 53 : mantissa_bits(to) > 8 * fs;
    case Family::kFloat:
      return (t == Family::kFloat || t == Family::kComplex) && ts >= fs;
    case Family::kComplex:
      return t == Family::kComplex && ts >= fs;
    default:
      return false;
  }
}

namespace detail {

TypedBytes typed_bytes(const ndarray::NDArray& array, DTypeKind want, std::size_t alignment,
                       bool cast, const std::string& field) {
  const DType& dtype = array.dtype();
  const ndarray::Field* picked = nullptr;
  if (!field.empty()) {
    if (!dtype.is_structured()) {
      throw Error(ErrorCode::kWrongType, "expected a record array with a field '" + field +
                                             "', found an array of " + dtype.to_string());
    }
    std::string names;
    for (std::size_t i = 0; i < dtype.fields().size(); ++i) {
      const std::string name = ndarray::effective_field_name(dtype, i);
      if (name == field) picked = &dtype.fields()[i];
      names += (names.empty() ? "" : ", ") + name;
    }
    if (picked == nullptr) {
      throw Error(ErrorCode::kNotFound,
                  "the record array has no field '" + field + "' (its fields: " + names + ")");
    }
  }
  const DType& element = picked ? picked->dtype : dtype;
  const std::string what = picked ? "field '" + field + "' of type " + element.to_string()
                                  : "elements of type " + element.to_string();
  if (!element.is_numeric()) {
    throw Error(ErrorCode::kWrongType, "expected " + kind_name(want) + " elements, found " + what +
                                           (element.is_string() ? " (read strings with strings())"
                                                                : " (read fields with field<T>())"));
  }
  const DTypeKind have = element.kind();
  if (have != want && !(cast && can_cast_safely(have, want))) {
    throw Error(ErrorCode::kWrongType,
                "expected " + kind_name(want) + " elements, found " + what +
                    (cast ? " (numpy does not cast " + kind_name(have) + " to " + kind_name(want) +
                                " safely)"
                          : " (array_as<T>() converts where numpy's safe casting allows)"));
  }

  TypedBytes out;
  out.shape = array.shape();
  const std::vector<std::uint64_t> sub = picked ? picked->shape : std::vector<std::uint64_t>{};
  out.shape.insert(out.shape.end(), sub.begin(), sub.end());
  const std::uint64_t item = element.itemsize();
  const bool native = element.byte_order() == ndarray::ByteOrder::kNotApplicable ||
                      element.byte_order() == ndarray::native_byte_order();

  // The stored bytes as they are: the same kind, in the machine's order, every element
  // aligned for the type. bool8 is always copied: a byte other than 0 or 1 is no C++ bool.
  if (have == want && native && want != DTypeKind::kBool8 && array.size() > 0) {
    const io::Buffer& data = array.data();
    const std::uint8_t* base = data.data() + array.offset() + (picked ? picked->offset : 0);
    bool usable = reinterpret_cast<std::uintptr_t>(base) % alignment == 0;
    std::vector<std::int64_t> strides;
    for (std::int64_t s : array.strides()) {
      usable = usable && s % static_cast<std::int64_t>(item) == 0;
      strides.push_back(s / static_cast<std::int64_t>(item));
    }
    std::int64_t inner = 1;
    std::vector<std::int64_t> sub_strides(sub.size());
    for (std::size_t d = sub.size(); d-- > 0;) {
      sub_strides[d] = inner;
      inner *= static_cast<std::int64_t>(sub[d]);
    }
    strides.insert(strides.end(), sub_strides.begin(), sub_strides.end());
    if (usable) {
      out.owner = data;
      out.base = base;
      out.strides = std::move(strides);
      out.zero_copy = data.file_backed();
      return out;
    }
  }

  // One converted copy in C order.
  const std::vector<std::uint8_t> records = array.to_c_order(ndarray::native_byte_order());
  const std::uint64_t per_element = picked ? picked->count() : 1;
  const std::uint64_t count = array.size() * per_element;
  const std::uint64_t stride = dtype.itemsize();
  const std::uint64_t first = picked ? picked->offset : 0;
  const std::size_t out_size = ndarray::kind_info(want).unit_size;
  io::WritableBuffer copy = io::Buffer::allocate(static_cast<std::size_t>(count * out_size));
  ndarray::visit_numeric(have, [&](auto src_type) {
    using Src = typename decltype(src_type)::type;
    ndarray::visit_numeric(want, [&](auto dst_type) {
      using Dst = typename decltype(dst_type)::type;
      std::uint8_t* to = copy.bytes.data();
      for (std::uint64_t e = 0; e < array.size(); ++e) {
        const std::uint8_t* from = records.data() + e * stride + first;
        for (std::uint64_t j = 0; j < per_element; ++j, to += sizeof(Dst)) {
          Src v;
          if constexpr (std::is_same_v<Src, bool>) {
            v = from[j] != 0;
          } else {
            v = load<Src>(from + j * sizeof(Src));
          }
          const Dst d = convert<Dst>(v);
          std::memcpy(to, &d, sizeof(Dst));
        }
      }
    });
  });
  out.owner = copy.buffer;
  out.base = copy.buffer.data();
  out.strides.assign(out.shape.size(), 0);
  std::int64_t step = 1;
  for (std::size_t d = out.shape.size(); d-- > 0;) {
    out.strides[d] = step;
    step *= static_cast<std::int64_t>(out.shape[d]);
  }
  out.zero_copy = false;
  return out;
}

}  // namespace detail
}  // namespace asdfcore
