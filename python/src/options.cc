#include "options.h"

#include <pybind11/stl.h>

#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::python {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

[[noreturn]] void bad_choice(const char* name, const std::string& value, const char* choices) {
  throw Error(ErrorCode::kInvalidArgument,
              std::string(name) + "=" + value + " is not one of " + choices);
}

ReadLimits limits(Kwargs& kw) {
  ReadLimits l;
  l.max_memory = kw.get<std::uint64_t>("max_memory", l.max_memory);
  return l;
}

/// Return the value `named(text)` gives for the argument `name`, or throw naming the choices.
template <typename Lookup>
auto choice(Kwargs& kw, const char* name, const char* fallback, Lookup named,
            const char* choices) {
  const auto text = kw.get<std::string>(name, fallback);
  const auto value = named(text);
  if (!value) bad_choice(name, text, choices);
  return *value;
}

}  // namespace

void Kwargs::check_all_used(const char* function) const {
  for (const auto& item : kwargs_) {
    const auto name = py::cast<std::string>(item.first);
    if (!used_.count(name)) {
      throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" +
                           name + "'");
    }
  }
}

int compression_level(Kwargs& kw) {
  const int level = kw.get<int>("compression_level", -1);
  if (level < -1 || level > 9) {
    throw Error(ErrorCode::kInvalidArgument,
                "compression_level=" + std::to_string(level) +
                    " is not 0 to 9 (or -1 for the codec's default)");
  }
  return level;
}

asdfcore::format::ChecksumConvention checksum_convention(Kwargs& kw) {
  return choice(kw, "checksum", "stored", asdfcore::format::checksum_convention_named,
                "'stored', 'decoded', 'none'");
}

ConvertOptions to_asdf_options(Kwargs& kw) {
  ConvertOptions o;
  o.compression = kw.get<std::string>("compress", "");
  o.compression_level = compression_level(kw);
  o.scaling = choice(kw, "scaling", "raw", scaling_policy_named, "'raw', 'physical'");
  o.checksum = checksum_convention(kw);
  o.fits_tag = choice(kw, "fits_tag", "auto", fits_tag_named, "'auto', 'standard', 'astropy'");
  o.native_byte_order = kw.get<bool>("native_byte_order", false);
  o.asdf_standard = kw.get<std::string>("asdf_standard", o.asdf_standard);
  o.native_view = kw.get<bool>("native_view", true);
  // As the command line: an embedded ASDF tree (JWST products) is what is written, unless the
  // FITS list is asked for.
  o.embedded_tree = !kw.get<bool>("fits_list", false);
  o.threads = kw.get<unsigned>("threads", 0);
  o.durable = kw.get<bool>("durable", true);
  o.overwrite = kw.get<bool>("overwrite", true);
  o.limits = limits(kw);
  return o;
}

AsdfToFitsOptions to_fits_options(Kwargs& kw) {
  AsdfToFitsOptions o;
  o.durable = kw.get<bool>("durable", true);
  o.overwrite = kw.get<bool>("overwrite", true);
  o.add_checksums = kw.get<bool>("add_checksums", false);
  o.verify_checksums = kw.get<bool>("verify_checksums", true);
  o.limits = limits(kw);
  return o;
}

CompareOptions compare_options(Kwargs& kw) {
  CompareOptions o;
  const auto mode = kw.get<std::string>("mode", "diff");
  if (mode == "diff") {
    o.mode = CompareMode::kDiff;
  } else if (mode == "verify") {
    o.mode = CompareMode::kVerify;
  } else {
    bad_choice("mode", mode, "'diff', 'verify'");
  }
  o.ignore_keywords = kw.get<std::vector<std::string>>("ignore_keywords", {});
  o.ignore_paths = kw.get<std::vector<std::string>>("ignore_paths", {});
  o.max_listed = kw.get<std::size_t>("max_listed", o.max_listed);
  return o;
}

}  // namespace fitsasdf::python
