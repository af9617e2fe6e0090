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

namespace {

/// CFITSIO 4.2's Rice decoder (fits_rdecomp*) with its output left out, a byte read at a time as
/// it reads them: true when every byte it reads lies inside `tile`. The guard counts bits
/// instead; the two must agree on every tile.
bool decoder_stays_inside(const Bytes& tile, std::uint64_t nx, int nblock, int bytepix) {
  const int fsbits = bytepix == 1 ? 3 : bytepix == 2 ? 4 : 5;
  const int fsmax = bytepix == 1 ? 6 : bytepix == 2 ? 14 : 25;
  const int bbits = bytepix == 1 ? 8 : bytepix == 2 ? 16 : 32;
  const std::size_t first = bytepix == 1 ? 1 : bytepix == 2 ? 2 : 4;
  if (nblock <= 0 || tile.size() < first + 1) return false;
  std::size_t pos = first;
  std::uint32_t b = tile[pos++];
  int nbits = 8;
  const auto read = [&](std::uint32_t& byte) {
    if (pos >= tile.size()) return false;
    byte = tile[pos++];
    return true;
  };
  const auto low = [](int n) { return n >= 32 ? 0xffffffffu : (std::uint32_t{1} << n) - 1; };
  std::uint32_t byte = 0;
  for (std::uint64_t i = 0; i < nx;) {
    for (nbits -= fsbits; nbits < 0; nbits += 8) {
      if (!read(byte)) return false;
      b = (b << 8) | byte;
    }
    const int fs = static_cast<int>(b >> nbits) - 1;
    b &= low(nbits);
    const std::uint64_t end = std::min<std::uint64_t>(i + static_cast<std::uint64_t>(nblock), nx);
    if (fs < 0) {
      i = end;
    } else if (fs == fsmax) {
      for (; i < end; ++i) {
        for (int k = bbits - nbits - 8; k >= 0; k -= 8) {
          if (!read(byte)) return false;
        }
        if (nbits > 0) {
          if (!read(byte)) return false;
          b = byte & low(nbits);
        } else {
          b = 0;
        }
      }
    } else {
      for (; i < end; ++i) {
        while (b == 0) {
          nbits += 8;
          if (!read(byte)) return false;
          b = byte;
        }
        int width = 0;
        for (std::uint32_t v = b & 0xffu; v != 0; v >>= 1) ++width;
        nbits -= nbits - width + 1;
        if (nbits < 0 || nbits >= 32) return false;
        b ^= std::uint32_t{1} << nbits;
        for (nbits -= fs; nbits < 0; nbits += 8) {
          if (!read(byte)) return false;
          b = (b << 8) | byte;
        }
        b &= low(nbits);
      }
    }
  }
  return true;
}

}  // namespace

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

TEST_CASE("the Rice guard agrees with the decoder's own reads on sound and damaged tiles",
          "[rice][error]") {
  // Tiles CFITSIO compressed, then cut short, bit-flipped, zeroed or replaced by noise: for
  // each, the bit count the guard keeps must give the decoder's verdict, read for read.
  std::mt19937 random(11);
  int inside = 0, outside = 0;
  for (int round = 0; round < 3000; ++round) {
    const int bytepix = round % 3 == 0 ? 1 : round % 3 == 1 ? 2 : 4;
    const int nx = 1 + static_cast<int>(random() % 300);
    const int nblock = round % 7 == 0 ? 16 : 32;
    const int spread = 1 << (random() % 17);
    Bytes out(static_cast<std::size_t>(nx) * 8 + 64);
    const int clen = static_cast<int>(out.size());
    int n = 0;
    if (bytepix == 4) {
      std::vector<int> v(nx);
      for (int& x : v) x = static_cast<int>(random() % spread) - spread / 2;
      n = fits_rcomp(v.data(), nx, out.data(), clen, nblock);
    } else if (bytepix == 2) {
      std::vector<short> v(nx);
      for (short& x : v) x = static_cast<short>(static_cast<int>(random() % spread) - spread / 2);
      n = fits_rcomp_short(v.data(), nx, out.data(), clen, nblock);
    } else {
      std::vector<signed char> v(nx);
      for (signed char& x : v) x = static_cast<signed char>(random() % 256);
      n = fits_rcomp_byte(v.data(), nx, out.data(), clen, nblock);
    }
    REQUIRE(n > 0);
    Bytes tile(out.begin(), out.begin() + n);
    switch (round % 5) {
      case 0:  // sound
        break;
      case 1:  // cut short
        tile.resize(random() % tile.size());
        break;
      case 2:  // bits flipped
        for (int k = 0; k < 3; ++k) tile[random() % tile.size()] ^= std::uint8_t(1u << (random() % 8));
        break;
      case 3:  // a run of zeros
        std::fill(tile.begin() + static_cast<std::ptrdiff_t>(random() % tile.size()), tile.end(), 0);
        break;
      default:  // noise
        for (auto& x : tile) x = static_cast<std::uint8_t>(random());
        break;
    }
    const bool expected = decoder_stays_inside(tile, static_cast<std::uint64_t>(nx), nblock, bytepix);
    INFO("round " << round << ", " << tile.size() << " bytes, bytepix " << bytepix);
    CHECK(rice_tile_in_bounds(tile, static_cast<std::uint64_t>(nx), nblock, bytepix) == expected);
    (expected ? inside : outside) += 1;
  }
  // Both verdicts are exercised.
  CHECK(inside > 500);
  CHECK(outside > 500);
}
