#include "fits/hcompress_guard.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace fitsasdf::fits {
namespace {

/// The bytes of the stream's header: magic (2), nx, ny and scale (4 each), the sum of all
/// pixels (8), and the bit planes of the three kinds of quadrant (1 each).
constexpr std::size_t kHeaderSize = 25;

/// CFITSIO's bit input for HCOMPRESS (fits_hdecompress.c: input_bit, input_nbits, input_nybble,
/// input_nnybble, input_huffman), reading from `bytes` from `next` on. A read past their end
/// gives 0 and marks the input as overrun.
class BitInput {
 public:
  BitInput(std::span<const std::uint8_t> bytes, std::size_t next) : bytes_(bytes), next_(next) {}

  bool overrun() const { return overrun_; }
  /// The next byte to be read.
  std::size_t position() const { return next_; }

  int bit() {
    if (held_ == 0) {
      buffer_ = byte();
      held_ = 8;
    }
    --held_;
    return static_cast<int>((buffer_ >> held_) & 1u);
  }

  /// At most 8 bits; one byte is loaded when fewer are held.
  int bits(int n) {
    if (held_ < n) {
      buffer_ = (buffer_ << 8) | byte();
      held_ += 8;
    }
    held_ -= n;
    return static_cast<int>((buffer_ >> held_) & ((1u << n) - 1));
  }

  int nybble() { return bits(4); }

  /// `count` nybbles into `out`, as input_nnybble reads them: a whole byte at a time, after
  /// stepping back over a byte whose two nybbles are both still held.
  void nybbles(std::size_t count, std::vector<std::uint8_t>& out) {
    if (count == 1) {
      out[0] = static_cast<std::uint8_t>(nybble());
      return;
    }
    if (held_ == 8) {
      --next_;
      held_ = 0;
    }
    const int high = held_ + 4;
    const int low = held_;
    std::size_t k = 0;
    for (std::size_t pair = 0; pair < count / 2; ++pair) {
      buffer_ = (buffer_ << 8) | byte();
      out[k++] = static_cast<std::uint8_t>((buffer_ >> high) & 15u);
      out[k++] = static_cast<std::uint8_t>((buffer_ >> low) & 15u);
      if (overrun_) return;
    }
    if (count % 2 != 0) out[count - 1] = static_cast<std::uint8_t>(nybble());
  }

  /// One of HCOMPRESS's fixed Huffman codes for a 4-bit value (3 to 6 bits).
  int huffman() {
    int c = bits(3);
    if (c < 4) return 1 << c;  // 1, 2, 4, 8
    c = bit() | (c << 1);
    switch (c) {
      case 8:
        return 3;
      case 9:
        return 5;
      case 10:
        return 10;
      case 11:
        return 12;
      case 12:
        return 15;
      default:
        break;
    }
    c = bit() | (c << 1);
    switch (c) {
      case 26:
        return 6;
      case 27:
        return 7;
      case 28:
        return 9;
      case 29:
        return 11;
      case 30:
        return 13;
      default:
        break;
    }
    c = bit() | (c << 1);
    return c == 62 ? 0 : 14;
  }

 private:
  std::uint32_t byte() {
    if (next_ >= bytes_.size()) {
      overrun_ = true;
      ++next_;
      return 0;
    }
    return bytes_[next_++];
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t next_;
  std::uint32_t buffer_ = 0;  // CFITSIO's is an int; only its low bits are ever used
  int held_ = 0;
  bool overrun_ = false;
};

/// What CFITSIO's decoding of a quadrant came to.
enum class Outcome {
  kDone,     ///< every bit plane read
  kRefused,  ///< CFITSIO stops with its own error (a format code other than 0 and 15)
  kOverrun,  ///< a read went past the tile's bytes
};

/// What the bit planes of one quadrant (nqx x nqy pixels, in 2 x 2 blocks) set, for the sign
/// bits that follow them, one of which is read for each nonzero pixel: per block, the OR of the
/// 4-bit codes every plane gave it (qtree_bitins sets a block's top-left pixel for the code's
/// highest bit, then top right, bottom left, bottom right).
struct QuadrantBits {
  std::int64_t nqx = 0, nqy = 0;
  std::vector<std::uint8_t> blocks;

