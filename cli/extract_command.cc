// `fitsasdf extract IN.fits [-o OUT.asdf]`: the ASDF file embedded in a FITS file (JWST
// products, AsdfInFits), written alone with its `fits:` arrays pulled in from their HDUs.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "checksum_options.h"
#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "fitsasdf/asdf_in_fits.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {

int run_extract(const std::vector<std::string>& args) {
  po::options_description opts("fitsasdf extract IN.fits [-o OUT.asdf] [options]");
  opts.add_options()("help,h", "show this help")(
      "output,o", po::value<std::string>(), "the ASDF file to write (default: IN with .asdf)")(
      "compress", po::value<std::string>()->default_value("none"), "zlib, bzp2, lz4 or none")(
      "no-fsync", "do not flush the output to disk before renaming it into place")(
      "quiet,q", "print nothing on success")("input", po::value<std::string>(), "the FITS file");
  add_checksum_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "input", vm)) return kExitOk;
  if (!vm.count("input")) throw po::error("fitsasdf extract needs an input file");
  ConvertOptions options;
  options.compression = block_compression(vm["compress"].as<std::string>());
  options.durable = vm.count("no-fsync") == 0;
  options.checksum = read_checksum_option(vm);
  const std::string input = vm["input"].as<std::string>();
  const std::string output = vm.count("output")
                                 ? vm["output"].as<std::string>()
                                 : std::filesystem::path(input).replace_extension(".asdf").string();
  const ConversionReport report = extract_embedded_asdf(input, output, options);
  if (!vm.count("quiet")) {
    std::cout << report.input << " -> " << report.output << " (" << report.hdus.size()
              << " arrays from HDUs, " << report.bytes_out << " bytes)\n";
    for (const auto& h : report.hdus) {
      std::cout << "  HDU " << h.index << " " << h.name << ": " << h.kind << "\n";
      for (const auto& n : h.notes) std::cout << "    " << n << "\n";
    }
  }
  return kExitOk;
}

}  // namespace fitsasdf::cli
