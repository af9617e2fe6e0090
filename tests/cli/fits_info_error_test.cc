// `fitsasdf info` of FITS files that are damaged or asked the wrong thing: one line on stderr,
// the documented exit status (cli/exit_codes.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
namespace fs = std::filesystem;

namespace {

std::string corpus_file(const char* name) {
  return (corpus_dir() / "fits-astropy" / name).string();
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("info of a truncated FITS file is one error line, exit 2", "[cli][fits-info][error]") {
  TempDir dir;
  std::ifstream in(corpus_file("test0.fits"), std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  SECTION("cut inside the data of the last HDU") { bytes.resize(bytes.size() - 4000); }
  SECTION("cut inside the header of the second HDU") { bytes.resize(2880 * 4 + 100); }
  const fs::path cut = dir / "cut.fits";
  std::ofstream(cut, std::ios::binary) << bytes;
  const RunResult r = run_cli({"info", cut.string()});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK(r.err.starts_with("fitsasdf: error [truncated]: "));
  CHECK(r.err.find(cut.string()) != std::string::npos);
  CHECK(r.err.find("HDU") != std::string::npos);
}

TEST_CASE("info --header of an HDU the file does not have", "[cli][fits-info][error]") {
  const std::string file = corpus_file("test0.fits");
  SECTION("a number out of range") {
    const RunResult r = run_cli({"info", "--header=5", file});
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("there is no HDU 5: the file has 5 HDUs, numbered from 0 to 4") !=
          std::string::npos);
  }
  SECTION("an EXTNAME not found") {
    const RunResult r = run_cli({"info", "--header=ERR", file});
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("no HDU is named 'ERR'") != std::string::npos);
  }
  SECTION("an EXTVER not found") {
    const RunResult r = run_cli({"info", "--json", "--header=SCI,9", file});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("no HDU is named 'SCI,9' (EXTNAME,EXTVER)") != std::string::npos);
  }
}

TEST_CASE("info of a FITS file refuses the ASDF options", "[cli][fits-info][error]") {
  const std::string file = corpus_file("test0.fits");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"info", "--blocks", file},
        std::vector<std::string>{"info", "--json", "--blocks", file},
        std::vector<std::string>{"info", "--max-lines", "5", file},
        std::vector<std::string>{"info", "--compressed", file}}) {
    const RunResult r = run_cli(args);
    INFO(join(args));
    CHECK(r.status == 4);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
  }
  const RunResult r = run_cli({"info", "--blocks", file});
  CHECK(r.err.find("--blocks applies to ASDF files, and " + file + " is a FITS file") !=
        std::string::npos);
}
