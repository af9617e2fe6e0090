// The tiles of compressed images decoded without CFITSIO (src/fits/plain_tiles.h, rice_decode.h
// and unquantize.h), checked against CFITSIO's own decoding: its Rice decoders on streams its
// Rice encoders wrote and on damaged ones, and whole images CFITSIO compressed read back by
// fits_read_img as the guarded CFITSIO path reads them: integers (RICE_1, GZIP_1, GZIP_2,
// HCOMPRESS_1 with and without loss, PLIO_1; 8-, 16- and 32-bit, unsigned 16-bit; tiles along
// rows, in blocks that do not divide the image, in 3-D; BLANK pixels), and floats and doubles,
// quantized (dithered both ways or not, NaN and zero pixels, ZDITHER0 near the table's end,
// tiles longer than the table) or stored without loss.
#include "fits/plain_tiles.h"

#include <fitsio.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fits/rice_decode.h"
#include "fits/rice_guard.h"
#include "fits/tile_bands.h"
#include "fits/unquantize.h"
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
// CFITSIO's table of dithering offsets (exported by libcfitsio, declared in no header).
extern float* fits_rand_value;
int fits_init_randoms(void);
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
      for (int k = 0; k < 3; ++k)
        tile[random() % tile.size()] = static_cast<std::uint8_t>(random());
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

/// Every band of `cut` decoded by decode_plain_band, each required to decode: the image's
/// `bytes` bytes, big-endian.
Bytes decode_all_bands(fitsfile* f, const Bytes& file, const PlainTiles& plain,
                       const fitsasdf::fits::TileBands& cut, std::uint64_t bytes) {
  Bytes out(bytes);
  for (long band = 0; band < cut.bands; ++band) {
    INFO("band " << band << " of " << cut.bands);
    REQUIRE(fitsasdf::fits::decode_plain_band(f, file, plain, cut, band,
                                              out.data() + cut.band_offset(band)));
  }
  return out;
}

struct ImageCase {
  int compression = RICE_1;
  int bitpix = SHORT_IMG;
  std::vector<long> axes;
  std::vector<long> tile;   // empty: CFITSIO's default, one row a tile
  bool blank = false;       // BLANK set and some pixels at it
  float hscale = 0;         // HCOMPRESS_1's scale (0: without loss)
  int hsmooth = 0;          // HCOMPRESS_1's smoothing on decoding
  bool unsigned16 = false;  // BITPIX 16 with BZERO = 32768 (written as unsigned values)
};

