// `fitsasdf to-yaml | defragment | explode | implode` and `info` on corpus files: exit statuses,
// no output left after a failure, and outputs that python asdf reads with the oracle's array md5s.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Md5s = std::map<std::string, std::string>;  // JSON pointer -> md5

const json& oracle() {
  static const json o = [] {
    std::ifstream in(corpus_dir() / "oracle.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return o;
}

std::string reference_file(const std::string& name) {
  return (corpus_dir() / "asdf-reference" / "1.6.0" / name).string();
}

/// The oracle's raw array md5s of asdf-reference/1.6.0/`name`.
Md5s oracle_md5s(const std::string& name) {
  Md5s out;
  for (const json& a : oracle()["files"].at("asdf-reference/1.6.0/" + name)["raw"]["arrays"]) {
    out[a["path"].get<std::string>()] = a["md5"].get<std::string>();
  }
  return out;
}

/// The array md5s python asdf reads from each of `files` (one interpreter for all of them).
std::map<std::string, Md5s> python_md5s(const std::vector<std::string>& files) {
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "asdf_arrays.py").string(),
                                "--raw"};
  argv.insert(argv.end(), files.begin(), files.end());
  const RunResult r = run(argv);
  INFO("python: " << r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  std::map<std::string, Md5s> out;
  for (const auto& file : files) {
    INFO("python on " << file << ": " << report[file].dump());
    REQUIRE(report.contains(file));
    CHECK_FALSE(report[file].contains("error"));
    Md5s& md5s = out[file];
    for (const auto& [path, summary] : report[file]["arrays"].items()) {
      md5s[path] = summary["md5"].get<std::string>();
    }
  }
  return out;
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

}  // namespace

TEST_CASE("to-yaml inlines every array: python reads the oracle's md5s", "[cli]") {
  TempDir dir;
  const std::vector<std::string> names{"basic.asdf",       "complex.asdf", "structured.asdf",
                                       "int.asdf",         "endian.asdf",  "ascii.asdf",
                                       "unicode_bmp.asdf", "shared.asdf",  "stream.asdf",
                                       "compressed.asdf",  "exploded.asdf"};
  std::vector<std::string> outputs;
  for (const auto& name : names) {
    const std::string out = (dir / ("inline_" + name)).string();
    const RunResult r = run_cli({"to-yaml", reference_file(name), "-o", out});
    INFO(name << ": " << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    // No blocks: the file is text up to the end of the tree.
    std::ifstream in(out, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(bytes.find("\xd3"
                     "BLK") == std::string::npos);
    CHECK(bytes.ends_with("...\n"));
    outputs.push_back(out);
  }
  const auto got = python_md5s(outputs);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(got.at(outputs[i]) == oracle_md5s(names[i]));
  }

  // float.asdf holds a positive NaN. YAML's `.nan` has no sign and PyYAML reads it as the
  // negative NaN of -inf/inf, so no inline form can keep those bits: python and we must at
  // least read the inlined file alike.
  const std::string floats = (dir / "inline_float.asdf").string();
  REQUIRE(run_cli({"to-yaml", reference_file("float.asdf"), "-o", floats}).status == 0);
  const RunResult info = run_cli({"info", "--json", floats});
  REQUIRE(info.status == 0);
  const json ours = json::parse(info.out);
  Md5s our_md5s;
  for (const json& a : ours["arrays"]) our_md5s[a["path"]] = a["md5"];
  CHECK(our_md5s.size() == 4);
  CHECK(python_md5s({floats}).at(floats) == our_md5s);
}

TEST_CASE("defragment with each --compress choice: python reads the oracle's md5s", "[cli]") {
  TempDir dir;
  std::vector<std::pair<std::string, std::string>> cases;  // (input name, output path)
  for (const std::string name :
       {"compressed.asdf", "stream.asdf", "shared.asdf", "exploded.asdf"}) {
    for (const std::string codec : {"zlib", "bzp2", "lz4", "none", "input"}) {
      const std::string out = (dir / (codec + "_" + name)).string();
      const RunResult r =
          run_cli({"defragment", reference_file(name), "-o", out, "--compress", codec});
      INFO(name << " --compress " << codec << ": " << r.err);
      REQUIRE(r.status == 0);
      cases.emplace_back(name, out);
    }
  }
  // Without --compress the input's compression is kept.
  const std::string kept = (dir / "default_compressed.asdf").string();
  REQUIRE(run_cli({"defragment", reference_file("compressed.asdf"), "-o", kept}).status == 0);
  cases.emplace_back("compressed.asdf", kept);

  std::vector<std::string> outputs;
  for (const auto& c : cases) outputs.push_back(c.second);
  const auto got = python_md5s(outputs);
  for (const auto& [name, out] : cases) {
    INFO(out);
    CHECK(got.at(out) == oracle_md5s(name));
  }

  // The blocks carry the codec asked for.
  auto codecs = [](const std::string& file) {
    const RunResult r = run_cli({"info", "--blocks", "--json", file});
    REQUIRE(r.status == 0);
    const json info = json::parse(r.out);
    std::vector<json> labels;
    for (const json& b : info["blocks"]) labels.push_back(b["compression"]);
    return labels;
  };
  CHECK(codecs((dir / "lz4_compressed.asdf").string()) == std::vector<json>{"lz4", "lz4"});
  CHECK(codecs((dir / "none_compressed.asdf").string()) == std::vector<json>{nullptr, nullptr});
  CHECK(codecs((dir / "input_compressed.asdf").string()) == std::vector<json>{"zlib", "bzp2"});
  CHECK(codecs(kept) == std::vector<json>{"zlib", "bzp2"});
}

TEST_CASE("explode and implode: python reads the oracle's md5s from both", "[cli]") {
  TempDir dir;
  const RunResult r =
      run_cli({"explode", reference_file("compressed.asdf"), "-o", (dir / "split.asdf").string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // It lists what it wrote, the tree file first.
  CHECK(r.out == (dir / "split.asdf").string() + "\n" + (dir / "split0000.asdf").string() + "\n" +
                     (dir / "split0001.asdf").string() + "\n");
  CHECK(listing(dir.path()) ==
        std::set<std::string>{"split.asdf", "split0000.asdf", "split0001.asdf"});

  const std::string joined = (dir / "joined.asdf").string();
  REQUIRE(run_cli({"implode", (dir / "split.asdf").string(), "-o", joined}).status == 0);
  const std::string joined_corpus = (dir / "joined_corpus.asdf").string();
  REQUIRE(run_cli({"implode", reference_file("exploded.asdf"), "-o", joined_corpus, "--compress",
                   "zlib"})
              .status == 0);

  const std::string split = (dir / "split.asdf").string();
  const auto got = python_md5s({split, joined, joined_corpus});
  CHECK(got.at(split) == oracle_md5s("compressed.asdf"));
  CHECK(got.at(joined) == oracle_md5s("compressed.asdf"));
  CHECK(got.at(joined_corpus) == oracle_md5s("exploded.asdf"));
}

TEST_CASE("rewrite commands: usage, missing input and non-ASDF input", "[cli]") {
  TempDir dir;
  const std::string out = (dir / "out.asdf").string();

  // An unknown codec is a usage error, and nothing is written.
  RunResult r =
      run_cli({"defragment", reference_file("basic.asdf"), "-o", out, "--compress", "gzip"});
  CHECK(r.status == 4);
  CHECK(r.err.find("gzip") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  CHECK(run_cli({"implode", reference_file("exploded.asdf"), "-o", out, "--compress", "gzip"})
            .status == 4);
  CHECK(run_cli({"defragment", reference_file("basic.asdf")}).status == 4);  // no -o
  CHECK(run_cli({"to-yaml", "-o", out}).status == 4);                        // no input
  CHECK(
      run_cli({"explode", reference_file("basic.asdf"), "-o", out, "--compress", "zlib"}).status ==
      4);  // explode takes no --compress
  CHECK(listing(dir.path()).empty());

  std::ofstream(dir / "page.html") << "<html><body>Not found</body></html>\n";
  for (const std::string command : {"to-yaml", "defragment", "explode", "implode"}) {
    INFO(command);
    r = run_cli({command, (dir / "missing.asdf").string(), "-o", out});
    CHECK(r.status == 3);
    CHECK(r.err.find("missing.asdf") != std::string::npos);
    CHECK_FALSE(fs::exists(out));

    r = run_cli({command, (dir / "page.html").string(), "-o", out});
    CHECK(r.status == 2);
    CHECK(r.err.find("page.html") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(listing(dir.path()) == std::set<std::string>{"page.html"});
  }
}

TEST_CASE("info shows the tree outline, --json has tags, arrays and warnings", "[cli]") {
  const std::string file = reference_file("basic.asdf");
  RunResult r = run_cli({"info", file});
  INFO(r.err);
  REQUIRE(r.status == 0);
  INFO(r.out);
  CHECK(r.out.find("root (core/asdf-1.1.0)") != std::string::npos);
  CHECK(r.out.find("asdf_library (core/software-1.0.0)") != std::string::npos);
  CHECK(r.out.find("data (core/ndarray-1.1.0) shape=[8] dtype=int64 source=block 0") !=
        std::string::npos);
  CHECK(r.out.find("history") != std::string::npos);

  r = run_cli({"info", "--json", file});
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.contains("tags"));
  REQUIRE(j.contains("arrays"));
  REQUIRE(j.contains("warnings"));
  CHECK(j["warnings"].is_array());
  CHECK(j["warnings"].empty());
  const json& oracle_raw = oracle()["files"]["asdf-reference/1.6.0/basic.asdf"]["raw"];
  CHECK(j["tags"] == oracle_raw["tags"]);
  REQUIRE(j["arrays"].size() == 1);
  CHECK(j["arrays"][0]["path"] == "/data");
  CHECK(j["arrays"][0]["md5"] == oracle_raw["arrays"][0]["md5"]);
  CHECK(j["arrays"][0]["shape"] == json::array({8}));

  // A tag version this library does not know shows up under "warnings".
  TempDir dir;
  std::ofstream(dir / "future.asdf") << "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n%YAML 1.1\n"
                                        "%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n"
                                        "x: !core/complex-1.5.0 '1+2j'\n...\n";
  r = run_cli({"info", "--json", (dir / "future.asdf").string()});
  REQUIRE(r.status == 0);
  const json w = json::parse(r.out)["warnings"];
  REQUIRE(w.size() == 1);
  CHECK(w[0].get<std::string>().find("complex-1.5.0") != std::string::npos);
}
