// The summary of batch reports, as text or JSON.
#include "batch/report_summary.h"

#include <algorithm>
#include <cstdio>

#include "asdfcore/error.h"
#include "batch/report_digest.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", s);
  return text;
}

Line rows_json(const std::vector<Row>& rows) {
  Line list = Line::array();
  for (const auto& r : rows) {
    list.push_back({{"input", r.input}, {"status", r.status}, {"bytes_in", r.bytes_in},
                    {"seconds", r.seconds}});
  }
  return list;
}

}  // namespace

int print_summary(const std::vector<fs::path>& reports, bool json, std::ostream& out) {
  for (const auto& path : reports) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "no such report",
                            asdfcore::ErrorContext{.file = path.string()});
    }
  }
  DigestOptions options;
  options.top = 5;
  options.examples = 1;
  const Digest d = digest_reports(reports, fs::temp_directory_path(), options);

  auto count = [&](const char* status) {
    const auto it = d.by_status.find(status);
    return it == d.by_status.end() ? std::size_t{0} : it->second;
  };
  // The run time: the longest of the reports' runs (shards run side by side); files and bytes
  // per second of it count the inputs converted in them.
  double run_seconds = 0;
  std::uint64_t not_done = 0;
  std::vector<std::string> incomplete;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Line& s = d.summaries[i];
    if (s.is_null()) {
      incomplete.push_back(reports[i].string() + " (no summary line: a run still going or killed)");
      continue;
    }
    run_seconds = std::max(run_seconds, s.value("seconds", 0.0));
    not_done += s.value("not_done", std::uint64_t{0});
    if (!s.value("stopped", Line()).is_null()) {
      incomplete.push_back(reports[i].string() + " (stopped: " +
                           s.value("stopped", Line()).dump() + ")");
    } else if (s.value("not_done", std::uint64_t{0}) > 0) {
      incomplete.push_back(reports[i].string() + " (inputs not done)");
    }
  }
  const std::size_t ok = count("ok");
  const double files_per_second = run_seconds > 0 ? static_cast<double>(ok) / run_seconds : 0;
  const double bytes_per_second =
      run_seconds > 0 ? static_cast<double>(d.converted_bytes) / run_seconds : 0;
  std::vector<std::pair<std::string, std::size_t>> categories;
  for (const auto& [name, c] : d.categories) categories.emplace_back(name, c.count);
  std::stable_sort(categories.begin(), categories.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const int status = count("failed") == 0 && incomplete.empty() ? 0 : 1;

  if (json) {
    Line o;
    o["reports"] = reports.size();
    o["inputs"] = d.inputs;
    Line by_status = Line::object();
    for (const auto& [name, n] : d.by_status) by_status[name] = n;
    o["status"] = by_status;
    o["not_done"] = not_done;
    o["incomplete_reports"] = incomplete;
    Line failures = Line::object();
    for (const auto& [name, n] : categories) failures[name] = n;
    o["failures"] = failures;
    o["with_findings"] = d.with_findings;
    o["bytes_in"] = d.bytes_in;
    o["bytes_out"] = d.bytes_out;
    o["run_seconds"] = run_seconds;
    o["conversion_seconds"] = d.line_seconds;
    o["files_per_second"] = files_per_second;
    o["bytes_per_second"] = bytes_per_second;
    o["slowest"] = rows_json(d.slowest.sorted());
    o["largest"] = rows_json(d.largest.sorted());
    out << o.dump() << "\n";
    return status;
  }
  out << d.inputs << " inputs in " << reports.size()
      << (reports.size() == 1 ? " report\n" : " reports\n");
  out << "  status     " << ok << " ok, " << count("skipped") << " skipped, " << count("failed")
      << " failed";
  for (const auto& [name, n] : d.by_status) {
    if (name != "ok" && name != "skipped" && name != "failed") out << ", " << n << " " << name;
  }
  out << "; " << not_done << " not done; " << d.with_findings << " with findings\n";
  if (!categories.empty()) {
    out << "  failures  ";
    for (std::size_t i = 0; i < categories.size(); ++i) {
      out << (i ? ", " : " ") << categories[i].second << " " << categories[i].first;
    }
    out << "\n";
  }
  out << "  bytes      " << human_bytes(static_cast<double>(d.bytes_in)) << " in, "
      << human_bytes(static_cast<double>(d.bytes_out)) << " out\n";
  out << "  time       " << seconds_text(run_seconds)
      << (reports.size() > 1 ? " (the longest of the reports' last runs)" : " (the last run)")
      << ", "
      << seconds_text(d.line_seconds) << " in conversions";
  if (run_seconds > 0) {
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.0f", files_per_second);
    out << "; " << rate << " files/s, " << human_bytes(bytes_per_second) << "/s converted";
  }
  out << "\n";
  const auto list = [&](const char* label, const std::vector<Row>& rows) {
    if (rows.empty()) return;
    out << "  " << label << "\n";
    for (const auto& r : rows) {
      out << "    " << seconds_text(r.seconds) << "  "
          << human_bytes(static_cast<double>(r.bytes_in)) << "  " << r.status << "  " << r.input
          << "\n";
    }
  };
  list("slowest", d.slowest.sorted());
  list("largest", d.largest.sorted());
  for (const auto& name : incomplete) out << "  incomplete " << name << "\n";
  return status;
}

}  // namespace fitsasdf::cli::batch
