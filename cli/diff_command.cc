// `fitsasdf diff A B`: the differences between two FITS files or two ASDF files (or a FITS file
// and an ASDF file, through the conversion), in the manner of fitsdiff and asdftool diff.
#include <boost/program_options.hpp>
#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "compare_report.h"
#include "exit_codes.h"
#include "fitsasdf/report_json.h"
#include "fitsasdf/diff.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {
namespace {

/// Split "DATE,CHECKSUM" (and repeated options) into keywords.
std::vector<std::string> split_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    std::string item;
    for (char c : v + ",") {
      if (c == ',') {
        if (!item.empty()) out.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item += c;
      }
    }
  }
  return out;
}

}  // namespace

int run_diff(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf diff A B   compare two FITS files or two ASDF files (or FITS with ASDF)\n"
      "Exit status 0 when identical, 1 when different, 2 for an invalid input.\n\nOptions");
  opts.add_options()("help,h", "show this help")("json", "print the report as JSON")(
      "quiet,q", "print nothing; the exit status tells")(
      "max-differences,n", po::value<std::size_t>()->default_value(10),
      "list at most this many differences per header, per data, per array (ASDF: in all)")(
      "ignore-keywords,k", po::value<std::vector<std::string>>()->composing(),
      "FITS keywords not to compare, comma-separated, wildcards * and ? (e.g. DATE,CHECKSUM)")(
      "ignore", po::value<std::vector<std::string>>()->composing(),
      "ASDF tree paths not to compare, as JSON Pointers (e.g. /asdf_library,/history)")(
      "exact",
      "FITS: compare as verify does (cards in place, data byte for byte) instead of "
      "fitsdiff's rules")("files", po::value<std::vector<std::string>>(), "the two files");
  po::variables_map vm;
  if (!parse_command_line(args, opts, "files", vm, -1)) return kExitOk;
  const std::vector<std::string> files = values_of(vm, "files");
  if (files.size() != 2) throw po::error("fitsasdf diff takes two files");
  CompareOptions options;
  options.mode = vm.count("exact") ? CompareMode::kVerify : CompareMode::kDiff;
  options.max_listed = vm["max-differences"].as<std::size_t>();
  options.ignore_keywords = split_list(values_of(vm, "ignore-keywords"));
  options.ignore_paths = split_list(values_of(vm, "ignore"));
  for (const auto& p : options.ignore_paths) {
    if (!p.starts_with("/")) {
      throw po::error("--ignore takes JSON Pointers starting with '/', not '" + p + "'");
    }
  }
  const DiffReport report = diff_files(files[0], files[1], options);
  if (vm.count("json")) {
    std::cout << to_json(report, 1) << "\n";
  } else if (!vm.count("quiet")) {
    print_diff(std::cout, report);
  }
  return report.identical() ? kExitOk : kExitDifferent;
}

}  // namespace fitsasdf::cli
