// `fitsasdf preview IN -o OUT.png`: a quick-look picture of one image of a FITS or ASDF file
// (fitsasdf/preview.h): the limits of astropy's ZScaleInterval (or min/max, or a percentile),
// a linear or asinh stretch, block-averaged to fit --size, NaN in dark red, row 0 at the
// bottom. Exit 0 when written, 2 when the input cannot be read or holds no image, 3 for I/O
// errors and an existing output without --overwrite, 4 for a wrong command line (an option,
// an HDU or array that is not an image).
#include <boost/program_options.hpp>
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "fitsasdf/preview.h"

namespace po = boost::program_options;
using nlohmann::ordered_json;

namespace fitsasdf::cli {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

double number_option(const std::string& text, const std::string& option) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw po::error(option + " needs a number, not '" + text + "'");
}

/// --hdu N (0-based), NAME or NAME,VER.
void read_hdu_option(const std::string& value, PreviewOptions& options) {
  if (all_digits(value)) {
    if (value.size() > 6) throw po::error("--hdu " + value + " is out of range");
    options.hdu = std::stoi(value);
    return;
  }
  const std::size_t comma = value.rfind(',');
  if (comma != std::string::npos && all_digits(value.substr(comma + 1))) {
    const std::string version = value.substr(comma + 1);
    if (version.size() > 6) throw po::error("--hdu " + value + ": EXTVER out of range");
    options.extname = value.substr(0, comma);
    options.extver = std::stoi(version);
  } else {
    options.extname = value;
  }
  if (options.extname.empty()) throw po::error("--hdu needs a number, NAME or NAME,VER");
}

void read_interval_option(const std::string& value, PreviewOptions& options) {
  if (value == "zscale") {
    options.interval = IntervalKind::kZScale;
  } else if (value == "minmax") {
    options.interval = IntervalKind::kMinMax;
  } else if (value.starts_with("percentile:")) {
    options.interval = IntervalKind::kPercentile;
    options.percentile = number_option(value.substr(11), "--interval percentile:P");
    if (!(options.percentile > 0 && options.percentile <= 100)) {
      throw po::error("--interval percentile:P needs 0 < P <= 100, not " + value.substr(11));
    }
  } else {
    throw po::error("--interval takes zscale, minmax or percentile:P, not '" + value + "'");
  }
}

void read_stretch_option(const std::string& value, PreviewOptions& options) {
  if (value == "linear") {
    options.stretch = StretchKind::kLinear;
  } else if (value == "asinh" || value.starts_with("asinh:")) {
    options.stretch = StretchKind::kAsinh;
    if (value.size() > 5) {
      options.asinh_a = number_option(value.substr(6), "--stretch asinh:A");
      if (!(options.asinh_a > 0)) throw po::error("--stretch asinh:A needs A > 0");
    }
  } else {
    throw po::error("--stretch takes linear, asinh or asinh:A, not '" + value + "'");
  }
}

ordered_json to_json(const PreviewResult& r) {
  ordered_json j;
  j["input"] = r.input;
  j["format"] = r.format;
  if (r.format == "fits") {
    j["hdu"] = r.hdu;
    j["extname"] = r.extname;
    j["extver"] = r.extver;
    j["tile_compressed"] = r.tile_compressed;
  } else {
    j["array"] = r.array;
  }
  j["shape"] = r.shape;
  j["dtype"] = r.dtype;
  j["plane"] = r.plane;
  j["width"] = r.width;
  j["height"] = r.height;
  j["finite_values"] = r.finite_values;
  j["nan_values"] = r.nan_values;
  j["interval"] = {{"name", r.interval_name}, {"lo", r.interval.lo}, {"hi", r.interval.hi}};
  j["stretch"] = r.stretch_name;
  j["block"] = r.block;
  j["output"] = {{"path", r.output}, {"width", r.out_width}, {"height", r.out_height}};
  j["nan_pixels"] = r.nan_pixels;
  return j;
}

