// `preview`: one image of a FITS or ASDF file as an 8-bit picture. The plane is read a row at a
// time: a first pass counts the values, finds the smallest and largest and block-averages the
// rows into the picture's grid; the interval then takes what it needs from further passes over
// the full-resolution values (ZScale: its samples, in one pass that stops once it has them;
// percentiles: an exact radix selection, at most four passes); the grid is then mapped to gray
// levels with NaN blocks in kPreviewNanColor, flipped so that row 0 is at the bottom, encoded
// as a PNG and written atomically.
#include "fitsasdf/preview.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "asdfcore/error.h"
#include "compare/file_kind.h"
#include "fitsasdf/output_names.h"
#include "preview/downsample.h"
#include "preview/image_source.h"
#include "preview/numpy_math.h"
#include "preview/png_writer.h"
#include "preview/rank_select.h"
#include "preview/stretch.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// The shortest text that reads back as `v` ("99.5", "0.1", "90"), for the names in the result.
std::string short_number(double v) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), v);
  return ec == std::errc() ? std::string(text, end) : std::to_string(v);
}

void check_options(const PreviewOptions& options) {
  auto refuse = [](const std::string& what) { throw Error(ErrorCode::kInvalidArgument, what); };
  if (options.size == 0) refuse("the preview size must be at least 1 pixel");
  if (!(options.percentile > 0 && options.percentile <= 100)) {
    refuse("the percentile must be above 0 and at most 100, not " +
           short_number(options.percentile));
  }
  if (!(options.asinh_a > 0) || !std::isfinite(options.asinh_a)) {
    refuse("the asinh stretch's a must be a positive number, not " +
           short_number(options.asinh_a));
  }
  if (options.zscale.n_samples == 0) refuse("zscale needs at least 1 sample");
}

/// numpy's linear percentile `p` (0-100) of the `count` finite values a pass gives.
Interval percentile_interval(double percentile, std::uint64_t count, ValuePrecision precision,
                             const preview_impl::ValuePass& pass) {
  const double lower = (100.0 - percentile) * 0.5;
  const double upper = 100.0 - lower;
  std::vector<std::uint64_t> ranks;
  struct Position {
    std::size_t below, above;
    double gamma;
  };
  std::vector<Position> positions;
  for (double p : {lower, upper}) {
    const double index = static_cast<double>(count - 1) * (p / 100.0);
    Position at{};
    if (index >= static_cast<double>(count - 1)) {
      ranks.push_back(count - 1);
      at = {ranks.size() - 1, ranks.size() - 1, 0.0};
    } else {
      const double floor = std::floor(index);
      ranks.push_back(static_cast<std::uint64_t>(floor));
      ranks.push_back(static_cast<std::uint64_t>(floor) + 1);
      at = {ranks.size() - 2, ranks.size() - 1, index - floor};
    }
    positions.push_back(at);
  }
  const std::vector<double> values = preview_impl::select_ranks(count, ranks, pass);
  auto value_at = [&](const Position& at) {
    return preview_impl::percentile_lerp(values[at.below], values[at.above], at.gamma, precision);
  };
  return {value_at(positions[0]), value_at(positions[1])};
}

}  // namespace

