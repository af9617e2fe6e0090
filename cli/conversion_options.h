#pragma once
// What `convert` and `batch` share: the conversion options, how their values become library
// options, how the direction is told from a file's content, and the default output names.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "checksum_options.h"
#include "command_line.h"
#include "limit_options.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/output_names.h"
#include "fitsasdf/to_fits.h"

namespace fitsasdf::cli {

/// True when the file starts like an ASDF file ("#ASDF", or "%ASDF " of the pre-1.0 layout);
/// false for anything else, a missing file included (the FITS reader then says what is wrong).
inline bool is_asdf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[6] = {};
  if (!in.read(head, 5)) return false;
  const std::string_view start(head, 5);
  return start == "#ASDF" || (start == "%ASDF" && in.read(head + 5, 1) && head[5] == ' ');
}

/// Add the options that tune a conversion (both directions) to `opts`.
inline void add_conversion_options(boost::program_options::options_description& opts) {
  namespace po = boost::program_options;
  opts.add_options()(
      "scaling", po::value<std::string>()->default_value("raw"),
      "scaled integer images: raw (stored integers + cards, lossless) or physical (floats)")(
      "fits-tag", po::value<std::string>()->default_value("auto"),
      "tag of the fits item: auto, standard (stsci fits-1.0.0) or astropy")(
      "native-byteorder",
      "write image data in this machine's byte order (default: big-endian "
      "as in FITS, no swap)")("compress", po::value<std::string>()->default_value("none"),
                              "zlib, bzp2, lz4 or none")(
      "standard", po::value<std::string>()->default_value("1.5.0"), "ASDF Standard to declare")(
      "no-native-view", "write only the fits item, no arrays by EXTNAME or quantities")(
      "no-fsync", "do not flush the output to disk before renaming it into place")(
      "fits-list",
      "FITS input with an ASDF extension (JWST, AsdfInFits): convert it HDU by HDU "
      "into a fits list like any FITS file, instead of writing its embedded tree")(
      "add-checksums",
      "ASDF input: give every HDU fresh CHECKSUM and DATASUM cards (HDUs that "
      "have them always get them recomputed)")(
      "no-verify-checksums",
      "ASDF input: do not check the blocks' MD5 checksums (by default a block whose MD5 "
      "matches neither its stored bytes nor its decoded data fails the conversion, exit 2)")(
      "compression-level", po::value<int>()->default_value(-1),
      "zlib: 1-2 ISA-L fast (the default), 3-4 ISA-L slower, 5-9 zlib's own levels, 0 stored; "
      "bzp2: 1-9; lz4: acceleration")(
      "threads", po::value<unsigned>()->default_value(0),
      "threads that work side by side on the pieces of a large block and on the bands of a "
      "tile-compressed image, in either direction (0: one per core)");
  add_checksum_options(opts);
  add_limit_options(opts);
}

/// The FITS-to-ASDF options the command line asks for; throws a usage error for a bad value.
inline ConvertOptions fits_to_asdf_options(const boost::program_options::variables_map& vm) {
  namespace po = boost::program_options;
  ConvertOptions options;
  const std::string scaling = vm["scaling"].as<std::string>();
  const auto policy = scaling_policy_named(scaling);
  if (!policy) throw po::error("--scaling takes raw or physical, not '" + scaling + "'");
  options.scaling = *policy;
  const std::string tag = vm["fits-tag"].as<std::string>();
  const auto fits_tag = fits_tag_named(tag);
  if (!fits_tag) throw po::error("--fits-tag takes auto, standard or astropy, not '" + tag + "'");
  options.fits_tag = *fits_tag;
  options.compression = block_compression(vm["compress"].as<std::string>());
  options.native_byte_order = vm.count("native-byteorder") > 0;
  options.native_view = vm.count("no-native-view") == 0;
  options.durable = vm.count("no-fsync") == 0;
  options.checksum = read_checksum_option(vm);
  options.asdf_standard = vm["standard"].as<std::string>();
  // A FITS file that carries its own ASDF tree (JWST, AsdfInFits) gives that tree.
  options.embedded_tree = vm.count("fits-list") == 0;
  options.limits = read_limits(vm);
  options.threads = vm["threads"].as<unsigned>();
  options.compression_level = vm["compression-level"].as<int>();
  if (options.compression_level < -1 || options.compression_level > 9) {
    throw po::error("--compression-level takes 0 to 9 (or -1 for the default)");
  }
  return options;
}

/// Throw a usage error when an option that applies only to FITS input was given (`convert` of
/// an ASDF input).
inline void refuse_fits_only_options(const boost::program_options::variables_map& vm) {
  namespace po = boost::program_options;
  for (const char* fits_only :
       {"scaling", "fits-tag", "compress", "compression-level", "standard", "checksum"}) {
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
}

/// The ASDF-to-FITS options the command line asks for.
inline AsdfToFitsOptions asdf_to_fits_options(const boost::program_options::variables_map& vm) {
  AsdfToFitsOptions options;
  options.durable = vm.count("no-fsync") == 0;
  options.add_checksums = vm.count("add-checksums") > 0;
  options.verify_checksums = vm.count("no-verify-checksums") == 0;
  options.limits = read_limits(vm);
  options.threads = vm["threads"].as<unsigned>();
  return options;
}

}  // namespace fitsasdf::cli
