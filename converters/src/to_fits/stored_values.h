#pragma once
// Undoing physical scaling: from the values `convert --scaling physical` wrote (BSCALE and BZERO
// applied, BLANK as NaN) back to the values FITS stores, when that can be done exactly.
#include <cstdint>
#include <optional>
#include <vector>

#include "asdfcore/ndarray/ndarray.h"

namespace fitsasdf::to_fits {

/// Stored values recovered from physical ones.
struct StoredValues {
  std::vector<std::uint8_t> bytes;  ///< The stored values, big-endian, C order.
  /// Elements for which several stored values give the same physical value (float32 rounding):
  /// the one nearest to (physical - BZERO) / BSCALE was taken, so the physical values are
  /// exact but the stored ones may differ from the original file's.
  std::uint64_t ambiguous = 0;
};

/// Return the stored values of BITPIX `bitpix` whose physical values, computed as fitsasdf's
/// FITS -> ASDF physical scaling computes them (astropy's arithmetic: float32 for BITPIX 8 and
/// 16, float64 for 32 and 64 and for float data; times BSCALE unless 1, plus BZERO unless 0;
/// BLANK as NaN), are bit for bit the elements of `physical`; nothing when `physical` is not of
/// that float type or some element has no such stored value (edited data, a NaN without BLANK).
std::optional<StoredValues> stored_from_physical(const asdfcore::ndarray::NDArray& physical,
                                                 long long bitpix, double bscale, double bzero,
                                                 std::optional<long long> blank);

}  // namespace fitsasdf::to_fits
