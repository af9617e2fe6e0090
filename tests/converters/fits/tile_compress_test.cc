// Tile compression of an image for ASDF to FITS (src/fits/tile_compress.h) and the PLIO guard
// (src/fits/plio_guard.h): CFITSIO's PLIO_1 writer leaks a tile's buffer on a value outside
// 0 to 2^24 - 1 and writes past it on a line list longer than 4 bytes a pixel (fuzz finding 19),
// so such images are compressed with RICE_1, and the same values come back.
#include "fits/tile_compress.h"

#include <fitsio.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fits/plio_guard.h"
#include "support/catch.h"

namespace {

using fitsasdf::fits::compress_image;
using fitsasdf::fits::TileCompression;
using Bytes = std::vector<std::uint8_t>;

/// `values` as big-endian stored values of `T`.
template <typename T>
Bytes big_endian(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  if constexpr (std::endian::native == std::endian::little) {
    for (std::size_t i = 0; i < out.size(); i += sizeof(T)) {
      for (std::size_t a = i, b = i + sizeof(T) - 1; a < b; ++a, --b) std::swap(out[a], out[b]);
    }
  }
  return out;
}

TileCompression plio() {
  TileCompression p;
  p.type = "PLIO_1";
  return p;
}

std::string card(const std::string& keyword, const std::string& value) {
  std::string c = keyword;
  c.resize(8, ' ');
  c += "= " + std::string(20 - std::min<std::size_t>(20, value.size()), ' ') + value;
  c.resize(80, ' ');
  return c;
}

/// The stored values CFITSIO reads back from the compressed HDU `hdu`, scaling off.
template <typename T>
std::vector<T> read_back(const Bytes& hdu, int datatype, std::size_t count) {
  std::string primary = card("SIMPLE", "T") + card("BITPIX", "8") + card("NAXIS", "0");
  std::string end = "END";
  end.resize(80, ' ');
  primary += end;
  primary.resize(2880, ' ');
  Bytes file(primary.begin(), primary.end());
  file.insert(file.end(), hdu.begin(), hdu.end());
  void* memory = file.data();
  std::size_t size = file.size();
  fitsfile* f = nullptr;
  int status = 0;
  fits_open_memfile(&f, "plio", READONLY, &memory, &size, 0, nullptr, &status);
  int type = 0;
  fits_movabs_hdu(f, 2, &type, &status);
  fits_set_bscale(f, 1.0, 0.0, &status);
  std::vector<T> values(count);
  int anynul = 0;
  fits_read_img(f, datatype, 1, static_cast<LONGLONG>(count), nullptr, values.data(), &anynul,
                &status);
  int closing = 0;
  fits_close_file(f, &closing);
  REQUIRE(status == 0);
  return values;
}

/// The ZCMPTYPE of the compressed HDU `hdu`.
std::string algorithm(const Bytes& hdu) {
  const std::string text(hdu.begin(), hdu.end());
  const std::size_t at = text.find("ZCMPTYPE= '");
  REQUIRE(at != std::string::npos);
  const std::size_t begin = at + 11;
  return text.substr(begin, text.find_first_of(" '", begin) - begin);
}

/// Compress `values` (one row) with PLIO_1 and check what comes back.
template <typename T>
void check_round_trip(int bitpix, int datatype, const std::vector<T>& values,
                      const std::vector<std::string>& cards, const std::string& substitution) {
  const auto made = compress_image(bitpix, {static_cast<long>(values.size())}, big_endian(values),
                                   cards, plio(), {});
  INFO(made.substitution);
  if (substitution.empty()) {
    CHECK(made.substitution.empty());
    CHECK(algorithm(made.hdu) == "PLIO_1");
  } else {
    CHECK(made.substitution.find(substitution) != std::string::npos);
    CHECK(algorithm(made.hdu) == "RICE_1");
  }
  CHECK(read_back<T>(made.hdu, datatype, values.size()) == values);
}

}  // namespace

extern "C" int pl_p2li(int* pixels, int first, short* list, int count);  // CFITSIO's encoder

