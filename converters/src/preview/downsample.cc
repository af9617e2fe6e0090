#include "preview/downsample.h"

#include <algorithm>
#include <cmath>

namespace fitsasdf::preview_impl {

std::uint64_t block_factor(std::uint64_t width, std::uint64_t height, std::uint64_t size) noexcept {
  const std::uint64_t longest = std::max(width, height);
  if (size == 0 || longest <= size) return 1;
  return (longest + size - 1) / size;
}

BlockAverager::BlockAverager(std::uint64_t width, std::uint64_t height, std::uint64_t block)
    : width_(width),
      height_(height),
      block_(block),
      out_width_((width + block - 1) / block),
      out_height_((height + block - 1) / block),
      sums_(out_width_, 0.0),
      counts_(out_width_, 0) {
  result_.reserve(out_width_ * out_height_);
}

void BlockAverager::add_row(std::span<const double> values) {
  for (std::uint64_t c = 0; c < width_ && c < values.size(); ++c) {
    const double v = values[c];
    if (std::isnan(v)) continue;
    sums_[c / block_] += v;
    ++counts_[c / block_];
  }
  ++rows_in_band_;
  if (rows_in_band_ == block_ || band_ * block_ + rows_in_band_ == height_) finish_band();
}

void BlockAverager::finish_band() {
  for (std::uint64_t i = 0; i < out_width_; ++i) {
    result_.push_back(counts_[i] == 0 ? std::nan("")
                                      : sums_[i] / static_cast<double>(counts_[i]));
  }
  std::fill(sums_.begin(), sums_.end(), 0.0);
  std::fill(counts_.begin(), counts_.end(), 0);
  rows_in_band_ = 0;
  ++band_;
}

}  // namespace fitsasdf::preview_impl
