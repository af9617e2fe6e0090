#pragma once
// Comparing the data of two FITS HDUs: images element by element (1-based FITS indexes),
// tables cell by cell (rows, columns, variable-length arrays in the heap), random groups item by
// item, anything else byte by byte.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "compare/fits_hdus.h"
#include "fitsasdf/diff.h"

namespace fitsasdf::compare {

/// Compare the data of `a` and `b` (not their padding). kVerify compares bytes (the NaN payload
/// and the sign of zero count, heap and gap bytes too); kDiff compares values as fitsdiff does
/// (NaN equals NaN, trailing blanks of strings ignored, table columns matched by name, numbers
/// in ASCII tables by value, variable-length arrays by their elements). Lists at most
/// `max_listed` differing elements. `on_bytes` (when set) hears each count of A's bytes found
/// equal to B's in the first pass over the bytes (4 MiB at a time), and may throw to stop.
DataComparison compare_hdu_data(const FitsHdu& a, const FitsHdu& b, CompareMode mode,
                                std::size_t max_listed,
                                const std::function<void(std::uint64_t)>& on_bytes = {});

}  // namespace fitsasdf::compare
