// `fitsasdf convert IN [-o OUT]`: FITS to ASDF, or ASDF to FITS when IN is an ASDF file (the
// direction comes from the input's content, not its name).
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"

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

/// True when the file starts like an ASDF file ("#ASDF"); false for anything else, a missing
/// file included (the FITS reader then says what is wrong).
bool is_asdf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[5] = {};
  return in.read(head, sizeof head) && std::string_view(head, sizeof head) == "#ASDF";
}

/// IN with .asdf replaced by .fits; refused when that file exists (it is likely the FITS file
/// the ASDF file was made from): ask for -o instead of overwriting it.
std::string default_fits_output(const std::string& input) {
  std::filesystem::path p(input);
  if (p.extension() == ".asdf" || p.extension() == ".ASDF") p.replace_extension();
  const std::string out = p.string() + ".fits";
  if (std::filesystem::exists(out)) {
    throw po::error("the default output " + out +
                    " exists (perhaps the FITS file this ASDF file came from); give -o to choose "
                    "where to write");
  }
  return out;
}

void print_report(const ConversionReport& report, const po::variables_map& vm) {
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
}

/// ASDF to FITS: only the options that apply to a FITS output are accepted.
int run_to_fits(const std::string& input, const po::variables_map& vm) {
  for (const char* fits_only : {"scaling", "fits-tag", "compress", "standard"}) {
    if (!vm[fits_only].defaulted()) {
      throw po::error(std::string("--") + fits_only +
                      " applies to FITS input; the input is an ASDF file (written to FITS)");
    }
  }
  for (const char* fits_only : {"native-byteorder", "no-native-view", "no-checksum", "fits-list"}) {
    if (vm.count(fits_only)) {
      throw po::error(std::string("--") + fits_only +
                      " applies to FITS input; the input is an ASDF file (written to FITS)");
    }
  }
  AsdfToFitsOptions options;
  options.durable = vm.count("no-fsync") == 0;
  options.add_checksums = vm.count("add-checksums") > 0;
  const std::string output =
      vm.count("output") ? vm["output"].as<std::string>() : default_fits_output(input);
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
      "the file to write (default: IN with .asdf, or with .fits for ASDF input)")(
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
      "fits-list", "FITS input with an ASDF extension (JWST, AsdfInFits): convert it HDU by HDU "
                   "into a fits list like any FITS file, instead of writing its embedded tree")(
      "add-checksums", "ASDF input: give every HDU fresh CHECKSUM and DATASUM cards (HDUs that "
                       "have them always get them recomputed)")(
      "json", "print the conversion report as JSON")("quiet,q", "print nothing on success")(
      "input", po::value<std::string>(), "the FITS or ASDF file");
  po::variables_map vm;
  if (!parse_command_line(args, opts, "input", vm)) return kExitOk;
  if (!vm.count("input")) throw po::error("fitsasdf convert needs an input file");
  if (is_asdf(vm["input"].as<std::string>())) return run_to_fits(vm["input"].as<std::string>(), vm);
  if (vm.count("add-checksums")) {
    throw po::error("--add-checksums applies to ASDF input (written to FITS)");
  }
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
  options.compression = block_compression(vm["compress"].as<std::string>());
  options.native_byte_order = vm.count("native-byteorder") > 0;
  options.native_view = vm.count("no-native-view") == 0;
  options.durable = vm.count("no-fsync") == 0;
  options.checksums = vm.count("no-checksum") == 0;
  options.asdf_standard = vm["standard"].as<std::string>();
  const std::string input = vm["input"].as<std::string>();
  const std::string output =
      vm.count("output") ? vm["output"].as<std::string>() : default_output(input);

  // A FITS file that carries its own ASDF tree (JWST, AsdfInFits) gives that tree.
  options.embedded_tree = vm.count("fits-list") == 0;
  print_report(convert_fits_to_asdf(input, output, options), vm);
  return kExitOk;
}

}  // namespace fitsasdf::cli
