#include "fits/plio_guard.h"

namespace fitsasdf::fits {

std::optional<std::string> plio_tile_problem(std::span<const std::int16_t> words,
                                             std::uint64_t pixels) {
  // Word numbers are 1-based, as in pl_l2pi. The header is 7 words: word 3 is the list's length
  // in the first version of the format; when it is not positive, words 4 and 5 hold the length
  // (low 15 bits, then high bits) and word 2 the number of header words.
  const auto n = static_cast<std::int64_t>(words.size());
  const auto word = [&](std::int64_t i) -> int { return words[static_cast<std::size_t>(i - 1)]; };
  const std::string size = "its " + std::to_string(n) + " words";
  if (n < 3) return size + " are too few for a PLIO line list's header";
  std::int64_t length = word(3);
  std::int64_t first = 4;
  if (length <= 0) {
    if (n < 5) return size + " are too few for a PLIO line list's header";
    length = std::int64_t{word(5)} * 32768 + word(4);
    first = word(2) + 1;
  }
  if (pixels == 0) return std::nullopt;
  if (length <= 0) {
    return "its line list declares a length of " + std::to_string(length) +
           " words (CFITSIO would leave the tile's pixels unset)";
  }
  // Instructions: opcode in the top 4 bits, a count or value in the low 12. Opcodes 0, 4 and 5
  // cover `data` pixels, 6 and 7 one pixel, 1 takes the next word as the high bits of a value;
  // the reader stops once the tile's pixels are covered.
  const auto last = static_cast<std::int64_t>(pixels);
  std::int64_t x = 1;
  for (std::int64_t at = first; at <= length; ++at) {
    if (at < 1 || at > n) {
      return "its line list's header makes CFITSIO read word " + std::to_string(at) + " of " +
             size.substr(4);
    }
    const int opcode = word(at) / 4096;  // as in C: toward zero
    const int data = word(at) & 4095;
    if (opcode == 1) {
      if (at + 1 > n) {
        return "its last instruction makes CFITSIO read word " + std::to_string(at + 1) + " of " +
               size.substr(4);
      }
      ++at;  // the value's high bits; the reader goes on after them without looking at x
      continue;
    }
    if (opcode == 0 || opcode == 4 || opcode == 5) x += data;
    if (opcode == 6 || opcode == 7) ++x;
    if (x > last) break;
  }
  return std::nullopt;
}

}  // namespace fitsasdf::fits
