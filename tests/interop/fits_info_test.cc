// `fitsasdf info` of FITS files against astropy 5.2 on every FITS file of the corpus and of
// tests/data, the generated image, table and fidelity cases, and fits_info.py's extra cases
// (tile-compressed images of several kinds, fpack's compressed primary, unsigned and scaled
// images, an ASDF extension, long cards), plain and gzip/bzip2-compressed: every column of
// `HDUList.info()` equals our --json field by field, and `fitsheader`'s output equals ours line
// for line (so every card image, the decompressed image headers included).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
using namespace fitsasdf::test;
namespace fs = std::filesystem;

namespace {

bool is_fits_name(const fs::path& p) {
  const std::string n = p.filename().string();
  for (const char* suffix : {".fits", ".fits.gz", ".fits.bz2", ".fz", ".fit", ".fts"}) {
    if (n.ends_with(suffix)) return true;
  }
  return false;
}

void collect(const fs::path& folder, std::vector<std::string>& out) {
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    if (e.is_regular_file() && is_fits_name(e.path())) out.push_back(e.path().string());
  }
}

std::vector<std::string> lines_of(const RunResult& r) {
  REQUIRE(r.status == 0);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void make_cases(const std::string& script, const fs::path& folder) {
  fs::create_directories(folder);
  const RunResult r = run({reference_python(), (scripts_dir() / script).string(), folder.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

}  // namespace

TEST_CASE("info and info --header agree with astropy's info() and fitsheader",
          "[interop][fits-info]") {
  TempDir dir;
  std::vector<std::string> files;
  collect(corpus_dir(), files);
  collect(data_dir(), files);
  const std::size_t shared = files.size();
  CHECK(shared >= 29);
  make_cases("make_fits_cases.py", dir / "images");
  make_cases("make_fidelity_cases.py", dir / "fidelity");
  make_cases("make_table_cases.py", dir / "tables");
  {
    const RunResult r = run({reference_python(), (scripts_dir() / "fits_info.py").string(), "make",
                             (dir / "extra").string()});
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  collect(dir.path(), files);
  // Compressed containers astropy reads too.
  for (const char* name : {"o4sp040b0_raw.fits", "double_ext.fits"}) {
    const std::string plain = (corpus_dir() / "fits-astropy" / name).string();
    for (const auto& [tool, suffix] : {std::pair{"gzip", ".gz"}, std::pair{"bzip2", ".bz2"}}) {
      const RunResult packed = run({tool, "-c", plain});
      REQUIRE(packed.status == 0);
      const fs::path path = dir / (std::string(name) + suffix);
      std::ofstream(path, std::ios::binary) << packed.out;
      files.push_back(path.string());
    }
  }
  REQUIRE(files.size() > shared + 80);

  std::vector<std::string> argv{reference_python(), (scripts_dir() / "fits_info.py").string(),
                                "describe"};
  argv.insert(argv.end(), files.begin(), files.end());
  const RunResult reference = run(argv);
  INFO(reference.err);
  REQUIRE(reference.status == 0);
  const json astropy = json::parse(reference.out);

  std::size_t hdus = 0;
  for (const auto& file : files) {
    INFO(file);
    const json& expected = astropy.at(file);
    const RunResult r = run_cli({"info", "--json", file});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json ours = json::parse(r.out)["hdus"];
    REQUIRE(ours.size() == expected["info"].size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
      const json& a = expected["info"][i];
      const json& o = ours[i];
      INFO("HDU " << i << ": astropy " << a.dump() << "\nours " << o.dump());
      CHECK(o["index"] == a[0]);
      CHECK(o["name"] == a[1]);
      CHECK(o["ver"] == a[2]);
      CHECK(o["type"] == a[3]);
      CHECK(o["cards"] == a[4]);
      CHECK(o["dimensions"] == a[5]);
      CHECK(o["format"] == a[6]);
      CHECK(o["extra"] == a[7]);
      ++hdus;
    }
    // fitsheader's output, line for line.
    const auto theirs = [&] {
      std::vector<std::string> out;
      std::istringstream in(expected["header"].get<std::string>());
      for (std::string line; std::getline(in, line);) out.push_back(line);
      return out;
    }();
    const auto mine = lines_of(run_cli({"info", "--header", file}));
    CHECK(mine.size() == theirs.size());
    for (std::size_t i = 0; i < std::min(mine.size(), theirs.size()); ++i) {
      INFO("line " << i);
      CHECK(mine[i] == theirs[i]);
      if (mine[i] != theirs[i]) break;
    }
  }
  CHECK(hdus > 150);
}
