// Bounded memory of StreamWriter: write a 1 GiB float32 array in 4 MiB chunks made on the fly,
// then fail when the process's peak resident set (VmHWM in /proc/self/status) exceeds a limit.
// Then check the file with asdfcore (File::open and sampled elements).
//
// Usage: stream_rss MODE DIR LIMIT_MIB, MODE "streamed" (uncompressed streamed block, frames of
// 1024 x 1024) or "pending" (a pending array of 256 x 1024 x 1024, lz4). The file is written to
// DIR and removed at the end. Exit status 0 when the peak stays under the limit and the file
// reads back, 1 otherwise (the reason on stderr). Run by ctest (tests/CMakeLists.txt), not in
// sanitizer builds.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/asdfcore.h"

namespace {

constexpr std::uint64_t kChunkElements = 1024 * 1024;  // 4 MiB of float32
constexpr std::uint64_t kChunks = 256;                 // 1 GiB

float value(std::uint64_t i) { return static_cast<float>(i % 1000003) * 0.25f; }

/// Return VmHWM (peak resident set) in KiB, or 0 when it cannot be read.
std::uint64_t peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: stream_rss streamed|pending DIR LIMIT_MIB\n";
    return 2;
  }
  const std::string mode = argv[1];
  const std::filesystem::path path =
      std::filesystem::path(argv[2]) / ("stream_rss_" + mode + ".asdf");
  const std::uint64_t limit_kib = std::stoull(argv[3]) * 1024;
  int status = 0;
  try {
    asdfcore::Tree tree;
    tree["meta"]["mode"] = mode;
    asdfcore::WriteOptions options;
    options.durable = false;
    if (mode == "streamed") {
      tree["data"] = asdfcore::Array::streamed<float>({1024, 1024});
    } else {
      tree["data"] = asdfcore::Array::pending<float>({kChunks, 1024, 1024});
      options.compression = "lz4";
    }
    {
      asdfcore::StreamWriter out(path.string(), tree, options);
      std::vector<float> chunk(kChunkElements);
      for (std::uint64_t c = 0; c < kChunks; ++c) {
        for (std::uint64_t i = 0; i < kChunkElements; ++i) chunk[i] = value(c * kChunkElements + i);
        out.append(std::span<const float>(chunk));
      }
      out.close();
    }
    const std::uint64_t peak = peak_rss_kib();
    std::cout << mode << ": peak RSS " << peak / 1024 << " MiB (limit " << limit_kib / 1024
              << " MiB), file " << std::filesystem::file_size(path) / (1024 * 1024) << " MiB\n";
    if (peak == 0 || peak > limit_kib) {
      std::cerr << "peak RSS " << peak << " KiB is over the limit of " << limit_kib << " KiB\n";
      status = 1;
    }
    // Read it back: shape and sampled elements (a compressed block is decoded whole here).
    const asdfcore::File file = asdfcore::File::open(path.string());
    const auto view = file.array<float>("/data");
    if (view.shape() != std::vector<std::uint64_t>{kChunks, 1024, 1024}) {
      std::cerr << "wrong shape read back\n";
      status = 1;
    }
    std::cout << "read back " << (view.zero_copy() ? "without a copy" : "as a copy") << "\n";
    for (std::uint64_t i = 0; i < kChunks * kChunkElements; i += 9999991) {
      if (view.flat(i) != value(i)) {
        std::cerr << "element " << i << " is " << view.flat(i) << ", not " << value(i) << "\n";
        status = 1;
        break;
      }
    }
    if (view.flat(kChunks * kChunkElements - 1) != value(kChunks * kChunkElements - 1)) {
      std::cerr << "the last element is wrong\n";
      status = 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    status = 1;
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return status;
}
