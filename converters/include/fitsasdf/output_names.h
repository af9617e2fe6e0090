#pragma once
/// \file
/// The output names `convert` and `batch` (and the C function `fitsasdf_convert`) choose when
/// none is given.

#include <string>

namespace fitsasdf {

/// Return `input` with its FITS extensions (.fits, .fit, .fts, and .gz/.bz2/.Z/.fz after them)
/// replaced by .asdf.
std::string default_asdf_name(const std::string& input);

/// Return `input` with .asdf replaced by .fits (.fits appended to any other name).
std::string default_fits_name(const std::string& input);

/// Throw `asdfcore::Error` (exists) when anything (a file, a folder, a symbolic link) has the
/// name `output`: the early check of a conversion asked not to overwrite.
void refuse_existing_output(const std::string& output);

}  // namespace fitsasdf
