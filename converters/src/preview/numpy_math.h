#pragma once
// The few steps of astropy's intervals that numpy computes in the values' own type (float32 or
// float16 arrays): the median of the samples and the difference in a percentile's
// interpolation. Doing them in that type gives astropy's limits to the bit.
#include <span>

#include "fitsasdf/preview.h"

namespace fitsasdf::preview_impl {

/// Return `x` rounded to `precision` (float16, float32) and back to double.
double round_to(double x, ValuePrecision precision) noexcept;

/// Return `np.median` of `sorted` (ascending, not empty) held in `precision`: the middle value,
/// or the mean of the two middle values computed as numpy's `mean` does in that type.
double sorted_median(std::span<const double> sorted, ValuePrecision precision) noexcept;

/// Return numpy's linear interpolation between `a` and `b` at `t` (0 <= t < 1) for a
/// percentile of values held in `precision`: the difference b - a in that type, then
/// a + d * t below t = 0.5 and b - d * (1 - t) from it.
double percentile_lerp(double a, double b, double t, ValuePrecision precision) noexcept;

}  // namespace fitsasdf::preview_impl