PreviewResult preview(const std::string& in_path, const PreviewOptions& options) {
  check_options(options);
  if (!options.output.empty() && !options.overwrite) refuse_existing_output(options.output);
  const auto source = compare::file_kind(in_path) == compare::FileKind::kAsdf
                          ? preview_impl::open_asdf_source(in_path, options)
                          : preview_impl::open_fits_source(in_path, options);
  const preview_impl::SourceInfo& info = source->info();

  PreviewResult result;
  result.input = in_path;
  result.format = info.format;
  result.hdu = info.hdu;
  result.extname = info.extname;
  result.extver = info.extver;
  result.tile_compressed = info.tile_compressed;
  result.array = info.array;
  result.shape = info.shape;
  result.dtype = info.dtype;
  result.plane = info.plane;
  result.width = info.width;
  result.height = info.height;

  // Pass 1: counts, extremes and the block averages.
  result.block = preview_impl::block_factor(info.width, info.height, options.size);
  preview_impl::BlockAverager grid(info.width, info.height, result.block);
  std::vector<double> row(static_cast<std::size_t>(info.width));
  double min = std::numeric_limits<double>::infinity();
  double max = -min;
  for (std::uint64_t r = 0; r < info.height; ++r) {
    source->read_row(r, row);
    for (double v : row) {
      if (std::isnan(v)) {
        ++result.nan_values;
      } else if (std::isfinite(v)) {
        ++result.finite_values;
        min = std::min(min, v);
        max = std::max(max, v);
      }
    }
    grid.add_row(row);
  }

  const preview_impl::ValuePass every_row = [&](const std::function<void(std::span<const double>)>& f) {
    for (std::uint64_t r = 0; r < info.height; ++r) {
      source->read_row(r, row);
      f(row);
    }
  };
  const std::uint64_t finite = result.finite_values;
  switch (options.interval) {
    case IntervalKind::kMinMax:
      result.interval_name = "minmax";
      if (finite > 0) result.interval = {min, max};
      break;
    case IntervalKind::kPercentile:
      result.interval_name = "percentile:" + short_number(options.percentile);
      if (finite > 0) {
        result.interval = percentile_interval(options.percentile, finite, info.precision, every_row);
      }
      break;
    case IntervalKind::kZScale: {
      result.interval_name = "zscale";
      if (finite == 0) break;
      ZScaleOptions z = options.zscale;
      z.precision = info.precision;
      const std::uint64_t stride = zscale_stride(finite, z.n_samples);
      std::vector<double> samples;
      samples.reserve(static_cast<std::size_t>(std::min(finite, z.n_samples)));
      std::uint64_t k = 0;
      for (std::uint64_t r = 0; r < info.height && samples.size() < z.n_samples; ++r) {
        source->read_row(r, row);
        for (double v : row) {
          if (!std::isfinite(v)) continue;
          if (k % stride == 0 && samples.size() < z.n_samples) samples.push_back(v);
          ++k;
        }
      }
      result.interval = zscale_of_samples(std::move(samples), z);
      break;
    }
  }
  result.stretch_name =
      options.stretch == StretchKind::kAsinh ? "asinh:" + short_number(options.asinh_a) : "linear";

  // The picture: the grid's last row on top.
  result.out_width = static_cast<std::uint32_t>(grid.out_width());
  result.out_height = static_cast<std::uint32_t>(grid.out_height());
  const preview_impl::GrayMap gray(result.interval, options.stretch, options.asinh_a);
  const std::vector<double>& cells = grid.result();
  result.rgb.resize(static_cast<std::size_t>(result.out_width) * result.out_height * 3);
  for (std::uint32_t y = 0; y < result.out_height; ++y) {
    const double* cell = cells.data() + static_cast<std::size_t>(result.out_height - 1 - y) *
                                            result.out_width;
    std::uint8_t* pixel = result.rgb.data() + static_cast<std::size_t>(y) * result.out_width * 3;
    for (std::uint32_t x = 0; x < result.out_width; ++x, pixel += 3) {
      if (std::isnan(cell[x])) {
        ++result.nan_pixels;
        pixel[0] = kPreviewNanColor[0];
        pixel[1] = kPreviewNanColor[1];
        pixel[2] = kPreviewNanColor[2];
      } else {
        pixel[0] = pixel[1] = pixel[2] = gray(cell[x]);
      }
    }
  }
  if (!options.output.empty()) {
    const std::vector<std::uint8_t> png = encode_png(result.rgb, result.out_width,
                                                     result.out_height);
    preview_impl::write_png_file(options.output, png, options.durable, options.overwrite);
    result.output = options.output;
  }
  return result;
}

}  // namespace fitsasdf
