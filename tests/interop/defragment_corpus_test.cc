// `fitsasdf defragment` of every ASDF file of the corpus, with each codec: python asdf reads the
// same arrays from our output as the oracle read from the input, and opens it (validation on)
// without any warning it did not already give for the input.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

namespace {

struct Input {
  std::string rel;
  const json* record;
};

std::vector<Input> readable_inputs(const json& oracle) {
  std::vector<Input> out;
  for (const auto& [rel, rec] : oracle["files"].items()) {
    if (rec.value("format", "") != "asdf" || !rec.contains("raw")) continue;
    if (!fs::exists(corpus_dir() / rel)) continue;
    const json& raw = rec["raw"];
    if (!raw.value("ok", false)) continue;  // python itself cannot read every array
    out.push_back({rel, &rec});
  }
  return out;
}

json python_read(const std::vector<std::string>& files, bool raw) {
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "asdf_arrays.py").string()};
  if (raw) argv.push_back("--raw");
  argv.insert(argv.end(), files.begin(), files.end());
  const RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

/// Warnings without the file names they mention.
std::set<std::string> warning_set(const json& list) {
  std::set<std::string> out;
  for (const auto& w : list) {
    std::string s = w.get<std::string>();
    if (s.find("Unable to locate schema file") != std::string::npos) s = s.substr(0, s.find("'"));
    out.insert(s);
  }
  return out;
}

/// Defragment every readable corpus file with `--compress codec` and check that python asdf
/// reads the same arrays from each output, with no warning the input did not already give.
void check_defragment(const std::string& codec) {
  std::ifstream in(corpus_dir() / "oracle.json");
  REQUIRE(in.good());
  const json oracle = json::parse(in);
  const auto inputs = readable_inputs(oracle);
  REQUIRE(inputs.size() >= 200);
  TempDir dir;
  std::vector<std::string> outputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string out = (dir / (std::to_string(i) + ".asdf")).string();
    const RunResult r =
        run({cli_path().string(), "defragment", (corpus_dir() / inputs[i].rel).string(), "-o", out,
             "--compress", codec});
    INFO(inputs[i].rel << " --compress " << codec << ": " << r.err);
    REQUIRE(r.status == 0);
    outputs.push_back(out);
  }
  const json raw = python_read(outputs, true);
  const json opened = python_read(outputs, false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const json& want = (*inputs[i].record)["raw"]["arrays"];
    const json& got = raw[outputs[i]];
    INFO(inputs[i].rel << " --compress " << codec << " -> " << got.dump().substr(0, 400));
    REQUIRE_FALSE(got.contains("error"));
    CHECK(got["arrays"].size() == want.size());
    for (const auto& a : want) {
      const std::string path = a["path"];
      REQUIRE(got["arrays"].contains(path));
      CHECK(got["arrays"][path]["md5"] == a["md5"]);
      CHECK(got["arrays"][path]["shape"] == a["shape"]);
    }
    // Opened as a user would: no warning the input did not already give.
    const json& open = (*inputs[i].record)["open"];
    if (open.value("ok", false)) {
      const json& mine = opened[outputs[i]];
      CHECK_FALSE(mine.contains("error"));
      const auto before = warning_set(open["warnings"]);
      for (const auto& w : warning_set(mine["warnings"])) {
        INFO("new warning: " << w);
        CHECK(before.count(w) == 1);
      }
    }
  }
}

}  // namespace

// One test per codec: each is its own ctest test (run side by side, each within the timeout,
// also in the sanitizer build where every CLI run is several times slower).
TEST_CASE("defragment keeps every array python asdf reads: blocks as in the input",
          "[interop][defragment][corpus]") {
  check_defragment("input");
}

TEST_CASE("defragment keeps every array python asdf reads: zlib", "[interop][defragment][corpus]") {
  check_defragment("zlib");
}

TEST_CASE("defragment keeps every array python asdf reads: bzp2", "[interop][defragment][corpus]") {
  check_defragment("bzp2");
}

TEST_CASE("defragment keeps every array python asdf reads: lz4", "[interop][defragment][corpus]") {
  check_defragment("lz4");
}

TEST_CASE("defragment keeps every array python asdf reads: uncompressed",
          "[interop][defragment][corpus]") {
  check_defragment("none");
}
