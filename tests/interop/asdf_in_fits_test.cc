// `fitsasdf extract` of FITS files carrying an ASDF extension written by python asdf 2.14's
// AsdfInFits (the one-row BINTABLE form and the older uint8 IMAGE form): python asdf reads our
// stand-alone ASDF file with the same tree and the same array values it reads through AsdfInFits.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
using namespace fitsasdf::test;

namespace {

json python(const std::vector<std::string>& args) {
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "asdf_in_fits.py").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run(argv);
  INFO(join(argv) << "\n" << r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("extract: python asdf reads the embedded tree and arrays from our file",
          "[interop][asdf_in_fits]") {
  TempDir dir;
  const json names = python({"make", dir.path().string()});
  REQUIRE(names.size() == 3);
  for (const std::string form : {"embedded_table", "embedded_image"}) {
    for (const std::string compress : {"none", "zlib"}) {
      DYNAMIC_SECTION(form << " --compress " << compress) {
        const auto in = (dir / (form + ".fits")).string();
        const auto out = (dir / (form + "_" + compress + ".asdf")).string();
        const RunResult r = run({cli_path().string(), "extract", in, "-o", out, "--compress",
                                 compress});
        INFO(r.err);
        REQUIRE(r.status == 0);
        // The SCI, ERR, DQ, U16 and SCALED HDUs are pulled in; the report names each source.
        CHECK(r.out.find("5 arrays from HDUs") != std::string::npos);
        CHECK(r.out.find("fits:U16,2") != std::string::npos);
        const json rec = python(compress == "none"
                                    ? std::vector<std::string>{"check", in, out}
                                    : std::vector<std::string>{"check", in, out, "--no-checksums"});
        INFO(rec.dump());
        CHECK(rec["ok"].get<bool>());
        CHECK(rec["arrays"].get<int>() == 7);
      }
    }
  }
}

TEST_CASE("convert of a FITS file with an ASDF extension gives its tree, --fits-list its HDUs",
          "[interop][asdf_in_fits]") {
  TempDir dir;
  python({"make", dir.path().string()});
  const auto in = (dir / "embedded_table.fits").string();
  const auto tree = (dir / "tree.asdf").string();
  RunResult r = run({cli_path().string(), "convert", in, "-o", tree, "-q"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json rec = python({"check", in, tree});
  INFO(rec.dump());
  CHECK(rec["ok"].get<bool>());
  CHECK(rec["arrays"].get<int>() == 7);

  const auto list = (dir / "list.asdf").string();
  r = run({cli_path().string(), "convert", in, "-o", list, "--fits-list", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["hdus"].size() == 7);  // primary, 5 images, the ASDF table
  CHECK(report["hdus"][6]["name"] == "ASDF");
}

TEST_CASE("extract: a source naming no HDU, and a file without an ASDF extension, are errors",
          "[interop][asdf_in_fits]") {
  TempDir dir;
  python({"make", dir.path().string()});
  const auto out = (dir / "out.asdf").string();
  RunResult r = run({cli_path().string(), "extract", (dir / "dangling.fits").string(), "-o", out});
  CHECK(r.status == 2);
  CHECK(r.err.find("the array source 'fits:XYZ,1' names no HDU of the file") != std::string::npos);
  CHECK(r.err.find("tree path /data") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));

  r = run({cli_path().string(), "extract", (samples_dir() / "test0.fits").string(), "-o", out});
  CHECK(r.status == 2);
  CHECK(r.err.find("has no ASDF extension") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("convert ASDF without a fits list to FITS: images, tables, cards and the ASDF extension",
          "[interop][asdf_in_fits]") {
  TempDir dir;
  python({"make-plain", dir.path().string()});
  const auto in = (dir / "plain.asdf").string();
  const auto out = (dir / "plain.fits").string();
  const RunResult r = run({cli_path().string(), "convert", in, "-o", out});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);

  // python asdf's AsdfInFits reads the original tree and values back from our FITS file.
  const json rec = python({"check-plain", in, out});
  INFO(rec.dump());
  REQUIRE(rec["ok"].get<bool>());
  // science, error, dq, counts, small, big, flux, view, base, nested image, the table, and the
  // arrays that stay in the ASDF extension (mask, phase, labels, empty).
  CHECK(rec["arrays"].get<int>() == 15);
  const json hdus = rec["hdus"];
  std::vector<std::string> names;
  for (const auto& h : hdus) names.push_back(h[0].get<std::string>());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"ASDF", "BASE", "BIG", "CATALOG", "COUNTS", "DQ",
                                          "ERROR", "FLUX.VALUE", "NESTED.DEEPER.IMAGE", "PRIMARY",
                                          "SCIENCE", "SMALL", "VIEW"});
  for (const auto& h : hdus) {
    if (h[0] == "FLUX.VALUE") CHECK(h[1] == "erg.s**-1");
  }

  // fitsverify finds nothing wrong.
  const RunResult v = run({"fitsverify", "-q", out});
  INFO(v.out << v.err);
  CHECK(v.status == 0);
  CHECK(v.out.find("OK") != std::string::npos);

  // ASDF -> FITS -> ASDF: our extract gives the original tree and values back.
  const auto back = (dir / "back.asdf").string();
  const RunResult e = run({cli_path().string(), "extract", out, "-o", back, "-q"});
  INFO(e.err);
  REQUIRE(e.status == 0);
  const json same = python({"compare-asdf", in, back});
  INFO(same.dump());
  CHECK(same["ok"].get<bool>());
  CHECK(same["arrays"].get<int>() == 15);
}

TEST_CASE("extract: python asdf's own ASDF-in-FITS test files", "[interop][asdf_in_fits]") {
  // Written by old python asdf versions: the ASDF file in a uint8 IMAGE extension, and in the
  // primary HDU. python asdf warns when it reads either (an extension class that is not
  // installed; a tag version it has no schema for), from the FITS file and from ours alike.
  TempDir dir;
  for (const std::string name : {"extension_check", "version_mismatch"}) {
    DYNAMIC_SECTION(name) {
      const auto in = (data_dir() / "pyasdf" / (name + ".fits")).string();
      const auto out = (dir / (name + ".asdf")).string();
      const RunResult r = run({cli_path().string(), "convert", in, "-o", out, "-q"});
      INFO(r.err);
      REQUIRE(r.status == 0);
      const json rec = python({"check", in, out, "--warnings-allowed"});
      INFO(rec.dump());
      CHECK(rec["ok"].get<bool>());
    }
  }
}
