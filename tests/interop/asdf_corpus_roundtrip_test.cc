// ASDF -> FITS -> ASDF through the CLI for every ASDF file of the corpus (the ASDF Standard's
// reference files, `.asdf` and their `.yaml` twins, and python asdf's own test files) and for
// edge cases written by python asdf 2.14 (tests/interop/asdf_roundtrip_cases.py):
// `fitsasdf convert X -o X.fits` (fitsverify: no error, no warning), `fitsasdf convert X.fits
// -o back.asdf`, then `fitsasdf info --json back.asdf` has the tags of X at the same JSON
// Pointers (but under /asdf_library and /history, which every save rewrites) and the same
// arrays (path, shape, dtype, md5 little-endian normalised, aliases, masks) as the oracle's
// `raw` record of X (for the edge cases: as `info --json X`, which corpus_tree_test checks
// against the oracle), and `fitsasdf diff X back.asdf` finds no difference in the tree.
// Files that cannot round trip are listed in kNotLossless with the reason and what is
// asserted instead; a file that fails and is not listed fails the test.
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "support/catch.h"
#include "support/oracle.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

namespace {

/// The corpus folders whose ASDF files are round-tripped.
constexpr std::string_view kCorpusFolders[] = {"asdf-reference/", "asdf-pyasdf/"};

/// What happens instead of a lossless round trip.
enum class Outcome {
  kRefused,   ///< `convert X -o X.fits` fails (exit status 2) with `error` on stderr.
  kFitsList,  ///< The tree holds a `fits` list: `convert` writes that FITS file, and back comes
              ///< fitsasdf's own FITS -> ASDF tree. "Same tags" then means: each image of the
              ///< list comes back at /fits/<i>/data with the original's tag and md5; each other
              ///< array of an item (a table's columns) comes back with its md5 and shape (as a
              ///< column of the native table); what lies outside the list is not carried.
};

struct NotLossless {
  std::string_view file;  ///< The corpus path ("asdf-pyasdf/x.asdf") or "edge/<case>".
  Outcome outcome;
  std::string_view reason;
  std::string_view error;  ///< kRefused: the message `convert` must give.
};

// Every ASDF file of asdf-reference/ and asdf-pyasdf/ round trips, so no corpus file is listed
// here. A corpus file that python asdf refuses (the oracle's `raw` record has no `tags`) or
// whose tree holds a `fits` list must be added with its outcome.
constexpr NotLossless kNotLossless[] = {
    {"edge/truncated.asdf", Outcome::kRefused,
     "its only block is cut short; python asdf cannot read the array either "
     "(AsdfConversionWarning: buffer is too small for requested array)",
     "used_size 24 runs past the end of the file (14 bytes remain): the file is truncated"},
    {"edge/fits_list.asdf", Outcome::kFitsList,
     "asdf-astropy's HDUList at /hdul is written as the FITS file it describes; /meta, beside "
     "it, is not part of that FITS file",
     ""},
};

const NotLossless* not_lossless(std::string_view name) {
  for (const NotLossless& n : kNotLossless) {
    if (n.file == name) return &n;
  }
  return nullptr;
}

RunResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_path().string());
  return run(args);
}

