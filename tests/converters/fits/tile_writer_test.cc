// Tile-compressed images made band by band (src/fits/tile_writer.h) are byte for byte the HDU
// CFITSIO makes from the whole image (`compress_image`), whatever the algorithm, pixel type,
// tile shape, number of threads, size of the pieces the pixels come in, and whether the heap
// waited in memory or in a temporary file.
#include "fits/tile_writer.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fits/tile_compress.h"
#include "support/catch.h"
#include "support/fits_builder.h"

namespace {

using fitsasdf::fits::BandedImage;
using fitsasdf::fits::BandSettings;
using fitsasdf::fits::ByteSink;
using fitsasdf::fits::compress_image;
using fitsasdf::fits::compress_image_banded;
using fitsasdf::fits::PixelFeed;
using fitsasdf::fits::SpillBuffer;
using fitsasdf::fits::TileCompression;
using Bytes = std::vector<std::uint8_t>;
using fitsasdf::test::fits_builder::card;

/// `count` big-endian stored values of BITPIX `bitpix`: a slope with noise (integers within
/// 0 to 60000 offset by `low`, which compress), or random floats.
Bytes pixels(int bitpix, std::size_t count, long long low, unsigned seed) {
  std::mt19937_64 random(seed);
  const std::size_t size = static_cast<std::size_t>(std::abs(bitpix) / 8);
  Bytes out(count * size);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t bits = 0;
    const long long value = low + static_cast<long long>((i * 7) % 3000 + random() % 40);
    switch (bitpix) {
      case 8: bits = static_cast<std::uint8_t>(value); break;
      case 16: bits = static_cast<std::uint16_t>(value); break;
      case 32: bits = static_cast<std::uint32_t>(value); break;
      case -32: bits = std::bit_cast<std::uint32_t>(static_cast<float>(value) * 0.37f); break;
      case -64: bits = std::bit_cast<std::uint64_t>(static_cast<double>(value) * 1e-3); break;
      default: bits = static_cast<std::uint64_t>(value); break;
    }
    for (std::size_t b = 0; b < size; ++b) {
      out[i * size + b] = static_cast<std::uint8_t>(bits >> (8 * (size - 1 - b)));
    }
  }
  return out;
}

/// A feed of `bytes` in pieces of `piece` bytes, counting how often it is read.
PixelFeed feed_of(const Bytes& bytes, std::size_t piece, int* reads) {
  return [&bytes, piece, reads](const ByteSink& out) {
    ++*reads;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
      out(std::span<const std::uint8_t>(bytes).subspan(at, std::min(piece, bytes.size() - at)));
    }
  };
}

/// The banded image as one HDU: header, data area, zeros to whole FITS blocks.
Bytes whole(const BandedImage& image) {
  Bytes out(image.header.begin(), image.header.end());
  image.write_data([&out](std::span<const std::uint8_t> piece) {
    out.insert(out.end(), piece.begin(), piece.end());
  });
  out.resize((out.size() + 2879) / 2880 * 2880, 0);
  return out;
}

/// The 80 bytes around `at` in `bytes`, for messages.
std::string card_at(const Bytes& bytes, std::ptrdiff_t at) {
  const std::size_t from = std::min(bytes.size(), static_cast<std::size_t>(at) / 80 * 80);
  return std::string(bytes.begin() + static_cast<std::ptrdiff_t>(from),
                     bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), from + 80)));
}

struct Case {
  std::string name;
  int bitpix;
  std::vector<long> naxes;
  TileCompression params;
  std::vector<std::string> cards;
  long long low = 0;
};

