#pragma once
// Raising fitsasdf's Python exceptions.
#include "asdfcore/error.h"
#include "bindings.h"

namespace fitsasdf::python {

/// Set the Python error for `e`: the class of `fitsasdf._errors` for its category, with its text,
/// message and place. The caller then returns to Python (or throws `py::error_already_set`).
void raise_error(const asdfcore::Error& e);

}  // namespace fitsasdf::python
