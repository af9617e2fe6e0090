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

/// asdf-astropy 0.3 (Debian 12) cannot build an HDUList with an extension that has no data:
/// its FitsConverter reads `data.dtype` of None. We write `data: null` as the fits schema says.
constexpr char kAstropyEmptyExtensionBug[] =
    "AttributeError: 'NoneType' object has no attribute 'dtype'";

struct Case {
  std::string fits;
  std::string asdf;
  bool has_empty_extension = false;
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
  if (c.has_empty_extension) {
    CHECK_FALSE(rec["ok"].get<bool>());
    CHECK(rec.value("error", "") == kAstropyEmptyExtensionBug);
    return;
  }
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
  return {fits, asdf, false};
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
    Case c = convert((dir / name).string(), dir.path());
    c.has_empty_extension = name == "mef_empty_ext.fits";
    cases.push_back(c);
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
  int refused = 0;
  for (const auto& [rel, rec] : oracle["files"].items()) {
    if (rec.value("format", "") != "fits" || !rec.contains("hdus") || rec["hdus"].empty()) continue;
    if (!fs::exists(corpus_dir() / rel)) continue;
    bool images = rec["astropy_open"].value("ok", false);
    bool empty_extension = false;
    for (const auto& h : rec["hdus"]) {
      const std::string type = h.value("type", "");
      images = images && (type == "PrimaryHDU" || type == "ImageHDU") &&
               !h.value("truncated", false) && !h.contains("data_error");
      if (type == "ImageHDU" && h.value("raw_data_size", 0) == 0) empty_extension = true;
    }
    if (!images) continue;
    const std::string fits = (corpus_dir() / rel).string();
    const std::string asdf = (dir / (fs::path(rel).filename().string() + ".asdf")).string();
    const RunResult r = run_convert(fits, asdf);
    if (rec["fitsverify"].value("n_errors", 0) > 0 &&
        r.err.find("CFITSIO cannot open the file") != std::string::npos) {
      // A file that breaks the FITS standard so that CFITSIO refuses it (verify.fits: NAXIS
      // before BITPIX) is refused with a clear error, exit status 2, and no output.
      INFO(rel << ": " << r.err);
      CHECK(r.status == 2);
      CHECK_FALSE(fs::exists(asdf));
      ++refused;
      continue;
    }
    INFO(rel << ": " << r.err);
    REQUIRE(r.status == 0);
    Case c{fits, asdf, false};
    c.has_empty_extension = empty_extension;
    cases.push_back(c);
  }
  INFO("image files: " << cases.size() << ", refused by CFITSIO: " << refused);
  CHECK(refused <= 1);
  REQUIRE(cases.size() >= 5);
  const json result = compare(cases);
  for (const auto& c : cases) check_case(c, result[c.asdf]);
}