TileCompression with(const std::string& type, std::vector<long> tile = {}) {
  TileCompression p;
  p.type = type;
  p.tile = std::move(tile);
  return p;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const int bitpix : {8, 16, 32}) {
    const std::string b = std::to_string(bitpix);
    all.push_back({"RICE_1 rows " + b, bitpix, {97, 61}, with("RICE_1"), {}});
    all.push_back({"RICE_1 16x5 tiles " + b, bitpix, {97, 61}, with("RICE_1", {16, 5}), {}});
    all.push_back({"GZIP_1 3-d tiles " + b, bitpix, {13, 11, 9}, with("GZIP_1", {5, 4, 2}), {}});
    all.push_back({"GZIP_2 1-d tiles " + b, bitpix, {1000}, with("GZIP_2", {100}), {}});
    all.push_back({"PLIO_1 30x7 tiles " + b, bitpix, {97, 61}, with("PLIO_1", {30, 7}), {}});
    all.push_back({"HCOMPRESS_1 " + b, bitpix, {64, 40}, with("HCOMPRESS_1", {16, 8}), {}});
    all.push_back({"NOCOMPRESS " + b, bitpix, {40, 30}, with("NOCOMPRESS", {40, 3}), {}});
  }
  all.push_back({"RICE_1 unsigned 16-bit", 16, {97, 61}, with("RICE_1"),
                 {card("BZERO", "32768"), card("BLANK", "-32768")}, -32768});
  all.push_back({"PLIO_1 unsigned 16-bit", 16, {50, 20}, with("PLIO_1"), {card("BZERO", "32768")},
                 -32768});
  all.push_back({"GZIP_2 float32", -32, {97, 61}, with("GZIP_2", {97, 4}), {}});
  all.push_back({"GZIP_1 float64", -64, {31, 17, 3}, with("GZIP_1"), {}});
  all.push_back({"NOCOMPRESS float32", -32, {20, 20}, with("NOCOMPRESS"), {}});
  all.push_back({"GZIP_2 int64", 64, {50, 20}, with("GZIP_2"), {}});
  return all;
}

}  // namespace

