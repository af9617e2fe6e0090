// ndarrays of libasdf's C API: the asdf_ndarray_t of an array read from a file (or set through
// the API), reading whole arrays, tiles and elements with libasdf's datatype conversions, and
// building arrays to write.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/walk.h"
#include "asdfcore/value.h"
#include "c/c_state.h"

using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
namespace capi = asdfcore::capi;
namespace nd = asdfcore::ndarray;

namespace {

/// What the library holds for one asdf_ndarray_t (its `_reserved`).
struct NdState {
  asdf_file* file = nullptr;                   ///< Where read errors are recorded.
  std::shared_ptr<const nd::NDArray> array;    ///< The array read (or set), when there is one.
  std::vector<std::uint64_t> shape;
  std::vector<std::int64_t> strides;
  std::deque<std::vector<asdf_datatype_t>> field_lists;  ///< Records' fields, stable.
  std::deque<std::string> names;
  std::deque<std::vector<std::uint64_t>> field_shapes;
  std::shared_ptr<std::vector<std::uint8_t>> buffer;  ///< A buffer being filled to write.
  std::string compression;
  asdf_array_storage_t storage = ASDF_ARRAY_STORAGE_DEFAULT;
  std::optional<asdfcore::io::Buffer> stored;  ///< asdf_ndarray_data's bytes, once asked for.
  std::vector<std::uint8_t> stored_copy;
};

NdState* state_of(const asdf_ndarray_t* a) { return static_cast<NdState*>(a->_reserved); }

NdState& ensure_state(asdf_ndarray_t* a) {
  if (!a->_reserved) a->_reserved = new NdState;
  return *state_of(a);
}

asdf_scalar_datatype_t c_type(DTypeKind k) {
  switch (k) {
    case DTypeKind::kInt8: return ASDF_DATATYPE_INT8;
    case DTypeKind::kInt16: return ASDF_DATATYPE_INT16;
    case DTypeKind::kInt32: return ASDF_DATATYPE_INT32;
    case DTypeKind::kInt64: return ASDF_DATATYPE_INT64;
    case DTypeKind::kUInt8: return ASDF_DATATYPE_UINT8;
    case DTypeKind::kUInt16: return ASDF_DATATYPE_UINT16;
    case DTypeKind::kUInt32: return ASDF_DATATYPE_UINT32;
    case DTypeKind::kUInt64: return ASDF_DATATYPE_UINT64;
    case DTypeKind::kFloat16: return ASDF_DATATYPE_FLOAT16;
    case DTypeKind::kFloat32: return ASDF_DATATYPE_FLOAT32;
    case DTypeKind::kFloat64: return ASDF_DATATYPE_FLOAT64;
    case DTypeKind::kComplex64: return ASDF_DATATYPE_COMPLEX64;
    case DTypeKind::kComplex128: return ASDF_DATATYPE_COMPLEX128;
    case DTypeKind::kBool8: return ASDF_DATATYPE_BOOL8;
    case DTypeKind::kAscii: return ASDF_DATATYPE_ASCII;
    case DTypeKind::kUcs4: return ASDF_DATATYPE_UCS4;
    case DTypeKind::kStructured: return ASDF_DATATYPE_STRUCTURED;
  }
  return ASDF_DATATYPE_UNKNOWN;
}

std::optional<DTypeKind> kind_of(asdf_scalar_datatype_t t) {
  switch (t) {
    case ASDF_DATATYPE_INT8: return DTypeKind::kInt8;
    case ASDF_DATATYPE_INT16: return DTypeKind::kInt16;
    case ASDF_DATATYPE_INT32: return DTypeKind::kInt32;
    case ASDF_DATATYPE_INT64: return DTypeKind::kInt64;
    case ASDF_DATATYPE_UINT8: return DTypeKind::kUInt8;
    case ASDF_DATATYPE_UINT16: return DTypeKind::kUInt16;
    case ASDF_DATATYPE_UINT32: return DTypeKind::kUInt32;
    case ASDF_DATATYPE_UINT64: return DTypeKind::kUInt64;
    case ASDF_DATATYPE_FLOAT16: return DTypeKind::kFloat16;
    case ASDF_DATATYPE_FLOAT32: return DTypeKind::kFloat32;
    case ASDF_DATATYPE_FLOAT64: return DTypeKind::kFloat64;
    case ASDF_DATATYPE_COMPLEX64: return DTypeKind::kComplex64;
    case ASDF_DATATYPE_COMPLEX128: return DTypeKind::kComplex128;
    case ASDF_DATATYPE_BOOL8: return DTypeKind::kBool8;
    case ASDF_DATATYPE_ASCII: return DTypeKind::kAscii;
    case ASDF_DATATYPE_UCS4: return DTypeKind::kUcs4;
    case ASDF_DATATYPE_STRUCTURED: return DTypeKind::kStructured;
    default: return std::nullopt;
  }
}

asdf_byteorder_t c_order(ByteOrder o) {
  return o == ByteOrder::kLittle ? ASDF_BYTEORDER_LITTLE : ASDF_BYTEORDER_BIG;  // "|" as "big"
}

void fill_datatype(asdf_datatype_t& out, const DType& dt, NdState& st) {
  out = asdf_datatype_t{};
  out.type = c_type(dt.kind());
  out.size = dt.itemsize();
  out.byteorder = c_order(dt.byte_order());
  if (!dt.is_structured()) return;
  std::vector<asdf_datatype_t> fields(dt.fields().size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const nd::Field& f = dt.fields()[i];
    fill_datatype(fields[i], f.dtype, st);
    fields[i].name = st.names.emplace_back(f.name).c_str();
    if (!f.shape.empty()) {
      fields[i].ndim = static_cast<std::uint32_t>(f.shape.size());
      fields[i].shape = st.field_shapes.emplace_back(f.shape).data();
    }
  }
  // A record's byte order is its fields' (the first multi-byte one).
  for (const auto& f : fields) {
    if (f.size > 1 && f.type != ASDF_DATATYPE_ASCII) {
      out.byteorder = f.byteorder;
      break;
    }
  }
  out.nfields = static_cast<std::uint32_t>(fields.size());
  out.fields = st.field_lists.emplace_back(std::move(fields)).data();
}

/// Make the asdf_ndarray_t of `array` (read from `file`, at `node`, which says its byte order).
asdf_ndarray_t* make_ndarray(asdf_file* file, std::shared_ptr<const nd::NDArray> array,
                             const Node* node) {
  auto out = std::make_unique<asdf_ndarray_t>();
  *out = asdf_ndarray_t{};
  auto st = std::make_unique<NdState>();
  st->file = file;
  st->array = std::move(array);
  const nd::NDArray& a = *st->array;
  st->shape = a.shape();
  if (a.has_explicit_strides()) st->strides = a.strides();
  out->source = a.source().kind == nd::SourceKind::kBlock ? a.source().block : 0;
  out->ndim = static_cast<std::uint32_t>(st->shape.size());
  out->shape = st->shape.data();
  fill_datatype(out->datatype, a.dtype(), *st);
  out->byteorder = out->datatype.byteorder;
  if (node) {
    if (const NodePtr bo = node->get("byteorder"); bo && bo->is_string()) {
      out->byteorder = bo->as_string() == "little" ? ASDF_BYTEORDER_LITTLE : ASDF_BYTEORDER_BIG;
    }
  }
  out->offset = a.offset();
  out->strides = st->strides.empty() ? nullptr : st->strides.data();
  out->_reserved = st.release();
  return out.release();
}

/// Return the array a value handle describes, or null when it is not an ndarray.
std::shared_ptr<const nd::NDArray> array_of(asdf_value* v) {
  if (!v->node || !capi::is_ndarray_node(v->file, v->node)) return nullptr;
  if (v->node->tag() == asdfcore::kArrayPlaceholderTag) {
    return std::make_shared<nd::NDArray>(asdfcore::array_as_ndarray(*v->file->arrays->find(v->node.get())));
  }
  return asdfcore::Value(v->file ? v->file->raw : nullptr, v->node, v->pointer).raw_array();
}

/// The array of an asdf_ndarray_t: the one read, or the caller's buffer being built.
std::shared_ptr<const nd::NDArray> source_array(asdf_ndarray_t* a);

// ---- element conversion

enum class Class { kSigned, kUnsigned, kFloat };

/// One element, widened: a signed or unsigned integer, or a double.
struct Number {
  Class cls = Class::kSigned;
  std::int64_t s = 0;
  std::uint64_t u = 0;
  double f = 0;
};

bool is_real(DTypeKind k) {
  switch (k) {
    case DTypeKind::kComplex64:
    case DTypeKind::kComplex128:
    case DTypeKind::kAscii:
    case DTypeKind::kUcs4:
    case DTypeKind::kStructured:
      return false;
    default:
      return true;
  }
}

template <typename T>
T load_as(const std::uint8_t* p, bool swap) {
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (swap) std::reverse(bytes, bytes + sizeof(T));
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}

Number load(const std::uint8_t* p, DTypeKind k, bool swap) {
  Number n;
  const auto sig = [&](std::int64_t v) { n.cls = Class::kSigned; n.s = v; };
  const auto uns = [&](std::uint64_t v) { n.cls = Class::kUnsigned; n.u = v; };
  const auto flt = [&](double v) { n.cls = Class::kFloat; n.f = v; };
  switch (k) {
    case DTypeKind::kInt8: sig(load_as<std::int8_t>(p, false)); break;
    case DTypeKind::kInt16: sig(load_as<std::int16_t>(p, swap)); break;
    case DTypeKind::kInt32: sig(load_as<std::int32_t>(p, swap)); break;
    case DTypeKind::kInt64: sig(load_as<std::int64_t>(p, swap)); break;
    case DTypeKind::kUInt8: uns(load_as<std::uint8_t>(p, false)); break;
    case DTypeKind::kBool8: uns(load_as<std::uint8_t>(p, false) != 0); break;
    case DTypeKind::kUInt16: uns(load_as<std::uint16_t>(p, swap)); break;
    case DTypeKind::kUInt32: uns(load_as<std::uint32_t>(p, swap)); break;
    case DTypeKind::kUInt64: uns(load_as<std::uint64_t>(p, swap)); break;
    case DTypeKind::kFloat16: flt(nd::float16_to_double(load_as<std::uint16_t>(p, swap))); break;
    case DTypeKind::kFloat32: flt(load_as<float>(p, swap)); break;
    case DTypeKind::kFloat64: flt(load_as<double>(p, swap)); break;
    default: break;
  }
  return n;
}

/// Store `n` as the integer type T, clamped to its range; true when it had to be clamped.
template <typename T>
bool store_int(std::uint8_t* out, const Number& n) {
  constexpr T lo = std::numeric_limits<T>::min();
  constexpr T hi = std::numeric_limits<T>::max();
  T v = 0;
  bool clamped = false;
  if (n.cls == Class::kSigned) {
    if (n.s < static_cast<std::int64_t>(lo)) { v = lo; clamped = true; }
    else if (n.s > 0 && static_cast<std::uint64_t>(n.s) > static_cast<std::uint64_t>(hi)) { v = hi; clamped = true; }
    else v = static_cast<T>(n.s);
  } else if (n.cls == Class::kUnsigned) {
    if (n.u > static_cast<std::uint64_t>(hi)) { v = hi; clamped = true; }
    else v = static_cast<T>(n.u);
  } else {
    const double t = std::trunc(n.f);
    const double lo_d = static_cast<double>(lo);
    // 2^bits (unsigned) or 2^(bits-1) (signed): exactly representable, unlike the maximum.
    const double hi_d = std::ldexp(1.0, std::numeric_limits<T>::digits);
    if (std::isnan(n.f)) { v = 0; clamped = true; }
    else if (t < lo_d) { v = lo; clamped = true; }
    else if (t >= hi_d) { v = hi; clamped = true; }
    else v = static_cast<T>(t);
  }
  std::memcpy(out, &v, sizeof v);
  return clamped;
}

double as_double(const Number& n) {
  return n.cls == Class::kSigned ? static_cast<double>(n.s)
         : n.cls == Class::kUnsigned ? static_cast<double>(n.u)
                                     : n.f;
}

/// Store `n` as a float type whose largest finite value is `max`; true when it became infinite.
bool to_float_range(double d, double max, double* out) {
  if (std::isfinite(d) && std::fabs(d) > max) {
    *out = std::copysign(std::numeric_limits<double>::infinity(), d);
    return true;
  }
  *out = d;
  return false;
}

bool store(std::uint8_t* out, DTypeKind k, const Number& n) {
  switch (k) {
    case DTypeKind::kInt8: return store_int<std::int8_t>(out, n);
    case DTypeKind::kInt16: return store_int<std::int16_t>(out, n);
    case DTypeKind::kInt32: return store_int<std::int32_t>(out, n);
    case DTypeKind::kInt64: return store_int<std::int64_t>(out, n);
    case DTypeKind::kUInt8: return store_int<std::uint8_t>(out, n);
    case DTypeKind::kUInt16: return store_int<std::uint16_t>(out, n);
    case DTypeKind::kUInt32: return store_int<std::uint32_t>(out, n);
    case DTypeKind::kUInt64: return store_int<std::uint64_t>(out, n);
    case DTypeKind::kFloat16: {
      double d = 0;
      const bool inf = to_float_range(as_double(n), 65504.0, &d);
      const std::uint16_t bits = nd::double_to_float16(d);
      std::memcpy(out, &bits, 2);
      return inf;
    }
    case DTypeKind::kFloat32: {
      double d = 0;
      const bool inf = to_float_range(as_double(n), std::numeric_limits<float>::max(), &d);
      const auto f = static_cast<float>(d);
      std::memcpy(out, &f, 4);
      return inf;
    }
    case DTypeKind::kFloat64: {
      const double d = as_double(n);
      std::memcpy(out, &d, 8);
      return false;
    }
    default:
      return false;
  }
}

/// Swap the bytes of one element of `dt` in place (per its swap plan).
void swap_element(std::uint8_t* p, const std::vector<nd::SwapRun>& plan) {
  for (const nd::SwapRun& run : plan) {
    for (std::uint64_t i = 0; i < run.count; ++i) {
      std::uint8_t* unit = p + run.offset + i * run.unit;
      std::reverse(unit, unit + run.unit);
    }
  }
}

void set_nd_error(asdf_ndarray_t* a, std::string message) {
  NdState* st = state_of(a);
  capi::set_error(st ? st->file : nullptr, ASDF_ERR_INVALID_ARGUMENT, std::move(message));
}

/// Read the tile of `tile` elements at `origin` of `a`, converted to `dst_t`, into `*dst`
/// (allocated when null).
asdf_ndarray_err_t read_tile(asdf_ndarray_t* a, const std::uint64_t* origin,
                             const std::uint64_t* tile, asdf_scalar_datatype_t dst_t, void** dst) {
  if (!a || !dst || (a->ndim > 0 && (!origin || !tile))) return ASDF_NDARRAY_ERR_INVAL;
  std::shared_ptr<const nd::NDArray> array;
  try {
    array = source_array(a);
  } catch (...) {
    capi::set_current_exception(state_of(a) ? state_of(a)->file : nullptr);
    return ASDF_NDARRAY_ERR_INVAL;
  }
  if (!array || array->ndim() != a->ndim) return ASDF_NDARRAY_ERR_INVAL;
  const DType& dtype = array->dtype();
  const DTypeKind src = dtype.kind();
  const DTypeKind want = dst_t == ASDF_DATATYPE_SOURCE ? src : kind_of(dst_t).value_or(src);
  if (dst_t != ASDF_DATATYPE_SOURCE && !kind_of(dst_t)) return ASDF_NDARRAY_ERR_INVAL;
  const bool identity = want == src;
  if (!identity && (!is_real(src) || !is_real(want) || want == DTypeKind::kBool8)) {
    set_nd_error(a, "cannot convert an array of " + dtype.to_string() + " to " +
                        std::string(asdf_scalar_datatype_to_string(dst_t)) +
                        ": only integer, floating-point and bool8 arrays convert");
    return ASDF_NDARRAY_ERR_CONVERSION;
  }
  const std::size_t ndim = array->ndim();
  const auto& shape = array->shape();
  std::uint64_t count = 1;
  for (std::size_t d = 0; d < ndim; ++d) {
    if (origin[d] > shape[d] || tile[d] > shape[d] - origin[d]) return ASDF_NDARRAY_ERR_OUT_OF_BOUNDS;
    count *= tile[d];
  }
  const std::uint64_t out_item = identity ? dtype.itemsize() : asdf_scalar_datatype_size(dst_t);

  // The stored bytes, and where each element of the tile lies in them.
  const asdfcore::io::Buffer* data = nullptr;
  try {
    data = &array->data();
  } catch (...) {
    capi::set_current_exception(state_of(a) ? state_of(a)->file : nullptr);
    return ASDF_NDARRAY_ERR_INVAL;
  }
  const ByteOrder stored = array->is_inline() ? nd::native_byte_order() : dtype.byte_order();
  const bool swap = stored != ByteOrder::kNotApplicable && stored != nd::native_byte_order();
  const auto& strides = array->strides();
  const std::uint64_t item = dtype.itemsize();
  // Check the tile's extent against the bytes once, so the loop below cannot read outside.
  if (count > 0) {
    std::int64_t lo = static_cast<std::int64_t>(array->offset()), hi = lo;
    for (std::size_t d = 0; d < ndim; ++d) {
      const std::int64_t a0 = static_cast<std::int64_t>(origin[d]) * strides[d];
      const std::int64_t a1 = static_cast<std::int64_t>(origin[d] + tile[d] - 1) * strides[d];
      lo += std::min(a0, a1);
      hi += std::max(a0, a1);
    }
    if (lo < 0 || static_cast<std::uint64_t>(hi) + item > data->size()) {
      set_nd_error(a, "the array's elements lie outside its block");
      return ASDF_NDARRAY_ERR_OUT_OF_BOUNDS;
    }
  }
  const bool allocated = *dst == nullptr;
  if (allocated) {
    *dst = std::malloc(count * out_item > 0 ? count * out_item : 1);
    if (!*dst) return ASDF_NDARRAY_ERR_OOM;
  }
  auto* out = static_cast<std::uint8_t*>(*dst);
  const std::vector<nd::SwapRun> plan = swap ? dtype.swap_plan(nd::native_byte_order())
                                             : std::vector<nd::SwapRun>{};
  bool overflow = false;
  // Elements that need neither conversion nor swapping and lie side by side along the last
  // dimension are copied a row at a time.
  const std::size_t last = ndim > 0 ? ndim - 1 : 0;
  const bool by_row = identity && !swap && ndim > 0 && strides[last] == static_cast<std::int64_t>(item);
  const std::uint64_t run = by_row ? tile[last] : 1;
  std::vector<std::uint64_t> index(ndim, 0);
  for (std::uint64_t i = 0; i < count; i += run) {
    std::int64_t at = static_cast<std::int64_t>(array->offset());
    for (std::size_t d = 0; d < ndim; ++d) at += static_cast<std::int64_t>(origin[d] + index[d]) * strides[d];
    const std::uint8_t* p = data->data() + at;
    if (by_row) {
      std::memcpy(out, p, run * item);
    } else if (identity) {
      std::memcpy(out, p, item);
      if (swap) swap_element(out, plan);
    } else {
      overflow |= store(out, want, load(p, src, swap));
    }
    out += run * out_item;
    for (std::size_t d = by_row ? last : ndim; d-- > 0;) {  // the next index in C order
      if (++index[d] < tile[d]) break;
      index[d] = 0;
    }
  }
  return overflow ? ASDF_NDARRAY_ERR_OVERFLOW : ASDF_NDARRAY_OK;
}

std::shared_ptr<const nd::NDArray> source_array(asdf_ndarray_t* a) {
  NdState* st = state_of(a);
  if (st && st->array) return st->array;
  if (!st || !st->buffer) return nullptr;
  // A buffer being built: read it as the array it will be written as.
  const auto kind = kind_of(a->datatype.type);
  if (!kind || !is_real(*kind)) return nullptr;
  const ByteOrder order = a->byteorder == ASDF_BYTEORDER_BIG      ? ByteOrder::kBig
                          : a->byteorder == ASDF_BYTEORDER_LITTLE ? ByteOrder::kLittle
                                                                  : nd::native_byte_order();
  asdfcore::Array::Impl impl;
  impl.dtype = DType::numeric(*kind, order);
  impl.shape.assign(a->shape, a->shape + a->ndim);
  impl.storage = std::make_shared<asdfcore::Storage>();
  impl.storage->bytes = asdfcore::io::Buffer(st->buffer, *st->buffer);
  return std::make_shared<nd::NDArray>(asdfcore::array_as_ndarray(impl));
}

/// Make the array to write for `a`.
asdfcore::Array array_to_write(const asdf_ndarray_t* a) {
  NdState* st = state_of(a);
  if (st && st->array) {
    asdfcore::Array out = asdfcore::Array::from_ndarray(st->array);
    if (!st->compression.empty()) out.compression(st->compression);
    return out;
  }
  if (!st || !st->buffer) {
    throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                          "the ndarray has no data: fill it through asdf_ndarray_data_alloc or "
                          "asdf_ndarray_data_copy first");
  }
  const auto kind = kind_of(a->datatype.type);
  const ByteOrder order = a->byteorder == ASDF_BYTEORDER_BIG      ? ByteOrder::kBig
                          : a->byteorder == ASDF_BYTEORDER_LITTLE ? ByteOrder::kLittle
                                                                  : nd::native_byte_order();
  DType dtype;
  if (kind == DTypeKind::kAscii) {
    dtype = DType::ascii(a->datatype.size);
  } else if (kind == DTypeKind::kUcs4) {
    dtype = DType::ucs4(a->datatype.size / 4, order);
  } else if (kind && *kind != DTypeKind::kStructured) {
    dtype = DType::numeric(*kind, order);
  } else {
    throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                          std::string("cannot write an ndarray of datatype ") +
                              (asdf_scalar_datatype_to_string(a->datatype.type)
                                   ? asdf_scalar_datatype_to_string(a->datatype.type)
                                   : "unknown") +
                              " through the C API (records are not supported)");
  }
  std::vector<std::uint64_t> shape(a->shape, a->shape + a->ndim);
  asdfcore::Array out = asdfcore::Array::from_buffer(
      dtype, std::move(shape), asdfcore::io::Buffer(st->buffer, *st->buffer));
  if (!st->compression.empty()) out.compression(st->compression);
  return out;
}

}  // namespace

