#include "preview/rank_select.h"

#include <bit>
#include <cmath>
#include <stdexcept>

#include "asdfcore/error.h"

namespace fitsasdf::preview_impl {
namespace {

/// An unsigned key that sorts as the double does (-0.0 is read as 0.0).
std::uint64_t key_of(double v) noexcept {
  if (v == 0) v = 0.0;
  const auto bits = std::bit_cast<std::uint64_t>(v);
  return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}

double value_of(std::uint64_t key) noexcept {
  const std::uint64_t bits = (key >> 63) ? key & ~(std::uint64_t{1} << 63) : ~key;
  return std::bit_cast<double>(bits);
}

/// What is known of one rank: the top bits of its key, and its rank among the values that
/// share them.
struct Target {
  std::uint64_t prefix = 0;
  std::uint64_t rank = 0;
  std::vector<std::uint64_t> histogram;
};

}  // namespace

std::vector<double> select_ranks(std::uint64_t count, const std::vector<std::uint64_t>& ranks,
                                 const ValuePass& pass) {
  std::vector<Target> targets(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] >= count) {
      throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                            "rank " + std::to_string(ranks[i]) + " of only " +
                                std::to_string(count) + " values");
    }
    targets[i].rank = ranks[i];
  }
  constexpr int kDigitBits = 16;
  for (int known = 0; known < 64; known += kDigitBits) {
    const int shift = 64 - known - kDigitBits;
    for (auto& t : targets) t.histogram.assign(std::size_t{1} << kDigitBits, 0);
    pass([&](std::span<const double> values) {
      for (double v : values) {
        if (!std::isfinite(v)) continue;
        const std::uint64_t key = key_of(v);
        for (auto& t : targets) {
          if (known == 0 || (key >> (64 - known)) == t.prefix) {
            ++t.histogram[static_cast<std::size_t>((key >> shift) & 0xffff)];
          }
        }
      }
    });
    for (auto& t : targets) {
      std::uint64_t below = 0;
      std::size_t digit = 0;
      while (digit + 1 < t.histogram.size() && below + t.histogram[digit] <= t.rank) {
        below += t.histogram[digit++];
      }
      t.rank -= below;
      t.prefix = (t.prefix << kDigitBits) | digit;
      t.histogram.clear();
      t.histogram.shrink_to_fit();
    }
  }
  std::vector<double> out;
  out.reserve(targets.size());
  for (const auto& t : targets) out.push_back(value_of(t.prefix));
  return out;
}

}  // namespace fitsasdf::preview_impl
