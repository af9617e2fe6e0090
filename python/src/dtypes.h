#pragma once
// Element types between numpy and ASDF: `numpy.dtype` <-> `asdfcore::ndarray::DType`.
#include <string>

#include "asdfcore/ndarray/dtype.h"
#include "bindings.h"

namespace fitsasdf::python {

/// Return the numpy dtype of `dtype`: numbers and strings with their byte order ('>f4', '<U3',
/// '|S8'), records as a packed dtype of named fields (sub-array shapes kept).
py::object numpy_dtype(const asdfcore::ndarray::DType& dtype);

/// Return the ASDF type of the numpy dtype `dtype`. A record must be packed (no gaps, fields
/// in offset order; numpy.lib.recfunctions.repack_fields makes one). Throws `asdfcore::Error`
/// (invalid-argument) naming `where` for a type ASDF cannot hold (objects, datetime64, float128,
/// void without fields, a record with gaps).
asdfcore::ndarray::DType asdf_dtype(const py::handle& dtype, const std::string& where);

}  // namespace fitsasdf::python
