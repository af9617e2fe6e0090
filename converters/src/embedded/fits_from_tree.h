#pragma once
// ASDF -> FITS of a tree without a fits list, for a caller that has the file open already.
#include <string>

#include "asdfcore/asdf_file.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"
#include "progress/meter.h"

namespace fitsasdf::embedded {

/// `fitsasdf::write_asdf_in_fits` of `input` already open as `file` (with the options'
/// limits, checksum verification and threads), taken over, under the caller's `meter`: the
/// conversion that looked for a fits list does not parse the tree a second time. `file` stays
/// open until the output is written (the image HDUs are read from its blocks); its tree is
/// changed on the way. The caller has refused an existing output already.
ConversionReport write_asdf_in_fits(asdfcore::AsdfFile file, const std::string& input,
                                    const std::string& output, const AsdfToFitsOptions& options,
                                    progress::Meter& meter);

}  // namespace fitsasdf::embedded
