// `fitsasdf batch INPUT... -o OUTDIR`: convert many files (folders recursed, lists read) with a
// pool of worker threads, while a monitor thread shows progress and receives Ctrl-C and
// SIGTERM. Each file's direction comes from its content, as in `convert`; a file that fails is
// recorded and the batch goes on; a fatal condition (disk full, output folder not writable) or
// a signal stops it cleanly; outputs that already exist and are complete are skipped, so
// running the same command again resumes; --shard K/N keeps a stable 1/N of the inputs for
// cluster job arrays; --merge-reports combines the shards' reports. The pieces live in batch/.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "asdfcore/error.h"
#include "batch/batch_convert.h"
#include "batch/batch_inputs.h"
#include "batch/batch_plan.h"
#include "batch/batch_progress.h"
#include "batch/batch_report.h"
#include "batch/batch_stop.h"
#include "batch/batch_temporaries.h"
#include "batch/html_report.h"
#include "batch/report_summary.h"
#include "command_line.h"
#include "commands.h"
#include "conversion_options.h"
#include "exit_codes.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fitsasdf::cli {

int run_batch(const std::vector<std::string>& args) {
  using namespace batch;
  po::options_description opts(
      "fitsasdf batch INPUT... -o OUTDIR [options]\n"
      "fitsasdf batch --merge-reports OUT.jsonl REPORT.jsonl...\n"
      "fitsasdf batch --summary [--json] REPORT.jsonl...\n"
      "Convert files and folders (recursed): FITS to ASDF, ASDF to FITS, by content. Outputs\n"
      "mirror the inputs' paths under OUTDIR; complete outputs are skipped (resume).\n"
      "Exit status: 0 all ok, 1 some failed, 3 stopped by a fatal I/O condition (disk full,\n"
      "output folder not writable), 130 interrupted (SIGINT/SIGTERM); re-run to resume");
  opts.add_options()("help,h", "show this help")("output,o", po::value<std::string>(),
                                                 "the folder to write the outputs into")(
      "from", po::value<std::vector<std::string>>(),
      "read input paths from this file, one a line (- for standard input)")(
      "jobs,j", po::value<unsigned>()->default_value(0), "worker threads (0: the number of cores)")(
      "report", po::value<std::string>(),
      "one JSON line per input (appended as each finishes), then a summary line")(
      "shard", po::value<std::string>(), "K/N: convert only the inputs of shard K of N")(
      "verify", "verify each output by a round trip; a difference fails the file")(
      "merge-reports", po::value<std::string>(),
      "write to this file the reports given as inputs, merged (one line per input)")(
      "summary", "print what the reports given as inputs say: counts by status and error "
      "category, bytes, throughput, the slowest and largest inputs (exit 1 when some failed)")(
      "json", "with --summary: print one JSON object")(
      "html", po::value<std::string>(),
      "also write the report as a self-contained HTML page (needs --report): at the end, and "
      "refreshed every --html-interval seconds while the batch runs")(
      "thumbnails", po::value<std::size_t>()->default_value(0),
      "with --html: embed previews of this many outputs chosen at random")(
      "html-interval", po::value<double>()->default_value(60.0),
      "seconds between refreshes of the --html page during the run")(
      "progress-interval", po::value<double>()->default_value(10.0),
      "seconds between progress lines when stderr is not a terminal")(
      "quiet,q", "print no progress, failures or summary on stderr")(
      "inputs", po::value<std::vector<std::string>>(), "files and folders to convert");
  add_conversion_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "inputs", vm, -1)) return kExitOk;
  const bool quiet = vm.count("quiet") > 0;
  if (vm.count("merge-reports")) {
    const auto reports = values_of(vm, "inputs");
    if (reports.empty()) throw po::error("--merge-reports needs the reports to merge");
    return merge_reports(vm["merge-reports"].as<std::string>(), reports, quiet);
  }
  if (vm.count("summary")) {
    const auto reports = values_of(vm, "inputs");
    if (reports.empty()) throw po::error("--summary needs the reports to read");
    return print_summary(std::vector<fs::path>(reports.begin(), reports.end()),
                         vm.count("json") > 0, std::cout);
  }
  if (!vm.count("output")) throw po::error("fitsasdf batch needs an output folder (-o OUTDIR)");
  const auto roots = values_of(vm, "inputs");
  const auto lists = values_of(vm, "from");
  // A --from list is read as the inputs are listed; one that cannot be opened stops the batch
  // before anything else.
  for (const auto& list : lists) {
    if (list != "-" && !std::ifstream(list)) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the list of inputs",
                            asdfcore::ErrorContext{.file = list});
    }
  }
  if (roots.empty() && lists.empty()) {
    throw po::error("fitsasdf batch needs inputs (files, folders or --from)");
  }
  ConvertSettings settings;
  settings.to_asdf = fits_to_asdf_options(vm);
  settings.to_fits = asdf_to_fits_options(vm);
  settings.verify = vm.count("verify") > 0;
  std::optional<Shard> shard;
  if (vm.count("shard")) shard = parse_shard(vm["shard"].as<std::string>());
  const double interval = vm["progress-interval"].as<double>();
  if (!(interval > 0)) throw po::error("--progress-interval takes a number of seconds > 0");
  const fs::path report_path = vm.count("report") ? vm["report"].as<std::string>() : "";
  const fs::path html_path = vm.count("html") ? vm["html"].as<std::string>() : "";
  if (!html_path.empty() && report_path.empty()) {
    throw po::error("--html needs --report: the page is made from the report");
  }
  const double html_interval = vm["html-interval"].as<double>();
  if (!(html_interval > 0)) throw po::error("--html-interval takes a number of seconds > 0");
  HtmlReportOptions html_options;
  html_options.thumbnails = vm["thumbnails"].as<std::size_t>();

  const fs::path outdir = fs::path(vm["output"].as<std::string>()).lexically_normal();
  try {
    probe_output_folder(outdir);
  } catch (const asdfcore::Error& e) {
    std::cerr << "fitsasdf batch: stopped before the first file: " << e.what()
              << "; make the output folder writable and run the same command again\n";
    return kExitIo;
  }
  // The run's work files (the inputs listed, the report's lines sorted) live in OUTDIR, on the
  // disk the outputs go to; a folder a killed run left there is removed first.
  WorkFolder::remove_abandoned(outdir, kWorkPrefix);
  const WorkFolder work(outdir, kWorkPrefix);
  Plan plan;
  {
    InputWalker walker(roots, lists, outdir, shard);
    plan = plan_batch(walker, outdir, report_path, work.path(), !report_path.empty());
  }
  if (plan.removed_temporaries > 0 && !quiet) {
    std::cerr << "fitsasdf batch: removed " << plan.removed_temporaries
              << " temporary files left by an interrupted run\n";
  }
  const std::uint64_t count = plan.count;
  // What stops the batch when the report cannot be written: the cause (errno `err`, or the
  // library's `message` when it names none of the fatal ones) and the report's name.
  auto report_failure = [&](int err, const std::string& message) {
    return (fatal_errno(err) ? describe_fatal(err) + ": " : std::string()) +
           "cannot write the report " + report_path.string() + ": " +
           (fatal_errno(err) ? std::string(std::strerror(err)) : message);
  };
  std::unique_ptr<ReportFile> report_file;
  try {
    report_file = std::make_unique<ReportFile>(report_path, work.path(), std::move(plan.by_name));
  } catch (const asdfcore::Error& e) {
    std::cerr << "fitsasdf batch: stopped before the first file: "
              << report_failure(fatal_errno_in(e.message()), e.message())
              << "; fix this and run the same command again\n";
    return kExitIo;
  }
  ReportFile& report = *report_file;

  // From here on SIGINT and SIGTERM are received by the monitor thread only.
  const BlockedSignals signals;
  Counters counters;
  Progress progress(progress_mode(quiet), count, plan.bytes, counters, interval);
  StopFlag stop;

  unsigned jobs = vm["jobs"].as<unsigned>();
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::uint64_t>(1, count)));
  // Without --threads, the cores are shared out among the workers instead of each worker
  // starting one compression thread per core.
  if (settings.to_asdf.threads == 0) {
    settings.to_asdf.threads = std::max(1u, std::thread::hardware_concurrency() / jobs);
  }

  const auto start = std::chrono::steady_clock::now();
  PlanReader inputs(plan, report.earlier_lines());
  auto worker = [&] {
    std::uint64_t i = 0;
    Item item;
    std::optional<Line> earlier;
    while (!stop.requested()) {
      try {
        if (!inputs.next(i, item, earlier)) break;
      } catch (const asdfcore::Error& e) {
        stop.request(StopReason::kFatal, std::string("cannot read the list of inputs back: ") +
                                             e.what());
        break;
      }
      const Outcome outcome = convert_one(item, settings, earlier);
      if (!outcome.fatal.empty()) {
        stop.request(StopReason::kFatal, outcome.fatal);
        break;
      }
      const std::string status = outcome.line["status"].get<std::string>();
      if (status == "failed") {
        ++counters.failed;
        progress.say("fitsasdf batch: failed: " + outcome.line["error"].get<std::string>());
      } else if (status == "skipped") {
        ++counters.skipped;
      } else {
        counters.bytes_converted += item.size;
      }
      counters.bytes_done += item.size;
      ++counters.done;
      if (const int err = report.append(i, outcome.line)) {
        stop.request(StopReason::kFatal, report_failure(err, std::strerror(err)));
      }
    }
  };
  std::atomic<bool> finished{false};
  // The monitor wakes every 100 ms, or more often when the progress interval is shorter.
  const int wake_ms = static_cast<int>(std::clamp(interval * 1000.0, 10.0, 100.0));
  // The HTML page, refreshed from the report as it grows (no thumbnails until the end); never
  // more often than ten times the time a refresh takes.
  using Clock = std::chrono::steady_clock;
  auto html_due = Clock::now() + std::chrono::duration<double>(html_interval);
  auto refresh_html = [&] {
    const auto begin = Clock::now();
    HtmlReportOptions o;
    o.in_progress = "in progress: " + std::to_string(counters.done.load()) + " of " +
                    std::to_string(count) + " inputs done";
    try {
      write_html_report({report_path}, html_path, o);
    } catch (const asdfcore::Error&) {
      // A page not refreshed now is refreshed later; the one at the end reports its failure.
    }
    const std::chrono::duration<double> took = Clock::now() - begin;
    html_due = Clock::now() + std::chrono::duration<double>(std::max(html_interval, 10 * took.count()));
  };
  std::jthread monitor([&] {
    while (!finished.load()) {
      progress.tick();
      if (!html_path.empty() && Clock::now() >= html_due) refresh_html();
      if (const int signal = signals.wait(wake_ms)) {
        const std::string name = signal == SIGINT ? "SIGINT" : "SIGTERM";
        if (stop.request(StopReason::kInterrupted, "interrupted (" + name + ")")) {
          progress.say("fitsasdf batch: " + name +
                       ": finishing the files in progress, then stopping (" + name +
                       " again stops at once)");
        } else {
          // A second signal: stop now. The report has every finished file; the temporaries of
          // the files in progress are removed by the next run.
          progress.finish();
          const char text[] =
              "fitsasdf batch: stopped at once; run the same command again to resume\n";
          (void)!write(STDERR_FILENO, text, sizeof text - 1);
          _exit(kExitInterrupted);
        }
      }
    }
  });
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
    worker();
  }  // joins the workers
  finished = true;
  signals.wake(monitor.native_handle());  // not another 100 ms of waiting at the end
  monitor.join();
  progress.finish();

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Line extra;
  extra["seconds"] = seconds;
  StopReason reason = stop.reason();
  std::string message = stop.message();
  extra["stopped"] = reason == StopReason::kNone          ? Line()
                     : reason == StopReason::kInterrupted ? Line("interrupted")
                                                          : Line("fatal");
  extra["message"] = message;
  Line summary;
  try {
    summary = report.finish(count, extra);
  } catch (const asdfcore::Error& e) {
    // The report keeps the lines appended so far (the rewrite is atomic), enough to resume;
    // the batch stops as for any fatal condition, whatever stopped it before.
    if (reason != StopReason::kFatal) {
      reason = StopReason::kFatal;
      message = report_failure(fatal_errno_in(e.message()), e.message());
    }
  }
  int html_status = kExitOk;
  if (!html_path.empty()) {
    try {
      write_html_report({report_path}, html_path, html_options);
    } catch (const asdfcore::Error& e) {
      std::cerr << "fitsasdf batch: cannot write the HTML page: " << e.what() << "\n";
      html_status = kExitIo;
    }
  }
  const std::size_t done = counters.done.load();
  if (!quiet) {
    std::cerr << "fitsasdf batch: " << count
              << " inputs: " << done - counters.failed - counters.skipped << " converted, "
              << counters.skipped << " skipped (complete), " << counters.failed << " failed"
              << (done < count ? ", " + std::to_string(count - done) + " not done"
                                      : std::string())
              << " in " << seconds << " s\n";
  }
  const std::string left = std::to_string(count - done) + " of " +
                           std::to_string(count) + " inputs not done";
  if (reason == StopReason::kInterrupted) {
    std::cerr << "fitsasdf batch: " << message << ": " << left
              << "; run the same command again to resume\n";
    return kExitInterrupted;
  }
  if (reason == StopReason::kFatal) {
    std::cerr << "fitsasdf batch: stopped: " << message << "; " << left
              << "; fix this and run the same command again to resume\n";
    return kExitIo;
  }
  if (summary["failed"].get<std::size_t>() > 0) return kExitDifferent;
  return html_status;
}

}  // namespace fitsasdf::cli
