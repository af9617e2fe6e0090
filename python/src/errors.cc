// asdfcore::Error -> fitsasdf.Error and its subclasses (python/fitsasdf/_errors.py), with the
// library's category, message and place.
#include "errors.h"

#include <string>

#include "asdfcore/error.h"

namespace fitsasdf::python {

void raise_error(const asdfcore::Error& e) {
  const py::module_ errors = py::module_::import("fitsasdf._errors");
  const py::object cls = errors.attr("ERROR_CLASSES")[py::str(std::string(
      asdfcore::error_code_name(e.code())))];
  const asdfcore::ErrorContext& c = e.context();
  py::dict kw;
  kw["message"] = e.message();
  kw["file"] = c.file;
  kw["offset"] = c.offset ? py::object(py::int_(*c.offset)) : py::object(py::none());
  kw["block"] = c.block ? py::object(py::int_(*c.block)) : py::object(py::none());
  kw["tree_path"] = c.tree_path;
  kw["hdu"] = c.hdu ? py::object(py::int_(*c.hdu)) : py::object(py::none());
  const py::object exc = cls(e.what(), **kw);
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

void bind_errors(py::module_& /*m*/) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const asdfcore::Error& e) {
      raise_error(e);
    }
  });
}

}  // namespace fitsasdf::python
