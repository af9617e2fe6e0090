#pragma once
// Finding the ASDF extension of an open FITS file (shared by convert and extract).
#include <string>
#include <vector>

#include "fits/fits_file.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/header.h"

namespace fitsasdf::embedded {

/// Return whether a header with `cards` is an ASDF extension's: its EXTNAME is ASDF (any case,
/// trailing blanks ignored).
bool is_asdf_extension(const std::vector<Card>& cards);

/// Return the 1-based index of the first HDU (the primary one too, where old python asdf put
/// it) whose EXTNAME is ASDF (any case, trailing blanks ignored), or 0 when there is none.
int asdf_extension_index(const fits::FitsFile& file);

/// `fitsasdf::extract_embedded_asdf` of `input` already open as `file`, taken over: a
/// conversion that found the ASDF extension does not read every header a second time (nor hold
/// two copies of them: 100,000 HDUs are a few hundred MB of parsed cards).
ConversionReport extract_embedded_asdf(fits::FitsFile file, const std::string& input,
                                       const std::string& output, const ConvertOptions& options);

}  // namespace fitsasdf::embedded
