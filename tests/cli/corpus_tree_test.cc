// `fitsasdf info --json` on every ASDF file of the corpus: the tag map and every array summary
// (path, shape, dtype, source, md5, masks, aliases) equal the oracle's `raw` record, made by
// python asdf 2.14 with `_force_raw_types=True`.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

namespace {

/// The oracle gives numpy's dtype.str; a structured dtype is "|V<n>" there with a descr list.
void compare_array(const json& want, const json& got, const std::string& where) {
  INFO(where << "\n  oracle: " << want.dump().substr(0, 600) << "\n  ours:   "
             << got.dump().substr(0, 600));
  CHECK(got["path"] == want["path"]);
  if (want.contains("error")) {
    CHECK(got.contains("error"));
    return;
  }
  REQUIRE_FALSE(got.contains("error"));
  CHECK(got["shape"] == want["shape"]);
  CHECK(got["md5"] == want["md5"]);
  CHECK(got["source"] == want["source"]);
  if (!want.contains("dtype_descr")) CHECK(got["dtype"] == want["dtype"]);
  CHECK(got.value("alias_of", json()) == want.value("alias_of", json()));
  if (want.contains("masked")) {
    CHECK(got.value("mask_md5", json()) == want["mask_md5"]);
    CHECK(got.value("n_masked", json()) == want["n_masked"]);
  }
}

}  // namespace

TEST_CASE("info --json: tags and array md5s equal the oracle for every corpus ASDF file",
          "[corpus][cli][tree]") {
  std::ifstream in(corpus_dir() / "oracle.json");
  REQUIRE(in.good());
  const json oracle = json::parse(in);
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
