#pragma once
// Block averaging of an image read a row at a time: each output pixel is the mean of the
// values of a `block` x `block` square (smaller at the right and top edges) that are not NaN,
// or NaN when all of them are. Holds one row of sums and the result.
#include <cstdint>
#include <span>
#include <vector>

namespace fitsasdf::preview_impl {

/// Return the smallest whole factor by which an image of `width` x `height` must be shrunk for
/// its longest side to be at most `size` pixels (1: it already fits; never enlarged).
std::uint64_t block_factor(std::uint64_t width, std::uint64_t height, std::uint64_t size) noexcept;

/// Averages blocks of rows handed to it in order.
class BlockAverager {
 public:
  /// Prepare for an image of `width` x `height` values averaged over `block` x `block`.
  BlockAverager(std::uint64_t width, std::uint64_t height, std::uint64_t block);
  /// Return the number of output columns.
  std::uint64_t out_width() const noexcept { return out_width_; }
  /// Return the number of output rows.
  std::uint64_t out_height() const noexcept { return out_height_; }
  /// Add the next row of the image (rows must come in order, 0 first).
  void add_row(std::span<const double> values);
  /// Return the averages, `out_height()` rows of `out_width()`, in the image's row order
  /// (output row 0 averages image rows 0 to block - 1). Valid once every row was added.
  const std::vector<double>& result() const noexcept { return result_; }

 private:
  void finish_band();

  std::uint64_t width_, height_, block_, out_width_, out_height_;
  std::uint64_t rows_in_band_ = 0;
  std::uint64_t band_ = 0;
  std::vector<double> sums_;
  std::vector<std::uint64_t> counts_;
  std::vector<double> result_;
};

}  // namespace fitsasdf::preview_impl
