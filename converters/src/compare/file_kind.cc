#include "compare/file_kind.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "asdfcore/error.h"
#include "fitsasdf/to_fits.h"

namespace fitsasdf::compare {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;

FileKind file_kind(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // An ifstream opens a folder and reads nothing from it, which would look like an empty file.
    throw Error(ErrorCode::kIo, "is a directory, not a file", ErrorContext{.file = path});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorCode::kIo, std::string("cannot open for reading: ") + std::strerror(errno),
                ErrorContext{.file = path});
  }
  char head[9] = {};
  in.read(head, sizeof head);
  const std::string_view s(head, static_cast<std::size_t>(in.gcount()));
  // "%ASDF 0.1.0": the pre-1.0 layout of ASDF Standard 0.1.0dev (format/legacy.h).
  if (s.starts_with("#ASDF") || s.starts_with("%ASDF ")) return FileKind::kAsdf;
  if (s.starts_with("SIMPLE  =") || s.starts_with("\x1f\x8b") || s.starts_with("BZh") ||
      s.starts_with("\x1f\x9d")) {
    return FileKind::kFits;
  }
  throw Error(ErrorCode::kNotFits,
              s.empty() ? "the file is empty: neither FITS nor ASDF"
                        : "neither a FITS file (no SIMPLE card) nor an ASDF file (no #ASDF line)",
              ErrorContext{.file = path, .offset = 0});
}

void asdf_to_fits(const std::string& asdf, const std::string& fits, const RunControl& control) {
  AsdfToFitsOptions options;
  options.control = control;
  options.durable = false;  // a temporary file
  // verify reports each block's checksum itself (a finding, not a failure), and diff compares
  // content: a wrong MD5 must not stop either from reading the data.
  options.verify_checksums = false;
  convert_asdf_to_fits(asdf, fits, options);
}

}  // namespace fitsasdf::compare
