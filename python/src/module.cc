// The extension module `fitsasdf._fitsasdf`: the library's calls for Python. The package
// `fitsasdf` (python/fitsasdf/__init__.py) wraps it with keyword arguments, docstrings and the
// report and exception classes.
#include "bindings.h"

#include "asdfcore/version.h"

PYBIND11_MODULE(_fitsasdf, m) {
  using namespace fitsasdf::python;
  m.doc() = "fitsasdf's library for Python (use the package fitsasdf, not this module)";
  m.attr("__version__") = asdfcore::kVersion;
  bind_errors(m);
  bind_convert(m);
  bind_read(m);
  bind_write(m);
  bind_update(m);
  bind_batch(m);
}
