#pragma once
// Private to src/fits: a 64-bit window on a bit stream read first bit highest, as Rice codes are
// (rice_guard.h counts them, rice_decode.h decodes them).
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>

namespace fitsasdf::fits {

/// The 64 bits of `stream` from bit `at` on (first bit highest), bytes past its end read as 0.
/// The low `at % 8` bits are always 0, so at least 57 of them are the stream's.
[[gnu::always_inline]] inline std::uint64_t bits_at(std::span<const std::uint8_t> stream,
                                                   std::uint64_t at) {
  const std::uint64_t byte = at >> 3;
  std::uint64_t word = 0;
  if (byte + 8 <= stream.size()) {
    std::memcpy(&word, stream.data() + byte, 8);
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
  } else {
    for (std::uint64_t i = 0; i < 8 && byte + i < stream.size(); ++i) {
      word |= std::uint64_t{stream[byte + i]} << (56 - 8 * i);
    }
  }
  return word << (at & 7);
}

}  // namespace fitsasdf::fits
