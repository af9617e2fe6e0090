#pragma once
// Deterministic test bytes shared by the byte-array-driven tests.
#include <cstdint>
#include <vector>

namespace fitsasdf::test {

/// Return `n` bytes of compressible, deterministic text (3 bits of entropy per byte).
inline std::vector<std::uint8_t> sample(std::size_t n, std::uint32_t seed = 1) {
  std::vector<std::uint8_t> out(n);
  std::uint32_t x = seed;
  for (auto& b : out) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::uint8_t>("abcdefgh"[(x >> 16) & 7u]);
  }
  return out;
}

/// Return `n` float-like bytes: a slowly varying high half and a noisy low half of each 4
/// bytes (zlib shrinks them to about 60%).
inline std::vector<std::uint8_t> float_like(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> out(n);
  std::uint32_t x = seed * 2654435761u + 7u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = (i % 4 < 2) ? static_cast<std::uint8_t>(i >> 14) : static_cast<std::uint8_t>(x >> 24);
  }
  return out;
}

}  // namespace fitsasdf::test
