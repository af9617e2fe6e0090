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

}  // namespace fitsasdf::test
