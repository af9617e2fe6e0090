#pragma once
/// \file
/// Quick-look images: one 2-D plane of a FITS image HDU or an ASDF ndarray, scaled to 8 bits by
/// an interval (astropy's `ZScaleInterval`, `MinMaxInterval` or `PercentileInterval`, with the
/// same limits) and a stretch (linear, or astropy's `AsinhStretch`), block-averaged down to a
/// size, and written as a PNG. Missing pixels (NaN, FITS BLANK, ASDF masks) are drawn in
/// `kPreviewNanColor`; row 0 of the image is the bottom row of the picture, as astropy and ds9
/// show it (`origin='lower'`). The image is read a row at a time, so memory holds a few rows
/// and the picture, whatever the size of the image.
///
/// ```cpp
/// fitsasdf::PreviewOptions options;
/// options.output = "sci.png";
/// options.extname = "SCI";
/// fitsasdf::PreviewResult r = fitsasdf::preview("image.fits", options);
/// std::cout << r.interval.lo << " .. " << r.interval.hi << "\n";
/// ```

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fitsasdf {

/// The colour (red, green, blue) of pixels without a value: NaN, FITS BLANK, masked, or a
/// block with no value at all. A dark red that no gray level can be mistaken for.
inline constexpr std::array<std::uint8_t, 3> kPreviewNanColor = {139, 0, 0};

/// The number type numpy would hold the values in, which decides the precision of the few
/// steps numpy takes in that type (the median of the samples, a percentile's difference).
enum class ValuePrecision {
  kFloat16,  ///< numpy float16 (ASDF float16 arrays).
  kFloat32,  ///< numpy float32 (BITPIX -32, scaled BITPIX 8 and 16 as astropy reads them).
  kFloat64,  ///< float64 or an integer type.
};

/// The parameters of astropy's `ZScaleInterval` (its defaults), and the values' precision.
struct ZScaleOptions {
  std::uint64_t n_samples = 1000;  ///< At most this many values are sampled.
  double contrast = 0.25;          ///< The slope of the fit is divided by this (when > 0).
  double max_reject = 0.5;         ///< Fall back to min/max when fewer than this share is left.
  std::uint64_t min_npixels = 5;   ///< ... or fewer than this many samples.
  double krej = 2.5;               ///< Rejection threshold, in standard deviations.
  int max_iterations = 5;          ///< Rounds of fitting and rejection.
  ValuePrecision precision = ValuePrecision::kFloat64;  ///< What numpy would hold the values in.
};

/// A display interval: values at or below `lo` are black, at or above `hi` white.
struct Interval {
  double lo = 0;  ///< The lower limit, in the image's (physical) units.
  double hi = 0;  ///< The upper limit.
};

/// Return the stride astropy's `ZScaleInterval` samples with among `finite_count` finite values
/// in C order: `max(1, int(finite_count / n_samples))`; the samples are the values at 0,
/// stride, 2 * stride, ... (0-based), at most `n_samples` of them.
std::uint64_t zscale_stride(std::uint64_t finite_count, std::uint64_t n_samples) noexcept;

/// Return astropy's `ZScaleInterval.get_limits` of `samples`, the values already sampled
/// (finite, in any order; `zscale_stride` says which). Throws `asdfcore::Error`
/// (invalid-argument) when `samples` is empty.
Interval zscale_of_samples(std::vector<double> samples, const ZScaleOptions& options = {});

/// Return astropy's `ZScaleInterval.get_limits(values)` for `values` in C order (non-finite
/// values are left out before sampling, as astropy does). Throws `asdfcore::Error`
/// (invalid-argument) when no value is finite.
Interval zscale_interval(std::span<const double> values, const ZScaleOptions& options = {});

/// How the display limits are found.
enum class IntervalKind {
  kZScale,      ///< astropy's `ZScaleInterval()` (from the full-resolution plane).
  kMinMax,      ///< The smallest and largest finite values.
  kPercentile,  ///< astropy's `PercentileInterval(percentile)`: numpy's linear percentiles.
};

/// How values between the limits become gray levels.
enum class StretchKind {
  kLinear,  ///< (v - lo) / (hi - lo).
  kAsinh,   ///< astropy's `AsinhStretch(a)`: asinh(x / a) / asinh(1 / a) of the linear x.
};

/// What to show and how.
struct PreviewOptions {
  /// FITS: the HDU, 0-based as astropy counts (0 is the primary HDU). Unset: by `extname`, or
  /// the first HDU with image data of 2 or more axes (tile-compressed images included).
  std::optional<int> hdu;
  std::string extname;         ///< FITS: the HDU with this EXTNAME (any case), when set.
  std::optional<int> extver;   ///< ... and this EXTVER (a missing EXTVER counts as 1).
  /// ASDF: the JSON Pointer of the ndarray ("/sci", "/fits/1/data"). Empty: the first ndarray
  /// of 2 or more dimensions in the tree's order.
  std::string array;
  /// The plane along the slowest axis of an image of 3 or more dimensions (0-based; numpy's
  /// first axis, FITS's last). Unset: the middle one, (n - 1) / 2. Axes between it and the two
  /// image axes are taken at their middle.
  std::optional<std::uint64_t> plane;
  IntervalKind interval = IntervalKind::kZScale;  ///< How the limits are found.
  double percentile = 99.5;  ///< The percentage of values kept by `kPercentile` (0-100].
  ZScaleOptions zscale;      ///< The parameters of `kZScale`.
  StretchKind stretch = StretchKind::kLinear;  ///< How values become gray levels.
  double asinh_a = 0.1;      ///< The `a` of `kAsinh` (> 0).
  /// The longest side of the picture in pixels: a larger image is block-averaged by the
  /// smallest whole factor that fits it; a smaller one is never enlarged.
  std::uint32_t size = 1024;
  /// The PNG to write (atomically: a temporary file renamed into place). Empty: write nothing,
  /// return the pixels.
  std::string output;
  bool overwrite = false;  ///< Replace an existing `output` (else refused).
  bool durable = true;     ///< Flush the PNG to disk before the rename.
};

/// What `preview` did.
struct PreviewResult {
  std::string input;   ///< The input path.
  std::string format;  ///< "fits" or "asdf".
  /// FITS: the HDU shown, 0-based as astropy counts; -1 for ASDF.
  int hdu = -1;
  std::string extname;        ///< FITS: its EXTNAME ("" when none).
  int extver = 0;             ///< FITS: its EXTVER (0 when the header has none).
  bool tile_compressed = false;  ///< FITS: the HDU is a tile-compressed image.
  std::string array;          ///< ASDF: the JSON Pointer of the array shown.
  std::vector<std::uint64_t> shape;  ///< The array's shape, numpy's order (slowest axis first).
  std::string dtype;  ///< numpy's name of the values shown ("float32", "uint16", ...).
  /// The index along each axis before the last two (empty for a 2-D image).
  std::vector<std::uint64_t> plane;
  std::uint64_t width = 0;   ///< Columns of the plane (numpy's last axis, FITS NAXIS1).
  std::uint64_t height = 0;  ///< Rows of the plane.
  std::uint64_t nan_values = 0;  ///< Values of the plane without a value (NaN, BLANK, masked).
  std::uint64_t finite_values = 0;  ///< Finite values of the plane (those the limits come from).
  std::string interval_name;  ///< "zscale", "minmax" or "percentile:P".
  Interval interval;          ///< The limits used.
  std::string stretch_name;   ///< "linear" or "asinh:A".
  std::uint64_t block = 1;    ///< The downsampling factor (1: none).
  std::uint32_t out_width = 0;   ///< Columns of the picture.
  std::uint32_t out_height = 0;  ///< Rows of the picture.
  std::uint64_t nan_pixels = 0;  ///< Pixels of the picture drawn in `kPreviewNanColor`.
  std::string output;         ///< The PNG written ("" when none).
  /// The picture: `out_height` rows of `out_width` pixels of red, green, blue, top row first
  /// (the top row shows the last rows of the image).
  std::vector<std::uint8_t> rgb;
};

/// Make a quick-look picture of one image of `in_path` (FITS, also .gz/.bz2/.Z, or ASDF, told
/// apart by content) and write it as a PNG to `options.output` when that is set. Throws
/// `asdfcore::Error` naming the file and the HDU or array: (not-found) when the HDU or array
/// asked for does not exist or the file holds no image, (invalid-argument) when it is not an
/// image (a table, fewer than 2 dimensions, a string, record or complex array), the plane is out
/// of range or an option is out of range, (exists) when `output` exists and `overwrite` is off
/// (checked first, and again atomically at the rename), (io) when the PNG cannot be written,
/// and what reading the file throws.
PreviewResult preview(const std::string& in_path, const PreviewOptions& options);

/// Return the bytes of a PNG file (8-bit RGB) showing `rgb`: `height` rows of `width` pixels of
/// red, green, blue, top row first. Throws `asdfcore::Error` (invalid-argument) when the sizes do not agree.
std::vector<std::uint8_t> encode_png(std::span<const std::uint8_t> rgb, std::uint32_t width,
                                     std::uint32_t height);

}  // namespace fitsasdf
