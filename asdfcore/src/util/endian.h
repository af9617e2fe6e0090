#pragma once
// Fixed-byte-order loads and stores for binary headers (block headers, lz4 chunk headers).
#include <cstdint>

namespace asdfcore::detail {

inline std::uint64_t load_be(const std::uint8_t* p, int bytes) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

inline void store_be(std::uint8_t* p, std::uint64_t v, int bytes) noexcept {
  for (int i = bytes - 1; i >= 0; --i) {
    p[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

inline std::uint64_t load_le(const std::uint8_t* p, int bytes) noexcept {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline void store_le(std::uint8_t* p, std::uint64_t v, int bytes) noexcept {
  for (int i = 0; i < bytes; ++i) {
    p[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace asdfcore::detail