std::string describe(const PreviewResult& r) {
  std::string what;
  if (r.format == "fits") {
    what = "HDU " + std::to_string(r.hdu);
    if (!r.extname.empty()) {
      what += " (" + r.extname + (r.extver ? "," + std::to_string(r.extver) : "") + ")";
    }
  } else {
    what = "array " + r.array;
  }
  std::string shape;
  for (std::uint64_t n : r.shape) shape += (shape.empty() ? "" : " x ") + std::to_string(n);
  what += " [" + shape + " " + r.dtype + "]";
  if (!r.plane.empty()) {
    std::string plane;
    for (std::uint64_t k : r.plane) plane += (plane.empty() ? "" : ",") + std::to_string(k);
    what += " plane " + plane;
  }
  std::ostringstream limits;
  limits.precision(6);
  limits << r.interval.lo << " .. " << r.interval.hi;
  return r.input + " " + what + " -> " + r.output + " (" + std::to_string(r.out_width) + " x " +
         std::to_string(r.out_height) + (r.block > 1 ? ", averaged " + std::to_string(r.block) +
                                                           " x " + std::to_string(r.block)
                                                     : "") +
         "; " + r.interval_name + " " + limits.str() + ", " + r.stretch_name + "; " +
         std::to_string(r.nan_pixels) + " NaN pixels)";
}

}  // namespace

int run_preview(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf preview IN -o OUT.png [options]\n\n"
      "Write a quick-look PNG of one image of IN (FITS, also .gz/.bz2/.Z, or ASDF): 8-bit gray\n"
      "between the limits of an interval (astropy's ZScaleInterval by default, computed from\n"
      "every value of the plane at full resolution), through a linear or asinh stretch. Pixels\n"
      "without a value (NaN, FITS BLANK, ASDF masks; a block with none) are dark red\n"
      "(139, 0, 0). Row 0 of the image is the bottom row of the picture, as astropy's\n"
      "imshow(origin='lower') and ds9 show it. FITS values are physical (BSCALE/BZERO applied,\n"
      "as astropy reads them). An image larger than --size is averaged over square blocks\n"
      "(NaN left out); a smaller one is not enlarged. The image is read a row at a time.\n"
      "Exit 0: written, 2: IN cannot be read or holds no image, 3: I/O error or OUT exists\n"
      "without --overwrite, 4: wrong command line (also: the HDU or array chosen is not an\n"
      "image).\n\n"
      "Options");
  opts.add_options()("help,h", "show this help")("output,o", po::value<std::string>(),
                                                 "the PNG to write (required)")(
      "hdu", po::value<std::string>(),
      "FITS: the HDU to show: N (0-based, as astropy counts), EXTNAME or EXTNAME,EXTVER "
      "(default: the first HDU with an image of 2 or more axes, tile-compressed ones included)")(
      "array", po::value<std::string>(),
      "ASDF: the JSON Pointer of the ndarray to show, e.g. /sci or /fits/1/data (default: the "
      "first ndarray of 2 or more dimensions in the tree)")(
      "plane", po::value<std::uint64_t>(),
      "the plane of a cube along its slowest axis (0-based; FITS's last axis; default: the "
      "middle one; further leading axes are taken at their middle)")(
      "interval", po::value<std::string>()->default_value("zscale"),
      "zscale (astropy's ZScaleInterval with its defaults), minmax, or percentile:P (astropy's "
      "PercentileInterval(P), e.g. percentile:99.5)")(
      "stretch", po::value<std::string>()->default_value("linear"),
      "linear, or asinh[:A] (astropy's AsinhStretch(a=A), A = 0.1 by default)")(
      "size", po::value<std::uint32_t>()->default_value(1024),
      "the longest side of the picture in pixels")("overwrite", "replace OUT when it exists")(
      "json", "print what was done as one JSON object")("quiet,q", "print nothing on success")(
      "input", po::value<std::string>(), "the FITS or ASDF file");
  po::variables_map vm;
  if (!parse_command_line(args, opts, "input", vm)) return kExitOk;
  if (!vm.count("input")) throw po::error("fitsasdf preview needs an input file");
  if (!vm.count("output")) throw po::error("fitsasdf preview needs -o OUT.png");

  PreviewOptions options;
  options.output = vm["output"].as<std::string>();
  options.overwrite = vm.count("overwrite") > 0;
  if (vm.count("hdu")) read_hdu_option(vm["hdu"].as<std::string>(), options);
  if (vm.count("array")) options.array = vm["array"].as<std::string>();
  if (vm.count("plane")) options.plane = vm["plane"].as<std::uint64_t>();
  read_interval_option(vm["interval"].as<std::string>(), options);
  read_stretch_option(vm["stretch"].as<std::string>(), options);
  options.size = vm["size"].as<std::uint32_t>();
  if (options.size == 0) throw po::error("--size must be at least 1");

  const PreviewResult result = preview(vm["input"].as<std::string>(), options);
  if (vm.count("json")) {
    std::cout << to_json(result).dump(1) << "\n";
  } else if (!vm.count("quiet")) {
    std::cout << describe(result) << "\n";
  }
  return kExitOk;
}

}  // namespace fitsasdf::cli
