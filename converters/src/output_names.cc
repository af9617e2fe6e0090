#include "fitsasdf/output_names.h"

#include <filesystem>

#include "asdfcore/error.h"

namespace fitsasdf {

std::string default_asdf_name(const std::string& input) {
  std::filesystem::path p(input);
  for (const char* outer : {".gz", ".bz2", ".Z", ".fz"}) {
    if (p.extension() == outer) p.replace_extension();
  }
  for (const char* ext : {".fits", ".fit", ".fts", ".FITS", ".FIT"}) {
    if (p.extension() == ext) p.replace_extension();
  }
  return p.string() + ".asdf";
}

std::string default_fits_name(const std::string& input) {
  std::filesystem::path p(input);
  if (p.extension() == ".asdf" || p.extension() == ".ASDF") p.replace_extension();
  return p.string() + ".fits";
}

void refuse_existing_output(const std::string& output) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(output, ec);
  if (!ec && status.type() != std::filesystem::file_type::not_found) {
    throw asdfcore::Error(asdfcore::ErrorCode::kExists,
                          "the output exists; give --overwrite (overwrite=True) to replace it",
                          {.file = output});
  }
}

}  // namespace fitsasdf
