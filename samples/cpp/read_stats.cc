// Read one array of an ASDF file by its path and print its statistics.
//   read_stats FILE.asdf [/POINTER]      (default pointer: /data)
// The view is typed: array_as<double> converts any integer or float array the way numpy's
// safe casting allows, without a copy when the file already holds doubles in this machine's
// byte order.
#include <asdfcore/asdfcore.h>

#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: read_stats FILE.asdf [/POINTER]\n";
    return 2;
  }
  const std::string pointer = argc == 3 ? argv[2] : "/data";
  try {
    const asdfcore::File file = asdfcore::File::open(argv[1]);
    const asdfcore::Value node = file.at(pointer);
    const auto values = node.array_as<double>();  // an Error names the path if it is no array

    double sum = 0, sum2 = 0, low = INFINITY, high = -INFINITY;
    std::uint64_t finite = 0;
    for (std::uint64_t i = 0; i < values.size(); ++i) {  // every element, in C order
      const double v = values.flat(i);
      if (!std::isfinite(v)) continue;
      ++finite;
      sum += v;
      sum2 += v * v;
      low = std::min(low, v);
      high = std::max(high, v);
    }
    const double mean = finite ? sum / static_cast<double>(finite) : NAN;
    const double sd = finite ? std::sqrt(sum2 / static_cast<double>(finite) - mean * mean) : NAN;

    std::cout << pointer << ": " << values.array().dtype().name() << ", shape (";
    for (std::size_t d = 0; d < values.ndim(); ++d) std::cout << (d ? ", " : "") << values.shape()[d];
    std::cout << "), " << finite << " finite values\n"
              << "min " << low << "  max " << high << "  mean " << mean << "  std " << sd << "\n";
  } catch (const asdfcore::Error& e) {
    std::cerr << "read_stats: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
