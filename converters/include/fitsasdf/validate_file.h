#pragma once
/// \file
/// `fitsasdf validate`'s per-file step: an ASDF file, or the ASDF file a FITS file carries in
/// its ASDF extension (JWST products, CRDS reference files), checked by `asdfcore::validate`.

#include <string>

#include "asdfcore/asdf_file.h"
#include "asdfcore/validate.h"

namespace fitsasdf {

/// Check the file at `path`, told ASDF or FITS by its first bytes. For a FITS file the embedded
/// ASDF file is extracted first (its `fits:` array sources pulled in from their HDUs, which
/// checks that they exist and match), then checked; findings name the FITS file. Throws
/// `asdfcore::Error` when the file cannot be checked at all: not ASDF or FITS, a FITS file
/// without an ASDF extension, a prologue or tree that does not parse, an I/O error.
asdfcore::FileValidation validate_file(const std::string& path,
                                       const asdfcore::OpenOptions& open = {},
                                       const asdfcore::ValidateOptions& options = {});

}  // namespace fitsasdf
