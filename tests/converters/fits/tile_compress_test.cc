// Tile compression of an image for ASDF to FITS (src/fits/tile_compress.h). CFITSIO 4.2's PLIO_1
// writer leaks a tile's buffer on a value outside 0 to 2^24 - 1 (such images are compressed with
// RICE_1 instead), and its PLIO_1 and HCOMPRESS_1 writers wrote past a buffer sized too small for
// data that compress badly (fuzz finding 19; the buffer is now widened): the same values come
// back in every case.
#include "fits/tile_compress.h"

#include <fitsio.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "support/catch.h"
#include "support/fits_builder.h"

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

TEST_CASE("PLIO_1 images with values outside 0 to 2^24 - 1 are compressed with RICE_1 instead",
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
  SECTION("32-bit values up to and past 2^24 - 1") {
    check_round_trip<std::int32_t>(32, TINT, {0, 1, 2, 16777216}, {},
                                   "pixel 3 (FITS order) is 16777216");
    std::vector<std::int32_t> edges(40, 0);
    std::fill(edges.begin() + 10, edges.begin() + 30, 16777215);
    check_round_trip<std::int32_t>(32, TINT, edges, {}, "");
  }
}

TEST_CASE("PLIO_1 tiles whose line list outgrows CFITSIO's buffer stay PLIO_1 and come back",
          "[tile_compress][plio]") {
  // CFITSIO allots 4 bytes a pixel; a list takes up to 6 (a value step past 4095 takes 2 words,
  // its run 1), and pl_p2li wrote past the buffer (fuzz finding 19).
  check_round_trip<std::int16_t>(16, TSHORT, {0, 1, 300, 32767}, {}, "");  // 24 bytes of 16
  std::vector<std::int32_t> jumps;
  for (int i = 1; i <= 64; ++i) jumps.push_back(5000 * i);
  check_round_trip<std::int32_t>(32, TINT, jumps, {}, "");
  std::vector<std::int16_t> alternating;
  for (int i = 0; i < 1000; ++i)
    alternating.push_back(static_cast<std::int16_t>(i % 2 ? 0 : 9000 + i));
  check_round_trip<std::int16_t>(16, TSHORT, alternating, {}, "");
}

TEST_CASE("HCOMPRESS_1 compresses noise in small tiles without loss", "[tile_compress]") {
  // CFITSIO allots 2.2 bytes a pixel and 26 more (4.4 for 32-bit images) to a tile; noise in
  // small tiles takes more: its encoder wrote past the buffer (valgrind: invalid writes in
  // fits_hcompress), then refused the image ("encode: output buffer too small").
  std::mt19937 random(20261125);
  TileCompression hcompress;
  hcompress.type = "HCOMPRESS_1";
  hcompress.hcomp_scale = 0.0f;
  for (const long size : {4L, 8L, 12L}) {
    INFO(size << " x " << size << " tiles of a 24 x 24 image");
    hcompress.tile = {size, size};
    std::vector<std::int16_t> shorts(24 * 24);
    for (auto& v : shorts) v = static_cast<std::int16_t>(random());
    auto made = compress_image(16, {24, 24}, big_endian(shorts), {}, hcompress, {});
    CHECK(algorithm(made.hdu) == "HCOMPRESS_1");
    CHECK(read_back<std::int16_t>(made.hdu, TSHORT, shorts.size()) == shorts);
    std::vector<std::int32_t> ints(24 * 24);
    for (auto& v : ints) v = static_cast<std::int32_t>(random());
    made = compress_image(32, {24, 24}, big_endian(ints), {}, hcompress, {});
    CHECK(read_back<std::int32_t>(made.hdu, TINT, ints.size()) == ints);
    std::vector<std::uint8_t> bytes(24 * 24);
    for (auto& v : bytes) v = static_cast<std::uint8_t>(random());
    made = compress_image(8, {24, 24}, bytes, {}, hcompress, {});
    CHECK(read_back<std::uint8_t>(made.hdu, TBYTE, bytes.size()) == bytes);
  }
}

}  // namespace

TEST_CASE("a table to compress must keep its variable-length arrays inside its heap",
          "[tile_compress][error]") {
  using namespace fitsasdf::test::fits_builder;
  // 300 rows of a PJ column (row r holds r % 4 values) and a J column: over 2 blocks, so that
  // CFITSIO compresses it rather than copying it.
  std::string heap;
  std::vector<std::int32_t> at;
  for (int r = 0; r < 300; ++r) {
    at.push_back(static_cast<std::int32_t>(heap.size()));
    for (int i = 0; i < r % 4; ++i)
      heap += fitsasdf::test::fits_builder::big_endian<std::int32_t>(r + i);
  }
  const auto table = [&](std::size_t row, std::int32_t length, std::int32_t offset) {
    std::string rows;
    for (std::size_t r = 0; r < 300; ++r) {
      const bool lie = r == row;
      rows += fitsasdf::test::fits_builder::big_endian<std::int32_t>(
                  lie ? length : static_cast<std::int32_t>(r % 4)) +
              fitsasdf::test::fits_builder::big_endian<std::int32_t>(lie ? offset : at[r]) +
              fitsasdf::test::fits_builder::big_endian<std::int32_t>(static_cast<std::int32_t>(r));
    }
    std::vector<std::string> cards =
        table_cards("BINTABLE", 12, 300, static_cast<long long>(heap.size()), 2);
    for (const auto& c : {text("TTYPE1", "v"), text("TFORM1", "1PJ(3)"), text("TTYPE2", "n"),
                          text("TFORM2", "1J")}) {
      cards.push_back(c);
    }
    const std::string bytes = hdu(cards, rows + heap);
    return Bytes(bytes.begin(), bytes.end());
  };
  const asdfcore::ErrorContext where{};
  // Sound: compressed (the rows of tiles hold the heap's arrays too).
  const Bytes packed = fitsasdf::fits::compress_table(table(301, 0, 0), 0, where);
  CHECK(std::string(packed.begin(), packed.begin() + 2880).find("ZTABLE  =") != std::string::npos);
  const auto refused = [&](std::int32_t length, std::int32_t offset, const std::string& part) {
    try {
      fitsasdf::fits::compress_table(table(7, length, offset), 0, where);
      FAIL("no error");
    } catch (const asdfcore::Error& e) {
      INFO(e.what());
      CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
      CHECK(std::string(e.what()).find(part) != std::string::npos);
    }
  };
  const std::string row8 = "row 8 of variable-length column 1 declares ";
  // 2^30 elements: CFITSIO 4.2 allocated 4 GB and half as much again before its read failed.
  refused(1 << 30, 0, row8 + "1073741824 elements at byte 0 of the heap, outside its");
  refused(3, static_cast<std::int32_t>(heap.size()) - 8, row8 + "3 elements at byte");
  refused(1, -100, row8 + "1 elements at byte 4294967196");  // CFITSIO reads P offsets unsigned
  refused(-2, 0, row8 + "4294967294 elements");              // and lengths
}
