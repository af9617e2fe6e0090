// The pre-1.0 dialects (format/legacy.h): the fixtures of tests/data/legacy (every header size,
// both magics, zlib/bzp2, the draft's encoding chains with tile and quantize, streamed and
// exploded files; made by tests/data/legacy/make_legacy.py with expected md5s), the real draft
// files of the shared corpus against their .yaml twins, damaged files, and the upgrade by
// `defragment` read back by python asdf 2.14 without a warning.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/walk.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
namespace fs = std::filesystem;
using asdfcore::AsdfFile;
using asdfcore::Error;
using asdfcore::ErrorCode;

namespace {

const fs::path kLegacy = data_dir() / "legacy";

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every ndarray of the file: JSON Pointer -> md5 in the corpus convention.
std::map<std::string, std::string> array_md5s(const AsdfFile& file) {
  std::map<std::string, std::string> out;
  asdfcore::tree::walk(file.tree(), [&](const auto& node, const std::string& path) {
    if (!asdfcore::tree::is_ndarray(*node)) return true;
    out[path] = file.array(*node, path).md5_le();
    return false;
  });
  return out;
}

// Whether two arrays hold the same values: the same dtype and shape, integers and strings
// byte for byte, floats equal with NaN equal to NaN (a YAML `.nan` is the negative quiet NaN,
// the binary files hold the positive one) and within 1e-11 relatively (the twins' complex
// values were written by Python 2's 12-digit str(complex)).
bool same_values(const asdfcore::ndarray::NDArray& a, const asdfcore::ndarray::NDArray& b) {
  using asdfcore::ndarray::DTypeKind;
  if (a.dtype().kind() != b.dtype().kind() || a.shape() != b.shape()) return false;
  const auto x = a.to_c_order(asdfcore::ndarray::ByteOrder::kLittle);
  const auto y = b.to_c_order(asdfcore::ndarray::ByteOrder::kLittle);
  if (x.size() != y.size()) return false;
  const DTypeKind kind = a.dtype().kind();
  const bool f32 = kind == DTypeKind::kFloat32 || kind == DTypeKind::kComplex64;
  const bool f64 = kind == DTypeKind::kFloat64 || kind == DTypeKind::kComplex128;
  if (!f32 && !f64) return x == y;
  const std::size_t width = f32 ? 4 : 8;
  for (std::size_t i = 0; i < x.size(); i += width) {
    double u, v;
    if (f32) {
      float p, q;
      std::memcpy(&p, x.data() + i, 4);
      std::memcpy(&q, y.data() + i, 4);
      u = p;
      v = q;
    } else {
      std::memcpy(&u, x.data() + i, 8);
      std::memcpy(&v, y.data() + i, 8);
    }
    if (std::isnan(u) && std::isnan(v)) continue;
    if (u == v) continue;
    if (std::isinf(u) || std::isinf(v) || std::fabs(u - v) > 1e-11 * std::max(std::fabs(u), std::fabs(v))) {
      return false;
    }
  }
  return true;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kLegacy)) {
    if (e.path().extension() == ".asdf") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("legacy fixtures: every dialect reads, every array as expected", "[legacy]") {
  int arrays = 0;
  std::set<int> header_sizes;
  for (const auto& path : fixtures()) {
    INFO(path.filename().string());
    const auto expected = read_json(fs::path(path).replace_extension(".expected.json"));
    const AsdfFile file = AsdfFile::open(path.string());
    REQUIRE(file.container().legacy());
    const auto& legacy = *file.container().legacy();
    CHECK(file.asdf_standard() == "1.0.0");
    CHECK(legacy.header_line == expected["dialect"]["header_line"].get<std::string>());
    REQUIRE(legacy.blocks.size() == expected["dialect"]["header_size"].size());
    std::set<std::size_t> unreadable;
    for (const auto& b : expected["unreadable_blocks"]) unreadable.insert(b.get<std::size_t>());
    for (std::size_t i = 0; i < legacy.blocks.size(); ++i) {
      INFO("block " << i);
      CHECK(legacy.blocks[i].header_size == expected["dialect"]["header_size"][i].get<int>());
      CHECK(legacy.blocks[i].encodings ==
            expected["dialect"]["encodings"][i].get<std::vector<std::string>>());
      CHECK(legacy.blocks[i].problem.empty() == (unreadable.count(i) == 0));
      header_sizes.insert(legacy.blocks[i].header_size);
    }
    // The tags are today's.
    asdfcore::tree::walk(file.tree(), [](const auto& node, const std::string&) {
      CHECK_FALSE(node->tag().find("0.1.0") != std::string::npos);
      return true;
    });
    for (const auto& [pointer, want] : expected["arrays"].items()) {
      INFO(pointer);
      const auto node = asdfcore::tree::find_by_pointer(
          file.tree(), asdfcore::tree::parse_json_pointer(pointer));
      REQUIRE(node);
      CHECK(file.array(*node, pointer).md5_le() == want["md5"].get<std::string>());
      ++arrays;
    }
    // An array on a block that cannot be decoded says why; the file's other arrays read.
    for (const auto& pointer : expected["unreadable_arrays"]) {
      const auto p = pointer.get<std::string>();
      const auto node = asdfcore::tree::find_by_pointer(file.tree(),
                                                        asdfcore::tree::parse_json_pointer(p));
      REQUIRE(node);
      try {
        (void)file.array(*node, p).md5_le();
        FAIL("read an array whose block cannot be decoded: " << p);
      } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::Matchers::Contains("legacy block"));
      }
    }
  }
  CHECK(arrays >= 30);
  CHECK(header_sizes == std::set<int>{36, 40, 44, 48});
}