  /// The pixels set, leaving out the bits of an edge block for pixels beyond the quadrant.
  std::uint64_t nonzero_pixels() const {
    const std::int64_t per_row = (nqy + 1) / 2;
    std::uint64_t count = 0;
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const auto bi = static_cast<std::int64_t>(k) / per_row;
      const auto bj = static_cast<std::int64_t>(k) % per_row;
      unsigned inside = 0b1000;
      if (2 * bj + 1 < nqy) inside |= 0b0100;
      if (2 * bi + 1 < nqx) inside |= 0b0010;
      if (2 * bj + 1 < nqy && 2 * bi + 1 < nqx) inside |= 0b0001;
      count += static_cast<std::uint64_t>(std::popcount(blocks[k] & inside));
    }
    return count;
  }
};

/// qtree_expand: each code of the level above (rows of (ny + 1) / 2) spreads to its 2 x 2 cells
/// of nx x ny, a cell 1 when its bit of the code is set; then a Huffman code is read for each
/// nonzero cell, last cell first.
void expand(std::vector<std::uint8_t>& codes, std::vector<std::uint8_t>& scratch, std::int64_t nx,
            std::int64_t ny, BitInput& in) {
  const std::int64_t parent_row = (ny + 1) / 2;
  for (std::int64_t pi = 0; pi < (nx + 1) / 2; ++pi) {
    for (std::int64_t pj = 0; pj < parent_row; ++pj) {
      const int code = codes[static_cast<std::size_t>(pi * parent_row + pj)];
      for (int di = 0; di < 2 && 2 * pi + di < nx; ++di) {
        for (int dj = 0; dj < 2 && 2 * pj + dj < ny; ++dj) {
          scratch[static_cast<std::size_t>((2 * pi + di) * ny + 2 * pj + dj)] =
              static_cast<std::uint8_t>((code >> (3 - 2 * di - dj)) & 1);
        }
      }
    }
  }
  for (std::int64_t k = nx * ny - 1; k >= 0 && !in.overrun(); --k) {
    auto& cell = scratch[static_cast<std::size_t>(k)];
    if (cell != 0) cell = static_cast<std::uint8_t>(in.huffman());
  }
  std::copy(scratch.begin(), scratch.begin() + nx * ny, codes.begin());
}

/// qtree_decode: the `planes` bit planes of `quadrant`, each written directly (format code 0: a
/// nybble per 2 x 2 pixels) or quadtree-coded (15).
Outcome decode_quadrant(BitInput& in, QuadrantBits& quadrant, int planes) {
  const std::int64_t nqx = quadrant.nqx, nqy = quadrant.nqy;
  // log2n as CFITSIO computes it: rounded through a float's logarithm, then raised to cover the
  // larger side. An empty quadrant (a side of 0) makes no expansion.
  const std::int64_t nqmax = std::max(nqx, nqy);
  int log2n = 0;
  if (nqmax > 0) {
    log2n = static_cast<int>(
        std::log(static_cast<double>(static_cast<float>(nqmax))) / std::log(2.0) + 0.5);
    if (nqmax > (std::int64_t{1} << log2n)) ++log2n;
  }
  const std::int64_t cells = ((nqx + 1) / 2) * ((nqy + 1) / 2);
  quadrant.blocks.assign(static_cast<std::size_t>(cells), 0);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(std::max<std::int64_t>(cells, 1)));
  std::vector<std::uint8_t> scratch(codes.size());
  for (int bit = planes - 1; bit >= 0; --bit) {
    const int format = in.nybble();
    if (in.overrun()) return Outcome::kOverrun;
    if (format == 0) {
      in.nybbles(static_cast<std::size_t>(cells), codes);
    } else if (format != 15) {
      return Outcome::kRefused;
    } else {
      codes[0] = static_cast<std::uint8_t>(in.huffman());
      std::int64_t nx = 1, ny = 1, rest_x = nqx, rest_y = nqy;
      std::int64_t c = std::int64_t{1} << log2n;
      for (int k = 1; k < log2n && !in.overrun(); ++k) {
        // The sides of level k: n[k-1] = (n[k] + 1) / 2, down from nqx and nqy at level log2n.
        c >>= 1;
        nx <<= 1;
        ny <<= 1;
        if (rest_x <= c)
          --nx;
        else
          rest_x -= c;
        if (rest_y <= c)
          --ny;
        else
          rest_y -= c;
        expand(codes, scratch, nx, ny, in);
      }
    }
    if (in.overrun()) return Outcome::kOverrun;
    for (std::size_t k = 0; k < quadrant.blocks.size(); ++k) quadrant.blocks[k] |= codes[k];
  }
  return Outcome::kDone;
}

}  // namespace

std::optional<std::string> hcompress_tile_problem(std::span<const std::uint8_t> tile,
                                                  std::uint64_t pixels) {
  if (tile.size() < kHeaderSize) {
    return "its " + std::to_string(tile.size()) + " bytes are shorter than an HCOMPRESS header";
  }
  if (tile[0] != 0xDD || tile[1] != 0x99) return std::string("it does not start as HCOMPRESS data");
  const auto int32 = [&](std::size_t at) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(tile[at]) << 24 |
                                     static_cast<std::uint32_t>(tile[at + 1]) << 16 |
                                     static_cast<std::uint32_t>(tile[at + 2]) << 8 |
                                     static_cast<std::uint32_t>(tile[at + 3]));
  };
  // The decoder's nx is the slower axis (rows), ny the faster one.
  const std::int64_t nx = int32(2), ny = int32(6);
  if (nx < 1 || ny < 1 || static_cast<std::uint64_t>(nx * ny) != pixels) {
    return "its stream declares " + std::to_string(nx) + " x " + std::to_string(ny) +
           " pixels for a tile of " + std::to_string(pixels);
  }
  const int planes[3] = {tile[22], tile[23], tile[24]};
  BitInput in(tile, kHeaderSize);
  const std::int64_t nx2 = (nx + 1) / 2, ny2 = (ny + 1) / 2;
  // The four quadrants in the decoder's order, the second and third sharing a plane count.
  QuadrantBits quadrants[4] = {
      {nx2, ny2, {}}, {nx2, ny / 2, {}}, {nx / 2, ny2, {}}, {nx / 2, ny / 2, {}}};
  const int quadrant_planes[4] = {planes[0], planes[1], planes[1], planes[2]};
  const std::string past = "decoding it would read past its " + std::to_string(tile.size()) +
                           " bytes (CFITSIO's HCOMPRESS decoder does not know where they end)";
  for (int q = 0; q < 4; ++q) {
    const Outcome outcome = decode_quadrant(in, quadrants[q], quadrant_planes[q]);
    if (outcome == Outcome::kOverrun) return past;
    if (outcome == Outcome::kRefused) return std::nullopt;
  }
  // The end marker (a zero nybble; CFITSIO refuses the tile without it), then, from the next
  // byte on, a sign bit for each nonzero pixel.
  const int end = in.nybble();
  if (in.overrun()) return past;
  if (end != 0) return std::nullopt;
  std::uint64_t signs = 0;
  for (const QuadrantBits& q : quadrants) signs += q.nonzero_pixels();
  if (in.position() + (signs + 7) / 8 > tile.size()) return past;
  return std::nullopt;
}

}  // namespace fitsasdf::fits
