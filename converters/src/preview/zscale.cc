// astropy's ZScaleInterval (IRAF's zscale): a line fitted to the sorted samples, with rounds of
// k-sigma rejection whose rejected points are widened by a run of 1% of the samples; the
// limits are the median plus and minus the slope (divided by the contrast) over the samples on
// either side of the centre, kept inside the samples' range. Each step is done as numpy does
// it, in the same order, so the limits agree with astropy's to the last bits of the fit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/dtype.h"
#include "fitsasdf/preview.h"
#include "preview/numpy_math.h"

namespace fitsasdf {
namespace {

/// The least-squares line through (i, samples[i]) for the indices not in `bad`, as
/// `np.polyfit(x, y, 1, w=~bad)` gives it (zero weights drop the points).
struct Line {
  double slope = 0;
  double intercept = 0;
};

Line fit_line(const std::vector<double>& samples, const std::vector<std::uint8_t>& bad) {
  long double n = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (bad[i]) continue;
    n += 1;
    sx += static_cast<long double>(i);
    sy += samples[i];
  }
  if (n == 0) return {};
  const long double mx = sx / n;
  const long double my = sy / n;
  long double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (bad[i]) continue;
    const long double dx = static_cast<long double>(i) - mx;
    sxx += dx * dx;
    sxy += dx * (static_cast<long double>(samples[i]) - my);
  }
  if (sxx == 0) return {0, static_cast<double>(my)};
  const long double slope = sxy / sxx;
  return {static_cast<double>(slope), static_cast<double>(my - slope * mx)};
}

/// numpy's `np.convolve(bad, ones(width), mode="same")` of a bool mask: each point becomes
/// bad when a bad point lies from `width / 2` before it to `(width - 1) / 2` after it.
std::vector<std::uint8_t> widen(const std::vector<std::uint8_t>& bad, std::size_t width) {
  const std::size_t n = bad.size();
  const std::size_t before = width / 2;
  const std::size_t after = (width - 1) / 2;
  std::vector<std::uint8_t> out(n, 0);
  // A running count of bad points in the window [i - before, i + after].
  std::size_t inside = 0;
  for (std::size_t j = 0; j < std::min(n, after); ++j) inside += bad[j];
  for (std::size_t i = 0; i < n; ++i) {
    if (i + after < n) inside += bad[i + after];
    if (i >= before + 1) inside -= bad[i - before - 1];
    out[i] = inside > 0 ? 1 : 0;
  }
  return out;
}

}  // namespace

std::uint64_t zscale_stride(std::uint64_t finite_count, std::uint64_t n_samples) noexcept {
  if (n_samples == 0) return 1;
  const double ratio = static_cast<double>(finite_count) / static_cast<double>(n_samples);
  return ratio > 1.0 ? static_cast<std::uint64_t>(ratio) : 1;
}

Interval zscale_of_samples(std::vector<double> samples, const ZScaleOptions& options) {
  if (samples.empty()) {
    throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                          "zscale needs at least one finite value");
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t npix = samples.size();
  Interval limits{samples.front(), samples.back()};

  const auto minpix = std::max<std::uint64_t>(
      options.min_npixels,
      static_cast<std::uint64_t>(static_cast<double>(npix) * options.max_reject));
  const auto grow = std::max<std::size_t>(
      1, static_cast<std::size_t>(static_cast<double>(npix) * 0.01));

  std::vector<std::uint8_t> bad(npix, 0);
  std::vector<double> flat(npix);
  std::uint64_t good = npix;
  std::uint64_t last_good = npix + 1;
  Line line;
  bool fitted = false;
  for (int round = 0; round < options.max_iterations; ++round) {
    if (good >= last_good || good < minpix) break;
    line = fit_line(samples, bad);
    fitted = true;
    // The residuals and their standard deviation over the points still in (numpy's std:
    // the mean first, then the mean of the squared deviations).
    double sum = 0;
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < npix; ++i) {
      flat[i] = samples[i] - (line.slope * static_cast<double>(i) + line.intercept);
      if (!bad[i]) {
        sum += flat[i];
        ++count;
      }
    }
    const double mean = sum / static_cast<double>(count);
    double squares = 0;
    for (std::size_t i = 0; i < npix; ++i) {
      if (!bad[i]) squares += (flat[i] - mean) * (flat[i] - mean);
    }
    const double threshold = options.krej * std::sqrt(squares / static_cast<double>(count));
    for (std::size_t i = 0; i < npix; ++i) {
      if (flat[i] < -threshold || flat[i] > threshold) bad[i] = 1;
    }
    bad = widen(bad, grow);
    last_good = good;
    good = static_cast<std::uint64_t>(std::count(bad.begin(), bad.end(), std::uint8_t{0}));
  }

  if (fitted && good >= minpix) {
    double slope = line.slope;
    if (options.contrast > 0) slope /= options.contrast;
    const auto center = static_cast<std::int64_t>((npix - 1) / 2);
    const double median = preview_impl::sorted_median(samples, options.precision);
    limits.lo = std::max(limits.lo, median - static_cast<double>(center - 1) * slope);
    limits.hi = std::min(limits.hi, median + static_cast<double>(
                                                 static_cast<std::int64_t>(npix) - center) *
                                                 slope);
  }
  return limits;
}

Interval zscale_interval(std::span<const double> values, const ZScaleOptions& options) {
  std::uint64_t finite = 0;
  for (double v : values) finite += std::isfinite(v) ? 1 : 0;
  const std::uint64_t stride = zscale_stride(finite, options.n_samples);
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(std::min(finite, options.n_samples)));
  std::uint64_t k = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (k % stride == 0 && samples.size() < options.n_samples) samples.push_back(v);
    ++k;
  }
  return zscale_of_samples(std::move(samples), options);
}

}  // namespace fitsasdf
