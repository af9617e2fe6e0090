#include "fits/rice_decode.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "fits/bit_window.h"

namespace fitsasdf::fits {
namespace {

/// Reads a bit stream from its first bit on (the highest bit of each byte first), 64 bits at a
/// time. Bytes past the stream's end read as 0; `used` says how far it went, and the caller
/// compares it with the stream's bits.
class Bits {
 public:
  explicit Bits(std::span<const std::uint8_t> stream) : stream_(stream) {}

  /// The 64 bits from bit `used` on; at least 57 of them are the stream's (or past its end).
  std::uint64_t peek() const { return bits_at(stream_, used); }
  /// Take the next `n` bits (1 to 32) as a number.
  std::uint32_t take(int n) {
    const auto value = static_cast<std::uint32_t>(peek() >> (64 - n));
    used += static_cast<std::uint64_t>(n);
    return value;
  }

  std::uint64_t used = 0;

 private:
  std::span<const std::uint8_t> stream_;
};

/// Store `value`'s low `Bytes` bytes at `at`, highest first.
template <int Bytes>
inline void put(std::uint8_t* at, std::uint32_t value) {
  if constexpr (Bytes == 1) {
    at[0] = static_cast<std::uint8_t>(value);
  } else if constexpr (Bytes == 2) {
    at[0] = static_cast<std::uint8_t>(value >> 8);
    at[1] = static_cast<std::uint8_t>(value);
  } else {
    const std::uint32_t big =
        std::endian::native == std::endian::little ? __builtin_bswap32(value) : value;
    std::memcpy(at, &big, 4);
  }
}

/// A difference as the encoder mapped it (non-negative values to even numbers, negative ones to
/// odd), back to the two's-complement difference.
inline std::uint32_t unmap(std::uint32_t diff) { return (diff & 1) == 0 ? diff >> 1 : ~(diff >> 1); }

template <int Bytes>
bool decode(std::span<const std::uint8_t> tile, std::uint64_t nx, std::uint64_t nblock,
            std::uint8_t* out) {
  // Bits of a block's code, the code of a block stored verbatim, bits of a verbatim pixel.
  constexpr int kCodeBits = Bytes == 1 ? 3 : Bytes == 2 ? 4 : 5;
  constexpr int kVerbatim = Bytes == 1 ? 6 : Bytes == 2 ? 14 : 25;
  constexpr int kPixelBits = 8 * Bytes;
  constexpr std::uint32_t kMask = Bytes == 4 ? 0xffffffffu : (std::uint32_t{1} << kPixelBits) - 1;
  // The first pixel verbatim, then the bit stream, whose first byte CFITSIO reads at once.
  if (tile.size() < Bytes + 1) return false;
  std::uint32_t last = 0;
  for (int k = 0; k < Bytes; ++k) last = (last << 8) | tile[static_cast<std::size_t>(k)];
  const std::span<const std::uint8_t> stream = tile.subspan(Bytes);
  // CFITSIO's decoder reads a byte only once the bits it holds are used up, so it stays inside
  // the tile exactly as long as the bits used fit the stream (rice_guard.cc says more).
  const std::uint64_t limit = std::uint64_t{stream.size()} * 8;
  Bits bits(stream);
  for (std::uint64_t i = 0; i < nx;) {
    if (bits.used + kCodeBits > limit) return false;
    const int fs = static_cast<int>(bits.take(kCodeBits)) - 1;
    const std::uint64_t end = std::min(i + nblock, nx);
    if (fs < 0) {  // every difference zero
      for (; i < end; ++i) put<Bytes>(out + i * Bytes, last);
    } else if (fs == kVerbatim) {  // differences stored in kPixelBits bits each
      if (bits.used + (end - i) * kPixelBits > limit) return false;
      for (; i < end; ++i) {
        last = (unmap(bits.take(kPixelBits)) + last) & kMask;
        put<Bytes>(out + i * Bytes, last);
      }
    } else if (fs > kVerbatim) {
      return false;  // CFITSIO's decoder shifts past its 32-bit buffer here
    } else {  // each difference: a run of zero bits ended by a one (its high part), fs low bits
      for (; i < end; ++i) {
        std::uint64_t zeros = 0;
        while (true) {
          if (bits.used >= limit) return false;  // the run's one bit would lie past the tile
          const std::uint64_t word = bits.peek();
          const int run = word == 0 ? 64 : std::countl_zero(word);
          if (run < 57) {
            zeros += static_cast<std::uint64_t>(run);
            bits.used += static_cast<std::uint64_t>(run) + 1;
            break;
          }
          zeros += 57;  // 57 zero bits of the stream (or past its end): look further
          bits.used += 57;
        }
        if (bits.used + static_cast<std::uint64_t>(fs) > limit) return false;
        const std::uint32_t low = fs == 0 ? 0 : bits.take(fs);
        // As CFITSIO computes it, in 32 bits: the run's length shifted by fs, then the low bits.
        const std::uint32_t diff = (static_cast<std::uint32_t>(zeros) << fs) | low;
        last = (unmap(diff) + last) & kMask;
        put<Bytes>(out + i * Bytes, last);
      }
    }
  }
  return true;
}

}  // namespace

bool rice_decode(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock, int bytepix,
                 std::span<std::uint8_t> out) {
  if (nblock <= 0 || (bytepix != 1 && bytepix != 2 && bytepix != 4)) return false;
  if (out.size() / static_cast<std::uint64_t>(bytepix) < nx) return false;
  const auto block = static_cast<std::uint64_t>(nblock);
  if (bytepix == 1) return decode<1>(tile, nx, block, out.data());
  if (bytepix == 2) return decode<2>(tile, nx, block, out.data());
  return decode<4>(tile, nx, block, out.data());
}

}  // namespace fitsasdf::fits
