// `fitsasdf preview` against astropy 5.2.1: the display limits of ZScaleInterval(),
// MinMaxInterval() and PercentileInterval(99.5) on the plane shown, for synthetic images
// (preview_reference.py: noise and stars with NaN, every BITPIX with BSCALE/BZERO/BLANK and
// unsigned offsets, cubes, a large image that is downsampled, tile-compressed and gzip files,
// ASDF arrays of every dtype python asdf writes in both byte orders, masked and strided) and
// for every FITS image of the corpus. The limits must agree to 1e-9 of the data's range
// (measured: exactly, or to the last bits of the line fit); the worst difference is printed.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

TEST_CASE("preview's zscale, minmax and percentile limits are astropy's", "[interop][preview]") {
  TempDir dir;
  const RunResult made =
      run({reference_python(), (scripts_dir() / "preview_reference.py").string(),
           dir.path().string(), (corpus_dir() / "fits-astropy").string()});
  INFO(made.err);
  REQUIRE(made.status == 0);
  const json cases = json::parse(made.out);
  REQUIRE(cases.size() >= 30);

  double worst = 0;
  std::string worst_case;
  std::size_t exact = 0, compared = 0;
  for (const auto& c : cases) {
    const std::string name = c["name"].get<std::string>();
    for (const std::string interval : {"zscale", "minmax", "percentile"}) {
      std::vector<std::string> args = {"preview", c["file"].get<std::string>(), "-o",
                                       (dir.path() / "out.png").string(), "--overwrite", "--json",
                                       "--interval",
                                       interval == "percentile" ? "percentile:99.5" : interval};
      for (const auto& a : c["args"]) args.push_back(a.get<std::string>());
      const RunResult r = run_cli(args);
      INFO(name << " " << interval << ": " << r.err);
      REQUIRE(r.status == 0);
      const json got = json::parse(r.out);
      const std::vector<std::uint64_t> shape = c["shape"].get<std::vector<std::uint64_t>>();
      CHECK(got["height"].get<std::uint64_t>() == shape[0]);
      CHECK(got["width"].get<std::uint64_t>() == shape[1]);
      CHECK(got["nan_values"].get<std::uint64_t>() == c["nan"].get<std::uint64_t>());
      const double ref_lo = c[interval][0].get<double>();
      const double ref_hi = c[interval][1].get<double>();
      const double lo = got["interval"]["lo"].get<double>();
      const double hi = got["interval"]["hi"].get<double>();
      const double range = c["minmax"][1].get<double>() - c["minmax"][0].get<double>();
      const double scale = std::max({std::abs(ref_lo), std::abs(ref_hi), range, 1e-300});
      const double diff = std::max(std::abs(lo - ref_lo), std::abs(hi - ref_hi)) / scale;
      INFO("ours " << lo << " .. " << hi << ", astropy " << ref_lo << " .. " << ref_hi);
      CHECK(diff <= 1e-9);
      ++compared;
      if (lo == ref_lo && hi == ref_hi) ++exact;
      if (diff > worst) {
        worst = diff;
        worst_case = name + " (" + interval + ")";
      }
      if (name == "big float32") {
        CHECK(got["block"] == 3);
        CHECK(got["output"]["width"] == 834);
        CHECK(got["output"]["height"] == 534);
      }
    }
  }
  std::cout << "preview limits vs astropy: " << compared << " compared, " << exact
            << " bit-identical, worst relative difference " << worst
            << (worst_case.empty() ? "" : " (" + worst_case + ")") << "\n";
}
