// Round trips through the public API: open a file with File, copy its tree with Tree::from,
// add a key, replace one array, write it elsewhere; python asdf 2.14 reads the new key and array,
// and every other node (unknown tags included, compared in python's raw reading of both files)
// equals the original's. Timestamps copied from a file come back to python as datetimes.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_support.h"
#include "asdfcore/asdfcore.h"
#include "support/catch.h"
#include "support/oracle.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using asdfcore::Array;
using asdfcore::File;
using asdfcore::Tree;
using fitsasdf::test::corpus_dir;
using fitsasdf::test::TempDir;
using fitsasdf::test::api::le_md5;
using fitsasdf::test::api::samples;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// python's raw reading (tests/interop/asdf_arrays.py --raw) of `files`.
json raw_reading(const std::vector<fs::path>& files) {
  std::vector<std::string> argv{fitsasdf::test::reference_python(),
                                (fitsasdf::test::scripts_dir() / "asdf_arrays.py").string(),
                                "--raw"};
  for (const auto& f : files) argv.push_back(f.string());
  const fitsasdf::test::RunResult r = fitsasdf::test::run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("Tree::from(file) + a new key + a replaced array, written elsewhere, keeps the rest",
          "[api][python]") {
  TempDir dir;
  struct Source {
    std::string name;      // corpus file
    std::string replaced;  // key of the array replaced
  };
  const std::vector<Source> sources = {
      {"asdf-reference/1.5.0/complex.asdf", "datatype>c8"},
      {"asdf-reference/1.5.0/int.asdf", "datatype<i2"},
      {"asdf-reference/1.5.0/compressed.asdf", "zlib"},
      {"asdf-pyasdf/frames0.asdf", ""},  // unknown (wcs, unit) tags, no arrays
      {"asdf-reference/1.5.0/structured.asdf", ""},
  };
  const auto new_values = samples<float>(6, 3);
  std::vector<fs::path> files;
  for (const Source& s : sources) {
    INFO(s.name);
    const fs::path in = corpus_dir() / s.name;
    const fs::path out = dir / (fs::path(s.name).filename().string());
    {
      const File file = File::open(in.string());
      Tree tree = Tree::from(file);
      tree["added"]["note"] = "from the api test";
      tree["added"]["n"] = 3;
      if (!s.replaced.empty()) {
        REQUIRE(tree.contains(s.replaced));
        tree[s.replaced] = Array::copy(std::span<const float>(new_values), {2, 3});
      }
      asdfcore::write(out.string(), tree);
    }
    files.push_back(in);
    files.push_back(out);
  }
  const json raw = raw_reading(files);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const Source& s = sources[i];
    const json& before = raw.at(files[2 * i].string());
    const json& after = raw.at(files[2 * i + 1].string());
    INFO(s.name << "\nbefore: " << before.dump().substr(0, 1500)
                << "\nafter: " << after.dump().substr(0, 1500));
    CHECK_FALSE(after.contains("error"));
    if (after.contains("error")) continue;
    // Every array but the replaced one is as it was; the replaced one holds the new values.
    for (const auto& [path, want] : before["arrays"].items()) {
      INFO(path);
      if (path == "/" + s.replaced) continue;
      REQUIRE(after["arrays"].contains(path));
      CHECK(after["arrays"][path]["md5"] == want["md5"]);
      CHECK(after["arrays"][path]["shape"] == want["shape"]);
    }
    if (!s.replaced.empty()) {
      const json& got = after["arrays"]["/" + s.replaced];
      CHECK(got["md5"] == le_md5(new_values));
      CHECK(got["shape"] == json{2, 3});
      CHECK(got["dtype"] == "<f4");
    }
    CHECK(after["arrays"].size() == before["arrays"].size());
    // Every tag below the root, but the writer's own ones (asdf_library, history), is kept.
    json tags_before =
        fitsasdf::test::tags_without(before["tags"], {"", "/asdf_library", "/history"});
    json tags_after =
        fitsasdf::test::tags_without(after["tags"], {"", "/asdf_library", "/history"});
    tags_before.erase("");
    tags_after.erase("");
    CHECK(tags_after == tags_before);
    for (const auto& [path, value] : before["ints"].items()) {
      if (path.rfind("/asdf_library", 0) == 0 || path.rfind("/history", 0) == 0) continue;
      INFO(path);
      CHECK(after["ints"].value(path, json()) == value);
    }
    CHECK(after["ints"]["/added/n"] == "3");
  }

  // The user's view (api_check.py): the new key reads back; the rest of frames0's tree equals
  // the original (python keeps the unknown tags raw).
  const json user = fitsasdf::test::api::python_read(
      {corpus_dir() / "asdf-pyasdf/frames0.asdf", dir / "frames0.asdf"},
      {"tag:stsci.edu:asdf/wcs/", "tag:stsci.edu:asdf/unit/", "tag:stsci.edu:asdf/core/"});
  const json& b = user.at((corpus_dir() / "asdf-pyasdf/frames0.asdf").string());
  const json& a = user.at((dir / "frames0.asdf").string());
  INFO(b.dump().substr(0, 1000) << "\n" << a.dump().substr(0, 1000));
  REQUIRE_FALSE(a.contains("error"));
  CHECK(a["tree"]["added"] == json{{"note", "from the api test"}, {"n", 3}});
  if (!b.contains("error")) CHECK(a["tree"]["frames"] == b["tree"]["frames"]);
}

