// `fitsasdf convert IN [-o OUT]`: FITS to ASDF.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "fitsasdf/convert.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {
namespace {

/// IN with its FITS extensions (.fits, .fit, .fts, and .gz/.bz2/.Z after them) replaced by .asdf.
std::string default_output(const std::string& input) {
  std::filesystem::path p(input);
  for (const char* outer : {".gz", ".bz2", ".Z", ".fz"}) {
    if (p.extension() == outer) p.replace_extension();
  }
  for (const char* ext : {".fits", ".fit", ".fts", ".FITS", ".FIT"}) {
    if (p.extension() == ext) p.replace_extension();
  }
  return p.string() + ".asdf";
}

}  // namespace

int run_convert(const std::vector<std::string>& args) {
  po::options_description opts("fitsasdf convert IN [-o OUT] [options]");
  opts.add_options()("help,h", "show this help")(
      "output,o", po::value<std::string>(), "the ASDF file to write (default: IN with .asdf)")(
      "scaling", po::value<std::string>()->default_value("raw"),
      "scaled integer images: raw (stored integers + cards, lossless) or physical (floats)")(
      "fits-tag", po::value<std::string>()->default_value("auto"),
      "tag of the fits item: auto, standard (stsci fits-1.0.0) or astropy")(
      "native-byteorder", "write image data in this machine's byte order (default: big-endian "
                          "as in FITS, no swap)")(
      "compress", po::value<std::string>()->default_value("none"), "zlib, bzp2, lz4 or none")(
      "standard", po::value<std::string>()->default_value("1.5.0"), "ASDF Standard to declare")(
      "no-native-view", "write only the fits item, no arrays by EXTNAME or quantities")(
      "no-fsync", "do not flush the output to disk before renaming it into place")(
      "no-checksum", "store no MD5 checksums in the block headers (faster for large images)")(
      "json", "print the conversion report as JSON")("quiet,q", "print nothing on success")(
      "input", po::value<std::string>(), "the FITS file");
  po::variables_map vm;
  if (!parse_command_line(args, opts, "input", vm)) return kExitOk;
  if (!vm.count("input")) throw po::error("fitsasdf convert needs an input file");
  ConvertOptions options;
  const std::string scaling = vm["scaling"].as<std::string>();
  if (scaling == "physical") {
    options.scaling = ScalingPolicy::kPhysical;
  } else if (scaling != "raw") {
    throw po::error("--scaling takes raw or physical, not '" + scaling + "'");
  }
  const std::string tag = vm["fits-tag"].as<std::string>();
  if (tag == "standard") {
    options.fits_tag = FitsTag::kStandard;
  } else if (tag == "astropy") {
    options.fits_tag = FitsTag::kAstropy;
  } else if (tag != "auto") {
    throw po::error("--fits-tag takes auto, standard or astropy, not '" + tag + "'");
  }
  const std::string compress = vm["compress"].as<std::string>();
  if (compress == "zlib" || compress == "bzp2" || compress == "lz4") {
    options.compression = compress;
  } else if (compress != "none") {
    throw po::error("--compress takes zlib, bzp2, lz4 or none, not '" + compress + "'");
  }
  options.native_byte_order = vm.count("native-byteorder") > 0;
  options.native_view = vm.count("no-native-view") == 0;
  options.durable = vm.count("no-fsync") == 0;
  options.checksums = vm.count("no-checksum") == 0;
  options.asdf_standard = vm["standard"].as<std::string>();
  const std::string input = vm["input"].as<std::string>();
  const std::string output =
      vm.count("output") ? vm["output"].as<std::string>() : default_output(input);

  const ConversionReport report = convert_fits_to_asdf(input, output, options);
  if (vm.count("json")) {
    nlohmann::ordered_json j;
    j["input"] = report.input;
    j["output"] = report.output;
    j["fits_tag"] = report.fits_tag;
    j["bytes_in"] = report.bytes_in;
    j["bytes_out"] = report.bytes_out;
    j["hdus"] = nlohmann::ordered_json::array();
    for (const auto& h : report.hdus) {
      j["hdus"].push_back({{"index", h.index}, {"kind", h.kind}, {"name", h.name},
                           {"notes", h.notes}});
    }
    std::cout << j.dump(1) << "\n";
  } else if (!vm.count("quiet")) {
    std::cout << report.input << " -> " << report.output << " (" << report.hdus.size()
              << " HDUs, " << report.bytes_in << " -> " << report.bytes_out << " bytes)\n";
    for (const auto& h : report.hdus) {
      std::cout << "  HDU " << h.index << " " << h.name << ": " << h.kind << "\n";
      for (const auto& n : h.notes) std::cout << "    " << n << "\n";
    }
  }
  return kExitOk;
}

}  // namespace fitsasdf::cli
