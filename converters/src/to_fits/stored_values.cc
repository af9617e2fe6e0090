#include "to_fits/stored_values.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace fitsasdf::to_fits {
namespace {

using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DTypeKind;

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

void store_be(std::uint8_t* out, std::uint64_t bits, std::size_t size) {
  for (std::size_t k = 0; k < size; ++k)
    out[k] = static_cast<std::uint8_t>(bits >> (8 * (size - 1 - k)));
}

/// Physical value of the stored integer `v`, as image_hdu.cc computes it.
template <typename F>
F forward(long long v, double bscale, double bzero) {
  auto f = static_cast<F>(v);
  if (bscale != 1.0) f = f * static_cast<F>(bscale);
  if (bzero != 0.0) f = f + static_cast<F>(bzero);
  return f;
}

template <typename F>
std::optional<StoredValues> integers(const std::vector<std::uint8_t>& values, long long bitpix,
                                     double bscale, double bzero, std::optional<long long> blank) {
  const std::size_t size = static_cast<std::size_t>(bitpix / 8);
  constexpr long long kLowest = std::numeric_limits<long long>::min();
  constexpr long long kHighest = std::numeric_limits<long long>::max();
  const long long min = bitpix == 8 ? 0 : bitpix == 64 ? kLowest : -(1LL << (bitpix - 1));
  const long long hi = bitpix == 8 ? 255 : bitpix == 64 ? kHighest : (1LL << (bitpix - 1)) - 1;
  const std::size_t n = values.size() / sizeof(F);
  StoredValues out;
  out.bytes.resize(n * size);
  for (std::size_t i = 0; i < n; ++i) {
    F x;
    std::memcpy(&x, values.data() + i * sizeof(F), sizeof(F));
    long long stored = 0;
    if (std::isnan(x)) {
      if (!blank) return std::nullopt;
      stored = *blank;
    } else {
      const double guess = std::nearbyint((static_cast<double>(x) - bzero) / bscale);
      if (!(guess >= static_cast<double>(min) && guess < static_cast<double>(hi) + 1.0)) {
        return std::nullopt;
      }
      const auto k = static_cast<long long>(guess);
      int found = 0;
      for (const long long step : {0LL, -1LL, 1LL, -2LL, 2LL}) {
        if ((step < 0 && k < min - step) || (step > 0 && k > hi - step)) continue;
        const long long c = k + step;
        if (blank && c == *blank) continue;
        if (same_bits(forward<F>(c, bscale, bzero), x)) {
          if (found == 0) stored = c;
          ++found;
        }
      }
      if (found == 0) return std::nullopt;
      if (found > 1) ++out.ambiguous;
    }
    store_be(out.bytes.data() + i * size, static_cast<std::uint64_t>(stored), size);
  }
  return out;
}

template <typename F, typename Bits>
std::optional<StoredValues> floats(const std::vector<std::uint8_t>& values, double bscale,
                                   double bzero) {
  const std::size_t n = values.size() / sizeof(F);
  StoredValues out;
  out.bytes.resize(n * sizeof(F));
  const auto scale = static_cast<F>(bscale);
  const auto zero = static_cast<F>(bzero);
  const auto apply = [&](F s) {
    if (bscale != 1.0) s = s * scale;
    if (bzero != 0.0) s = s + zero;
    return s;
  };
  for (std::size_t i = 0; i < n; ++i) {
    F x;
    std::memcpy(&x, values.data() + i * sizeof(F), sizeof(F));
    F s = x;
    if (!std::isnan(x)) {
      F guess = x;
      if (bzero != 0.0) guess = guess - zero;
      if (bscale != 1.0) guess = guess / scale;
      bool ok = false;
      for (const F c : {guess, std::nextafter(guess, -std::numeric_limits<F>::infinity()),
                        std::nextafter(guess, std::numeric_limits<F>::infinity())}) {
        if (same_bits(apply(c), x)) {
          s = c;
          ok = true;
          break;
        }
      }
      if (!ok) return std::nullopt;
    }
    Bits bits;
    std::memcpy(&bits, &s, sizeof(F));
    store_be(out.bytes.data() + i * sizeof(F), bits, sizeof(F));
  }
  return out;
}

}  // namespace

std::optional<StoredValues> stored_from_physical(const asdfcore::ndarray::NDArray& physical,
                                                 long long bitpix, double bscale, double bzero,
                                                 std::optional<long long> blank) {
  const bool narrow = bitpix == 8 || bitpix == 16 || bitpix == -32;
  const DTypeKind want = narrow ? DTypeKind::kFloat32 : DTypeKind::kFloat64;
  if (physical.dtype().kind() != want || bscale == 0.0 || !std::isfinite(bscale) ||
      !std::isfinite(bzero)) {
    return std::nullopt;
  }
  const std::vector<std::uint8_t> values =
      physical.to_c_order(asdfcore::ndarray::native_byte_order());
  switch (bitpix) {
    case 8:
    case 16:
      return integers<float>(values, bitpix, bscale, bzero, blank);
    case 32:
    case 64:
      return integers<double>(values, bitpix, bscale, bzero, blank);
    case -32:
      return floats<float, std::uint32_t>(values, bscale, bzero);
    case -64:
      return floats<double, std::uint64_t>(values, bscale, bzero);
    default:
      return std::nullopt;
  }
}

}  // namespace fitsasdf::to_fits
