#pragma once
// Running a library call from Python: on a thread of its own with the GIL released, progress
// reports handed to a Python callable, and Ctrl-C (KeyboardInterrupt) turned into the call's
// cancellation, so that it stops at its next check and leaves no output behind.
#include <functional>
#include <string>

#include "bindings.h"
#include "fitsasdf/progress.h"

namespace fitsasdf::python {

/// Return the file system path `path` names (a str, bytes or os.PathLike object).
std::string path_arg(const py::handle& path);

/// Run `body` on a new thread while this one waits with the GIL released, checking for Python
/// signals every 50 ms. `control` is the call's progress and cancellation: its progress
/// callback is set to call `progress` (a callable taking a `fitsasdf.Progress`, or None) with
/// the GIL held; an exception it raises stops the call and is raised here. On KeyboardInterrupt
/// (or any exception a signal handler raises) the call is cancelled, waited for, and the
/// exception raised. Other exceptions of `body` propagate (asdfcore::Error becomes
/// fitsasdf.Error).
void run_call(RunControl& control, const py::object& progress, const std::function<void()>& body);

/// Run `body` with the GIL released (for calls that cannot be cancelled: reading, writing).
template <typename F>
decltype(auto) without_gil(F&& body) {
  py::gil_scoped_release release;
  return body();
}

}  // namespace fitsasdf::python
