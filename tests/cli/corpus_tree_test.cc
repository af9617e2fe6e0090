// `fitsasdf info --json` on every ASDF file of the corpus: the tag map and every array summary
// (path, shape, dtype, source, md5, masks, aliases) equal the oracle's `raw` record, made by
// python asdf 2.14 with `_force_raw_types=True`.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/catch.h"
#include "support/oracle.h"
#include "support/paths.h"
#include "support/run.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

TEST_CASE("info --json: tags and array md5s equal the oracle for every corpus ASDF file",
          "[corpus][cli][tree]") {
  const json oracle = load_corpus_oracle();
  int files = 0;
  int arrays = 0;
  for (const auto& [rel, rec] : oracle["files"].items()) {
    if (rec.value("format", "") != "asdf" || !rec.contains("raw")) continue;
    const fs::path path = corpus_dir() / rel;
    if (!fs::exists(path)) continue;
    const json& raw = rec["raw"];
    const RunResult r = run({cli_path().string(), "info", "--json", path.string()});
    INFO(rel << ": " << r.err);
    if (!raw.contains("tags")) {
      // python asdf could not read the tree at all: neither may we.
      CHECK(r.status == 2);
      continue;
    }
    REQUIRE(r.status == 0);
    const json got = json::parse(r.out);
    CHECK(got["tags"] == raw["tags"]);
    const json& want_arrays = raw["arrays"];
    REQUIRE(got["arrays"].size() == want_arrays.size());
    for (std::size_t i = 0; i < want_arrays.size(); ++i) {
      compare_array(want_arrays[i], got["arrays"][i], rel + " array " + std::to_string(i));
      ++arrays;
    }
    ++files;
  }
  INFO("files " << files << ", arrays " << arrays);
  CHECK(files >= 200);
}
