// `fitsasdf edit`: --set, --delete and --history in place and by a rewrite, --dry-run (the
// change printed, nothing written), --json, the refusals (exit 2, one line on stderr, the file
// untouched), a wrong command line (exit 4), --recover.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "asdfcore/asdfcore.h"
#include "asdfcore/update.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path make_file(const TempDir& dir, const std::string& name) {
  asdfcore::Tree tree;
  tree["meta"]["calver"] = "1.0";
  tree["meta"]["flag"] = 3;
  tree["sci"] = asdfcore::Array::take(std::vector<float>(1000, 1.5f), {10, 100});
  const fs::path path = dir / name;
  asdfcore::write(path.string(), tree);
  return path;
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("edit: set, delete and history, in place, read back", "[cli][update]") {
  TempDir dir;
  const fs::path file = make_file(dir, "a.asdf");
  auto r = run_cli({"edit", file.string(), "--set", "/meta/calver=\"2.0\"", "--set",
                    "/meta/list=[1, 2.5, x]", "--set", "/meta/new={a: 1}", "--delete", "/meta/flag",
                    "--history", "recalibrated"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("updated in place") != std::string::npos);
  const asdfcore::File f = asdfcore::File::open(file.string());
  CHECK(f.get<std::string>("/meta/calver") == "2.0");
  CHECK(f.get<double>("/meta/list/1") == 2.5);
  CHECK(f.get<std::string>("/meta/list/2") == "x");
  CHECK(f.get<std::int64_t>("/meta/new/a") == 1);
  CHECK(!f.contains("/meta/flag"));
  CHECK(f.get<std::string>("/history/entries/0/description") == "recalibrated");
  CHECK(f.array<float>("/sci").to_vector() == std::vector<float>(1000, 1.5f));

  // A value too big for the room: rewritten, said so.
  r = run_cli({"edit", file.string(), "--set", "/meta/big=" + std::string(20000, 'z'), "--json"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["kind"] == "rewritten");
  CHECK(j["reason"].get<std::string>().find("does not fit") != std::string::npos);
  CHECK(asdfcore::File::open(file.string()).get<std::string>("/meta/big").size() == 20000);
  // Sequences: append with '-', replace by index.
  r = run_cli({"edit", file.string(), "--set", "/meta/list/-=4", "--set", "/meta/list/0=0"});
  REQUIRE(r.status == 0);
  CHECK(asdfcore::File::open(file.string()).at("/meta/list").size() == 4);
  CHECK(asdfcore::File::open(file.string()).get<std::int64_t>("/meta/list/0") == 0);
}

TEST_CASE("edit --dry-run prints the change and writes nothing", "[cli][update]") {
  TempDir dir;
  const fs::path file = make_file(dir, "a.asdf");
  const auto before = read_bytes(file);
  auto r = run_cli({"edit", file.string(), "--set", "/meta/calver=\"9.9\"", "--dry-run"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("fits in place") != std::string::npos);
  CHECK(r.out.find("-meta: {calver: '1.0', flag: 3}") != std::string::npos);
  CHECK(r.out.find("+meta: {calver: \"9.9\", flag: 3}") != std::string::npos);
  CHECK(read_bytes(file) == before);
  r = run_cli({"edit", file.string(), "--set", "/meta/x=" + std::string(9000, 'q'), "--dry-run",
               "--json"});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["dry_run"] == true);
  CHECK(j["kind"] == "rewritten");
  CHECK(!j["tree_changes"].empty());
  CHECK(read_bytes(file) == before);
}

TEST_CASE("edit refuses what it cannot do: exit 2, one line, the file untouched", "[cli][update]") {
  TempDir dir;
  const fs::path file = make_file(dir, "a.asdf");
  const auto before = read_bytes(file);
  struct Case {
    std::vector<std::string> args;
    int status;
    std::string says;
  };
  const fs::path fits = dir / "test0.fits";
  fs::copy_file(fs::path(FITSASDF_SAMPLES_DIR) / "test0.fits", fits);
  const fs::path legacy = dir / "old.asdf";
  fs::copy_file(fs::path(FITSASDF_TEST_DATA_DIR) / "legacy" / "b40-bzp2.asdf", legacy);
  const std::vector<Case> cases{
      {{"edit", file.string(), "--delete", "/meta/none"}, 2, "no key \"none\""},
      {{"edit", file.string(), "--set", "/no/such=1"}, 2, "no value at the parent"},
      {{"edit", file.string(), "--set", "/meta/x=" + std::string(9000, 'q'), "--in-place"}, 2,
       "cannot update in place"},
      {{"edit", fits.string(), "--set", "/a=1"}, 2, "inside a FITS file"},
      {{"edit", legacy.string(), "--set", "/a=1"}, 2, "pre-1.0 dialect"},
      {{"edit", file.string(), "--set", "/meta/x=[1, 2"}, 4, "not valid YAML"},
      {{"edit", file.string(), "--set", "meta=1"}, 4, "POINTER=YAML"},
      {{"edit", file.string()}, 4, "nothing to change"},
      {{"edit", file.string(), "--set", "/a=1", "--in-place", "--rewrite"}, 4, "exclude"},
  };
  const auto fits_before = read_bytes(fits);
  const auto legacy_before = read_bytes(legacy);
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    INFO(join(c.args) << "\n" << r.out << r.err);
    CHECK(r.status == c.status);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(count_lines(r.err) == 1);
    CHECK(read_bytes(file) == before);
  }
  CHECK(read_bytes(fits) == fits_before);
  CHECK(read_bytes(legacy) == legacy_before);
}

TEST_CASE("edit --recover rolls back an interrupted update", "[cli][update]") {
  TempDir dir;
  const fs::path file = make_file(dir, "a.asdf");
  auto r = run_cli({"edit", file.string(), "--recover"});
  CHECK(r.status == 0);
  CHECK(r.out.find("no interrupted update") != std::string::npos);
  // Kill an edit at its first crash point (the journal written, the file not yet touched).
  const auto before = read_bytes(file);
  const auto killed = run({FITSASDF_CLI_PATH, "edit", file.string(), "--set", "/meta/calver=9"}, "",
                          {"FITSASDF_TEST_CRASH_AT=2"});
  CHECK(killed.status == 128 + 9);
  CHECK(fs::exists(asdfcore::update_journal_path(file.string())));
  r = run_cli({"edit", file.string(), "--recover", "--json"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["recovery"] == "rolled-back");
  CHECK(read_bytes(file) == before);
  CHECK(!fs::exists(asdfcore::update_journal_path(file.string())));
}

TEST_CASE("defragment --tree-padding gives a file room for edits in place", "[cli][update]") {
  TempDir dir;
  asdfcore::Tree tree;
  tree["sci"] = asdfcore::Array::take(std::vector<float>(1000, 1.5f), {10, 100});
  asdfcore::WriteOptions compact;
  compact.tree_padding = 0;
  const fs::path tight = dir / "tight.asdf";
  asdfcore::write(tight.string(), tree, compact);
  const fs::path roomy = dir / "roomy.asdf";
  auto r = run_cli({"defragment", "--tree-padding", "50000", tight.string(), "-o", roomy.string()});
  REQUIRE(r.status == 0);
  for (const auto& [file, kind] : {std::pair{tight, "rewritten"}, std::pair{roomy, "in-place"}}) {
    r = run_cli({"edit", file.string(), "--set", "/note=" + std::string(5000, 'n'), "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(nlohmann::json::parse(r.out)["kind"] == kind);
  }
}