/// A pseudo-random image of `c` compressed by CFITSIO: the file's bytes.
Bytes write_compressed(const ImageCase& c, std::mt19937_64& random) {
  int status = 0;
  fitsasdf::test::CfitsioWriting out;
  fitsfile* f = out.f;
  fits_create_img(f, BYTE_IMG, 0, nullptr, &status);
  fits_set_compression_type(f, c.compression, &status);
  if (c.hscale != 0) fits_set_hcomp_scale(f, c.hscale, &status);
  if (c.hsmooth != 0) fits_set_hcomp_smooth(f, c.hsmooth, &status);
  if (!c.tile.empty()) {
    std::vector<long> tile = c.tile;
    fits_set_tile_dim(f, static_cast<int>(tile.size()), tile.data(), &status);
  }
  std::vector<long> axes = c.axes;
  fits_create_img(f, c.unsigned16 ? USHORT_IMG : c.bitpix, static_cast<int>(axes.size()),
                  axes.data(), &status);
  const int bytepix = c.bitpix / 8;
  long blank = bytepix == 1 ? 255 : bytepix == 2 ? -32768 : INT32_MIN;
  if (c.blank) fits_write_key(f, TLONG, "BLANK", &blank, nullptr, &status);
  std::size_t n = 1;
  for (const long a : axes) n *= static_cast<std::size_t>(a);
  auto values = sample_values(random, n, bytepix, 1 + static_cast<int>(random() % 6));
  for (auto& p : values) {
    if (bytepix == 1) p = p + 128;  // BITPIX 8 is unsigned
    // PLIO_1 holds 0 to 2^24 - 1.
    if (c.compression == PLIO_1 && !c.unsigned16) p = std::min<std::int64_t>(std::abs(p), 32767);
    if (c.blank && random() % 50 == 0) p = blank;
  }
  // Written at the image's own type (CFITSIO's compressing writer converts others badly).
  if (c.unsigned16) {
    std::vector<unsigned short> pixels(n);
    for (std::size_t i = 0; i < n; ++i) pixels[i] = static_cast<unsigned short>(values[i] + 32768);
    fits_write_img(f, TUSHORT, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  } else if (bytepix == 1) {
    std::vector<unsigned char> pixels(values.begin(), values.end());
    fits_write_img(f, TBYTE, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  } else if (bytepix == 2) {
    std::vector<short> pixels(values.begin(), values.end());
    fits_write_img(f, TSHORT, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  } else {
    std::vector<int> pixels(values.begin(), values.end());
    fits_write_img(f, TINT, 1, static_cast<LONGLONG>(n), pixels.data(), &status);
  }
  char message[FLEN_ERRMSG] = "";
  while (status != 0 && fits_read_errmsg(message) != 0) UNSCOPED_INFO(message);
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
  // HCOMPRESS_1 codes 2-D tiles (16 rows by default), with or without loss and smoothing;
  // PLIO_1 codes values from 0 (here those of 8 and 16 bits, and unsigned 16-bit images).
  for (const int bitpix : {BYTE_IMG, SHORT_IMG, LONG_IMG}) {
    cases.push_back({HCOMPRESS_1, bitpix, {300, 70}, {}, false});
    cases.push_back({HCOMPRESS_1, bitpix, {61, 47}, {16, 10}, true});
    cases.push_back({HCOMPRESS_1, bitpix, {20, 18, 3}, {20, 18, 1}, false});
    cases.push_back({PLIO_1, bitpix, {300, 70}, {}, false});
    cases.push_back({PLIO_1, bitpix, {13, 11, 9}, {5, 4, 2}, false});
    cases.push_back({PLIO_1, bitpix, {1000}, {64}, false});
  }
  cases.push_back({HCOMPRESS_1, SHORT_IMG, {200, 64}, {}, false, 2.5F, 0});
  cases.push_back({HCOMPRESS_1, SHORT_IMG, {200, 64}, {32, 32}, false, 4, 1});
  cases.push_back({HCOMPRESS_1, LONG_IMG, {200, 64}, {}, false, 4, 1});
  cases.push_back({PLIO_1, SHORT_IMG, {300, 70}, {}, false, 0, 0, true});
  cases.push_back({PLIO_1, SHORT_IMG, {61, 47}, {16, 10}, false, 0, 0, true});
  for (const ImageCase& c : cases) {
    INFO("compression " << c.compression << ", BITPIX " << c.bitpix << ", " << c.axes.size()
                        << " axes, tiles " << c.tile.size() << ", blank " << c.blank << ", scale "
                        << c.hscale << ", smooth " << c.hsmooth << ", unsigned " << c.unsigned16);
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
    const Bytes ours = decode_all_bands(f, file, *plain, cut, pixels * item);
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
  for (const int compression : {RICE_1, GZIP_1, GZIP_2, HCOMPRESS_1, PLIO_1}) {
    INFO("compression " << compression);
    // HCOMPRESS_1 codes tiles of 4 rows or more: 4 tiles a slab of 4 rows.
    const bool h = compression == HCOMPRESS_1;
    fitsasdf::test::CfitsioReading opened(
        write_compressed({compression,
                          SHORT_IMG,
                          {200, 20},
                          h ? std::vector<long>{50, 4} : std::vector<long>{},
                          false},
                         random));
    fitsfile* f = opened.f;
    Bytes& file = opened.file;
    int status = 0;
    const auto plain = fitsasdf::fits::plain_tiles(*f->Fptr, SHORT_IMG);
    REQUIRE(plain.has_value());
    const auto cut = fitsasdf::fits::cut_into_bands(*f->Fptr, std::vector<long>{200, 20}, 2, 2000);
    REQUIRE(cut.bands > 2);
    // Zero the bytes of tile 8 (its band's) after its first: a Rice run past its end, a gzip
    // stream whose checksum fails, an HCOMPRESS stream of other dimensions, a PLIO line list
    // that declares no words.
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
      const std::uint64_t slab = 7 / cut.tiles_per_slab;  // tile 8's
      const bool holds = cut.first_slab(band) <= slab && slab < cut.end_slab(band);
      const bool decoded = fitsasdf::fits::decode_plain_band(f, file, *plain, cut, band,
                                                             out.data() + cut.band_offset(band));
      CHECK(decoded == !holds);
      refused += decoded ? 0 : 1;
    }
    CHECK(refused == 1);
  }
}

TEST_CASE("plain tiles: pixels CFITSIO converts to another type are not taken", "[plain-tiles]") {
  std::mt19937_64 random(5);
  for (const int compression : {RICE_1, GZIP_2, HCOMPRESS_1, PLIO_1}) {
    // At 32 bits a pixel, read as 16: CFITSIO converts the values.
    fitsasdf::test::CfitsioReading opened(
        write_compressed({compression, LONG_IMG, {64, 64}, {}, false}, random));
    CHECK_FALSE(fitsasdf::fits::plain_tiles(*opened.f->Fptr, SHORT_IMG).has_value());
  }
}

TEST_CASE("plain tiles: a lossy HCOMPRESS value CFITSIO clips leaves its band to CFITSIO",
          "[plain-tiles]") {
  // A 16-bit image whose last tile is noise at both ends of its range, coded with loss: some
  // decoded values overshoot them, and CFITSIO clips those (silently for 16-bit pixels; 8-bit
  // ones it refuses, as funpack and astropy do).
  const std::vector<long> axes{64, 64};
  int status = 0;
  fitsasdf::test::CfitsioWriting out;
  fits_create_img(out.f, BYTE_IMG, 0, nullptr, &status);
  fits_set_compression_type(out.f, HCOMPRESS_1, &status);
  fits_set_hcomp_scale(out.f, 256, &status);
  std::vector<long> tile{64, 16};
  fits_set_tile_dim(out.f, 2, tile.data(), &status);
  std::vector<long> dims = axes;
  fits_create_img(out.f, SHORT_IMG, 2, dims.data(), &status);
  std::mt19937_64 random(41);
  std::normal_distribution<double> noise(0.0, 60.0);
  std::vector<short> pixels(64 * 64, 0);
  for (std::size_t i = 64 * 48; i < pixels.size(); ++i) {
    const double end = i % 128 < 64 ? INT16_MIN + 60.0 : INT16_MAX - 60.0;
    pixels[i] = static_cast<short>(std::clamp<double>(end + noise(random), INT16_MIN, INT16_MAX));
  }
  fits_write_img(out.f, TSHORT, 1, 64 * 64, pixels.data(), &status);
  REQUIRE(status == 0);
  fitsasdf::test::CfitsioReading opened(out.bytes());
  fitsfile* f = opened.f;
  const auto plain = fitsasdf::fits::plain_tiles(*f->Fptr, SHORT_IMG);
  REQUIRE(plain.has_value());
  const auto cut = fitsasdf::fits::cut_into_bands(*f->Fptr, axes, 2, 64 * 16 * 2);
  REQUIRE(cut.bands == 4);
  Bytes ours(64 * 64 * 2);
  Bytes theirs(64 * 64 * 2);
  fits_set_bscale(f, 1.0, 0.0, &status);
  int anynul = 0;
  fits_read_img(f, TSHORT, 1, 64 * 64, nullptr, theirs.data(), &anynul, &status);
  REQUIRE(status == 0);
  for (std::size_t i = 0; i < theirs.size(); i += 2) std::swap(theirs[i], theirs[i + 1]);
  // CFITSIO clipped some pixels to the ends of the range.
  long at_ends = 0;
  for (std::size_t i = 0; i < theirs.size(); i += 2) {
    const auto v = static_cast<std::int16_t>(theirs[i] << 8 | theirs[i + 1]);
    at_ends += v == INT16_MIN || v == INT16_MAX ? 1 : 0;
  }
  CHECK(at_ends > 0);
  for (long band = 0; band < cut.bands; ++band) {
    INFO("band " << band);
    const bool decoded = fitsasdf::fits::decode_plain_band(f, opened.file, *plain, cut, band,
                                                           ours.data() + cut.band_offset(band));
    CHECK(decoded == (band != 3));
    if (decoded) {
      const auto from = static_cast<std::ptrdiff_t>(cut.band_offset(band));
      const auto to = from + static_cast<std::ptrdiff_t>(cut.band_bytes(band));
      CHECK(std::equal(ours.begin() + from, ours.begin() + to, theirs.begin() + from));
    }
  }
}

TEST_CASE("plain tiles: the dithering table is CFITSIO's", "[plain-tiles]") {
  const float* ours = fitsasdf::fits::dither_table();
  REQUIRE(ours != nullptr);
  REQUIRE(fits_init_randoms() == 0);
  REQUIRE(std::memcmp(ours, fits_rand_value, 10000 * sizeof(float)) == 0);
}

struct FloatCase {
  int compression = RICE_1;
  int bitpix = FLOAT_IMG;
  int method = SUBTRACTIVE_DITHER_1;  // or SUBTRACTIVE_DITHER_2, NO_DITHER
  float level = 4;                    // 0: stored without loss
  int seed = 0;                       // ZDITHER0 asked for; 0: CFITSIO's choice
  std::vector<long> axes;
  std::vector<long> tile;  // empty: one row a tile
};

/// A noisy sky with NaN, exact-zero and (stored without loss) infinite and -0.0 pixels, of `c`
/// compressed by CFITSIO as fpack compresses (fits_img_compress, which marks the NaN pixels
/// ZBLANK): the file's bytes. Row `flat_row` of the first axis, if any, is one value.
Bytes write_float_compressed(const FloatCase& c, std::mt19937_64& random, long flat_row = -1) {
  int status = 0;
  std::size_t n = 1;
  for (const long a : c.axes) n *= static_cast<std::size_t>(a);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> values(n);
  const double sky = static_cast<double>(random() % 1000) - 300.0;
  for (auto& v : values) {
    const auto pick = random() % 100;
    v = pick == 0   ? std::numeric_limits<double>::quiet_NaN()
        : pick == 1 ? 0.0
        : pick == 2 ? 5000.0 * noise(random)  // a star
                    : sky + 3.0 * noise(random);
    if (c.level == 0 && pick == 3) v = -std::numeric_limits<double>::infinity();
    if (c.level == 0 && pick == 4) v = -0.0;
  }
  if (flat_row >= 0) {
    const auto width = static_cast<std::size_t>(c.axes[0]);
    std::fill_n(values.begin() + static_cast<std::ptrdiff_t>(width * flat_row), width, 12.5);
  }
  fitsasdf::test::CfitsioWriting plain;
  std::vector<long> axes = c.axes;
  fits_create_img(plain.f, c.bitpix, static_cast<int>(axes.size()), axes.data(), &status);
  fits_write_img(plain.f, TDOUBLE, 1, static_cast<LONGLONG>(n), values.data(), &status);
  fitsasdf::test::CfitsioWriting packed;
  fitsfile* f = packed.f;
  fits_create_img(f, BYTE_IMG, 0, nullptr, &status);
  fits_set_compression_type(f, c.compression, &status);
  fits_set_quantize_level(f, c.level, &status);
  if (c.level != 0) fits_set_quantize_method(f, c.method, &status);
  if (c.seed != 0) fits_set_dither_seed(f, c.seed, &status);
  if (!c.tile.empty()) {
    std::vector<long> tile = c.tile;
    fits_set_tile_dim(f, static_cast<int>(tile.size()), tile.data(), &status);
  }
  fits_img_compress(plain.f, f, &status);
  REQUIRE(status == 0);
  return packed.bytes();
}

TEST_CASE("plain tiles: compressed float images decode as CFITSIO reads them", "[plain-tiles]") {
  std::mt19937_64 random(17);
  std::vector<FloatCase> cases;
  for (const int bitpix : {FLOAT_IMG, DOUBLE_IMG}) {
    for (const int compression : {RICE_1, GZIP_1, GZIP_2, HCOMPRESS_1}) {
      // HCOMPRESS_1 codes 2-D tiles of 4 pixels or more each way (and dithers only one way).
      const bool h = compression == HCOMPRESS_1;
      for (const int method : {SUBTRACTIVE_DITHER_1, SUBTRACTIVE_DITHER_2, NO_DITHER}) {
        if (h && method == SUBTRACTIVE_DITHER_2) continue;
        cases.push_back({compression, bitpix, method, 4, 0, {300, 40}, {}});
        cases.push_back({compression, bitpix, method, 16, 9990, {61, 47}, {16, 10}});
        cases.push_back({compression, bitpix, method, -0.01F, 7,
                         h ? std::vector<long>{20, 18, 3} : std::vector<long>{13, 11, 9},
                         h ? std::vector<long>{8, 6, 1} : std::vector<long>{5, 4, 2}});
      }
      if (h) continue;
      // Tiles of more pixels than the table has values: the walk through it starts again.
      cases.push_back({compression, bitpix, SUBTRACTIVE_DITHER_1, 4, 10000, {12000, 3}, {}});
    }
    for (const int compression : {GZIP_1, GZIP_2}) {
      cases.push_back({compression, bitpix, 0, 0, 0, {300, 40}, {}});
      cases.push_back({compression, bitpix, 0, 0, 0, {17, 6, 5}, {17, 6, 2}});
    }
  }
  for (const FloatCase& c : cases) {
    INFO("compression " << c.compression << ", BITPIX " << c.bitpix << ", method " << c.method
                        << ", level " << c.level << ", seed " << c.seed << ", " << c.axes.size()
                        << " axes");
    fitsasdf::test::CfitsioReading opened(write_float_compressed(c, random));
    fitsfile* f = opened.f;
    int status = 0;
    const auto plain = fitsasdf::fits::plain_tiles(*f->Fptr, c.bitpix);
    REQUIRE(plain.has_value());
    CHECK(plain->quantized.has_value() == (c.level != 0));
    const auto item = static_cast<std::uint64_t>(-c.bitpix / 8);
    const auto cut = fitsasdf::fits::cut_into_bands(*f->Fptr, c.axes, item, 20000);
    std::uint64_t pixels = 1;
    for (const long a : c.axes) pixels *= static_cast<std::uint64_t>(a);
    const Bytes ours = decode_all_bands(f, opened.file, *plain, cut, pixels * item);
    // The guarded path's reading: a NaN of every bit set for the undefined pixels of a
    // quantized image, no null value for one stored without loss.
    Bytes theirs(pixels * item);
    fits_set_bscale(f, 1.0, 0.0, &status);
    auto float_nan = std::bit_cast<float>(~std::uint32_t{0});
    auto double_nan = std::bit_cast<double>(~std::uint64_t{0});
    void* null_value = c.level == 0            ? nullptr
                       : c.bitpix == FLOAT_IMG ? static_cast<void*>(&float_nan)
                                               : static_cast<void*>(&double_nan);
    int anynul = 0;
    fits_read_img(f, c.bitpix == FLOAT_IMG ? TFLOAT : TDOUBLE, 1, static_cast<LONGLONG>(pixels),
                  null_value, theirs.data(), &anynul, &status);
    REQUIRE(status == 0);
    std::uint64_t undefined = 0;  // NaN pixels (of every bit set, when quantized)
    for (std::uint64_t i = 0; i < pixels; ++i) {
      const auto at = theirs.begin() + static_cast<std::ptrdiff_t>(i * item);
      std::reverse(at, at + static_cast<std::ptrdiff_t>(item));
      const bool all_set = std::all_of(at, at + static_cast<std::ptrdiff_t>(item),
                                       [](std::uint8_t b) { return b == 0xff; });
      const bool nan = (at[0] & 0x7f) == 0x7f && (at[1] & 0xf0) != 0 &&
                       std::any_of(at + 1, at + static_cast<std::ptrdiff_t>(item),
                                   [](std::uint8_t b) { return b != 0; });
      undefined += (c.level != 0 ? all_set : nan) ? 1 : 0;
    }
    CHECK(undefined > 0);
    REQUIRE(ours == theirs);
  }
}

TEST_CASE("plain tiles: a float tile CFITSIO could not quantize leaves its band to CFITSIO",
          "[plain-tiles]") {
  // fpack stores a tile it cannot quantize (here: one value throughout) without loss, gzipped
  // into a column of its own; its COMPRESSED_DATA is empty.
  std::mt19937_64 random(29);
  for (const int compression : {RICE_1, GZIP_1, GZIP_2}) {
    INFO("compression " << compression);
    Bytes bytes = write_float_compressed(
        {compression, FLOAT_IMG, SUBTRACTIVE_DITHER_1, 4, 0, {200, 20}, {}}, random, 7);
    fitsasdf::test::CfitsioReading opened(std::move(bytes));
    fitsfile* f = opened.f;
    const auto plain = fitsasdf::fits::plain_tiles(*f->Fptr, FLOAT_IMG);
    REQUIRE(plain.has_value());
    REQUIRE(f->Fptr->cn_gzip_data > 0);
    const auto cut = fitsasdf::fits::cut_into_bands(*f->Fptr, std::vector<long>{200, 20}, 4, 4000);
    REQUIRE(cut.bands > 2);
    Bytes out(200 * 20 * 4);
    long refused = 0;
    for (long band = 0; band < cut.bands; ++band) {
      const bool holds = cut.first_slab(band) <= 7 && 7 < cut.end_slab(band);
      const bool decoded = fitsasdf::fits::decode_plain_band(f, opened.file, *plain, cut, band,
                                                             out.data() + cut.band_offset(band));
      CHECK(decoded == !holds);
      refused += decoded ? 0 : 1;
    }
    CHECK(refused == 1);
  }
}

}  // namespace
