#pragma once
// Finding the ASDF extension of an open FITS file (shared by convert and extract).
#include "fits/fits_file.h"

namespace fitsasdf::embedded {

/// Return the 1-based index of the first HDU (the primary one too, where old python asdf put
/// it) whose EXTNAME is ASDF (any case, trailing blanks ignored), or 0 when there is none.
int asdf_extension_index(const fits::FitsFile& file);

}  // namespace fitsasdf::embedded
