// The guard in front of CFITSIO's Rice decoder (found by fuzzing: a damaged RICE_1 tile made
// CFITSIO 4.2's fits_rdecomp_short read past its buffer and crash; the reproducer is
// tests/fuzz/regressions/fits_to_asdf/rice-zero-run).
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/convert.h"

#include "fits/rice_guard.h"
#include "support/catch.h"

extern "C" {
// CFITSIO's Rice encoders (exported by libcfitsio, declared only in its private headers).
int fits_rcomp(int a[], int nx, unsigned char* c, int clen, int nblock);
int fits_rcomp_short(short a[], int nx, unsigned char* c, int clen, int nblock);
int fits_rcomp_byte(signed char a[], int nx, unsigned char* c, int clen, int nblock);
}

using fitsasdf::fits::rice_tile_in_bounds;
using Bytes = std::vector<std::uint8_t>;

TEST_CASE("a Rice tile whose zero run goes past its end is refused", "[rice][error]") {
  // First pixel 0x0000, then code 0001 (fs = 0) and nothing but zero bits: the decoder looks
  // for the run's closing one bit beyond the tile.
  const Bytes tile{0x00, 0x00, 0x10, 0x00, 0x00};
  CHECK_FALSE(rice_tile_in_bounds(tile, 32, 32, 2));
  CHECK_FALSE(rice_tile_in_bounds(Bytes{0x00}, 1, 32, 2));  // shorter than the first pixel
  CHECK_FALSE(rice_tile_in_bounds(Bytes{}, 1, 32, 1));
  CHECK_FALSE(rice_tile_in_bounds(tile, 32, 0, 2));          // no block size
}

TEST_CASE("a Rice tile of equal pixels needs no bytes past its code", "[rice][error]") {
  CHECK(rice_tile_in_bounds(Bytes{0x12, 0x34, 0x00}, 32, 32, 2));   // fs = -1: all the same
  CHECK(rice_tile_in_bounds(Bytes{0x12, 0x00}, 1000, 1000, 1));
}

TEST_CASE("tiles CFITSIO compresses pass the Rice guard", "[rice][error]") {
  std::mt19937 random(7);
  for (int nx : {1, 5, 31, 32, 33, 1000}) {
    for (int spread : {0, 3, 300, 70000}) {
      std::vector<int> ints(nx);
      std::vector<short> shorts(nx);
      std::vector<signed char> chars(nx);
      for (int i = 0; i < nx; ++i) {
        const int v = spread == 0 ? 17 : static_cast<int>(random() % spread) - spread / 2;
        ints[i] = v * 1000;
        shorts[i] = static_cast<short>(v);
        chars[i] = static_cast<signed char>(v);
      }
      Bytes out(static_cast<std::size_t>(nx) * 8 + 64);
      const int clen = static_cast<int>(out.size());
      int n = fits_rcomp(ints.data(), nx, out.data(), clen, 32);
      REQUIRE(n > 0);
      CHECK(rice_tile_in_bounds({out.data(), static_cast<std::size_t>(n)}, nx, 32, 4));
      n = fits_rcomp_short(shorts.data(), nx, out.data(), clen, 32);
      REQUIRE(n > 0);
      CHECK(rice_tile_in_bounds({out.data(), static_cast<std::size_t>(n)}, nx, 32, 2));
      n = fits_rcomp_byte(chars.data(), nx, out.data(), clen, 32);
      REQUIRE(n > 0);
      CHECK(rice_tile_in_bounds({out.data(), static_cast<std::size_t>(n)}, nx, 32, 1));
    }
  }
}

TEST_CASE("the fuzzers' damaged tile-compressed images are refused with an error",
          "[rice][error]") {
  // tests/fuzz/regressions/fits_to_asdf: a RICE_1 tile that runs past its bytes (CFITSIO read
  // out of bounds), a tile whose descriptor declares 2 GB (CFITSIO allocated it), and a file
  // whose heap ends early: CFITSIO failed to read tile 3 for the guard, which let the image
  // through, then read it without an error while decompressing and ran past damaged tile 13.
  // (The HDU walk now refuses a file that ends inside an HDU's data before CFITSIO sees it.)
  const std::string dir = std::string(FITSASDF_TEST_DATA_DIR) + "/../fuzz/regressions/fits_to_asdf/";
  const std::string out = std::filesystem::temp_directory_path() / "fitsasdf-rice-guard-test.asdf";
  for (const char* name : {"rice-zero-run", "tile-length-past-file", "rice-tile-unread-by-guard"}) {
    INFO(name);
    CHECK_THROWS_AS(fitsasdf::convert_fits_to_asdf(dir + name, out), asdfcore::Error);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  try {
    fitsasdf::convert_fits_to_asdf(dir + "rice-tile-unread-by-guard", out);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    INFO(e.what());
    CHECK(e.code() == asdfcore::ErrorCode::kTruncated);
    CHECK(std::string(e.what()).find("the file ends inside the data of HDU 2") !=
          std::string::npos);
  }
}

TEST_CASE("an HDU whose header CFITSIO reads as holding more data than the walk found is refused",
          "[rice][error]") {
  // tests/fuzz/regressions/fits_to_asdf (finding 36): a compressed image whose NAXIS card has a
  // control character in its name. The HDU walk finds no data; CFITSIO reads the card anyway
  // and reckoned 5760 bytes of data past the copy it was given, so reading tile descriptors ran
  // past the copy's end (ASan: heap-buffer-overflow in CFITSIO's mem_read).
  const std::string in = std::string(FITSASDF_TEST_DATA_DIR) +
                         "/../fuzz/regressions/fits_to_asdf/naxis-control-char-more-data-to-cfitsio";
  const std::string out =
      std::filesystem::temp_directory_path() / "fitsasdf-rice-guard-more-data-test.asdf";
  try {
    fitsasdf::convert_fits_to_asdf(in, out);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    INFO(e.what());
    CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
    CHECK(e.context().hdu == 2);
    CHECK(std::string(e.what()).find("CFITSIO reads this header as declaring") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(out));
}