TEST_CASE("images compressed band by band are the bytes CFITSIO makes from the whole image",
          "[tile_writer]") {
  int checked = 0;
  for (const Case& c : cases()) {
    std::size_t count = 1;
    for (const long n : c.naxes) count *= static_cast<std::size_t>(n);
    const Bytes values = pixels(c.bitpix, count, c.low, static_cast<unsigned>(count));
    Bytes expected;
    std::string expected_error;
    std::string expected_substitution;
    try {
      const auto made = compress_image(c.bitpix, c.naxes, values, c.cards, c.params, {});
      expected = made.hdu;
      expected_substitution = made.substitution;
    } catch (const asdfcore::Error& e) {
      expected_error = e.what();
    }
    // Bands of one slab and of several; pieces that end inside a pixel and span bands; the heap
    // in memory and in a file.
    for (const std::size_t band_bytes : {std::size_t{1}, std::size_t{700}}) {
      for (const unsigned threads : {1u, 3u}) {
        for (const std::size_t piece : {std::size_t{7}, std::size_t{1} << 20}) {
          INFO(c.name << ", bands of " << band_bytes << " bytes, " << threads
                      << " threads, pieces of " << piece);
          BandSettings settings;
          settings.band_bytes = band_bytes;
          settings.heap_in_memory = piece == 7 ? 100 : std::size_t{1} << 20;
          int reads = 0;
          try {
            const auto banded = compress_image_banded(c.bitpix, c.naxes, feed_of(values, piece, &reads),
                                                      c.cards, c.params, threads, {}, settings);
            REQUIRE(expected_error.empty());
            REQUIRE(banded.has_value());
            CHECK(reads == 1);
            CHECK(banded->substitution == expected_substitution);
            CHECK(banded->heap.spilled() == (piece == 7 && banded->heap.size() > 100));
            const Bytes made = whole(*banded);
            REQUIRE(made.size() == expected.size());
            const auto differ = std::mismatch(made.begin(), made.end(), expected.begin());
            INFO("first difference at byte " << (differ.first - made.begin()) << " of "
                                             << made.size() << ", header "
                                             << banded->header.size() << ": "
                                             << card_at(made, differ.first - made.begin())
                                             << " against "
                                             << card_at(expected, differ.first - made.begin()));
            CHECK(differ.first == made.end());
          } catch (const asdfcore::Error& e) {
            CHECK(std::string(e.what()) == expected_error);
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked == static_cast<int>(cases().size()) * 8);
}

TEST_CASE("a PLIO_1 value out of range in a late band makes the whole image RICE_1, as whole",
          "[tile_writer][plio]") {
  const std::vector<long> naxes{64, 50};
  Bytes values = pixels(16, 64 * 50, 0, 5);
  values[2 * (64 * 41 + 9)] = 0x80;  // pixel 2633 becomes negative
  const std::vector<std::string> cards;
  const auto made = compress_image(16, naxes, values, cards, with("PLIO_1"), {});
  REQUIRE(made.substitution.find("pixel 2633 (FITS order)") != std::string::npos);
  for (const unsigned threads : {1u, 2u}) {
    BandSettings settings;
    settings.band_bytes = 1000;
    int reads = 0;
    const auto banded = compress_image_banded(16, naxes, feed_of(values, 333, &reads), cards,
                                              with("PLIO_1"), threads, {}, settings);
    REQUIRE(banded.has_value());
    CHECK(reads == 2);  // read again for RICE_1
    CHECK(banded->substitution == made.substitution);
    CHECK(whole(*banded) == made.hdu);
  }
}

TEST_CASE("images not cut into bands are left to the whole-image compressor, unread",
          "[tile_writer]") {
  const Bytes values = pixels(16, 100 * 40, 0, 1);
  int reads = 0;
  BandSettings settings;
  settings.slab_limit = 1000;  // one 100 x 40 tile is 8000 bytes
  CHECK_FALSE(compress_image_banded(16, {100, 40}, feed_of(values, 100, &reads), {},
                                    with("RICE_1", {100, 40}), 1, {}, settings));
  CHECK_FALSE(compress_image_banded(16, {}, feed_of(values, 100, &reads), {}, with("RICE_1"), 1,
                                    {}, {}));
  CHECK_FALSE(compress_image_banded(16, {0, 40}, feed_of(values, 100, &reads), {},
                                    with("RICE_1"), 1, {}, {}));
  CHECK(reads == 0);
}

TEST_CASE("pixels that do not fill the axes exactly are refused as the whole-image path does",
          "[tile_writer]") {
  const Bytes values = pixels(16, 100 * 40, 0, 1);
  for (const std::size_t size : {std::size_t{100 * 40 * 2 - 2}, std::size_t{100 * 40 * 2 + 6}}) {
    Bytes some(size, 0);
    std::copy_n(values.begin(), std::min(size, values.size()), some.begin());
    int reads = 0;
    const std::string expected = "the image holds " + std::to_string(size) +
                                 " bytes, not the 8000 its axes need";
    REQUIRE_THROWS_WITH(compress_image(16, {100, 40}, some, {}, with("RICE_1"), {}),
                        Catch::Contains(expected));
    REQUIRE_THROWS_WITH(compress_image_banded(16, {100, 40}, feed_of(some, 999, &reads), {},
                                              with("RICE_1"), 2, {}, {}),
                        Catch::Contains(expected));
  }
}

TEST_CASE("a spill buffer keeps its bytes in memory, then in an unnamed file", "[tile_writer]") {
  SpillBuffer buffer(10, {});
  const Bytes first{1, 2, 3, 4, 5, 6};
  buffer.append(first);
  CHECK_FALSE(buffer.spilled());
  buffer.append(first);
  CHECK(buffer.spilled());
  CHECK(buffer.size() == 12);
  Bytes back;
  buffer.read_all([&back](std::span<const std::uint8_t> p) { back.insert(back.end(), p.begin(), p.end()); });
  CHECK(back == Bytes{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
}

TEST_CASE("a spill buffer that cannot make its file says where it tried", "[tile_writer]") {
  const char* saved = std::getenv("TMPDIR");
  const std::string old = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", "/nonexistent/fitsasdf-spill", 1);
  SpillBuffer buffer(4, asdfcore::ErrorContext{.file = "in.asdf"});
  buffer.append(Bytes{1, 2});
  try {
    buffer.append(Bytes{1, 2, 3});
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    CHECK(e.code() == asdfcore::ErrorCode::kIo);
    CHECK_THAT(e.what(), Catch::Contains("/nonexistent/fitsasdf-spill") &&
                             Catch::Contains("in.asdf"));
  }
  if (saved != nullptr) {
    ::setenv("TMPDIR", old.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
}

TEST_CASE("a tile-compressed image of no pixels is refused, not handed to CFITSIO",
          "[tile_writer]") {
  // CFITSIO 4.2 divides by the empty axis when it lays out the tiles: SIGFPE.
  try {
    compress_image(16, {40, 0}, {}, {}, with("RICE_1"), asdfcore::ErrorContext{.hdu = 3});
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
    CHECK_THAT(e.what(), Catch::Contains("needs pixels: its NAXIS2 is 0") &&
                             Catch::Contains("HDU 3"));
  }
}
