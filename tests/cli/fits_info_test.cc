// `fitsasdf info` of FITS files: the HDU table (fitsinfo's columns), --header (fitsheader's
// cards), --json, compressed containers, tile-compressed images, ASDF-in-FITS, and options that
// belong to the other format. Agreement with astropy on every file: interop/fits_info_test.cc.
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

std::string corpus_file(const char* name) {
  return (corpus_dir() / "fits-astropy" / name).string();
}
std::string astropy_file(const char* name) { return (data_dir() / "astropy" / name).string(); }

json info_json(const std::vector<std::string>& args) {
  std::vector<std::string> all{"info", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  const RunResult r = run_cli(all);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// `text` padded with blanks to a card's 80 characters.
std::string padded(std::string text) {
  text.resize(80, ' ');
  return text;
}

}  // namespace

TEST_CASE("info of a FITS file lists its HDUs as fitsinfo does", "[cli][fits-info]") {
  const std::string file = corpus_file("o4sp040b0_raw.fits");
  const RunResult r = run_cli({"info", file});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto lines = split_lines(r.out);
  REQUIRE(lines.size() == 9);
  CHECK(lines[0] == "Filename: " + file);
  CHECK(lines[1] == "No.    Name      Ver    Type      Cards   Dimensions   Format");
  // As fitsinfo prints them, trailing blanks included.
  CHECK(lines[2] == "  0  PRIMARY       1 PrimaryHDU     215   ()      ");
  CHECK(lines[3] ==
        "  1  SCI           1 ImageHDU       141   (62, 44)   int16 (rescales to uint16)   ");
  CHECK(lines[8] == "  6  DQ            2 ImageHDU        71   ()      ");

  const json j = info_json({file});
  CHECK(j["format"] == "fits");
  CHECK(j["container"].is_null());
  CHECK(j["embedded_asdf"].is_null());
  REQUIRE(j["hdus"].size() == 7);
  const json& sci2 = j["hdus"][4];
  CHECK(sci2["index"] == 4);
  CHECK(sci2["name"] == "SCI");
  CHECK(sci2["ver"] == 2);
  CHECK(sci2["type"] == "ImageHDU");
  CHECK(sci2["cards"] == 141);
  CHECK(sci2["dimensions"] == json::array({62, 44}));
  CHECK(sci2["format"] == "int16 (rescales to uint16)");
}

TEST_CASE("info describes every kind of HDU", "[cli][fits-info]") {
  SECTION("binary and ASCII tables") {
    const json bt = info_json({corpus_file("btable.fits")})["hdus"][1];
    CHECK(bt["type"] == "BinTableHDU");
    CHECK(bt["name"] == "");
    CHECK(bt["dimensions"] == "3R x 4C");
    CHECK(bt["format"] == "[I, 20A, E, 10A]");
    const json at = info_json({astropy_file("ascii.fits")})["hdus"][1];
    CHECK(at["type"] == "TableHDU");
    CHECK(at["dimensions"] == "5R x 2C");
    CHECK(at["format"] == "[E10.4, I5]");
  }
  SECTION("random groups") {
    const json g = info_json({astropy_file("group.fits")})["hdus"][0];
    CHECK(g["type"] == "GroupsHDU");
    CHECK(g["dimensions"] == json::array({5, 3, 1, 1}));
    CHECK(g["format"] == "float32");
    CHECK(g["extra"] == "10 Groups  3 Parameters");
  }
  SECTION("tile-compressed images show the image they hold") {
    const json c = info_json({astropy_file("comp.fits")})["hdus"][1];
    CHECK(c["type"] == "CompImageHDU");
    CHECK(c["name"] == "COMPRESSED_IMAGE");
    CHECK(c["cards"] == 105);
    CHECK(c["dimensions"] == json::array({440, 300}));
    CHECK(c["format"] == "int16");
    // A CFHT file with EXTNAME twice: the default one is dropped, as astropy does.
    const json d = info_json({corpus_file("double_ext.fits")})["hdus"][1];
    CHECK(d["name"] == "ccd00");
    CHECK(d["ver"] == 0);
    CHECK(d["cards"] == 26);
  }
  SECTION("empty primary, scaled and 64-bit images") {
    const json p = info_json({corpus_file("history_header.fits")})["hdus"][0];
    CHECK(p["dimensions"] == json::array());
    CHECK(p["format"] == "");
    CHECK(info_json({astropy_file("scale.fits")})["hdus"][0]["format"] ==
          "int16 (rescales to float32)");
    CHECK(info_json({corpus_file("blank.fits")})["hdus"][0]["format"] == "int64");
  }
}

TEST_CASE("info --header prints the cards as fitsheader does", "[cli][fits-info]") {
  const std::string file = corpus_file("test0.fits");
  const RunResult all = run_cli({"info", "--header", file});
  REQUIRE(all.status == 0);
  const auto lines = split_lines(all.out);
  CHECK(lines[0] == "# HDU 0 in " + file + ":");
  CHECK(lines[1].starts_with("SIMPLE  =                    T"));
  // 5 headers of 138 + 4 * 61 cards, their "# HDU" lines and the blank lines between them.
  CHECK(lines.size() == 138 + 4 * 61 + 5 + 4);
  for (const auto& l : lines) {
    if (!l.empty() && !l.starts_with("# HDU ")) CHECK(l.size() == 80);
  }

  const RunResult one = run_cli({"info", "--header=2", file});
  REQUIRE(one.status == 0);
  CHECK(one.out.starts_with("# HDU 2 in " + file + ":\nXTENSION= 'IMAGE   '"));
  CHECK(split_lines(one.out).size() == 62);
  // By EXTNAME (any case: the first SCI) and by EXTNAME,EXTVER.
  const RunResult by_name = run_cli({"info", "--header=sci", file});
  CHECK(by_name.out.starts_with("# HDU sci in " + file + ":\n"));
  CHECK(by_name.out.find("EXTVER  =                    1") != std::string::npos);
  const RunResult by_ver = run_cli({"info", "--header=SCI,3", file});
  CHECK(by_ver.out.starts_with("# HDU ('SCI', 3) in " + file + ":\n"));
  CHECK(by_ver.out.find("EXTVER  =                    3") != std::string::npos);

  const json j = info_json({"--header=SCI,3", file});
  REQUIRE(j["hdus"].size() == 1);
  const json& h = j["hdus"][0];
  CHECK(h["index"] == 3);
  REQUIRE(h["header"].size() == 61);
  CHECK(h["header"][0] ==
        json({{"keyword", "XTENSION"},
              {"value", "IMAGE"},
              {"comment", "IMAGE extension"},
              {"image", padded("XTENSION= 'IMAGE   '           / IMAGE extension")}}));
}

TEST_CASE("info --header of a compressed image: the image's cards, or --compressed the table's",
          "[cli][fits-info]") {
  const std::string file = corpus_file("double_ext.fits");
  const RunResult image = run_cli({"info", "--header=1", file});
  REQUIRE(image.status == 0);
  const auto lines = split_lines(image.out);
  REQUIRE(lines.size() == 27);
  CHECK(lines[1] ==
        "XTENSION= 'IMAGE   '           / binary table extension                         ");
  CHECK(lines[2] ==
        "BITPIX  =                   16 / data type of original image                    ");
  CHECK(image.out.find("ZIMAGE") == std::string::npos);
  const RunResult table = run_cli({"info", "--header=1", "--compressed", file});
  REQUIRE(table.status == 0);
  CHECK(table.out.find("ZIMAGE  =                    T") != std::string::npos);
  CHECK(table.out.find("XTENSION= 'BINTABLE'") != std::string::npos);
}

TEST_CASE("info reads .gz, .bz2 and .Z FITS files", "[cli][fits-info]") {
  TempDir dir;
  const std::string plain = corpus_file("test1.fits");
  const json expected = info_json({plain})["hdus"];
  const std::pair<const char*, std::vector<std::string>> tools[] = {
      {".gz", {"gzip", "-c", plain}},
      {".bz2", {"bzip2", "-c", plain}},
      {".Z", {"compress", "-c", plain}}};
  for (const auto& [suffix, argv] : tools) {
    const RunResult packed = run(argv);
    REQUIRE(packed.status == 0);
    const fs::path path = dir / (std::string("test1.fits") + suffix);
    std::ofstream(path, std::ios::binary) << packed.out;
    const json j = info_json({path.string()});
    INFO(suffix);
    CHECK(j["container"] == (std::string(suffix) == ".gz"    ? "gzip"
                             : std::string(suffix) == ".bz2" ? "bzip2"
                                                             : "compress"));
    CHECK(j["hdus"] == expected);
  }
}

TEST_CASE("info points at the ASDF file inside a FITS file", "[cli][fits-info]") {
  const std::string file = (data_dir() / "pyasdf" / "extension_check.fits").string();
  const RunResult r = run_cli({"info", file});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("HDU 1 holds an embedded ASDF file (ASDF-in-FITS); `fitsasdf extract " + file) !=
        std::string::npos);
  const json j = info_json({file});
  CHECK(j["hdus"][1]["type"] == "NonstandardExtHDU");
  CHECK(j["hdus"][1]["dimensions"] == json::array({538}));
  CHECK(j["embedded_asdf"]["hdu"] == 1);
  CHECK(j["embedded_asdf"]["how"] == "fitsasdf extract " + file + " -o OUT.asdf");
  // An old python asdf file whose primary HDU is the ASDF one.
  const json old = info_json({(data_dir() / "pyasdf" / "version_mismatch.fits").string()});
  CHECK(old["embedded_asdf"]["hdu"] == 0);
  CHECK(old["hdus"][0]["name"] == "ASDF");
  CHECK(old["hdus"][0]["format"] == "uint8");
}

TEST_CASE("info of an ASDF file is unchanged and refuses the FITS options", "[cli][fits-info]") {
  const std::string sample = (samples_dir() / "compressed.asdf").string();
  const RunResult r = run_cli({"info", "--json", sample});
  REQUIRE(r.status == 0);
  CHECK(json::parse(r.out).contains("tree_offset"));
  const RunResult header = run_cli({"info", "--header", sample});
  CHECK(header.status == 4);
  CHECK(header.err.find("--header applies to FITS files") != std::string::npos);
  CHECK(run_cli({"info", "--header=1", sample}).status == 4);
}

TEST_CASE("info --help describes both formats", "[cli][fits-info]") {
  const RunResult r = run_cli({"info", "--help"});
  CHECK(r.status == 0);
  CHECK(r.out.find("A FITS file") != std::string::npos);
  CHECK(r.out.find("--header") != std::string::npos);
}
