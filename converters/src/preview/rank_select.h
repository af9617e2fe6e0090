#pragma once
// Exact order statistics of values that are read in passes, in bounded memory: a radix
// selection over the values' bits, 16 bits per pass (at most four passes), counting in one
// histogram of 65536 entries per rank asked for. Used for percentiles of images too large to
// hold.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace fitsasdf::preview_impl {

/// Hands every value of one pass to its argument, a span at a time (NaN and infinities are
/// skipped by the selection).
using ValuePass = std::function<void(const std::function<void(std::span<const double>)>&)>;

/// Return the values of 0-based `ranks` (each below `count`, the number of finite values a
/// pass delivers) in ascending order of the finite values, running `pass` up to four times.
std::vector<double> select_ranks(std::uint64_t count, const std::vector<std::uint64_t>& ranks,
                                 const ValuePass& pass);

}  // namespace fitsasdf::preview_impl
