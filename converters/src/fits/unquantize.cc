#include "fits/unquantize.h"

#include <array>
#include <bit>
#include <cstring>

namespace fitsasdf::fits {
namespace {

constexpr int kTableSize = 10000;
/// The integer SUBTRACTIVE_DITHER_2 writes for a pixel that was exactly 0.0.
constexpr std::int32_t kZeroValue = -2147483646;

struct Table {
  std::array<float, kTableSize> values{};
  bool sound = false;
};

Table make_table() {
  Table t;
  constexpr double a = 16807.0;
  constexpr double m = 2147483647.0;
  double seed = 1;
  for (float& v : t.values) {
    const double product = a * seed;
    seed = product - m * static_cast<int>(product / m);
    v = static_cast<float>(seed / m);
  }
  t.sound = static_cast<int>(seed) == 1043618065;
  return t;
}

std::int32_t load_be32(const std::uint8_t* at) {
  std::uint32_t v = 0;
  std::memcpy(&v, at, 4);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  return static_cast<std::int32_t>(v);
}

void store_be(std::uint8_t* at, float value) {
  auto bits = std::bit_cast<std::uint32_t>(value);
  if constexpr (std::endian::native == std::endian::little) bits = __builtin_bswap32(bits);
  std::memcpy(at, &bits, 4);
}

void store_be(std::uint8_t* at, double value) {
  auto bits = std::bit_cast<std::uint64_t>(value);
  if constexpr (std::endian::native == std::endian::little) bits = __builtin_bswap64(bits);
  std::memcpy(at, &bits, 8);
}

template <typename Pixel>
void convert(const std::uint8_t* in, std::uint64_t nx, long row, double scale, double zero,
             std::optional<std::int32_t> blank, const Quantization& q, const float* table,
             std::uint8_t* out) {
  using Bits = std::conditional_t<sizeof(Pixel) == 4, std::uint32_t, std::uint64_t>;
  const auto nan = std::bit_cast<Pixel>(~Bits{0});  // CFITSIO's null value, as funpack's
  if (!q.dithered) {
    for (std::uint64_t i = 0; i < nx; ++i) {
      const std::int32_t v = load_be32(in + 4 * i);
      store_be(out + sizeof(Pixel) * i,
               blank && v == *blank ? nan : static_cast<Pixel>(v * scale + zero));
    }
    return;
  }
  // The table is walked from an entry set by the tile's row: each pixel takes the next value,
  // and at the table's end the walk starts again from an entry set by the next seed.
  int seed = static_cast<int>((row + q.dither_seed - 2) % kTableSize);
  int next = static_cast<int>(table[seed] * 500);
  for (std::uint64_t i = 0; i < nx; ++i) {
    const std::int32_t v = load_be32(in + 4 * i);
    Pixel pixel;
    if (blank && v == *blank) {
      pixel = nan;
    } else if (q.exact_zeros && v == kZeroValue) {
      pixel = 0;
    } else {
      pixel = static_cast<Pixel>((static_cast<double>(v) - table[next] + 0.5) * scale + zero);
    }
    store_be(out + sizeof(Pixel) * i, pixel);
    if (++next == kTableSize) {
      if (++seed == kTableSize) seed = 0;
      next = static_cast<int>(table[seed] * 500);
    }
  }
}

}  // namespace

const float* dither_table() {
  static const Table table = make_table();
  return table.sound ? table.values.data() : nullptr;
}

void unquantize(const std::uint8_t* in, std::uint64_t nx, long row, double scale, double zero,
                std::optional<std::int32_t> blank, const Quantization& q, const float* table,
                int width, std::uint8_t* out) {
  if (width == 4) {
    convert<float>(in, nx, row, scale, zero, blank, q, table, out);
  } else {
    convert<double>(in, nx, row, scale, zero, blank, q, table, out);
  }
}

}  // namespace fitsasdf::fits
