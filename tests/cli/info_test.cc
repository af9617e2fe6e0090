// The `fitsasdf` command line: --version, --help, info, and how errors reach the user.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;

namespace {
int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST_CASE("version, help and usage errors", "[cli]") {
  auto r = run_cli({"--version"});
  CHECK(r.status == 0);
  CHECK(r.out.starts_with("fitsasdf "));
  r = run_cli({"--help"});
  CHECK(r.status == 0);
  CHECK(r.out.find("info") != std::string::npos);
  CHECK(run_cli({}).status == 4);
  CHECK(run_cli({"frobnicate"}).status == 4);
  CHECK(run_cli({"info", "--no-such-option", "x"}).status == 4);
  CHECK(run_cli({"info"}).status == 4);
  // `help COMMAND` is `COMMAND --help`; the command list is aligned.
  const auto help_edit = run_cli({"help", "edit"});
  CHECK(help_edit.status == 0);
  CHECK(help_edit.out == run_cli({"edit", "--help"}).out);
  CHECK(help_edit.out.find("--dry-run") != std::string::npos);
  CHECK(run_cli({"help", "frobnicate"}).status == 4);
  r = run_cli({"--help"});
  CHECK(r.out.find("\n  edit        change") != std::string::npos);
  CHECK(r.out.find("\n  defragment  rewrite") != std::string::npos);
}

TEST_CASE("info prints the block list of the bundled sample", "[cli]") {
  const auto sample = (samples_dir() / "compressed.asdf").string();
  auto r = run_cli({"info", "--blocks", sample});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("zlib") != std::string::npos);
  r = run_cli({"info", "--blocks", "--json", sample});
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["blocks"].size() == 2);
  CHECK(j["asdf_standard"] == "1.6.0");
}

TEST_CASE("an unreadable file gives one line on stderr and a documented status", "[cli]") {
  TempDir dir;
  std::ofstream(dir / "page.asdf") << "<html><body>Not found</body></html>\n";
  auto r = run_cli({"info", (dir / "page.asdf").string()});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("page.asdf") != std::string::npos);

  r = run_cli({"info", (dir / "missing.asdf").string()});
  CHECK(r.status == 3);
  CHECK(lines(r.err) == 1);

  r = run_cli({"info", dir.path().string()});
  CHECK(r.status == 3);
  CHECK(r.err.find("directory") != std::string::npos);
}
