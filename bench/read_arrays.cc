// The fitsasdf contestant of the bench's "open and touch every array" job: open an ASDF file
// through asdfcore, find every ndarray in its tree and read each one whole (sum of its bytes),
// as a program built on the library would. Prints the number of arrays, the bytes read, the
// sum (so the work cannot be optimised away) and the time the opening and the reading took.
//
// Usage: fitsasdf_bench_read FILE.asdf
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <span>
#include <string>

#include "asdfcore/asdf_file.h"
#include "asdfcore/tree/walk.h"

namespace {

/// The sum of `data`'s bytes, eight at a time: two masks split a word into four 16-bit lanes of
/// byte pairs, and one multiplication adds the lanes into the top one. A byte-by-byte loop is
/// what GCC's -O2 leaves unvectorised, and took as long as parsing half the tree.
std::uint64_t byte_sum(std::span<const std::uint8_t> data) {
  constexpr std::uint64_t kLowBytes = 0x00ff00ff00ff00ffULL;
  constexpr std::uint64_t kLanes = 0x0001000100010001ULL;
  std::uint64_t sum = 0;
  std::size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, data.data() + i, 8);
    const std::uint64_t pairs = (word & kLowBytes) + ((word >> 8) & kLowBytes);
    sum += (pairs * kLanes) >> 48;
  }
  for (; i < data.size(); ++i) sum += data[i];
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fitsasdf_bench_read FILE.asdf\n");
    return 4;
  }
  try {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const asdfcore::AsdfFile file = asdfcore::AsdfFile::open(argv[1]);
    const auto opened = Clock::now();
    std::uint64_t arrays = 0;
    std::uint64_t bytes = 0;
    std::uint64_t sum = 0;
    asdfcore::tree::walk(file.tree(), [&](const asdfcore::tree::NodePtr& node,
                                          const std::string& path) {
      if (!asdfcore::tree::is_ndarray(*node)) return true;
      const asdfcore::ndarray::NDArray array = file.array(*node, path);
      const auto view = array.contiguous_view();
      const auto data = view ? view->span() : array.data().span();
      sum += byte_sum(data);
      bytes += data.size();
      ++arrays;
      return false;
    });
    const auto done = Clock::now();
    const auto ms = [](Clock::duration d) {
      return std::chrono::duration<double, std::milli>(d).count();
    };
    std::printf("%llu arrays, %llu bytes, byte sum %llu; open %.1f ms, read %.1f ms\n",
                static_cast<unsigned long long>(arrays), static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(sum), ms(opened - start), ms(done - opened));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fitsasdf_bench_read: %s\n", e.what());
    return 2;
  }
}