TEST_CASE("legacy corpus: the draft reference files equal their .yaml twins", "[legacy]") {
  const fs::path dir = corpus_dir() / "legacy-draft";
  REQUIRE(fs::is_directory(dir));
  int compared = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    const fs::path asdf = fs::path(e.path()).replace_extension(".asdf");
    if (!fs::exists(asdf)) continue;
    INFO(asdf.filename().string());
    const AsdfFile file = AsdfFile::open(asdf.string());
    REQUIRE(file.container().legacy());
    // The twin holds the same tree with every array inline; read it as a legacy file too.
    const std::string twin_text = "#ASDF 0.1.0\n" + read_text(e.path());
    const AsdfFile twin = AsdfFile::open_bytes(
        asdfcore::io::Buffer::from_vector({twin_text.begin(), twin_text.end()}),
        e.path().string());
    const auto want = array_md5s(twin);  // lists the twin's arrays
    for (const auto& [pointer, md5] : want) {
      INFO(pointer);
      const auto tokens = asdfcore::tree::parse_json_pointer(pointer);
      const auto a = asdfcore::tree::find_by_pointer(file.tree(), tokens);
      const auto b = asdfcore::tree::find_by_pointer(twin.tree(), tokens);
      REQUIRE(a);
      CHECK(same_values(file.array(*a, pointer), twin.array(*b, pointer)));
      ++compared;
    }
  }
  CHECK(compared >= 30);
}

TEST_CASE("legacy damage: a clear error for the file, or for its block only", "[legacy][error]") {
  const auto damaged = read_json(kLegacy / "damaged" / "DAMAGED.json");
  REQUIRE(damaged.size() >= 10);
  for (const auto& [name, what] : damaged.items()) {
    INFO(name << ": " << what["defect"].get<std::string>());
    const std::string path = (kLegacy / "damaged" / name).string();
    const std::string scope = what["scope"];
    if (scope == "file") {
      try {
        (void)AsdfFile::open(path);
        FAIL("opened");
      } catch (const Error& e) {
        CHECK(std::string(asdfcore::error_code_name(e.code())) ==
              what["suggested_category"].get<std::string>());
        CHECK_THAT(e.what(), Catch::Matchers::Contains(name));
      }
      continue;
    }
    // A block's encoding is damaged: the file opens, that block reports the damage.
    const AsdfFile file = AsdfFile::open(path);
    const std::size_t block = std::stoul(scope.substr(scope.find(' ') + 1));
    REQUIRE(file.container().legacy()->blocks.size() > block);
    CHECK_FALSE(file.container().legacy()->blocks[block].problem.empty());
    CHECK_THROWS_AS(array_md5s(file), Error);
  }
}

TEST_CASE("legacy upgrade: defragment --standard gives files python asdf reads as they were",
          "[legacy][python]") {
  TempDir dir;
  std::vector<std::string> outputs;
  std::map<std::string, std::map<std::string, std::string>> expected;
  std::vector<fs::path> inputs = fixtures();
  for (const auto& e : fs::directory_iterator(corpus_dir() / "legacy-draft")) {
    if (e.path().extension() == ".asdf") inputs.push_back(e.path());
  }
  for (const auto& input : inputs) {
    const AsdfFile original = AsdfFile::open(input.string());
    std::map<std::string, std::string> md5s;
    try {
      md5s = array_md5s(original);
    } catch (const Error&) {
      // A block fitsasdf cannot decode: defragment refuses, saying so.
      const auto r = run_cli({"defragment", input.string(), "-o", (dir.path() / "x.asdf").string()});
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Catch::Matchers::Contains("legacy block"));
      continue;
    }
    for (const char* standard : {"1.5.0", "1.6.0"}) {
      const std::string out = (dir.path() / (input.stem().string() + "-" + standard + ".asdf")).string();
      const auto r = run_cli({"defragment", "--standard", standard, input.string(), "-o", out});
      INFO(input << " " << r.err);
      REQUIRE(r.status == 0);
      outputs.push_back(out);
      expected[out] = md5s;
    }
  }
  REQUIRE(outputs.size() >= 60);
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "asdf_arrays.py").string()};
  argv.insert(argv.end(), outputs.begin(), outputs.end());
  const auto r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto report = nlohmann::json::parse(r.out);
  for (const auto& out : outputs) {
    INFO(out);
    const auto& rec = report.at(out);
    CHECK_FALSE(rec.contains("error"));
    CHECK(rec["warnings"].empty());
    std::map<std::string, std::string> got;
    for (const auto& [pointer, a] : rec["arrays"].items()) got[pointer] = a["md5"];
    CHECK(got == expected[out]);
  }
}
