#include "dtypes.h"

#include <cstdint>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::python {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::Field;

/// Return the numpy description of a record's fields: [(name, type, shape), ...].
py::list record_descr(const DType& dtype) {
  py::list fields;
  const auto list = dtype.fields();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field& f = list[i];
    py::tuple shape(f.shape.size());
    for (std::size_t d = 0; d < f.shape.size(); ++d) shape[d] = f.shape[d];
    fields.append(py::make_tuple(asdfcore::ndarray::effective_field_name(dtype, i),
                                 numpy_dtype(f.dtype), shape));
  }
  return fields;
}

ByteOrder order_of(char byteorder) {
  switch (byteorder) {
    case '<':
      return ByteOrder::kLittle;
    case '>':
      return ByteOrder::kBig;
    case '=':
      return asdfcore::ndarray::native_byte_order();
    default:
      return ByteOrder::kNotApplicable;
  }
}

[[noreturn]] void unsupported(const std::string& where, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument,
              where + ": numpy dtype " + what + " has no ASDF datatype", {});
}

}  // namespace

py::object numpy_dtype(const DType& dtype) {
  const py::module_ np = py::module_::import("numpy");
  if (dtype.is_structured()) return np.attr("dtype")(record_descr(dtype));
  return np.attr("dtype")(dtype.numpy_str());
}

DType asdf_dtype(const py::handle& dtype, const std::string& where) {
  const auto kind = py::cast<std::string>(dtype.attr("kind"));
  const auto itemsize = py::cast<std::uint64_t>(dtype.attr("itemsize"));
  const auto order = order_of(py::cast<std::string>(dtype.attr("byteorder"))[0]);
  const auto text = py::cast<std::string>(py::str(dtype));
  const char k = kind.empty() ? '?' : kind[0];
  auto numeric = [&](std::initializer_list<std::pair<std::uint64_t, DTypeKind>> sizes) {
    for (const auto& [size, dk] : sizes) {
      if (size == itemsize) return DType::numeric(dk, order);
    }
    unsupported(where, text);
  };
  switch (k) {
    case 'b':
      return DType::numeric(DTypeKind::kBool8);
    case 'i':
      return numeric({{1, DTypeKind::kInt8}, {2, DTypeKind::kInt16}, {4, DTypeKind::kInt32},
                      {8, DTypeKind::kInt64}});
    case 'u':
      return numeric({{1, DTypeKind::kUInt8}, {2, DTypeKind::kUInt16}, {4, DTypeKind::kUInt32},
                      {8, DTypeKind::kUInt64}});
    case 'f':
      return numeric({{2, DTypeKind::kFloat16}, {4, DTypeKind::kFloat32}, {8, DTypeKind::kFloat64}});
    case 'c':
      return numeric({{8, DTypeKind::kComplex64}, {16, DTypeKind::kComplex128}});
    case 'S':
      return DType::ascii(itemsize);
    case 'U':
      return DType::ucs4(itemsize / 4, order);
    case 'V':
      break;
    default:
      unsupported(where, text);
  }
  const py::object names = dtype.attr("names");
  if (names.is_none()) unsupported(where, text + " (void without fields)");
  std::vector<Field> fields;
  std::uint64_t expected_offset = 0;
  for (const auto& name : names) {
    const py::tuple entry = dtype.attr("fields")[name];
    const py::object sub = entry[0];
    const auto offset = py::cast<std::uint64_t>(entry[1]);
    if (offset != expected_offset) {
      throw Error(ErrorCode::kInvalidArgument,
                  where + ": the record dtype " + text +
                      " has gaps or fields out of order, which ASDF cannot describe; pack it "
                      "first (numpy.lib.recfunctions.repack_fields)");
    }
    Field f;
    f.name = py::cast<std::string>(name);
    const py::object base = sub.attr("base");
    f.dtype = asdf_dtype(base, where + "/" + f.name);
    for (const auto& d : sub.attr("shape")) f.shape.push_back(py::cast<std::uint64_t>(d));
    expected_offset += py::cast<std::uint64_t>(sub.attr("itemsize"));
    fields.push_back(std::move(f));
  }
  if (expected_offset != itemsize) {
    throw Error(ErrorCode::kInvalidArgument,
                where + ": the record dtype " + text +
                    " has padding, which ASDF cannot describe; pack it first "
                    "(numpy.lib.recfunctions.repack_fields)");
  }
  return DType::structured(std::move(fields));
}

}  // namespace fitsasdf::python
