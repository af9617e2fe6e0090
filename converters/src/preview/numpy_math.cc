#include "preview/numpy_math.h"

#include "asdfcore/ndarray/dtype.h"

namespace fitsasdf::preview_impl {

double round_to(double x, ValuePrecision precision) noexcept {
  switch (precision) {
    case ValuePrecision::kFloat16:
      return asdfcore::ndarray::float16_to_double(asdfcore::ndarray::double_to_float16(x));
    case ValuePrecision::kFloat32:
      return static_cast<double>(static_cast<float>(x));
    case ValuePrecision::kFloat64:
      break;
  }
  return x;
}

double sorted_median(std::span<const double> sorted, ValuePrecision precision) noexcept {
  const std::size_t n = sorted.size();
  if (n % 2 == 1) return sorted[n / 2];
  const double a = sorted[n / 2 - 1];
  const double b = sorted[n / 2];
  switch (precision) {
    case ValuePrecision::kFloat16: {
      // numpy's mean of float16 sums and divides in float32, then rounds to float16.
      const float sum = static_cast<float>(a) + static_cast<float>(b);
      return round_to(static_cast<double>(sum / 2.0f), ValuePrecision::kFloat16);
    }
    case ValuePrecision::kFloat32: {
      const float sum = static_cast<float>(a) + static_cast<float>(b);
      return static_cast<double>(sum / 2.0f);
    }
    case ValuePrecision::kFloat64:
      break;
  }
  return (a + b) / 2.0;
}

double percentile_lerp(double a, double b, double t, ValuePrecision precision) noexcept {
  const double d = round_to(b - a, precision);
  return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

}  // namespace fitsasdf::preview_impl
