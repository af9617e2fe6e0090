// `fitsasdf preview`: the PNG it writes, decoded again with libpng (size, gray levels, the NaN
// colour, row 0 at the bottom, downsampling), the --json report, and the refusals (tables,
// 1-D arrays, a plane of a 2-D image, an existing output without --overwrite, no image).
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/preview.h"
#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/paths.h"
#include "support/png_image.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
namespace fb = fitsasdf::test::fits_builder;
using namespace fitsasdf::test;

namespace {

/// A float32 image HDU (primary) of `rows` rows of `cols` values, row 0 first.
std::string float_image(std::size_t cols, std::size_t rows, const std::vector<float>& values) {
  std::string data;
  for (float v : values) data += fb::big_endian(std::bit_cast<std::uint32_t>(v), 4);
  return fb::hdu({fb::card("SIMPLE", "T"), fb::num("BITPIX", -32), fb::num("NAXIS", 2),
                  fb::num("NAXIS1", static_cast<long long>(cols)),
                  fb::num("NAXIS2", static_cast<long long>(rows))},
                 data);
}

constexpr std::array<std::uint8_t, 3> kWhite = {255, 255, 255};
constexpr std::array<std::uint8_t, 3> kBlack = {0, 0, 0};
constexpr std::array<std::uint8_t, 3> kNan = {fitsasdf::kPreviewNanColor[0],
                                              fitsasdf::kPreviewNanColor[1],
                                              fitsasdf::kPreviewNanColor[2]};

}  // namespace