extern "C" {

asdf_scalar_datatype_t asdf_scalar_datatype_from_string(const char* dtype) {
  if (!dtype) return ASDF_DATATYPE_UNKNOWN;
  for (int t = ASDF_DATATYPE_INT8; t <= ASDF_DATATYPE_UCS4; ++t) {
    const auto type = static_cast<asdf_scalar_datatype_t>(t);
    if (std::strcmp(asdf_scalar_datatype_to_string(type), dtype) == 0) return type;
  }
  return ASDF_DATATYPE_UNKNOWN;
}

const char* asdf_scalar_datatype_to_string(asdf_scalar_datatype_t datatype) {
  switch (datatype) {
    case ASDF_DATATYPE_INT8: return "int8";
    case ASDF_DATATYPE_UINT8: return "uint8";
    case ASDF_DATATYPE_INT16: return "int16";
    case ASDF_DATATYPE_UINT16: return "uint16";
    case ASDF_DATATYPE_INT32: return "int32";
    case ASDF_DATATYPE_UINT32: return "uint32";
    case ASDF_DATATYPE_INT64: return "int64";
    case ASDF_DATATYPE_UINT64: return "uint64";
    case ASDF_DATATYPE_FLOAT16: return "float16";
    case ASDF_DATATYPE_FLOAT32: return "float32";
    case ASDF_DATATYPE_FLOAT64: return "float64";
    case ASDF_DATATYPE_COMPLEX64: return "complex64";
    case ASDF_DATATYPE_COMPLEX128: return "complex128";
    case ASDF_DATATYPE_BOOL8: return "bool8";
    case ASDF_DATATYPE_ASCII: return "ascii";
    case ASDF_DATATYPE_UCS4: return "ucs4";
    case ASDF_DATATYPE_STRUCTURED: return "structured";
    default: return nullptr;
  }
}

uint64_t asdf_datatype_size(asdf_datatype_t* datatype) {
  if (!datatype) return 0;
  if (datatype->size == 0) datatype->size = asdf_scalar_datatype_size(datatype->type);
  return datatype->size;
}

bool asdf_is_ndarray(asdf_file_t* file, const char* path) {
  return capi::at_path(file, path, false, false, asdf_value_is_ndarray);
}

bool asdf_value_is_ndarray(asdf_value_t* value) {
  return value && capi::is_ndarray_node(value->file, value->node);
}

asdf_value_err_t asdf_value_as_ndarray(asdf_value_t* value, asdf_ndarray_t** out) {
  if (!value) return ASDF_VALUE_ERR_UNKNOWN;
  if (!asdf_value_is_ndarray(value)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  return capi::guarded(value->file, ASDF_VALUE_ERR_PARSE_FAILURE, [&] {
    asdf_ndarray_t* a = make_ndarray(value->file, array_of(value), value->node.get());
    if (out) *out = a; else asdf_ndarray_destroy(a);
    return ASDF_VALUE_OK;
  });
}

asdf_value_err_t asdf_get_ndarray(asdf_file_t* file, const char* path, asdf_ndarray_t** out) {
  return capi::at_path(file, path, ASDF_VALUE_ERR_NOT_FOUND, ASDF_VALUE_ERR_UNKNOWN,
                       [&](asdf_value* v) { return asdf_value_as_ndarray(v, out); });
}

asdf_value_t* asdf_value_of_ndarray(asdf_file_t* file, const asdf_ndarray_t* ndarray) {
  if (!file || !ndarray) return nullptr;
  return capi::guarded<asdf_value_t*>(file, nullptr, [&] {
    NodePtr node = file->arrays->add(array_to_write(ndarray));
    return capi::make_floating(file, std::move(node));
  });
}

asdf_value_err_t asdf_set_ndarray(asdf_file_t* file, const char* path, const asdf_ndarray_t* ndarray) {
  if (!file || !path || !ndarray) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(file, ASDF_VALUE_ERR_EMIT_FAILURE, [&] {
    return capi::set_at(file, path, file->arrays->add(array_to_write(ndarray)));
  });
}

void asdf_ndarray_deinit(asdf_ndarray_t* ndarray) {
  if (!ndarray) return;
  delete state_of(ndarray);
  ndarray->_reserved = nullptr;
}

void asdf_ndarray_destroy(asdf_ndarray_t* ndarray) {
  if (!ndarray) return;
  asdf_ndarray_deinit(ndarray);
  delete ndarray;
}

const void* asdf_ndarray_data(asdf_ndarray_t* ndarray, size_t* size) {
  if (!ndarray) return nullptr;
  NdState* st = state_of(ndarray);
  if (st && st->buffer && !st->array) {
    if (size) *size = st->buffer->size();
    return st->buffer->data();
  }
  if (!st || !st->array) return nullptr;
  return capi::guarded<const void*>(st->file, nullptr, [&]() -> const void* {
    if (!st->stored) {
      if (auto view = st->array->contiguous_view()) {
        st->stored = *view;
      } else {
        st->stored_copy = st->array->to_c_order(ByteOrder::kNotApplicable);
        st->stored = asdfcore::io::Buffer(nullptr, st->stored_copy);
      }
    }
    if (size) *size = st->stored->size();
    return st->stored->data();
  });
}

uint64_t asdf_ndarray_size(const asdf_ndarray_t* ndarray) {
  if (!ndarray || (ndarray->ndim > 0 && !ndarray->shape)) return 0;
  uint64_t n = 1;
  for (uint32_t d = 0; d < ndarray->ndim; ++d) n *= ndarray->shape[d];
  return n;
}

uint64_t asdf_ndarray_nbytes(const asdf_ndarray_t* ndarray) {
  if (!ndarray) return 0;
  const uint64_t item = ndarray->datatype.size ? ndarray->datatype.size
                                               : asdf_scalar_datatype_size(ndarray->datatype.type);
  return asdf_ndarray_size(ndarray) * item;
}

void* asdf_ndarray_data_alloc(asdf_ndarray_t* ndarray) {
  if (!ndarray) return nullptr;
  try {
    NdState& st = ensure_state(ndarray);
    if (st.array) return nullptr;  // an array read from a file is not rewritten in place
    const uint64_t n = asdf_ndarray_nbytes(ndarray);
    if (n == 0) return nullptr;
    if (!st.buffer) st.buffer = std::make_shared<std::vector<std::uint8_t>>(n, 0);
    return st.buffer->data();
  } catch (...) {
    return nullptr;
  }
}

asdf_ndarray_err_t asdf_ndarray_data_copy(asdf_ndarray_t* ndarray, const void* src) {
  if (!ndarray || !src) return ASDF_NDARRAY_ERR_INVAL;
  const uint64_t n = asdf_ndarray_nbytes(ndarray);
  if (n == 0) return ASDF_NDARRAY_OK;
  void* p = asdf_ndarray_data_alloc(ndarray);
  if (!p) return ASDF_NDARRAY_ERR_OOM;
  std::memcpy(p, src, n);
  return ASDF_NDARRAY_OK;
}

void asdf_ndarray_data_dealloc(asdf_ndarray_t* ndarray) {
  // The file keeps its own reference to a buffer it was given, so releasing ours is safe
  // before or after asdf_close.
  if (!ndarray || !state_of(ndarray) || state_of(ndarray)->array) return;
  asdf_ndarray_deinit(ndarray);
}

int asdf_ndarray_compression_set(asdf_ndarray_t* ndarray, const char* compression) {
  if (!ndarray) return -1;
  const std::string codec = compression ? compression : "";
  if (!codec.empty() && codec != "zlib" && codec != "bzp2" && codec != "lz4") return -1;
  try {
    ensure_state(ndarray).compression = codec;
    return 0;
  } catch (...) {
    return -1;
  }
}

asdf_array_storage_t asdf_ndarray_storage(asdf_ndarray_t* ndarray) {
  if (!ndarray || !state_of(ndarray)) return ASDF_ARRAY_STORAGE_DEFAULT;
  const NdState* st = state_of(ndarray);
  if (st->array) return st->array->is_inline() ? ASDF_ARRAY_STORAGE_INLINE : ASDF_ARRAY_STORAGE_INTERNAL;
  return st->storage;
}

void asdf_ndarray_storage_set(asdf_ndarray_t* ndarray, asdf_array_storage_t storage) {
  if (!ndarray || storage == ASDF_ARRAY_STORAGE_EXTERNAL) return;
  try {
    ensure_state(ndarray).storage = storage;
  } catch (...) {
  }
}

asdf_ndarray_err_t asdf_ndarray_read_all(asdf_ndarray_t* ndarray, asdf_scalar_datatype_t dst_t, void** dst) {
  if (!ndarray) return ASDF_NDARRAY_ERR_INVAL;
  const std::vector<std::uint64_t> origin(ndarray->ndim, 0);
  return read_tile(ndarray, origin.data(), ndarray->shape, dst_t, dst);
}

asdf_ndarray_err_t asdf_ndarray_read_tile_ndim(asdf_ndarray_t* ndarray, const uint64_t* origin,
                                               const uint64_t* shape, asdf_scalar_datatype_t dst_t,
                                               void** dst) {
  if (!origin || !shape) return ASDF_NDARRAY_ERR_INVAL;
  return read_tile(ndarray, origin, shape, dst_t, dst);
}

asdf_ndarray_err_t asdf_ndarray_read_tile_2d(asdf_ndarray_t* ndarray, uint64_t x, uint64_t y,
                                             uint64_t width, uint64_t height,
                                             const uint64_t* plane_origin,
                                             asdf_scalar_datatype_t dst_t, void** dst) {
  if (!ndarray) return ASDF_NDARRAY_ERR_INVAL;
  if (ndarray->ndim < 2) return ASDF_NDARRAY_ERR_OUT_OF_BOUNDS;
  const std::size_t n = ndarray->ndim;
  std::vector<std::uint64_t> origin(n, 0), shape(n, 1);
  for (std::size_t d = 0; d + 2 < n; ++d) origin[d] = plane_origin ? plane_origin[d] : 0;
  origin[n - 2] = y;
  origin[n - 1] = x;
  shape[n - 2] = height;
  shape[n - 1] = width;
  return read_tile(ndarray, origin.data(), shape.data(), dst_t, dst);
}

asdf_ndarray_err_t asdf_ndarray_read_at(asdf_ndarray_t* ndarray, const uint64_t* indices,
                                        asdf_scalar_datatype_t dst_t, void* dst) {
  if (!ndarray || !dst || (ndarray->ndim > 0 && !indices)) return ASDF_NDARRAY_ERR_INVAL;
  const std::vector<std::uint64_t> ones(ndarray->ndim, 1);
  void* out = dst;
  return read_tile(ndarray, indices, ones.data(), dst_t, &out);
}

#define FITSASDF_READ_AT(name, ctype, datatype)                                              \
  ctype asdf_ndarray_read_##name##_at(asdf_ndarray_t* ndarray, const uint64_t* indices,      \
                                      asdf_ndarray_err_t* err) {                             \
    ctype value = 0;                                                                         \
    asdf_ndarray_err_t e = asdf_ndarray_read_at(ndarray, indices, datatype, &value);         \
    if (e != ASDF_NDARRAY_OK && e != ASDF_NDARRAY_ERR_OVERFLOW) value = 0;                   \
    if (err) *err = e;                                                                       \
    return value;                                                                            \
  }
FITSASDF_READ_AT(int8, int8_t, ASDF_DATATYPE_INT8)
FITSASDF_READ_AT(uint8, uint8_t, ASDF_DATATYPE_UINT8)
FITSASDF_READ_AT(int16, int16_t, ASDF_DATATYPE_INT16)
FITSASDF_READ_AT(uint16, uint16_t, ASDF_DATATYPE_UINT16)
FITSASDF_READ_AT(int32, int32_t, ASDF_DATATYPE_INT32)
FITSASDF_READ_AT(uint32, uint32_t, ASDF_DATATYPE_UINT32)
FITSASDF_READ_AT(int64, int64_t, ASDF_DATATYPE_INT64)
FITSASDF_READ_AT(uint64, uint64_t, ASDF_DATATYPE_UINT64)
FITSASDF_READ_AT(float32, float, ASDF_DATATYPE_FLOAT32)
FITSASDF_READ_AT(float64, double, ASDF_DATATYPE_FLOAT64)
#undef FITSASDF_READ_AT

}  // extern "C"
