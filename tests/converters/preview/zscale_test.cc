// ZScale (fitsasdf/preview.h) on small inputs whose limits follow from the algorithm, the
// numpy-typed steps (median and percentile difference in float32/float16) and the exact
// radix selection behind percentiles. The agreement with astropy on real and synthetic images
// is tests/interop/preview_zscale_test.cc.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/preview.h"
#include "preview/numpy_math.h"
#include "preview/rank_select.h"
#include "support/catch.h"

using namespace fitsasdf;

TEST_CASE("zscale samples with astropy's stride over the finite values", "[preview][zscale]") {
  CHECK(zscale_stride(0, 1000) == 1);
  CHECK(zscale_stride(999, 1000) == 1);
  CHECK(zscale_stride(1999, 1000) == 1);
  CHECK(zscale_stride(2000, 1000) == 2);
  CHECK(zscale_stride(1'000'000, 1000) == 1000);
  // NaN and infinities are left out before sampling: the same limits as the finite values.
  std::vector<double> values;
  std::vector<double> finite;
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(100, 5);
  for (int i = 0; i < 5000; ++i) {
    const double v = noise(random);
    if (i % 7 == 3) {
      values.push_back(std::nan(""));
    } else if (i % 101 == 0) {
      values.push_back(std::numeric_limits<double>::infinity());
    } else {
      values.push_back(v);
      finite.push_back(v);
    }
  }
  const Interval a = zscale_interval(values);
  const Interval b = zscale_interval(finite);
  CHECK(a.lo == b.lo);
  CHECK(a.hi == b.hi);
  CHECK(a.lo > 80);
  CHECK(a.hi < 120);
  CHECK(a.lo < a.hi);
}

TEST_CASE("zscale of a straight line is the line's range", "[preview][zscale]") {
  // Samples 0..99: the fit is exact, nothing is rejected, slope 1 / contrast 0.25 = 4 reaches
  // beyond both ends, so the limits are the samples' extremes.
  std::vector<double> line(100);
  for (int i = 0; i < 100; ++i) line[static_cast<std::size_t>(99 - i)] = i;  // any order
  const Interval r = zscale_of_samples(line);
  CHECK(r.lo == 0);
  CHECK(r.hi == 99);
  // With a contrast of 4 the slope is 1/4: median 49.5 -/+ 48/4 and 51/4.
  ZScaleOptions options;
  options.contrast = 4;
  const Interval narrow = zscale_of_samples(line, options);
  CHECK(narrow.lo == 49.5 - 48 * 0.25);
  CHECK(narrow.hi == 49.5 + 51 * 0.25);
}

TEST_CASE("zscale rejects outliers and falls back to the extremes with too few samples",
          "[preview][zscale]") {
  // A flat background with a few huge values: they are rejected, the slope is ~0, and the
  // limits close in on the background.
  std::vector<double> flat(1000, 10.0);
  for (std::size_t i = 0; i < flat.size(); ++i) flat[i] += static_cast<double>(i % 10) * 0.01;
  for (std::size_t i = 0; i < 20; ++i) flat[i * 50] = 1e6;
  const Interval r = zscale_of_samples(flat);
  CHECK(r.lo >= 10.0);
  CHECK(r.hi < 11.0);
  CHECK(r.hi == Approx(10.250106419851251).epsilon(1e-12));  // astropy 5.2.1
  // Fewer samples than min_npixels: no fit, the extremes.
  const Interval few = zscale_of_samples({3.0, 1.0, 2.0, 7.0});
  CHECK(few.lo == 1.0);
  CHECK(few.hi == 7.0);
  CHECK_THROWS_AS(zscale_of_samples({}), asdfcore::Error);
  CHECK_THROWS_AS(zscale_interval(std::vector<double>{std::nan("")}), asdfcore::Error);
}

TEST_CASE("the median and percentile steps are done in the values' numpy type",
          "[preview][zscale]") {
  using preview_impl::percentile_lerp;
  using preview_impl::sorted_median;
  // 16777216 + 1 is not a float32: numpy's float32 mean of (16777216, 16777217) rounds the sum.
  const std::vector<double> pair = {16777216.0, 16777218.0};
  CHECK(sorted_median(pair, ValuePrecision::kFloat64) == 16777217.0);
  CHECK(sorted_median(pair, ValuePrecision::kFloat32) == 16777216.0);
  CHECK(sorted_median(std::vector<double>{1.0, 2.0, 4.0}, ValuePrecision::kFloat32) == 2.0);
  // float16: (2048 + 2050) / 2 = 2049 is not a float16 (spacing 2 there).
  CHECK(sorted_median(std::vector<double>{2048.0, 2050.0}, ValuePrecision::kFloat16) == 2048.0);
  // numpy's lerp: from below under t = 0.5, from above at and over it.
  CHECK(percentile_lerp(1.0, 3.0, 0.25, ValuePrecision::kFloat64) == 1.5);
  CHECK(percentile_lerp(1.0, 3.0, 0.75, ValuePrecision::kFloat64) == 2.5);
}

TEST_CASE("the radix selection finds exact order statistics in passes", "[preview][zscale]") {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> wide(-1e6, 1e6);
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i) values.push_back(i % 5 == 0 ? std::round(wide(random)) : wide(random));
  values.push_back(-0.0);
  values.push_back(0.0);
  values.push_back(5e-320);  // subnormal
  values.push_back(-std::numeric_limits<double>::max());
  values.push_back(std::nan(""));
  values.push_back(-std::numeric_limits<double>::infinity());
  std::vector<double> sorted;
  for (double v : values) {
    if (std::isfinite(v)) sorted.push_back(v);
  }
  std::sort(sorted.begin(), sorted.end());
  const std::vector<std::uint64_t> ranks = {0, 1, 49, 10000, sorted.size() - 2,
                                            sorted.size() - 1};
  int passes = 0;
  const std::vector<double> got = preview_impl::select_ranks(
      sorted.size(), ranks, [&](const std::function<void(std::span<const double>)>& f) {
        ++passes;
        for (std::size_t i = 0; i < values.size(); i += 1000) {
          f(std::span<const double>(values).subspan(i, std::min<std::size_t>(1000, values.size() - i)));
        }
      });
  CHECK(passes == 4);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    INFO("rank " << ranks[i]);
    CHECK(got[i] == sorted[ranks[i]]);
  }
  CHECK_THROWS_AS(preview_impl::select_ranks(3, {3}, [](const auto&) {}), asdfcore::Error);
}
