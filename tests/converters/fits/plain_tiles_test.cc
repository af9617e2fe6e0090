// The tiles of compressed integer images decoded without CFITSIO (src/fits/plain_tiles.h and
// rice_decode.h), checked against CFITSIO's own decoding: its Rice decoders on streams its Rice
// encoders wrote and on damaged ones, and whole images CFITSIO compressed (RICE_1, GZIP_1,
// GZIP_2; 8-, 16- and 32-bit; tiles along rows, in blocks that do not divide the image, in 3-D;
// BLANK pixels) read back by fits_read_img as the guarded CFITSIO path reads them.
#include <fitsio.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fits/plain_tiles.h"
#include "fits/rice_decode.h"
#include "fits/rice_guard.h"
#include "fits/tile_bands.h"
#include "support/catch.h"
#include "support/cfitsio_memory.h"

extern "C" {
// CFITSIO's Rice coders (exported by libcfitsio, declared only in its private headers).
int fits_rcomp(int a[], int nx, unsigned char* c, int clen, int nblock);
int fits_rcomp_short(short a[], int nx, unsigned char* c, int clen, int nblock);
int fits_rcomp_byte(signed char a[], int nx, unsigned char* c, int clen, int nblock);
int fits_rdecomp(unsigned char* c, int clen, unsigned int array[], int nx, int nblock);
int fits_rdecomp_short(unsigned char* c, int clen, unsigned short array[], int nx, int nblock);
int fits_rdecomp_byte(unsigned char* c, int clen, unsigned char array[], int nx, int nblock);
}

