// `fitsasdf verify IN.fits [B.asdf | B.fits]`: does FITS -> ASDF -> FITS give the file back?
#include <boost/program_options.hpp>
#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "compare_report.h"
#include "exit_codes.h"
#include "fitsasdf/report_json.h"
#include "limit_options.h"
#include "fitsasdf/verify.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {

int run_verify(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf verify IN.fits          convert IN to ASDF and back in a temporary folder\n"
      "fitsasdf verify A.fits B.asdf    compare A with B converted back to FITS (and B's block "
      "checksums)\n"
      "fitsasdf verify A.fits B.fits    compare two FITS files card by card and byte by byte\n"
      "Exit status 0 when equivalent, 1 when not, 2 for an invalid input.\n\nOptions");
  opts.add_options()("help,h", "show this help")("json", "print the report as JSON")(
      "quiet,q", "print nothing; the exit status tells")(
      "max-differences,n", po::value<std::size_t>()->default_value(10),
      "list at most this many card and data differences per HDU")(
      "compress", po::value<std::string>()->default_value("none"),
      "round trip only: compress the ASDF blocks (zlib, bzp2, lz4 or none)")(
      "native-byteorder", "round trip only: write the ASDF arrays in this machine's byte order")(
      "files", po::value<std::vector<std::string>>(), "the files");
  add_limit_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "files", vm, -1)) return kExitOk;
  const std::vector<std::string> files = values_of(vm, "files");
  if (files.empty() || files.size() > 2) {
    throw po::error("fitsasdf verify takes one FITS file, or a FITS file and an ASDF file");
  }
  VerifyOptions options;
  options.max_listed = vm["max-differences"].as<std::size_t>();
  options.convert.compression = block_compression(vm["compress"].as<std::string>());
  options.convert.native_byte_order = vm.count("native-byteorder") > 0;
  options.convert.durable = false;  // a temporary file
  options.convert.limits = read_limits(vm);

  const VerifyReport report = files.size() == 1 ? verify_round_trip(files[0], options)
                                                : verify_pair(files[0], files[1], options);
  if (vm.count("json")) {
    std::cout << to_json(report, 1) << "\n";
  } else if (!vm.count("quiet")) {
    print_verify(std::cout, report);
  }
  return report.equivalent() ? kExitOk : kExitDifferent;
}

}  // namespace fitsasdf::cli
