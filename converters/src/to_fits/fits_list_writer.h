#pragma once
// Writing a `fits` list as a FITS file: shared by the conversion of a file that has one and by
// ASDF-in-FITS, which plans its HDUs as such a list in memory.
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/node.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"
#include "progress/meter.h"
#include "to_fits/fits_items.h"

namespace fitsasdf::to_fits {

/// A fits list to write, with what a list at the root (`/fits`) carries beside it.
struct FitsListToWrite {
  FitsList list;
  /// `fits_trailer`'s bytes: written after the last HDU's data in place of its padding.
  std::optional<asdfcore::ndarray::NDArray> trailer;
  std::set<long long> stale_checksums;  ///< `fits_stale_checksums`: HDUs whose cards are kept.
};

/// Read the `fits` list of `root` (a tree whose `$ref`s are resolved) and, for `/fits`, the
/// trailer and stale checksums beside it, the trailer's block deferred in `blocks`; `input`
/// names the source in errors. Throws as `find_fits_list` does, and `asdfcore::Error`
/// (malformed) for a trailer that is not a uint8 ndarray.
FitsListToWrite read_fits_list(const asdfcore::tree::NodePtr& root,
                               const asdfcore::ndarray::BlockProvider& blocks,
                               const std::string& input);

/// Write `what` to `output`, atomically, reading its ndarrays' blocks from `blocks`; `input`
/// names the source in errors and in the report. `meter` is the caller's (this starts it).
/// `before_commit` runs after the last HDU is written and before the output appears (the
/// caller's last checks, such as verifying the checksums of blocks nothing read); what it
/// throws leaves no output.
ConversionReport write_fits_list(const FitsListToWrite& what,
                                 const asdfcore::ndarray::BlockProvider& blocks,
                                 const std::string& input, const std::string& output,
                                 const AsdfToFitsOptions& options, progress::Meter& meter,
                                 const std::function<void()>& before_commit);

}  // namespace fitsasdf::to_fits