TEST_CASE("timestamps copied from a file through Tree::from reach python as datetimes",
          "[api][python]") {
  TempDir dir;
  const std::string text = R"(#ASDF 1.0.0
#ASDF_STANDARD 1.5.0
%YAML 1.1
%TAG ! tag:stsci.edu:asdf/
--- !core/asdf-1.1.0
when: 2024-03-01T12:30:00.5Z
day: 2002-12-14
text: "2024-03-01"
...
)";
  const File in = File::open_memory(std::vector<std::uint8_t>(text.begin(), text.end()), "ts.asdf");
  CHECK(in["when"].kind() == asdfcore::tree::NodeKind::kTimestamp);
  CHECK(in["text"].kind() == asdfcore::tree::NodeKind::kString);
  Tree tree = Tree::from(in);
  tree["copy_of_when"] = Tree::from(in["when"]);
  const fs::path out = dir / "ts.asdf";
  asdfcore::write(out.string(), tree);
  const File back = File::open(out.string());
  CHECK(back.get<asdfcore::Timestamp>("/when").time == in.get<asdfcore::Timestamp>("/when").time);
  const json all = fitsasdf::test::api::python_read({out});
  const json& rec = fitsasdf::test::api::python_record(all, out);
  INFO(rec.dump());
  CHECK(rec["tree"]["when"] == json{{"$datetime", "2024-03-01T12:30:00.500000+00:00"}});
  CHECK(rec["tree"]["copy_of_when"] == rec["tree"]["when"]);
  CHECK(rec["tree"]["day"] == json{{"$datetime", "2002-12-14"}});
  CHECK(rec["tree"]["text"] == "2024-03-01");
}

TEST_CASE("Tree::set_node puts lower-level nodes in a tree, with arrays from array_node inside",
          "[api]") {
  namespace tree = asdfcore::tree;
  Tree t;
  const std::vector<std::int32_t> values{1, 2, 3, 4};
  // A mapping with a key that is not a string, a timestamp, binary and an integer past 64 bits:
  // kinds the assignments do not make.
  const tree::NodePtr node = tree::Node::make_mapping();
  node->entries().emplace_back(tree::Node::make_int(7), tree::Node::make_string("seven"));
  node->entries().emplace_back(tree::Node::make_string("when"),
                               tree::Node::make_timestamp("2024-03-01T12:30:00Z"));
  node->entries().emplace_back(tree::Node::make_string("raw"),
                               tree::Node::make_binary({0x00, 0xff}));
  node->entries().emplace_back(tree::Node::make_string("big"),
                               tree::Node::make_integer_text("123456789012345678901234567890"));
  node->entries().emplace_back(
      tree::Node::make_string("data"),
      t.array_node(Array::view(std::span<const std::int32_t>(values), {2, 2})));
  t["meta"].set_node(node);
  CHECK_THROWS_AS(t["x"].set_node(nullptr), asdfcore::Error);

  const File back = File::open_memory(asdfcore::write_to_memory(t));
  const tree::NodePtr meta = back.at("/meta").node();
  REQUIRE(meta->entries().size() == 5);
  CHECK(meta->entries()[0].first->as_int() == 7);
  CHECK(meta->entries()[0].second->as_string() == "seven");
  CHECK(back.get<asdfcore::Timestamp>("/meta/when").text == "2024-03-01T12:30:00Z");
  CHECK(back.at("/meta/raw").node()->as_binary() == std::vector<std::uint8_t>{0x00, 0xff});
  // Written as python asdf writes such integers: core/integer.
  CHECK(back.at("/meta/big").tag().find("core/integer-") != std::string::npos);
  CHECK(back.get<std::string>("/meta/big/string") == "123456789012345678901234567890");
  CHECK(back.array<std::int32_t>("/meta/data").to_vector() == values);
}
