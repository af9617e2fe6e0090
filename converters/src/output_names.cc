#include "fitsasdf/output_names.h"

#include <filesystem>

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

}  // namespace fitsasdf
