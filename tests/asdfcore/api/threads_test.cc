// One File read from 4 threads at once (the contract of file.h): array views (zero-copy,
// decompressed, byte-swapped) and scalar getters give every thread the same results as one
// thread alone.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "api_support.h"
#include "asdfcore/asdfcore.h"
#include "support/catch.h"
#include "support/paths.h"

using asdfcore::File;
using fitsasdf::test::api::le_md5;

namespace {

/// Everything one reader reads, as text to compare.
std::vector<std::string> read_all(const File& file) {
  std::vector<std::string> out;
  for (const auto& e : file.root().entries()) {
    if (!e.value.is_ndarray()) continue;
    const auto array = e.value.raw_array();  // keep it alive while its dtype is read
    if (!array->dtype().is_numeric()) continue;
    out.push_back(e.key + " " + le_md5(e.value.array_as<std::complex<double>>().to_vector()));
  }
  out.push_back(file.get<std::string>("/asdf_library/name"));
  out.push_back(file.get<std::string>("/history/extensions/0/software/name"));
  return out;
}

}  // namespace

TEST_CASE("one File read from 4 threads at once gives the same results", "[api][threads]") {
  const std::string dir = (fitsasdf::test::corpus_dir() / "asdf-reference" / "1.5.0").string();
  for (const std::string name : {"int.asdf", "float.asdf", "compressed.asdf", "complex.asdf"}) {
    INFO(name);
    std::vector<std::string> alone;
    {
      const File first = File::open(dir + "/" + name);
      alone = read_all(first);
    }
    REQUIRE(alone.size() > 2);
    const File file = File::open(dir + "/" + name);
    std::vector<std::vector<std::string>> got(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        try {
          for (int round = 0; round < 20; ++round) got[t] = read_all(file);
        } catch (const std::exception& e) {
          got[t] = {std::string("error: ") + e.what()};
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) {
      INFO("thread " << t);
      CHECK(got[t] == alone);
    }
  }
}
