// `fitsasdf validate`: verdicts and exit statuses (0 sound, 1 findings, 2 unreadable), every
// finding of a file listed, the --json report, checksums and blocks, FITS files with an ASDF
// extension, --schema-path.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = data_dir() / "schema";

std::string write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// A tree that breaks three schemas at three nodes.
const char* kThreeFindings =
    "#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n"
    "--- !core/asdf-1.1.0\n"
    "asdf_library: !core/software-1.0.0 {name: 42, version: 2.14.3}\n"
    "data: !core/ndarray-1.0.0 {data: [1, 2], datatype: int64, byteorder: middle, shape: [2]}\n"
    "length: !unit/quantity-1.1.0 {unit: !unit/unit-1.0.0 m}\n"
    "...\n";

}  // namespace

TEST_CASE("validate: exit 0 for sound files, 1 for findings, 2 for unreadable ones", "[cli]") {
  const auto good = (kFixtures / "valid" / "minimal-1.6.0.asdf").string();
  const auto bad = (kFixtures / "invalid" / "software-name-not-string.asdf").string();
  auto r = run_cli({"validate", good});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find(": sound (") != std::string::npos);

  r = run_cli({"validate", bad});
  CHECK(r.status == 1);
  CHECK(r.out.find("schema at /asdf_library/name") != std::string::npos);
  CHECK(r.out.find("core/software-1.0.0#") != std::string::npos);

  TempDir dir;
  const auto not_asdf = write_text(dir.path() / "notes.txt", "hello\n");
  r = run_cli({"validate", not_asdf});
  CHECK(r.status == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("notes.txt") != std::string::npos);

  // Several files: the worst verdict decides; every file is still reported.
  r = run_cli({"validate", good, bad});
  CHECK(r.status == 1);
  r = run_cli({"validate", good, not_asdf, bad});
  CHECK(r.status == 2);
  CHECK(r.out.find("minimal-1.6.0.asdf: sound") != std::string::npos);
  CHECK(r.out.find("software-name-not-string.asdf: 1 finding") != std::string::npos);
  CHECK(run_cli({"validate"}).status == 4);
  CHECK(run_cli({"validate", "--schema-path", not_asdf, good}).status == 4);
}

TEST_CASE("validate: a file with many findings lists all of them, in --json too", "[cli]") {
  TempDir dir;
  const auto path = write_text(dir.path() / "three.asdf", kThreeFindings);
  auto r = run_cli({"validate", path});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK(r.out.find("3 findings") != std::string::npos);
  r = run_cli({"validate", "--json", path});
  REQUIRE(r.status == 1);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["files"].size() == 1);
  const auto& file = j["files"][0];
  CHECK(file["status"] == "findings");
  CHECK(file["asdf_standard"] == "1.5.0");
  std::vector<std::string> pointers;
  for (const auto& f : file["findings"]) {
    CHECK(f["kind"] == "schema");
    CHECK(!f["schema"].get<std::string>().empty());
    CHECK(!f["keyword"].get<std::string>().empty());
    CHECK(!f["message"].get<std::string>().empty());
    pointers.push_back(f["pointer"]);
  }
  CHECK(pointers == std::vector<std::string>{"/asdf_library/name", "/data", "/length"});
  CHECK(file["findings"][0]["value"] == "42");
  CHECK(file["checked"]["tagged_nodes"].get<int>() >= 4);

  // --max-findings bounds the list; unreadable files appear in the JSON with their error.
  r = run_cli({"validate", "--json", "--max-findings", "1", path, (dir.path() / "none").string()});
  CHECK(r.status == 3);  // the missing file is an I/O error
  const auto k = nlohmann::json::parse(r.out);
  CHECK(k["files"][0]["findings"].size() == 1);
  CHECK(k["files"][1]["status"] == "unreadable");
  CHECK(k["files"][1]["error"]["category"] == "io");
}

TEST_CASE("validate: a damaged block is a checksum finding, --no-blocks skips it", "[cli]") {
  TempDir dir;
  const auto copy = dir.path() / "damaged.asdf";
  fs::copy_file(kFixtures / "valid" / "ndarray-block-and-mask.asdf", copy);
  auto r = run_cli({"validate", copy.string()});
  REQUIRE(r.status == 0);
  // Flip the last byte of the block's data (the file ends with the block).
  {
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-1, std::ios::end);
    f.put(static_cast<char>(c ^ 0x55));
  }
  r = run_cli({"validate", "--json", copy.string()});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["files"][0]["findings"].size() >= 1);
  CHECK(j["files"][0]["findings"][0]["kind"] == "checksum");
  CHECK(j["files"][0]["findings"][0]["block"] == 0);
  CHECK(run_cli({"validate", "--no-blocks", copy.string()}).status == 0);
}

TEST_CASE("validate: FITS files are checked through their ASDF extension", "[cli]") {
  TempDir dir;
  const auto fits = (dir.path() / "embedded.fits").string();
  // python asdf's AsdfInFits writes the JWST form: an image HDU and the tree in an ASDF HDU
  // whose array points at it (source: fits:SCI,1).
  const auto made = run({reference_python(), "-c",
                         "import sys, warnings; warnings.simplefilter('ignore')\n"
                         "import numpy as np; from astropy.io import fits\n"
                         "from asdf.fits_embed import AsdfInFits\n"
                         "h = fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(np.arange(6.0), "
                         "name='SCI')])\n"
                         "AsdfInFits(h, {'sci': h['SCI'].data, 'n': 3}).write_to(sys.argv[1])\n",
                         fits});
  INFO(made.err);
  REQUIRE(made.status == 0);
  auto r = run_cli({"validate", fits});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("embedded.fits: sound") != std::string::npos);
  CHECK(r.out.find("1 arrays") != std::string::npos);

  r = run_cli({"validate", (corpus_dir() / "fits-astropy").string() + "/" + "arange.fits"});
  CHECK(r.status == 2);
  CHECK(r.err.find("without an ASDF extension") != std::string::npos);
}

TEST_CASE("validate: --schema-path adds site schemas for tags the installed ones lack", "[cli]") {
  TempDir dir;
  write_text(dir.path() / "thing-1.0.0.yaml",
             "%YAML 1.1\n---\n$schema: http://stsci.edu/schemas/yaml-schema/draft-01\n"
             "id: http://example.org/schemas/custom/thing-1.0.0\n"
             "type: object\nproperties:\n  size: {type: integer, minimum: 0}\n...\n");
  write_text(dir.path() / "manifest.yaml",
             "%YAML 1.1\n---\nid: http://example.org/manifests/custom-1.0.0\n"
             "extension_uri: http://example.org/extensions/custom-1.0.0\n"
             "tags:\n- tag_uri: tag:example.org:custom/thing-1.0.0\n"
             "  schema_uri: http://example.org/schemas/custom/thing-1.0.0\n...\n");
  const auto file = (kFixtures / "not-errors" / "custom-tag-no-schema.asdf").string();
  auto r = run_cli({"validate", file});
  CHECK(r.status == 0);
  CHECK(r.out.find("no schema for the tag tag:example.org:custom/thing-1.0.0") !=
        std::string::npos);
  r = run_cli({"validate", "--schema-path", dir.path().string(), file});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK(r.out.find("schema at /thing/size") != std::string::npos);
  // The same folder through the environment.
  r = run({cli_path().string(), "validate", file}, "",
          {"FITSASDF_SCHEMA_PATH=" + dir.path().string()});
  CHECK(r.status == 1);
}
