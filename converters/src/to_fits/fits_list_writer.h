#pragma once
// Writing the `fits` list of a tree as a FITS file: shared by the conversion of a file that has
// one and by ASDF-in-FITS, which plans its HDUs as such a list in memory.
#include <functional>
#include <string>

#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/node.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"
#include "progress/meter.h"

namespace fitsasdf::to_fits {

/// Write the `fits` list of `root` (a tree whose `$ref`s are resolved) to `output`, atomically,
/// reading its ndarrays' blocks from `blocks`; `input` names the source in errors and in the
/// report. `meter` is the caller's (this starts it). `before_commit` runs after the last HDU is
/// written and before the output appears (the caller's last checks, such as verifying the
/// checksums of blocks nothing read); what it throws leaves no output.
ConversionReport write_fits_list(const asdfcore::tree::NodePtr& root,
                                 const asdfcore::ndarray::BlockProvider& blocks,
                                 const std::string& input, const std::string& output,
                                 const AsdfToFitsOptions& options, progress::Meter& meter,
                                 const std::function<void()>& before_commit);

}  // namespace fitsasdf::to_fits
