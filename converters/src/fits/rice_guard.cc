#include "fits/rice_guard.h"

#include <algorithm>
#include <bit>

#include "fits/bit_window.h"

namespace fitsasdf::fits {

bool rice_tile_in_bounds(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock,
                         int bytepix) {
  // The decoder's constants for each pixel size: bits of the block's code, the code of a block
  // stored verbatim, and the bits of a verbatim pixel.
  const int fsbits = bytepix == 1 ? 3 : bytepix == 2 ? 4 : 5;
  const int fsmax = bytepix == 1 ? 6 : bytepix == 2 ? 14 : 25;
  const std::uint64_t bbits = bytepix == 1 ? 8 : bytepix == 2 ? 16 : 32;
  const std::size_t first = bytepix == 1 ? 1 : bytepix == 2 ? 2 : 4;
  if (nblock <= 0) return false;
  // The first pixel verbatim, then the first byte of the bit stream, read unconditionally.
  if (tile.size() < first + 1) return false;
  // CFITSIO's decoder reads the bit stream a byte at a time, each byte only once the bits it
  // has are used up (a run of zero bits ends in the byte holding its one bit; a code or a
  // verbatim pixel in the byte holding its last bit). So after each step it has read exactly
  // the bytes that hold the bits used so far, and it stays inside the tile as long as the bits
  // used fit the stream: the walk below counts bits instead of decoding.
  const std::span<const std::uint8_t> stream = tile.subspan(first);
  const std::uint64_t limit = std::uint64_t{stream.size()} * 8;
  std::uint64_t used = 0;
  for (std::uint64_t i = 0; i < nx;) {
    if (used + static_cast<std::uint64_t>(fsbits) > limit) return false;
    const int fs = static_cast<int>(bits_at(stream, used) >> (64 - fsbits)) - 1;
    used += static_cast<std::uint64_t>(fsbits);
    const std::uint64_t end = std::min<std::uint64_t>(i + static_cast<std::uint64_t>(nblock), nx);
    if (fs < 0) {  // every difference zero: no bits
      i = end;
    } else if (fs == fsmax) {  // pixels stored verbatim, bbits each
      used += bbits * (end - i);
      if (used > limit) return false;
      i = end;
    } else {  // each pixel: a run of zero bits ended by a one, then fs low bits
      for (; i < end; ++i) {
        while (true) {
          if (used >= limit) return false;  // the run's one bit would lie past the tile
          const std::uint64_t word = bits_at(stream, used);
          const int zeros = word == 0 ? 64 : std::countl_zero(word);
          if (zeros < 57) {  // a one bit of the stream (past its end, bits read as 0)
            used += static_cast<std::uint64_t>(zeros) + 1;
            break;
          }
          used += 57;  // 57 zero bits of the stream: look further
        }
        used += static_cast<std::uint64_t>(fs);
        if (used > limit) return false;
      }
    }
  }
  return true;
}

}  // namespace fitsasdf::fits
