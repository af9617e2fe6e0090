#pragma once
// Telling a FITS file from an ASDF file by its first bytes, and turning an ASDF file back into
// FITS for the comparisons.
#include <string>

#include "fitsasdf/progress.h"

namespace fitsasdf::compare {

/// What a file is.
enum class FileKind {
  kFits,  ///< Starts with SIMPLE, or is gzip/bzip2/compress data (a compressed FITS file).
  kAsdf,  ///< Starts with #ASDF.
};

/// Return the kind of the file at `path`. Throws `asdfcore::Error` (io) when it cannot be read
/// and (not-fits) when it is neither.
FileKind file_kind(const std::string& path);

/// Convert the ASDF file `asdf` to the FITS file `fits` (`convert_asdf_to_fits`), its block
/// checksums not verified (verify checks them itself and reports them), under `control`.
void asdf_to_fits(const std::string& asdf, const std::string& fits, const RunControl& control = {});

}  // namespace fitsasdf::compare
