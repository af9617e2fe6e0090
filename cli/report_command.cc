// `fitsasdf report REPORT.jsonl... --html OUT.html`: the page `batch --html` writes, made from
// existing JSON-lines reports (one run's, or the merged or separate reports of a job array's
// shards).
#include <boost/program_options.hpp>
#include <iostream>

#include "batch/html_report.h"
#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {

int run_report(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf report REPORT.jsonl... --html OUT.html [options]\n"
      "Write one self-contained HTML page (no external resources: it works offline and from a\n"
      "shared folder) from batch reports: totals and throughput, failures grouped by error\n"
      "category, the largest and slowest inputs, thumbnails of a sample of outputs, and a\n"
      "sortable table of inputs. Give one run's report, or the shards' reports of one archive\n"
      "(each input once across them). OUT.html is replaced when it exists.\n\n"
      "Options");
  opts.add_options()("help,h", "show this help")("html", po::value<std::string>(),
                                                 "the HTML page to write")(
      "thumbnails", po::value<std::size_t>()->default_value(0),
      "embed previews of this many outputs, chosen at random (fitsasdf preview's pictures)")(
      "title", po::value<std::string>()->default_value("fitsasdf batch report"), "the page's title")(
      "max-rows", po::value<std::size_t>()->default_value(10000),
      "rows of the inputs table (failures first); the report keeps every input")(
      "quiet,q", "print nothing on success")(
      "reports", po::value<std::vector<std::string>>(), "the JSON-lines reports");
  po::variables_map vm;
  if (!parse_command_line(args, opts, "reports", vm, -1)) return kExitOk;
  const auto reports = values_of(vm, "reports");
  if (reports.empty()) throw po::error("fitsasdf report needs a JSON-lines report");
  if (!vm.count("html")) throw po::error("fitsasdf report needs --html OUT.html");
  batch::HtmlReportOptions options;
  options.thumbnails = vm["thumbnails"].as<std::size_t>();
  options.title = vm["title"].as<std::string>();
  options.max_rows = vm["max-rows"].as<std::size_t>();
  const std::vector<std::filesystem::path> paths(reports.begin(), reports.end());
  const std::string out = vm["html"].as<std::string>();
  const batch::HtmlReportStats stats = batch::write_html_report(paths, out, options);
  if (!vm.count("quiet")) {
    std::cout << out << ": " << stats.inputs << " inputs, " << stats.failed << " failed, "
              << stats.rows << " rows, " << stats.thumbnails << " thumbnails\n";
  }
  return kExitOk;
}

}  // namespace fitsasdf::cli
