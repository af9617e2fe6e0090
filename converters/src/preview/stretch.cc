#include "preview/stretch.h"

#include <algorithm>
#include <cmath>

namespace fitsasdf::preview_impl {

GrayMap::GrayMap(Interval interval, StretchKind stretch, double a)
    : interval_(interval), stretch_(stretch), a_(a), asinh_norm_(std::asinh(1.0 / a)) {}

std::uint8_t GrayMap::operator()(double v) const noexcept {
  double x;
  if (interval_.hi > interval_.lo) {
    x = (v - interval_.lo) / (interval_.hi - interval_.lo);
  } else {
    // An empty interval (a flat image): below, at and above the one value.
    x = v < interval_.lo ? 0.0 : (v > interval_.lo ? 1.0 : 0.5);
  }
  x = std::clamp(x, 0.0, 1.0);
  if (stretch_ == StretchKind::kAsinh) x = std::asinh(x / a_) / asinh_norm_;
  return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0, 1.0) * 255.0));
}

}  // namespace fitsasdf::preview_impl
