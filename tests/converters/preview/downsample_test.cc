// Block averaging (src/preview/downsample.h): the factor, the output size, partial blocks at
// the edges, NaN left out of the means and a block of NaN staying NaN.
#include <cmath>
#include <vector>

#include "preview/downsample.h"
#include "support/catch.h"

using namespace fitsasdf::preview_impl;

TEST_CASE("the block factor is the smallest that fits and never enlarges", "[preview]") {
  CHECK(block_factor(100, 50, 1024) == 1);
  CHECK(block_factor(1024, 10, 1024) == 1);
  CHECK(block_factor(1025, 10, 1024) == 2);
  CHECK(block_factor(10, 2500, 1024) == 3);
  CHECK(block_factor(4096, 4096, 1024) == 4);
  CHECK(block_factor(5, 5, 1) == 5);
}

TEST_CASE("block averages leave NaN out and keep partial edge blocks", "[preview]") {
  // 5 x 4 image (width 5, height 4), blocks of 2: output 3 x 2.
  const double nan = std::nan("");
  const std::vector<std::vector<double>> rows = {
      {1, 2, 3, 4, 5},
      {5, 6, nan, 8, 9},
      {nan, nan, 1, 1, 7},
      {nan, nan, 1, 1, nan},
  };
  BlockAverager grid(5, 4, 2);
  CHECK(grid.out_width() == 3);
  CHECK(grid.out_height() == 2);
  for (const auto& r : rows) grid.add_row(r);
  const auto& out = grid.result();
  REQUIRE(out.size() == 6);
  CHECK(out[0] == (1 + 2 + 5 + 6) / 4.0);
  CHECK(out[1] == (3 + 4 + 8) / 3.0);
  CHECK(out[2] == (5 + 9) / 2.0);
  CHECK(std::isnan(out[3]));
  CHECK(out[4] == 1.0);
  CHECK(out[5] == 7.0);
  // An odd height: the last band holds one row.
  BlockAverager odd(2, 3, 2);
  odd.add_row(std::vector<double>{1, 1});
  odd.add_row(std::vector<double>{3, 3});
  odd.add_row(std::vector<double>{10, nan});
  CHECK(odd.result() == std::vector<double>{2.0, 10.0});
}
