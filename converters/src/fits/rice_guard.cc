#include "fits/rice_guard.h"

#include <algorithm>
#include <bit>

namespace fitsasdf::fits {

bool rice_tile_in_bounds(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock,
                         int bytepix) {
  // The decoder's constants for each pixel size: bits of the block's code, the code of a block
  // stored verbatim, and the bits of a verbatim pixel.
  const int fsbits = bytepix == 1 ? 3 : bytepix == 2 ? 4 : 5;
  const int fsmax = bytepix == 1 ? 6 : bytepix == 2 ? 14 : 25;
  const int bbits = bytepix == 1 ? 8 : bytepix == 2 ? 16 : 32;
  const std::size_t first = bytepix == 1 ? 1 : bytepix == 2 ? 2 : 4;
  if (nblock <= 0) return false;
  // The first pixel verbatim, then the first byte of the bit stream, read unconditionally.
  if (tile.size() < first + 1) return false;
  std::size_t pos = first;
  std::uint32_t b = tile[pos++];  // the bits not yet used, as CFITSIO's unsigned int
  int nbits = 8;
  const auto next = [&](std::uint32_t& byte) {
    if (pos >= tile.size()) return false;
    byte = tile[pos++];
    return true;
  };
  const auto mask = [](int n) { return n >= 32 ? 0xffffffffu : (std::uint32_t{1} << n) - 1; };
  std::uint32_t byte = 0;
  for (std::uint64_t i = 0; i < nx;) {
    nbits -= fsbits;
    while (nbits < 0) {
      if (!next(byte)) return false;
      b = (b << 8) | byte;
      nbits += 8;
    }
    const int fs = static_cast<int>(b >> nbits) - 1;
    b &= mask(nbits);
    const std::uint64_t end = std::min<std::uint64_t>(i + static_cast<std::uint64_t>(nblock), nx);
    if (fs < 0) {  // every difference zero: no bits
      i = end;
    } else if (fs == fsmax) {  // pixels stored verbatim, bbits each
      for (; i < end; ++i) {
        int k = bbits - nbits;
        for (k -= 8; k >= 0; k -= 8) {
          if (!next(byte)) return false;
        }
        if (nbits > 0) {
          if (!next(byte)) return false;
          b = byte & mask(nbits);
        } else {
          b = 0;
        }
      }
    } else {  // a run of zero bits ended by a one, then fs low bits
      for (; i < end; ++i) {
        while (b == 0) {
          nbits += 8;
          if (!next(byte)) return false;
          b = byte;
        }
        // The significant bits of the low byte (0 for 0, 8 for 128..255): CFITSIO's table.
        const int nzero = nbits - std::bit_width(b & 0xffu);
        nbits -= nzero + 1;
        if (nbits < 0 || nbits >= 32) return false;  // CFITSIO would shift out of range
        b ^= std::uint32_t{1} << nbits;
        nbits -= fs;
        while (nbits < 0) {
          if (!next(byte)) return false;
          b = (b << 8) | byte;
          nbits += 8;
        }
        b &= mask(nbits);
      }
    }
  }
  return true;
}

}  // namespace fitsasdf::fits
