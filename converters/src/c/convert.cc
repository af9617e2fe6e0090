// fitsasdf's C functions (include/fitsasdf/c/convert.h): conversion and verification with
// default options, every failure returned as a status and a malloc'ed message.
#include "fitsasdf/c/convert.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>

#include "asdfcore/error.h"
#include "compare/file_kind.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/output_names.h"
#include "fitsasdf/to_fits.h"
#include "fitsasdf/verify.h"

namespace {

/// Hand `text` to the caller as a malloc'ed copy (nothing when `message` is null).
void give(char** message, const std::string& text) {
  if (!message) return;
  *message = static_cast<char*>(std::malloc(text.size() + 1));
  if (*message) std::memcpy(*message, text.c_str(), text.size() + 1);
}

/// Return the text of the exception being handled.
std::string current_error() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "internal error: an unknown exception";
  }
}

}  // namespace

extern "C" {

int fitsasdf_convert(const char* input, const char* output, char** message) {
  if (message) *message = nullptr;
  if (!input) {
    give(message, "fitsasdf_convert: the input is NULL");
    return FITSASDF_ERROR;
  }
  try {
    if (fitsasdf::compare::file_kind(input) == fitsasdf::compare::FileKind::kAsdf) {
      const std::string out = output ? output : fitsasdf::default_fits_name(input);
      // As `fitsasdf convert` does: the default name is likely the FITS file the ASDF file was
      // made from, which is never overwritten unasked.
      if (!output && std::filesystem::exists(out)) {
        throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                              "the default output " + out +
                                  " exists (perhaps the FITS file this ASDF file came from); give "
                                  "an output name to choose where to write");
      }
      fitsasdf::convert_asdf_to_fits(input, out);
    } else {
      fitsasdf::convert_fits_to_asdf(input, output ? output : fitsasdf::default_asdf_name(input));
    }
    return FITSASDF_OK;
  } catch (...) {
    give(message, current_error());
    return FITSASDF_ERROR;
  }
}

int fitsasdf_verify(const char* fits, const char* other, char** message) {
  if (message) *message = nullptr;
  if (!fits) {
    give(message, "fitsasdf_verify: the FITS file is NULL");
    return FITSASDF_ERROR;
  }
  try {
    const fitsasdf::VerifyReport report =
        other ? fitsasdf::verify_pair(fits, other) : fitsasdf::verify_round_trip(fits);
    if (report.equivalent()) return FITSASDF_OK;
    std::string text = std::string(fits) + " and " + (other ? other : "its round trip") + " differ:";
    for (const auto& block : report.blocks) {
      if (!block.ok()) text += " block " + std::to_string(block.block) + " " + block.status + ";";
    }
    for (const auto& hdu : report.comparison.hdus) {
      if (!hdu.equivalent()) text += " HDU " + std::to_string(hdu.hdu_a) + " (" + hdu.name + ");";
    }
    for (int h : report.comparison.missing_hdus) text += " HDU " + std::to_string(h) + " missing;";
    for (int h : report.comparison.extra_hdus) text += " extra HDU " + std::to_string(h) + ";";
    give(message, text);
    return FITSASDF_DIFFERENT;
  } catch (...) {
    give(message, current_error());
    return FITSASDF_ERROR;
  }
}

}  // extern "C"