namespace {

using fitsasdf::fits::PlainTiles;
using Bytes = std::vector<std::uint8_t>;

/// `values` (each `bytepix` bytes wide, as integers) Rice-coded by CFITSIO.
Bytes rice_encode(const std::vector<std::int64_t>& values, int bytepix, int nblock) {
  Bytes out(values.size() * 8 + 64);
  const int nx = static_cast<int>(values.size());
  const int clen = static_cast<int>(out.size());
  int n = -1;
  if (bytepix == 1) {
    std::vector<signed char> a(values.begin(), values.end());
    n = fits_rcomp_byte(a.data(), nx, out.data(), clen, nblock);
  } else if (bytepix == 2) {
    std::vector<short> a(values.begin(), values.end());
    n = fits_rcomp_short(a.data(), nx, out.data(), clen, nblock);
  } else {
    std::vector<int> a(values.begin(), values.end());
    n = fits_rcomp(a.data(), nx, out.data(), clen, nblock);
  }
  REQUIRE(n > 0);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

/// CFITSIO's decoding of `tile` (which must lie inside its bytes as the guard says), big-endian.
Bytes cfitsio_rice_decode(Bytes tile, std::uint64_t nx, int nblock, int bytepix) {
  Bytes out(nx * static_cast<std::uint64_t>(bytepix));
  const int n = static_cast<int>(nx);
  const int clen = static_cast<int>(tile.size());
  tile.resize(tile.size() + 16, 0);  // CFITSIO's own bounds check at the end reads no further
  int status = 0;
  if (bytepix == 1) {
    status = fits_rdecomp_byte(tile.data(), clen, out.data(), n, nblock);
  } else if (bytepix == 2) {
    std::vector<unsigned short> a(nx);
    status = fits_rdecomp_short(tile.data(), clen, a.data(), n, nblock);
    for (std::uint64_t i = 0; i < nx; ++i) {
      out[2 * i] = static_cast<std::uint8_t>(a[i] >> 8);
      out[2 * i + 1] = static_cast<std::uint8_t>(a[i]);
    }
  } else {
    std::vector<unsigned int> a(nx);
    status = fits_rdecomp(tile.data(), clen, a.data(), n, nblock);
    for (std::uint64_t i = 0; i < nx; ++i) {
      for (int k = 0; k < 4; ++k) out[4 * i + k] = static_cast<std::uint8_t>(a[i] >> (24 - 8 * k));
    }
  }
  REQUIRE(status == 0);
  return out;
}

/// Values of `bytepix` bytes: smooth with noise of `noise` bits, runs of one value, and a few
/// jumps across the whole range (so that every kind of block shows up).
std::vector<std::int64_t> sample_values(std::mt19937_64& random, std::size_t nx, int bytepix,
                                        int noise) {
  const std::int64_t lo = bytepix == 1 ? -128 : bytepix == 2 ? -32768 : INT32_MIN;
  const std::int64_t hi = bytepix == 1 ? 127 : bytepix == 2 ? 32767 : INT32_MAX;
  std::vector<std::int64_t> v(nx);
  std::int64_t level = 0;
  for (std::size_t i = 0; i < nx; ++i) {
    const auto pick = random() % 100;
    if (pick < 2) {
      level = std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
    } else if (pick < 40) {
      // the same value again: a run
    } else {
      level += static_cast<std::int64_t>(random() % (std::uint64_t{1} << noise)) -
               (std::int64_t{1} << (noise - 1));
    }
    level = std::clamp(level, lo, hi);
    v[i] = level;
  }
  return v;
}

TEST_CASE("plain tiles: the bounded Rice decoder gives CFITSIO's values", "[plain-tiles]") {
  std::mt19937_64 random(20261201);
  int decoded = 0;
  for (const int bytepix : {1, 2, 4}) {
    for (const int nblock : {32, 16, 7}) {
      for (const std::size_t nx : {1u, 31u, 32u, 33u, 1000u}) {
        for (const int noise : {1, 4, bytepix * 8 - 1}) {
          const auto values = sample_values(random, nx, bytepix, noise);
          const Bytes tile = rice_encode(values, bytepix, nblock);
          Bytes ours(nx * static_cast<std::size_t>(bytepix));
          INFO("bytepix " << bytepix << ", nblock " << nblock << ", nx " << nx << ", noise "
                          << noise);
          REQUIRE(fitsasdf::fits::rice_decode(tile, nx, nblock, bytepix, ours));
          REQUIRE(ours == cfitsio_rice_decode(tile, nx, nblock, bytepix));
          ++decoded;
        }
      }
    }
  }
  CHECK(decoded == 3 * 3 * 5 * 3);
}

TEST_CASE("plain tiles: the bounded Rice decoder gives up where CFITSIO would read past the tile",
          "[plain-tiles]") {
  std::mt19937_64 random(7);
  int agreed = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int bytepix = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 2 : 4;
    const std::size_t nx = 1 + random() % 300;
    Bytes tile = rice_encode(sample_values(random, nx, bytepix, 1 + trial % 7), bytepix, 32);
    // Damage: bytes changed, zeroed runs, or the tile cut short.
    const auto how = random() % 3;
    if (how == 0) {
      for (int k = 0; k < 3; ++k) tile[random() % tile.size()] = static_cast<std::uint8_t>(random());
    } else if (how == 1) {
      const std::size_t at = random() % tile.size();
      std::fill(tile.begin() + static_cast<std::ptrdiff_t>(at),
                tile.begin() + static_cast<std::ptrdiff_t>(std::min(tile.size(), at + 8)), 0);
    } else {
      tile.resize(random() % tile.size());
    }
    Bytes ours(nx * static_cast<std::size_t>(bytepix));
    const bool decoded = fitsasdf::fits::rice_decode(tile, nx, 32, bytepix, ours);
    const bool inside = fitsasdf::fits::rice_tile_in_bounds(tile, nx, 32, bytepix);
    INFO("trial " << trial << ", bytepix " << bytepix << ", nx " << nx);
    // Decoded only where CFITSIO stays inside the tile; below 32 bits, every such tile decoded
    // (a 32-bit block code past the verbatim one is left to CFITSIO behind the guard).
    if (decoded) REQUIRE(inside);
    if (bytepix < 4) REQUIRE(decoded == inside);
    if (decoded) {
      REQUIRE(ours == cfitsio_rice_decode(tile, nx, 32, bytepix));
      ++agreed;
    } else {
      ++refused;
    }
  }
  CHECK(agreed > 100);
  CHECK(refused > 100);
}

struct ImageCase {
  int compression = RICE_1;
  int bitpix = SHORT_IMG;
  std::vector<long> axes;
  std::vector<long> tile;  // empty: CFITSIO's default, one row a tile
  bool blank = false;      // BLANK set and some pixels at it
};

/// A pseudo-random image of `c` compressed by CFITSIO: the file's bytes.
Bytes write_compressed(const ImageCase& c, std::mt19937_64& random) {
  int status = 0;
  fitsasdf::test::CfitsioWriting out;
  fitsfile* f = out.f;
  fits_create_img(f, BYTE_IMG, 0, nullptr, &status);
  fits_set_compression_type(f, c.compression, &status);
  if (!c.tile.empty()) {
    std::vector<long> tile = c.tile;
    fits_set_tile_dim(f, static_cast<int>(tile.size()), tile.data(), &status);
  }
  std::vector<long> axes = c.axes;
  fits_create_img(f, c.bitpix, static_cast<int>(axes.size()), axes.data(), &status);
  const int bytepix = c.bitpix / 8;
  long blank = bytepix == 1 ? 255 : bytepix == 2 ? -32768 : INT32_MIN;
  if (c.blank) fits_write_key(f, TLONG, "BLANK", &blank, nullptr, &status);
  std::size_t n = 1;
  for (const long a : axes) n *= static_cast<std::size_t>(a);
  auto values = sample_values(random, n, bytepix, 1 + static_cast<int>(random() % 6));
  for (auto& p : values) {
    if (bytepix == 1) p = p + 128;  // BITPIX 8 is unsigned
    if (c.blank && random() % 50 == 0) p = blank;
  }
  // Written at the image's own type (CFITSIO's compressing writer converts others badly).
  if (bytepix == 1) {
    std::vector<unsigned char> pixels(values.begin(), values.end());
    fits_write_img(f, TBYTE, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  } else if (bytepix == 2) {
    std::vector<short> pixels(values.begin(), values.end());
    fits_write_img(f, TSHORT, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  } else {
    std::vector<int> pixels(values.begin(), values.end());
    fits_write_img(f, TINT, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  }
  REQUIRE(status == 0);
  return out.bytes();
}

TEST_CASE("plain tiles: compressed integer images decode as CFITSIO reads them", "[plain-tiles]") {
  std::mt19937_64 random(11);
  std::vector<ImageCase> cases;
  for (const int compression : {RICE_1, GZIP_1, GZIP_2}) {
    for (const int bitpix : {BYTE_IMG, SHORT_IMG, LONG_IMG}) {
      cases.push_back({compression, bitpix, {300, 70}, {}, false});
      cases.push_back({compression, bitpix, {61, 47}, {16, 10}, true});
      cases.push_back({compression, bitpix, {13, 11, 9}, {5, 4, 2}, false});
      cases.push_back({compression, bitpix, {17, 6, 5}, {17, 6, 2}, true});
      cases.push_back({compression, bitpix, {1000}, {64}, false});
    }
  }
  for (const ImageCase& c : cases) {
    INFO("compression " << c.compression << ", BITPIX " << c.bitpix << ", " << c.axes.size()
                        << " axes, tiles " << c.tile.size() << ", blank " << c.blank);
    // Read as FitsFile reads it: a read-only memory file at the compressed HDU.
    fitsasdf::test::CfitsioReading opened(write_compressed(c, random));
    fitsfile* f = opened.f;
    const Bytes& file = opened.file;
    int status = 0;
    const auto plain = fitsasdf::fits::plain_tiles(*f->Fptr, c.bitpix);
    REQUIRE(plain.has_value());
    const auto item = static_cast<std::uint64_t>(c.bitpix / 8);
    // Small bands, so that an image is several of them.
    const auto cut = fitsasdf::fits::cut_into_bands(*f->Fptr, c.axes, item, 2000);
    std::uint64_t pixels = 1;
    for (const long a : c.axes) pixels *= static_cast<std::uint64_t>(a);
    Bytes ours(pixels * item);
    for (long band = 0; band < cut.bands; ++band) {
      INFO("band " << band << " of " << cut.bands);
      REQUIRE(fitsasdf::fits::decode_plain_band(f, file, *plain, cut, band,
                                                ours.data() + cut.band_offset(band)));
    }
    // The guarded path's reading: stored values, no scaling, no null value.
    Bytes theirs(pixels * item);
    fits_set_bscale(f, 1.0, 0.0, &status);
    const int datatype = c.bitpix == BYTE_IMG ? TBYTE : c.bitpix == SHORT_IMG ? TSHORT : TINT;
    int anynul = 0;
    fits_read_img(f, datatype, 1, static_cast<LONGLONG>(pixels), nullptr, theirs.data(), &anynul,
                  &status);
    REQUIRE(status == 0);
    for (std::uint64_t i = 0; i < pixels && item > 1; ++i) {
      std::reverse(theirs.begin() + static_cast<std::ptrdiff_t>(i * item),
                   theirs.begin() + static_cast<std::ptrdiff_t>((i + 1) * item));
    }
    REQUIRE(ours == theirs);
  }
}

TEST_CASE("plain tiles: a damaged tile leaves its band to the guarded path", "[plain-tiles]") {
  std::mt19937_64 random(3);
  for (const int compression : {RICE_1, GZIP_1, GZIP_2}) {
    INFO("compression " << compression);
    fitsasdf::test::CfitsioReading opened(
        write_compressed({compression, SHORT_IMG, {200, 20}, {}, false}, random));
    fitsfile* f = opened.f;
    Bytes& file = opened.file;
    int status = 0;
    const auto plain = fitsasdf::fits::plain_tiles(*f->Fptr, SHORT_IMG);
    REQUIRE(plain.has_value());
    const auto cut = fitsasdf::fits::cut_into_bands(*f->Fptr, std::vector<long>{200, 20}, 2, 2000);
    REQUIRE(cut.bands > 2);
    // Zero the bytes of tile 8 (its band's) after its first: a Rice run past its end, a gzip
    // stream whose checksum fails.
    LONGLONG length = 0, offset = 0, head = 0, data = 0, end = 0;
    fits_read_descriptll(f, plain->column, 8, &length, &offset, &status);
    fits_get_hduaddrll(f, &head, &data, &end, &status);
    REQUIRE(status == 0);
    const auto at = static_cast<std::size_t>(data + f->Fptr->heapstart + offset);
    std::fill(file.begin() + static_cast<std::ptrdiff_t>(at + 4),
              file.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(length)), 0);
    Bytes out(200 * 20 * 2);
    long refused = 0;
    for (long band = 0; band < cut.bands; ++band) {
      const bool holds = cut.first_slab(band) <= 7 && 7 < cut.end_slab(band);
      const bool decoded = fitsasdf::fits::decode_plain_band(f, file, *plain, cut, band,
                                                             out.data() + cut.band_offset(band));
      CHECK(decoded == !holds);
      refused += decoded ? 0 : 1;
    }
    CHECK(refused == 1);
  }
}

TEST_CASE("plain tiles: other codecs, and pixels CFITSIO converts, are not taken", "[plain-tiles]") {
  std::mt19937_64 random(5);
  for (const int compression : {HCOMPRESS_1, RICE_1, GZIP_2}) {
    // RICE_1 and GZIP_2 at 32 bits a pixel, read as 16: CFITSIO converts the values.
    fitsasdf::test::CfitsioReading opened(write_compressed(
        {compression, compression == HCOMPRESS_1 ? SHORT_IMG : LONG_IMG, {64, 64}, {}, false},
        random));
    CHECK_FALSE(fitsasdf::fits::plain_tiles(*opened.f->Fptr, SHORT_IMG).has_value());
  }
}

}  // namespace
