// `fitsasdf convert` of FITS images (generated cases and the corpus's image files): python asdf
// with asdf-astropy opens every output with validation on and no warning, and the HDUList it
// builds has astropy's cards and the same data, bit for bit.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

namespace {

struct Case {
  std::string fits;
  std::string asdf;
};

json compare(const std::vector<Case>& cases) {
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "compare_fits_asdf.py").string()};
  for (const auto& c : cases) {
    argv.push_back(c.fits);
    argv.push_back(c.asdf);
  }
  const RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

void check_case(const Case& c, const json& rec) {
  INFO(c.fits << "\n" << rec.dump().substr(0, 1500));
  // An extension without data is a zero-size array, since asdf-astropy 0.3 cannot build an HDU
  // from null data: files with one read like any other.
  REQUIRE(rec["ok"].get<bool>());
  // Two warnings come from the reference tools themselves and are the only ones allowed:
  // python asdf 2.14 warns about integer literals beyond int64 (BZERO = 2**63 of uint64 images:
  // "Invalid integer literal value 9223372036854775808 ... read safely") and reads them exactly;
  // astropy warns when it parses its own VOUnit output for units VOUnit deprecates (erg,
  // Angstrom, ...: "The unit 'erg' has been deprecated in the VOUnit standard").
  for (const auto& w : rec["warnings"]) {
    const std::string text = w.get<std::string>();
    INFO("warning: " << text);
    CHECK((text.starts_with("AsdfWarning: Invalid integer literal value 9223372036854775808 ") ||
           (text.starts_with("UnitsWarning: The unit '") &&
            text.find("' has been deprecated in the VOUnit standard") != std::string::npos)));
  }
  CHECK(rec["n_hdus_equal"].get<bool>());
  for (const auto& h : rec["hdus"]) {
    CHECK(h["cards_equal"].get<bool>());
    CHECK(h["hdul_cards_equal"].get<bool>());
    CHECK(h["data_equal"].get<bool>());
  }
}

RunResult run_convert(const std::string& fits, const std::string& asdf) {
  return run({cli_path().string(), "convert", fits, "-o", asdf, "--no-fsync", "-q"});
}

Case convert(const std::string& fits, const fs::path& out_dir) {
  const std::string asdf = (out_dir / (fs::path(fits).filename().string() + ".asdf")).string();
  const RunResult r = run_convert(fits, asdf);
  INFO(fits << ": " << r.err);
  REQUIRE(r.status == 0);
  return {fits, asdf};
}

}  // namespace

TEST_CASE("generated FITS images convert and read back equal through asdf-astropy",
          "[interop][fits]") {
  TempDir dir;
  const RunResult gen = run({reference_python(), (scripts_dir() / "make_fits_cases.py").string(),
                             dir.path().string()});
  INFO(gen.err);
  REQUIRE(gen.status == 0);
  std::vector<Case> cases;
  std::istringstream names(gen.out);
  for (std::string name; std::getline(names, name);) {
    cases.push_back(convert((dir / name).string(), dir.path()));
  }
  REQUIRE(cases.size() >= 40);
  const json result = compare(cases);
  for (const auto& c : cases) check_case(c, result[c.asdf]);
}

TEST_CASE("the corpus's image FITS files convert and read back equal", "[interop][fits][corpus]") {
  std::ifstream in(corpus_dir() / "oracle.json");
  REQUIRE(in.good());
  const json oracle = json::parse(in);
  TempDir dir;
  std::vector<Case> cases;
  for (const auto& [rel, rec] : oracle["files"].items()) {
    if (rec.value("format", "") != "fits" || !rec.contains("hdus") || rec["hdus"].empty()) continue;
    if (!fs::exists(corpus_dir() / rel)) continue;
    bool images = rec["astropy_open"].value("ok", false);
    for (const auto& h : rec["hdus"]) {
      const std::string type = h.value("type", "");
      images = images && (type == "PrimaryHDU" || type == "ImageHDU") &&
               !h.value("truncated", false) && !h.contains("data_error");
    }
    if (!images) continue;
    const std::string fits = (corpus_dir() / rel).string();
    const std::string asdf = (dir / (fs::path(rel).filename().string() + ".asdf")).string();
    // Every one converts, verify.fits (NAXIS before BITPIX, which CFITSIO refuses) included.
    const RunResult r = run_convert(fits, asdf);
    INFO(rel << ": " << r.err);
    REQUIRE(r.status == 0);
    cases.push_back(Case{fits, asdf});
  }
  INFO("image files: " << cases.size());
  REQUIRE(cases.size() >= 5);
  const json result = compare(cases);
  for (const auto& c : cases) check_case(c, result[c.asdf]);
}
