#include "fits/plio_guard.h"

#include <algorithm>
#include <vector>

namespace fitsasdf::fits {
namespace {

constexpr std::int32_t kPlioMax = 16777215;  // 2^24 - 1
constexpr std::size_t kRunMax = 4095;        // the longest run one word of the list holds

std::size_t words_for_run(std::size_t n) { return (n + kRunMax - 1) / kRunMax; }

}  // namespace

std::size_t plio_line_list_words(std::span<const std::int32_t> pixels) {
  // The list is a header, then for each run of equal nonzero values after any zeros: the new
  // value (one word for a step of at most 4095 from the previous one, two words otherwise), the
  // zeros (a word each 4095), the run (a word each 4095). A single pixel right after the step
  // word, or right after a zero-run word, is folded into that word.
  const std::size_t n = pixels.size();
  if (n == 0) return 0;
  const auto level = [&](std::size_t i) { return std::max<std::int32_t>(0, pixels[i]); };
  std::size_t words = 7;
  std::int64_t high = 1;  // the value the list holds
  std::int32_t run_value = level(0);
  std::size_t run_start = 0;    // first pixel of the current nonzero run
  std::size_t zeros_start = 0;  // first pixel of the zeros before it
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t next = 0;
    if (i + 1 < n) {
      next = level(i + 1);
      if (next == run_value) continue;
      if (run_value == 0) {  // zeros end: the nonzero run starts
        run_value = next;
        run_start = i + 1;
        continue;
      }
    } else if (run_value == 0) {
      run_start = n;  // the list ends in zeros: no nonzero run
    }
    const std::size_t run = i + 1 - run_start;
    const std::size_t zeros = run_start - zeros_start;
    bool folded = false;
    if (run_value > 0 && run_value != high) {
      const std::int64_t step = run_value - high;
      high = run_value;
      if (step > static_cast<std::int64_t>(kRunMax) || -step > static_cast<std::int64_t>(kRunMax)) {
        words += 2;
      } else {
        words += 1;
        folded = run == 1 && zeros == 0;
      }
    }
    if (!folded && zeros > 0) {
      words += words_for_run(zeros);
      folded = run == 1 && run_value > 0;
    }
    if (!folded) words += words_for_run(run);
    run_start = zeros_start = i + 1;
    run_value = next;
  }
  return words;
}

std::string plio_write_problem(std::span<const std::int32_t> values, std::span<const long> axes,
                               std::span<const long> tile, std::size_t max_bytes) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] > kPlioMax) {
      return "pixel " + std::to_string(i) + " (FITS order) is " + std::to_string(values[i]) +
             ", outside PLIO_1's 0 to 16777215";
    }
  }
  const std::size_t ndim = axes.size();
  std::size_t total = ndim == 0 ? 0 : 1;
  for (const long a : axes) total *= a > 0 ? static_cast<std::size_t>(a) : 0;
  if (total == 0 || total != values.size()) return "";
  std::vector<std::size_t> size(ndim), count(ndim), stride(ndim, 1);
  for (std::size_t d = 0; d < ndim; ++d) {
    const auto axis = static_cast<std::size_t>(axes[d]);
    const long t = d < tile.size() ? tile[d] : 1;
    size[d] = std::clamp<std::size_t>(t > 0 ? static_cast<std::size_t>(t) : 1, 1, axis);
    count[d] = (axis + size[d] - 1) / size[d];
    if (d > 0) stride[d] = stride[d - 1] * static_cast<std::size_t>(axes[d - 1]);
  }
  std::vector<std::size_t> at(ndim, 0);  // the tile's index along each axis
  std::vector<std::int32_t> pixels;
  for (std::size_t row = 1;; ++row) {
    std::vector<std::size_t> first(ndim), extent(ndim);
    for (std::size_t d = 0; d < ndim; ++d) {
      first[d] = at[d] * size[d];
      extent[d] = std::min(size[d], static_cast<std::size_t>(axes[d]) - first[d]);
    }
    // The tile's pixels, the first axis fastest, as CFITSIO hands them to pl_p2li.
    pixels.clear();
    std::vector<std::size_t> pos(ndim, 0);
    for (;;) {
      std::size_t offset = first[0];
      for (std::size_t d = 1; d < ndim; ++d) offset += (first[d] + pos[d]) * stride[d];
      pixels.insert(pixels.end(), values.begin() + static_cast<std::ptrdiff_t>(offset),
                    values.begin() + static_cast<std::ptrdiff_t>(offset + extent[0]));
      std::size_t d = 1;
      while (d < ndim && ++pos[d] == extent[d]) pos[d++] = 0;
      if (d >= ndim) break;
    }
    const std::size_t bytes = 2 * plio_line_list_words(pixels);
    if (bytes > max_bytes) {
      return "the PLIO line list of tile " + std::to_string(row) + " takes " +
             std::to_string(bytes) + " bytes, more than the " + std::to_string(max_bytes) +
             " CFITSIO's PLIO_1 writer allots (it would write past them)";
    }
    std::size_t d = 0;
    while (d < ndim && ++at[d] == count[d]) at[d++] = 0;
    if (d == ndim) break;
  }
  return "";
}

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
