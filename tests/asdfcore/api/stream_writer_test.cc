// StreamWriter: a cube appended frame by frame (a streamed block) and a pending array given in
// pieces and compressed, both read by python asdf 2.14 and by File. The failures are in
// stream_writer_error_test.cc.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "api_support.h"
#include "asdfcore/asdfcore.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using asdfcore::Array;
using asdfcore::StreamWriter;
using asdfcore::Tree;
using asdfcore::WriteOptions;
using fitsasdf::test::TempDir;
using fitsasdf::test::api::folder;
using fitsasdf::test::api::le_md5;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// Frame `k` of the cube: 32 x 48 floats.
std::vector<float> frame(int k) {
  std::vector<float> f(32 * 48);
  for (std::size_t i = 0; i < f.size(); ++i)
    f[i] = static_cast<float>(k) * 1000.0f + static_cast<float>(i) * 0.5f;
  return f;
}

}  // namespace

TEST_CASE("a streamed cube of 100 frames and a zlib pending array read back in python",
          "[api][python][stream]") {
  TempDir dir;
  std::vector<float> all;
  {
    Tree tree;
    tree["meta"]["detector"] = "NRCA1";
    tree["cube"] = Array::streamed<float>({32, 48});
    StreamWriter out((dir / "cube.asdf").string(), tree);
    for (int k = 0; k < 100; ++k) {
      const auto f = frame(k);
      all.insert(all.end(), f.begin(), f.end());
      if (k % 2 == 0) {
        out.append(std::span<const float>(f));
      } else {  // split a frame across calls
        out.append(std::span<const float>(f).first(100));
        out.append(std::span<const float>(f).subspan(100));
      }
    }
    CHECK(out.bytes_appended() == all.size() * sizeof(float));
    CHECK_FALSE(fs::exists(dir / "cube.asdf"));
    out.close();
  }
  std::vector<std::int32_t> pending_values(10000);
  for (std::size_t i = 0; i < pending_values.size(); ++i) {
    pending_values[i] = static_cast<std::int32_t>(i * 7919 % 1000) - 500;
  }
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    Tree tree;
    tree["small"] = Array::copy(std::span<const std::int32_t>(pending_values).first(5), {5});
    tree["pending"] = Array::pending<std::int32_t>({100, 100});
    WriteOptions options;
    options.asdf_standard = standard;
    options.compression = "zlib";
    options.checksum = asdfcore::format::ChecksumConvention::kDecodedData;  // what python checks
    StreamWriter out((dir / ("pending-" + standard + ".asdf")).string(), tree, options);
    for (std::size_t at = 0; at < pending_values.size(); at += 777) {
      const std::size_t n = std::min<std::size_t>(777, pending_values.size() - at);
      out.append(std::span<const std::int32_t>(pending_values).subspan(at, n));
    }
    out.close();
  }
  CHECK(folder(dir.path()) ==
        std::vector<std::string>{"cube.asdf", "pending-1.5.0.asdf", "pending-1.6.0.asdf"});

  const json py = fitsasdf::test::api::python_read(
      {dir / "cube.asdf", dir / "pending-1.5.0.asdf", dir / "pending-1.6.0.asdf"},
      {fitsasdf::test::api::kNdarray11Warning});
  const json& cube = fitsasdf::test::api::python_record(py, dir / "cube.asdf");
  INFO(cube.dump());
  CHECK(cube["warnings"].empty());
  CHECK(cube["tree"]["meta"]["detector"] == "NRCA1");
  CHECK(cube["tree"]["cube"]["$array"]["shape"] == json{100, 32, 48});
  CHECK(cube["tree"]["cube"]["$array"]["md5"] == le_md5(all));
  CHECK(cube["tree"]["cube"]["$array"]["source"] == -1);
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    const json& p = fitsasdf::test::api::python_record(py, dir / ("pending-" + standard + ".asdf"));
    INFO(p.dump());
    CHECK(p["tree"]["pending"]["$array"]["shape"] == json{100, 100});
    CHECK(p["tree"]["pending"]["$array"]["md5"] == le_md5(pending_values));
    CHECK(p["tree"]["small"]["$array"]["md5"] ==
          le_md5(std::vector<std::int32_t>(pending_values.begin(), pending_values.begin() + 5)));
  }
  // Our reader agrees, and the pending block is compressed.
  const asdfcore::File back = asdfcore::File::open((dir / "pending-1.5.0.asdf").string());
  const auto view = back.array<std::int32_t>("/pending");
  CHECK(view.to_vector() == pending_values);
  CHECK_FALSE(view.zero_copy());
  const asdfcore::File cube_back = asdfcore::File::open((dir / "cube.asdf").string());
  CHECK(cube_back.array<float>("/cube").shape() == std::vector<std::uint64_t>{100, 32, 48});
  CHECK(cube_back.array<float>("/cube")(99, 31, 47) == all.back());
}