json info(const fs::path& file) {
  const RunResult r = cli({"info", "--json", file.string()});
  INFO("info --json " << file << ": " << r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

/// fitsverify -q's verdict: "verification OK: FILE" or "verification FAILED: FILE, N warnings
/// and M errors".
struct Verdict {
  int warnings = -1;
  int errors = -1;
  std::string text;
};

Verdict fitsverify(const fs::path& fits) {
  const RunResult r = run({"fitsverify", "-q", fits.string()});
  Verdict v;
  v.text = r.out + r.err;
  std::smatch m;
  if (v.text.find("verification OK") != std::string::npos) {
    v.warnings = v.errors = 0;
  } else if (std::regex_search(v.text, m, std::regex(R"((\d+) warnings and (\d+) errors)"))) {
    v.warnings = std::stoi(m[1]);
    v.errors = std::stoi(m[2]);
  }
  return v;
}

/// The JSON Pointer of the fits list `convert` writes as FITS ("/fits" first, else the first
/// list with a fits tag), or "" when the tree has none.
std::string fits_list_pointer(const json& tags) {
  auto is_fits = [](const std::string& tag) {
    return tag.starts_with("tag:stsci.edu:asdf/fits/fits-") ||
           tag.starts_with("tag:astropy.org:astropy/fits/fits-");
  };
  if (tags.contains("/fits") && is_fits(tags["/fits"].get<std::string>())) return "/fits";
  for (const auto& [pointer, tag] : tags.items()) {
    if (is_fits(tag.get<std::string>())) return pointer;
  }
  return "";
}

/// Check a fits-list file's round trip (Outcome::kFitsList).
void compare_fits_list(const std::string& list, const json& want_tags, const json& want_arrays,
                       const json& got, int& arrays) {
  REQUIRE(got["tags"].contains("/fits"));
  CHECK(fits_list_pointer(got["tags"]) == "/fits");
  for (const json& want : want_arrays) {
    const std::string path = want["path"];
    if (!path.starts_with(list + "/")) continue;
    const std::string rest = path.substr(list.size() + 1);
    const std::string item = rest.substr(0, rest.find('/'));
    const bool image = rest == item + "/data";
    INFO("array " << path << (image ? " (an image)" : " (a table column)"));
    const json* match = nullptr;
    for (const json& g : got["arrays"]) {
      if (image ? g["path"] == "/fits/" + item + "/data"
                : g["md5"] == want["md5"] && g["shape"] == want["shape"]) {
        match = &g;
        break;
      }
    }
    REQUIRE(match != nullptr);
    CHECK((*match)["md5"] == want["md5"]);
    CHECK((*match)["shape"] == want["shape"]);
    if (image) CHECK(got["tags"].value("/fits/" + item + "/data", "") == want_tags[path]);
    ++arrays;
  }
}

/// Convert `input` (named `name` in reports and in kNotLossless) to FITS and back in `dir`, and
/// compare the result with `want_tags` and `want_arrays`. Returns the number of arrays checked.
int round_trip(const fs::path& input, const std::string& name, const json& want_tags,
               const json& want_arrays, const fs::path& dir) {
  const NotLossless* listed = not_lossless(name);
  INFO("in kNotLossless: " << (listed ? listed->reason : std::string_view("no")));
  const fs::path fits = dir / "out.fits";
  const fs::path back = dir / "back.asdf";
  const RunResult to_fits = cli({"convert", input.string(), "-o", fits.string(), "-q"});
  INFO("convert " << input.string() << " -o " << fits.string() << ": " << to_fits.err);
  if (listed && listed->outcome == Outcome::kRefused) {
    CHECK(to_fits.status == 2);
    CHECK(to_fits.err.find(listed->error) != std::string::npos);
    CHECK_FALSE(fs::exists(fits));
    return 0;
  }
  REQUIRE(to_fits.status == 0);
  const Verdict verdict = fitsverify(fits);
  INFO("fitsverify -q: " << verdict.text);
  CHECK(verdict.errors == 0);
  CHECK(verdict.warnings == 0);

  const RunResult to_asdf = cli({"convert", fits.string(), "-o", back.string(), "-q"});
  INFO("convert " << fits.string() << " -o " << back.string() << ": " << to_asdf.err);
  REQUIRE(to_asdf.status == 0);
  const json got = info(back);
  int arrays = 0;

  const std::string list = fits_list_pointer(want_tags);
  if (!list.empty() || (listed && listed->outcome == Outcome::kFitsList)) {
    INFO("the tree holds a fits list at '" << list << "': such files belong in kNotLossless");
    REQUIRE(listed != nullptr);
    REQUIRE(listed->outcome == Outcome::kFitsList);
    REQUIRE_FALSE(list.empty());
    compare_fits_list(list, want_tags, want_arrays, got, arrays);
    return arrays;
  }
  REQUIRE(listed == nullptr);  // a listed file that round trips: take it off the list

  CHECK(tags_without(got["tags"], {"/asdf_library", "/history"}) ==
        tags_without(want_tags, {"/asdf_library", "/history"}));
  REQUIRE(got["arrays"].size() == want_arrays.size());
  for (std::size_t i = 0; i < want_arrays.size(); ++i) {
    compare_array(want_arrays[i], got["arrays"][i], name + " array " + std::to_string(i),
                  ArrayChecks{.source = false});
    ++arrays;
  }
  // The whole tree, values and arrays alike (asdftool diff's rules).
  const RunResult diff = cli(
      {"diff", input.string(), back.string(), "--ignore", "/asdf_library,/history", "-n", "20"});
  INFO("diff:\n" << diff.out << diff.err);
  CHECK(diff.status == 0);
  return arrays;
}

/// The edge cases, written once for the whole run (the test cases run once per section).
struct EdgeCases {
  TempDir dir;
  json cases;  ///< {file name: what it holds}
  EdgeCases() {
    const std::vector<std::string> argv{reference_python(),
                                        (scripts_dir() / "asdf_roundtrip_cases.py").string(),
                                        "make", dir.path().string()};
    const RunResult r = run(argv);
    if (r.status != 0) throw std::runtime_error(join(argv) + " failed: " + r.err);
    cases = json::parse(r.out);
  }
};

const EdgeCases& edge_cases() {
  static const EdgeCases cases;
  return cases;
}

}  // namespace

TEST_CASE("ASDF -> FITS -> ASDF keeps the oracle's tags and array md5s for every corpus file",
          "[interop][asdf_roundtrip]") {
  static const json oracle = load_corpus_oracle();
  int files = 0;
  for (const auto& [rel, rec] : oracle["files"].items()) {
    const bool in_folder = std::any_of(std::begin(kCorpusFolders), std::end(kCorpusFolders),
                                       [&](std::string_view f) { return rel.starts_with(f); });
    if (!in_folder || rec.value("format", "") != "asdf" || !rec.contains("raw")) continue;
    ++files;
    DYNAMIC_SECTION(rel) {
      const fs::path path = corpus_dir() / rel;
      REQUIRE(fs::exists(path));
      const json& raw = rec["raw"];
      const NotLossless* listed = not_lossless(rel);
      if (!raw.contains("tags")) {
        INFO("python asdf cannot read " << rel << ": list it in kNotLossless with our error");
        REQUIRE(listed != nullptr);
        REQUIRE(listed->outcome == Outcome::kRefused);
      }
      TempDir dir;
      round_trip(path, rel, raw.value("tags", json::object()), raw.value("arrays", json::array()),
                 dir.path());
    }
  }
  // 112 .asdf and 105 .yaml files of the ASDF Standard, 6 of python asdf.
  CHECK(files >= 223);
}

TEST_CASE("ASDF -> FITS -> ASDF keeps tags, arrays, aliases and masks of the edge cases",
          "[interop][asdf_roundtrip]") {
  const EdgeCases& edge = edge_cases();
  REQUIRE(edge.cases.size() >= 19);
  for (const auto& [file, what] : edge.cases.items()) {
    DYNAMIC_SECTION(file << ": " << what.get<std::string>()) {
      const fs::path path = edge.dir / file;
      const std::string name = "edge/" + file;
      const NotLossless* listed = not_lossless(name);
      TempDir dir;
      if (listed && listed->outcome == Outcome::kRefused) {
        round_trip(path, name, json::object(), json::array(), dir.path());
      } else {
        const json want = info(path);
        const int arrays = round_trip(path, name, want["tags"], want["arrays"], dir.path());
        CHECK(arrays > 0);
      }
    }
  }
}

TEST_CASE("python asdf reads each edge case's tree and arrays from our FITS file",
          "[interop][asdf_roundtrip]") {
  const EdgeCases& edge = edge_cases();
  TempDir dir;
  std::vector<std::string> argv{reference_python(),
                                (scripts_dir() / "asdf_roundtrip_cases.py").string(), "check"};
  int n = 0;
  for (const auto& [file, what] : edge.cases.items()) {
    if (not_lossless("edge/" + file)) continue;  // refused, or a fits list (to_fits's tests)
    const fs::path fits = dir / ("case" + std::to_string(n++) + ".fits");
    const RunResult r = cli({"convert", (edge.dir / file).string(), "-o", fits.string(), "-q"});
    INFO(file << ": " << r.err);
    REQUIRE(r.status == 0);
    argv.push_back((edge.dir / file).string());
    argv.push_back(fits.string());
  }
  const RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json results = json::parse(r.out);
  REQUIRE(results.size() == static_cast<std::size_t>(n));
  for (const auto& [file, rec] : results.items()) {
    INFO(file << ": " << rec.dump());
    CHECK(rec["ok"].get<bool>());
  }
}
