// Findings through the command line: `convert` (text and --json) and `batch` report lines name
// each finding's code and HDU, and the batch summary counts the inputs with findings.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using namespace fitsasdf::test::fits_builder;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// An empty primary HDU with a card astropy cannot parse, then a binary table whose second
/// row's variable-length array reaches past its 8-byte heap.
std::string suspicious_fits() {
  const std::string primary = header({card("SIMPLE", "T"), num("BITPIX", 8), num("NAXIS", 0),
                                      "SKEW    = -1.38E+00, -1.69E+00 / Measure of skew"});
  std::string data;
  data += big_endian(std::uint64_t{2}, 4) + big_endian(std::uint64_t{0}, 4);
  data += big_endian(std::uint64_t{2}, 4) + big_endian(std::uint64_t{4}, 4);
  data += big_endian(std::uint64_t{7}, 4) + big_endian(std::uint64_t{8}, 4);
  std::vector<std::string> cards = table_cards("BINTABLE", 8, 2, 8, 1);
  cards.push_back(text("TFORM1", "1PJ"));
  return primary + hdu(cards, data);
}

/// Return the codes and HDUs of a JSON findings list, as "HDU:code".
std::vector<std::string> listed(const json& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) {
    CHECK(f["message"].is_string());
    out.push_back(std::to_string(f["hdu"].get<int>()) + ":" + f["code"].get<std::string>());
  }
  return out;
}

}  // namespace

TEST_CASE("convert lists the findings in its text and JSON reports", "[cli][findings]") {
  TempDir dir;
  write(dir / "odd.fits", suspicious_fits());
  const std::string in = (dir / "odd.fits").string();

  RunResult r = run_cli({"convert", in, "--no-fsync"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("finding [unparsable-card]: card 4 (SKEW)") != std::string::npos);
  CHECK(r.out.find("finding [descriptor-past-heap]: column 1") != std::string::npos);

  r = run_cli({"convert", in, "--no-fsync", "--json", "-o", (dir / "b.asdf").string()});
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  CHECK(listed(j["findings"]) ==
        std::vector<std::string>{"1:unparsable-card", "2:descriptor-past-heap"});

  // The way back gives the same bytes.
  r = run_cli({"verify", in});
  INFO(r.out);
  CHECK(r.status == 0);
}

TEST_CASE("batch report lines carry the findings and the summary counts them",
          "[cli][batch][findings]") {
  TempDir dir;
  fs::create_directories(dir / "in");
  write(dir / "in" / "odd.fits", suspicious_fits());
  write(dir / "in" / "plain.fits", sample());
  const fs::path report = dir / "report.jsonl";
  const RunResult r = run_cli(
      {"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--report", report.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::ifstream lines(report);
  std::string line;
  int seen = 0;
  while (std::getline(lines, line)) {
    const json j = json::parse(line);
    if (j.contains("summary")) {
      CHECK(j["with_findings"] == 1);
      continue;
    }
    ++seen;
    if (j["input"].get<std::string>().ends_with("odd.fits")) {
      REQUIRE(j.contains("findings"));
      CHECK(listed(j["findings"]) ==
            std::vector<std::string>{"1:unparsable-card", "2:descriptor-past-heap"});
    } else {
      CHECK_FALSE(j.contains("findings"));
    }
  }
  CHECK(seen == 2);
}