TEST_CASE("preview puts row 0 at the bottom and NaN in its colour", "[preview][cli]") {
  TempDir dir;
  // 4 columns, 3 rows: a bright pixel at row 0, column 0; NaN at the last row's last column.
  std::vector<float> values(12, 0.0f);
  values[0] = 100.0f;
  values[11] = std::nanf("");
  fb::write(dir / "in.fits", float_image(4, 3, values));
  const RunResult r = run_cli({"preview", (dir / "in.fits").string(), "-o",
                               (dir / "out.png").string(), "--interval", "minmax", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["format"] == "fits");
  CHECK(report["hdu"] == 0);
  CHECK(report["shape"] == json::array({3, 4}));
  CHECK(report["dtype"] == "float32");
  CHECK(report["interval"]["name"] == "minmax");
  CHECK(report["interval"]["lo"] == 0.0);
  CHECK(report["interval"]["hi"] == 100.0);
  CHECK(report["stretch"] == "linear");
  CHECK(report["nan_values"] == 1);
  CHECK(report["nan_pixels"] == 1);
  CHECK(report["output"]["width"] == 4);
  CHECK(report["output"]["height"] == 3);
  const Png png = decode_png(dir / "out.png");
  REQUIRE(png.width == 4);
  REQUIRE(png.height == 3);
  CHECK(png.at(0, 2) == kWhite);  // bottom left: row 0, column 0
  CHECK(png.at(0, 0) == kBlack);  // top left: the last row
  CHECK(png.at(3, 0) == kNan);    // top right: the last row's last column
  CHECK(png.at(3, 2) == kBlack);
}

TEST_CASE("preview averages blocks down to --size and stretches with asinh", "[preview][cli]") {
  TempDir dir;
  // 10 x 7, values = column index; --size 4 -> blocks of 3 -> 4 x 3 pixels.
  std::vector<float> values;
  for (int row = 0; row < 7; ++row) {
    for (int col = 0; col < 10; ++col) values.push_back(static_cast<float>(col));
  }
  fb::write(dir / "in.fits", float_image(10, 7, values));
  const RunResult r =
      run_cli({"preview", (dir / "in.fits").string(), "-o", (dir / "out.png").string(), "--size",
               "4", "--interval", "minmax", "--stretch", "asinh", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["block"] == 3);
  CHECK(report["stretch"] == "asinh:0.1");
  const Png png = decode_png(dir / "out.png");
  REQUIRE(png.width == 4);
  REQUIRE(png.height == 3);
  // Column blocks average 1, 4, 7 and 9 (of 0..9); asinh(x / 0.1) / asinh(10) of x = mean / 9.
  const double means[4] = {1, 4, 7, 9};
  for (std::uint32_t x = 0; x < 4; ++x) {
    const double level = std::asinh(means[x] / 9 / 0.1) / std::asinh(10.0) * 255;
    CHECK(png.at(x, 1)[0] == static_cast<std::uint8_t>(std::lround(level)));
  }
}

TEST_CASE("preview shows BLANK of an integer image as missing", "[preview][cli]") {
  TempDir dir;
  std::string data;
  for (int v : {1, 2, 3, -99, 5, 6}) data += fb::big_endian(static_cast<std::uint64_t>(v), 2);
  fb::write(dir / "in.fits",
            fb::hdu({fb::card("SIMPLE", "T"), fb::num("BITPIX", 16), fb::num("NAXIS", 2),
                     fb::num("NAXIS1", 3), fb::num("NAXIS2", 2), fb::num("BLANK", -99)},
                    data));
  const RunResult r = run_cli({"preview", (dir / "in.fits").string(), "-o",
                               (dir / "out.png").string(), "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(json::parse(r.out)["nan_pixels"] == 1);
  const Png png = decode_png(dir / "out.png");
  CHECK(png.at(0, 0) == kNan);  // row 1 (top), column 0
}

TEST_CASE("preview refuses what is not an image and never overwrites unasked",
          "[preview][cli]") {
  TempDir dir;
  const std::string out = (dir / "out.png").string();
  const fs::path corpus = corpus_dir();

  RunResult r = run_cli({"preview", (corpus / "fits-astropy" / "btable.fits").string(), "-o", out,
                         "--hdu", "1"});
  CHECK(r.status == 4);
  CHECK(r.err.find("HDU 1 is a binary table, not an image") != std::string::npos);
  r = run_cli({"preview", (corpus / "fits-astropy" / "btable.fits").string(), "-o", out});
  CHECK(r.status == 2);
  CHECK(r.err.find("no HDU holds an image") != std::string::npos);
  r = run_cli({"preview", (corpus / "fits-astropy" / "test0.fits").string(), "-o", out, "--hdu",
               "9"});
  CHECK(r.status == 2);
  CHECK(r.err.find("there is no HDU 9") != std::string::npos);
  r = run_cli({"preview", (corpus / "fits-astropy" / "test0.fits").string(), "-o", out, "--hdu",
               "SCI,3", "--plane", "1"});
  CHECK(r.status == 4);
  CHECK(r.err.find("HDU 3 (SCI,3) is a 2-D image") != std::string::npos);
  const std::string basic = (corpus / "asdf-reference" / "1.6.0" / "basic.asdf").string();
  r = run_cli({"preview", basic, "-o", out, "--array", "/data"});
  CHECK(r.status == 4);
  CHECK(r.err.find("array /data has 1 dimension; a preview needs 2 or more") != std::string::npos);
  r = run_cli({"preview", basic, "-o", out});
  CHECK(r.status == 2);
  r = run_cli({"preview", basic, "-o", out, "--array", "/nothing"});
  CHECK(r.status == 2);
  CHECK_FALSE(fs::exists(out));

  // An existing output is kept unless --overwrite.
  fb::write(out, "not a png");
  const std::string image = (corpus / "fits-astropy" / "test0.fits").string();
  r = run_cli({"preview", image, "-o", out});
  CHECK(r.status == 3);
  CHECK(r.err.find("--overwrite") != std::string::npos);
  CHECK(fb::read(out) == "not a png");
  r = run_cli({"preview", image, "-o", out, "--overwrite", "-q"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  const Png png = decode_png(out);
  CHECK(png.width == 40);
  CHECK(png.height == 40);
  // No temporary file is left beside it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);

  r = run_cli({"preview", image, "-o", out, "--overwrite", "--interval", "median"});
  CHECK(r.status == 4);
  r = run_cli({"preview", "--help"});
  CHECK(r.status == 0);
  CHECK(r.out.find("ZScaleInterval") != std::string::npos);
}

TEST_CASE("preview() returns the pixels without writing a file", "[preview]") {
  fitsasdf::PreviewOptions options;
  options.hdu = 1;
  options.interval = fitsasdf::IntervalKind::kPercentile;
  options.percentile = 90;
  const fitsasdf::PreviewResult r =
      fitsasdf::preview((corpus_dir() / "fits-astropy" / "test0.fits").string(), options);
  CHECK(r.output.empty());
  CHECK(r.out_width == 40);
  CHECK(r.rgb.size() == 40 * 40 * 3);
  CHECK(r.interval_name == "percentile:90");
  CHECK(r.interval.lo < r.interval.hi);
  CHECK_THROWS_AS(fitsasdf::encode_png(r.rgb, 41, 40), asdfcore::Error);
  CHECK(fitsasdf::encode_png(r.rgb, 40, 40).size() > 8);
}
