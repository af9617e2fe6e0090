// `fitsasdf convert IN [-o OUT]`: FITS to ASDF, or ASDF to FITS when IN is an ASDF file (the
// direction comes from the input's content, not its name).
#include <boost/program_options.hpp>
#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "conversion_options.h"
#include "exit_codes.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/report_json.h"
#include "fitsasdf/to_fits.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {
namespace {

void print_report(const ConversionReport& report, const po::variables_map& vm) {
  if (vm.count("json")) {
    std::cout << to_json(report, 1) << "\n";
  } else if (!vm.count("quiet")) {
    std::cout << report.input << " -> " << report.output << " (" << report.hdus.size() << " HDUs, "
              << report.bytes_in << " -> " << report.bytes_out << " bytes)\n";
    for (const auto& h : report.hdus) {
      std::cout << "  HDU " << h.index << " " << h.name << ": " << h.kind << "\n";
      for (const auto& n : h.notes) std::cout << "    " << n << "\n";
      for (const auto& f : h.findings) std::cout << "    finding [" << f.code << "]: " << f.message << "\n";
    }
    for (const auto& f : report.findings) {
      std::cout << "  finding [" << f.code << "]: " << f.message << "\n";
    }
  }
}

/// ASDF to FITS: only the options that apply to a FITS output are accepted.
int run_to_fits(const std::string& input, const po::variables_map& vm) {
  refuse_fits_only_options(vm);
  AsdfToFitsOptions options = asdf_to_fits_options(vm);
  options.overwrite = vm.count("overwrite") > 0;
  const std::string output =
      vm.count("output") ? vm["output"].as<std::string>() : default_fits_name(input);
  print_report(convert_asdf_to_fits(input, output, options), vm);
  return kExitOk;
}

}  // namespace

int run_convert(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf convert IN [-o OUT] [options]\n"
      "FITS IN is written to ASDF; ASDF IN (one with a fits list) is written back to FITS");
  opts.add_options()("help,h", "show this help")(
      "output,o", po::value<std::string>(),
      "the file to write (default: IN with .asdf, or with .fits for ASDF input); an existing "
      "file is refused (exit status 3) unless --overwrite is given")(
      "overwrite", "replace OUT if it exists (astropy's writeto(overwrite=True))")(
      "json", "print the conversion report as JSON")("quiet,q", "print nothing on success")(
      "input", po::value<std::string>(), "the FITS or ASDF file");
  add_conversion_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "input", vm)) return kExitOk;
  if (!vm.count("input")) throw po::error("fitsasdf convert needs an input file");
  if (is_asdf(vm["input"].as<std::string>())) return run_to_fits(vm["input"].as<std::string>(), vm);
  for (const char* asdf_only : {"add-checksums", "no-verify-checksums"}) {
    if (vm.count(asdf_only)) {
      throw po::error(std::string("--") + asdf_only + " applies to ASDF input (written to FITS)");
    }
  }
  ConvertOptions options = fits_to_asdf_options(vm);
  options.overwrite = vm.count("overwrite") > 0;
  const std::string input = vm["input"].as<std::string>();
  const std::string output =
      vm.count("output") ? vm["output"].as<std::string>() : default_asdf_name(input);
  print_report(convert_fits_to_asdf(input, output, options), vm);
  return kExitOk;
}

}  // namespace fitsasdf::cli
