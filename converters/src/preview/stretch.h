#pragma once
// From values to gray levels: the interval's limits map to 0 and 1 (clipped), the stretch
// (linear, or astropy's AsinhStretch) bends that, and 0..1 becomes 0..255.
#include <cstdint>

#include "fitsasdf/preview.h"

namespace fitsasdf::preview_impl {

/// Maps values to 8-bit gray levels.
class GrayMap {
 public:
  /// Map `interval` to 0..255 through `stretch` (`a` for asinh).
  GrayMap(Interval interval, StretchKind stretch, double a);
  /// Return the gray level of `v` (not NaN): 0 at or below `lo`, 255 at or above `hi`.
  std::uint8_t operator()(double v) const noexcept;

 private:
  Interval interval_;
  StretchKind stretch_;
  double a_;
  double asinh_norm_;
};

}  // namespace fitsasdf::preview_impl
