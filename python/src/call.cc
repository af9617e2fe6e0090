#include "call.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "asdfcore/error.h"

namespace fitsasdf::python {

std::string path_arg(const py::handle& path) {
  const py::module_ os = py::module_::import("os");
  return py::cast<std::string>(os.attr("fsdecode")(os.attr("fspath")(path)));
}

namespace {

/// Thrown through the library by the progress callback when the Python callable raised: the
/// library passes it on unchanged and writes nothing.
struct CallbackRaised {};

}  // namespace

void run_call(RunControl& control, const py::object& progress, const std::function<void()>& body) {
  // What the Python side left to raise: the callback's exception or the signal's.
  std::optional<py::error_already_set> callback_error;
  std::optional<py::error_already_set> signal_error;
  py::object make;  // fitsasdf.Progress, alive while the call runs
  if (!progress.is_none()) {
    make = py::module_::import("fitsasdf._records").attr("Progress");
    control.progress = [&](const Progress& p) {
      py::gil_scoped_acquire gil;
      try {
        py::dict fields;
        fields["stage"] = std::string(p.stage);
        fields["hdu"] = p.hdu;
        fields["hdu_count"] = p.hdu_count;
        fields["done"] = p.done;
        fields["total"] = p.total;
        progress(make(fields));
      } catch (py::error_already_set& e) {
        callback_error.emplace(std::move(e));
        throw CallbackRaised{};
      }
    };
  }

  std::exception_ptr failure;
  {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        body();
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      done = true;
      finished.notify_one();
    });
    std::unique_lock lock(mutex);
    while (!done) {
      if (finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
      if (signal_error) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          signal_error.emplace();  // takes the exception the handler raised
          control.cancel.cancel();
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  control.progress = nullptr;  // it refers to this frame
  if (signal_error) throw std::move(*signal_error);
  if (callback_error) throw std::move(*callback_error);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace fitsasdf::python
