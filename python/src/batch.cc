// batch: many inputs converted side by side in this process, with `fitsasdf batch`'s engine
// (cli/batch: inputs listed and named as the command does, outputs that are complete already
// skipped, the same JSON-lines report). Ctrl-C cancels the conversions in progress (which
// leave nothing behind), writes the report of what was done, and raises KeyboardInterrupt.
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "asdfcore/error.h"
#include "batch/batch_convert.h"
#include "batch/batch_inputs.h"
#include "batch/batch_plan.h"
#include "batch/batch_report.h"
#include "batch/batch_temporaries.h"
#include "bindings.h"
#include "call.h"
#include "options.h"

namespace fitsasdf::python {
namespace {

namespace fs = std::filesystem;
using namespace fitsasdf::cli::batch;

/// batch(inputs, output_dir, **options) -> JSON of {"items": [lines], "summary": line}
std::string batch(const std::vector<py::object>& input_args, const py::object& output_arg,
                  py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  ConvertSettings settings;
  settings.to_asdf = to_asdf_options(kw);
  settings.to_fits = to_fits_options(kw);
  settings.verify = kw.get<bool>("verify", false);
  unsigned jobs = kw.get<unsigned>("jobs", 0);
  const py::object report_arg = kw.object("report");
  const py::object progress = kw.object("progress");
  kw.check_all_used("batch");
  std::vector<std::string> roots;
  for (const auto& a : input_args) roots.push_back(path_arg(a));
  const fs::path outdir = fs::path(path_arg(output_arg)).lexically_normal();
  const fs::path report_path = report_arg.is_none() ? fs::path() : fs::path(path_arg(report_arg));

  // One flag cancels the conversions in progress in both directions (copies share it).
  settings.to_fits.control.cancel = settings.to_asdf.control.cancel;
  // The batch's own control: its progress reports count inputs (stage "batch"), and its
  // cancellation is the conversions'.
  RunControl control;
  control.cancel = settings.to_asdf.control.cancel;
  const CancelToken cancel = control.cancel;
  std::string result;
  run_call(control, progress, [&] {
    fs::create_directories(outdir);
    probe_output_folder(outdir);
    WorkFolder::remove_abandoned(outdir, kWorkPrefix);
    const WorkFolder work(outdir, kWorkPrefix);
    InputWalker walker(roots, {}, outdir, std::nullopt);
    Plan plan = plan_batch(walker, outdir, report_path, work.path(), !report_path.empty());
    const std::uint64_t count = plan.count;
    ReportFile report(report_path, work.path(), std::move(plan.by_name));
    PlanReader inputs(plan, report.earlier_lines());
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::clamp<std::size_t>(jobs, 1, std::max<std::uint64_t>(1, count)));
    if (settings.to_asdf.threads == 0) {
      settings.to_asdf.threads = std::max(1u, std::thread::hardware_concurrency() / jobs);
    }
    // The call returns every line: held here, as Python gets them.
    std::vector<std::string> lines(count);
    std::size_t finished = 0;
    std::mutex mutex;
    std::string fatal;
    auto worker = [&] {
      std::uint64_t i = 0;
      Item item;
      std::optional<Line> earlier;
      while (!cancel.cancelled()) {
        try {
          if (!inputs.next(i, item, earlier)) break;
        } catch (const asdfcore::Error& e) {
          const std::lock_guard lock(mutex);
          if (fatal.empty()) fatal = std::string("cannot read the list of inputs back: ") + e.what();
          cancel.cancel();
          break;
        }
        const Outcome outcome = convert_one(item, settings, earlier);
        const std::lock_guard lock(mutex);
        if (!outcome.fatal.empty()) {
          if (fatal.empty()) fatal = outcome.fatal;
          cancel.cancel();
          break;
        }
        // A conversion stopped by Ctrl-C is not done; it is left out, as a later run does it.
        if (cancel.cancelled() && outcome.line.value("status", "") == "failed") break;
        lines[i] = outcome.line.dump();
        if (const int err = report.append(i, outcome.line)) {
          fatal = "cannot write the report " + report_path.string() + ": " +
                  std::generic_category().message(err);
          cancel.cancel();
        }
        ++finished;
        if (control.progress) {
          try {
            control.progress(Progress{.stage = "batch", .done = finished, .total = count});
          } catch (...) {
            // The callable raised: run_call raises its exception once the batch has stopped.
            cancel.cancel();
          }
        }
      }
    };
    {
      std::vector<std::jthread> pool;
      for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
      worker();
    }
    Line extra;
    extra["stopped"] = !fatal.empty() ? Line("fatal") : cancel.cancelled() ? Line("interrupted") : Line();
    extra["message"] = fatal;
    const Line summary = report.finish(count, extra);
    if (!fatal.empty()) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo,
                            "the batch stopped: " + fatal +
                                "; fix this and run the same call again to resume");
    }
    std::string out = "{\"items\":[";
    bool first = true;
    for (const auto& line : lines) {
      if (line.empty()) continue;
      out += (first ? "" : ",") + line;
      first = false;
    }
    out += "],\"summary\":" + summary.dump() + "}";
    result = std::move(out);
  });
  return result;
}

}  // namespace

void bind_batch(py::module_& m) {
  m.def("batch", &batch, py::arg("inputs"), py::arg("output_dir"),
        "Convert many files (see fitsasdf.batch); return the report as JSON.");
}

}  // namespace fitsasdf::python
