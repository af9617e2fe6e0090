#pragma once
// The parts of the extension module `fitsasdf._fitsasdf`, each adding its functions and classes
// to the module (module.cc calls them in order).
#include <pybind11/pybind11.h>

namespace fitsasdf::python {

namespace py = pybind11;

/// Add the translation of `asdfcore::Error` into the exceptions of `fitsasdf._errors`.
void bind_errors(py::module_& m);
/// Add `convert`, `verify` and `diff`.
void bind_convert(py::module_& m);
/// Add the `File` class (an opened ASDF file: tree as Python objects, arrays as numpy views).
void bind_read(py::module_& m);
/// Add `write` (a tree of Python objects and numpy arrays to an ASDF file).
void bind_write(py::module_& m);
/// Add `update` (an ASDF file changed where it is).
void bind_update(py::module_& m);
/// Add `batch`.
void bind_batch(py::module_& m);

}  // namespace fitsasdf::python