namespace {

TEST_CASE("the PLIO line list's length is the one CFITSIO's encoder makes",
          "[tile_compress][plio]") {
  std::mt19937 random(20261125);
  const auto make = [&](std::size_t n, int max_step, int zero_percent, int run) {
    std::vector<std::int32_t> v;
    std::int32_t value = 1;
    while (v.size() < n) {
      const int r = static_cast<int>(random() % 100);
      std::int32_t next =
          r < zero_percent ? 0 : value + static_cast<int>(random() % (2 * max_step + 1)) - max_step;
      next = std::clamp(next, -3, 16777215);
      value = next > 0 ? next : value;
      const std::size_t length = 1 + random() % static_cast<std::uint32_t>(run);
      v.insert(v.end(), std::min(length, n - v.size()), next);
    }
    return v;
  };
  for (int round = 0; round < 400; ++round) {
    const std::size_t n = 1 + random() % 300;
    const int step = round % 4 == 0 ? 100000 : round % 4 == 1 ? 4095 : round % 4 == 2 ? 4096 : 30;
    std::vector<std::int32_t> v = make(n, step, static_cast<int>(random() % 60),
                                       round % 5 == 0   ? 9000
                                       : round % 3 == 0 ? 1
                                                        : 6);
    std::vector<short> list(8 + 3 * v.size() + v.size() / 4095 * 2 + 64);
    std::vector<std::int32_t> copy = v;
    const int words = pl_p2li(copy.data(), 1, list.data(), static_cast<int>(v.size()));
    INFO("round " << round << ", " << v.size() << " pixels");
    REQUIRE(fitsasdf::fits::plio_line_list_words(v) == static_cast<std::size_t>(words));
  }
  CHECK(fitsasdf::fits::plio_line_list_words({}) == 0);
}

TEST_CASE("PLIO_1 images CFITSIO cannot write safely are compressed with RICE_1 instead",
          "[tile_compress][plio]") {
  SECTION("16-bit values 0 to 32767 stay PLIO_1") {
    check_round_trip<std::int16_t>(16, TSHORT, {0, 0, 7, 7, 7, 0, 3, 3}, {}, "");
  }
  SECTION("unsigned 16-bit values (BZERO = 32768) are offset first, as CFITSIO does") {
    check_round_trip<std::int16_t>(16, TSHORT, {-32768, -32768, -32768, 0, 0, 0, 0, 0},
                                   {card("BZERO", "32768")}, "");
  }
  SECTION("a negative value: CFITSIO would refuse it and leak the tile's buffer") {
    check_round_trip<std::int16_t>(16, TSHORT, {0, 5, -1, 7}, {},
                                   "pixel 2 (FITS order) is -1, outside PLIO_1's 0 to 16777215");
  }
  SECTION("a 32-bit value past 2^24 - 1") {
    check_round_trip<std::int32_t>(32, TINT, {0, 1, 2, 16777216}, {},
                                   "pixel 3 (FITS order) is 16777216");
    std::vector<std::int32_t> edges(40, 0);
    std::fill(edges.begin() + 10, edges.begin() + 30, 16777215);
    check_round_trip<std::int32_t>(32, TINT, edges, {}, "");
  }
  SECTION("a tile whose line list is longer than CFITSIO's buffer (it wrote past it)") {
    check_round_trip<std::int16_t>(
        16, TSHORT, {0, 1, 300, 32767}, {},
        "the PLIO line list of tile 1 takes 24 bytes, more than the 16 CFITSIO's PLIO_1 writer "
        "allots");
    std::vector<std::int32_t> jumps;
    for (int i = 1; i <= 64; ++i) jumps.push_back(5000 * i);  // 3 words (6 bytes) a pixel
    check_round_trip<std::int32_t>(32, TINT, jumps, {}, "the PLIO line list of tile 1 takes");
  }
}

TEST_CASE("the PLIO guard names the tile of a 3-D image whose list is too long",
          "[tile_compress][plio]") {
  // 5 x 4 x 3 pixels (x fastest) in tiles of 2 x 2 x 2: 3 x 2 x 2 tiles, numbered x first. A
  // tile of ones takes 8 words (16 bytes); two jumps past 4095 take 3 words each.
  const std::vector<long> axes{5, 4, 3}, tile{2, 2, 2};
  const auto index = [](int x, int y, int z) {
    return static_cast<std::size_t>(x + 5 * y + 20 * z);
  };
  std::vector<std::int32_t> ones(60, 1);
  CHECK(fitsasdf::fits::plio_write_problem(ones, axes, tile, 20).empty());
  std::vector<std::int32_t> v = ones;
  v[index(4, 2, 2)] = 90000;  // tile 12: x 4, y 2-3, z 2 (2 pixels)
  v[index(4, 3, 2)] = 900000;
  CHECK(fitsasdf::fits::plio_write_problem(v, axes, tile, 20) ==
        "the PLIO line list of tile 12 takes 26 bytes, more than the 20 CFITSIO's PLIO_1 writer "
        "allots (it would write past them)");
  v = ones;
  v[index(2, 0, 2)] = 90000;  // tile 8: x 2-3, y 0-1, z 2
  v[index(3, 1, 2)] = 900000;
  CHECK(fitsasdf::fits::plio_write_problem(v, axes, tile, 20).find("tile 8 takes") !=
        std::string::npos);
}

}  // namespace
