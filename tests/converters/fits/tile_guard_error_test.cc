// The check of every tile before CFITSIO decompresses a tile-compressed image
// (src/fits/tile_guard.h): gzip streams cut short or inflating past their tile, and HCOMPRESS
// streams whose dimensions are not the tile's, are refused with an error.
#include <zlib.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "fits/hcompress_guard.h"
#include "fits/plio_guard.h"
#include "fits/tile_guard.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/converted.h"
#include "support/fits_builder.h"
#include "support/run.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using asdfcore::ErrorCode;
using fitsasdf::fits::gzip_tile_problem;
using fitsasdf::fits::hcompress_tile_problem;
using Bytes = std::vector<std::uint8_t>;
using namespace fitsasdf::test::fits_builder;

Bytes gzip(const Bytes& data, int window_bits = 15 + 16) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  Bytes out(deflateBound(&z, data.size()) + 32);
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

bool says(const std::optional<std::string>& problem, const std::string& part) {
  return problem && problem->find(part) != std::string::npos;
}

/// The value `fpacked` gives the pixel at column `x`, row `y`.
int pixel_value(int x, int y) { return 1000 + 7 * x - 3 * y + (x * y) % 13; }

/// An int16 image of `nx` x `ny` (a smooth ramp with some texture), compressed by fpack with
/// `options` (and `more_cards` after NAXIS2); returns the .fz file's bytes.
std::string fpacked(const fitsasdf::test::TempDir& dir, int nx, int ny,
                    const std::vector<std::string>& options,
                    const std::vector<std::string>& more_cards = {}) {
  std::string pixels;
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      pixels += big_endian<std::int16_t>(static_cast<std::int16_t>(pixel_value(x, y)));
    }
  }
  const fs::path plain = dir / "plain.fits";
  std::vector<std::string> cards{card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 2),
                                 num("NAXIS1", nx), num("NAXIS2", ny)};
  cards.insert(cards.end(), more_cards.begin(), more_cards.end());
  std::ofstream(plain, std::ios::binary) << hdu(cards, pixels);
  const fs::path packed = dir / "packed.fits.fz";
  fs::remove(packed);
  std::vector<std::string> argv{"fpack"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-O", packed.string(), plain.string()});
  const auto r = fitsasdf::test::run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::ifstream in(packed, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// Where the compressed HDU's data (its descriptors, then its heap) starts in `fz`.
struct Layout {
  std::size_t data = 0;
  std::size_t heap = 0;
  std::size_t row = 0;  ///< NAXIS1: the bytes of one row of descriptors
};

Layout layout_of(const std::string& fz) {
  std::size_t at = 2880;  // fpack writes an empty primary of one block
  REQUIRE(fz.compare(at, 8, "XTENSION") == 0);
  long long naxis1 = 0, naxis2 = 0;
  std::size_t pos = at;
  for (;; pos += 80) {
    const std::string card = fz.substr(pos, 80);
    if (card.starts_with("NAXIS1  =")) naxis1 = std::stoll(card.substr(10, 20));
    if (card.starts_with("NAXIS2  =")) naxis2 = std::stoll(card.substr(10, 20));
    if (card.starts_with("END     ")) break;
  }
  Layout l;
  l.data = (pos / 2880 + 1) * 2880;
  l.heap = l.data + static_cast<std::size_t>(naxis1 * naxis2);
  l.row = static_cast<std::size_t>(naxis1);
  return l;
}

std::uint32_t read_be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | static_cast<std::uint8_t>(s[at + i]);
  return v;
}

void write_be32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) s[at + i] = static_cast<char>(v & 0xff);
}

/// Write `bytes` to `dir`/in.fits.fz and convert it to `dir`/out.asdf (removed first).
fitsasdf::ConversionReport convert(const fitsasdf::test::TempDir& dir, const std::string& bytes) {
  const fs::path in = dir / "in.fits.fz";
  std::ofstream(in, std::ios::binary) << bytes;
  fitsasdf::ConvertOptions options;
  options.durable = false;
  fs::remove(dir / "out.asdf");
  return fitsasdf::convert_fits_to_asdf(in.string(), (dir / "out.asdf").string(), options);
}

/// Expect converting `bytes` to fail quickly with an error of `code` (a compression error unless
/// said) holding `part`, leaving no output behind.
void expect_refused(const fitsasdf::test::TempDir& dir, const std::string& bytes,
                    const std::string& part, ErrorCode code = ErrorCode::kCompression) {
  const auto start = std::chrono::steady_clock::now();
  try {
    convert(dir, bytes);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK(std::string(e.what()).find(part) != std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_FALSE(fs::exists(dir / "out.asdf"));
}

}  // namespace

TEST_CASE("gzip tiles must be one whole stream within their tile's size", "[tile_guard]") {
  Bytes pixels(2000);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<std::uint8_t>(i * 7 % 251);
  const Bytes stream = gzip(pixels);
  CHECK_FALSE(gzip_tile_problem(stream, pixels.size()));
  SECTION("cut anywhere: refused (CFITSIO would grow its buffer without end)") {
    for (std::size_t n = 0; n < stream.size(); ++n) {
      INFO(n);
      const Bytes cut(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(n));
      const auto problem = gzip_tile_problem(cut, pixels.size());
      REQUIRE(problem);
      // The trailer's CRC or length cut off reads as damaged or cut short: refused either way.
      CHECK((says(problem, "cut short") || says(problem, "damaged")));
    }
  }
  SECTION("more output than the tile can hold: refused") {
    CHECK(says(gzip_tile_problem(stream, pixels.size() - 1), "inflates past the 1999 bytes"));
    const Bytes bomb = gzip(Bytes(50u << 20));
    CHECK(says(gzip_tile_problem(bomb, 8 * 1024), "inflates past"));
  }
  SECTION("damage, another format, bytes after the end") {
    Bytes flipped = stream;
    flipped[flipped.size() - 6] ^= 0xff;  // the CRC
    CHECK(says(gzip_tile_problem(flipped, pixels.size()), "damaged"));
    CHECK(says(gzip_tile_problem(gzip(pixels, 15), pixels.size()), "damaged"));  // zlib, not gzip
    Bytes trailing = stream;
    trailing.insert(trailing.end(), 100, 0xab);  // CFITSIO stops at the stream's end too
    CHECK_FALSE(gzip_tile_problem(trailing, pixels.size()));
  }
}

TEST_CASE("HCOMPRESS tiles must declare their tile's dimensions", "[tile_guard]") {
  const auto header = [](std::int32_t nx, std::int32_t ny) {
    Bytes h{0xDD, 0x99};
    for (const std::int32_t v : {nx, ny, 0}) {
      for (int shift = 24; shift >= 0; shift -= 8)
        h.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> shift));
    }
    h.resize(40, 0);
    return h;
  };
  CHECK_FALSE(hcompress_tile_problem(header(16, 64), 1024));
  CHECK(says(hcompress_tile_problem(header(27, 64), 1024), "27 x 64 pixels for a tile of 1024"));
  CHECK(says(hcompress_tile_problem(header(-16, -64), 1024), "-16 x -64"));
  CHECK(says(hcompress_tile_problem(header(0, 64), 1024), "0 x 64"));
  // 16 x 268435520 overflows a 32-bit product to 1024.
  CHECK(hcompress_tile_problem(header(16, 268435520), 1024));
  const Bytes sound = header(16, 64);
  CHECK(says(hcompress_tile_problem(Bytes(sound.begin(), sound.begin() + 13), 1024),
             "shorter than an HCOMPRESS header"));
  Bytes magic = sound;
  magic[0] = 0;
  CHECK(says(hcompress_tile_problem(magic, 1024), "does not start as HCOMPRESS"));
}

TEST_CASE("PLIO line lists must keep CFITSIO's reader inside their words", "[tile_guard]") {
  // A list for a row of 64 pixels of value 1000: header (length 10), the value set to 1000
  // (opcode 1, its high bits in the next word), 64 pixels of it (opcode 4).
  using fitsasdf::fits::plio_tile_problem;
  const std::vector<std::int16_t> sound{0, 7, -100, 10, 0, 0, 0, 4096 + 1000 % 4096, 0, 16384 + 64};
  CHECK_FALSE(plio_tile_problem(sound, 64));
  CHECK_FALSE(plio_tile_problem(sound, 0));
  // The reader stops once the tile's pixels are covered: a longer list is not read further.
  std::vector<std::int16_t> v = sound;
  v[3] = 400;
  CHECK_FALSE(plio_tile_problem(v, 64));
  CHECK(says(plio_tile_problem(v, 65), "read word 11 of 10 words"));
  v[3] = 11;  // a tile of 100 pixels: the list ends after 64, and declares one word more
  CHECK(says(plio_tile_problem(v, 100), "read word 11 of 10 words"));
  v = sound;
  v[2] = 30000;  // first version: the length in word 3, instructions from word 4
  CHECK(says(plio_tile_problem(v, 100), "read word 11 of 10 words"));
  v = sound;
  v[1] = -5;  // instructions before the list
  CHECK(says(plio_tile_problem(v, 64), "read word -4 of 10 words"));
  v = sound;
  v[3] = 0;
  CHECK(says(plio_tile_problem(v, 64), "declares a length of 0 words"));
  v[4] = -1;
  CHECK(says(plio_tile_problem(v, 64), "declares a length of -32768 words"));
  v = sound;
  v[3] = 8;  // the list ends on the value's opcode: its high bits are word 9, read all the same
  CHECK(says(plio_tile_problem({v.data(), 8}, 64), "last instruction makes CFITSIO read word 9"));
  CHECK(says(plio_tile_problem({v.data(), 4}, 64), "4 words are too few"));
  CHECK(says(plio_tile_problem({v.data(), 2}, 64), "2 words are too few"));
}

TEST_CASE("the image tile check uses the parameters CFITSIO parsed, not the cards read again",
          "[tile_guard]") {
  // Fuzz finding 21: a PLIO_1 image whose header gives ZNAXIS = 2, then ZNAXIS = 32 (a mutated
  // ZVAL1 card), and whose tile 2 declares 1,308,623,066 words. CFITSIO read ZNAXIS = 2 and
  // allocated 2.6 GB for that tile; a second look-up of ZNAXIS found 32, no ZNAXIS3, and the
  // check gave up. The header walk refuses the duplicate now (header_guard_error_test.cc); here
  // CFITSIO opens the file directly, without it, and the tile check still sees CFITSIO's 2 axes.
  const fs::path file = fs::path(FITSASDF_TEST_DATA_DIR) / ".." / "fuzz" / "regressions" /
                        "fits_to_asdf" / "znaxis-duplicate-plio-descriptor";
  REQUIRE(fs::exists(file));
  fitsfile* in = nullptr;
  int status = 0;
  fits_open_diskfile(&in, file.c_str(), READONLY, &status);
  REQUIRE(status == 0);
  int type = 0;
  fits_movabs_hdu(in, 2, &type, &status);
  REQUIRE(status == 0);
  CHECK(in->Fptr->zndim == 2);
  try {
    fitsasdf::fits::check_image_tiles(in, asdfcore::ErrorContext{.file = file.string(), .hdu = 2});
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(says(e.what(), "tile 2 of the compressed image declares 1308623066 bytes"));
  }
  fits_close_file(in, &status);
}

TEST_CASE("fpack's images pass the tile checks, and damaged tiles are refused quickly",
          "[tile_guard][error]") {
  fitsasdf::test::TempDir dir;
  SECTION("GZIP_1 and GZIP_2, with tiles clipped at the edges") {
    for (const std::vector<std::string>& options :
         {std::vector<std::string>{"-g"}, {"-g2", "-t", "30,20"}}) {
      const std::string fz = fpacked(dir, 64, 48, options);
      CHECK(convert(dir, fz).hdus.size() == 2);
      // Tile 2's descriptor keeps only part of its bytes: the stream is cut short.
      std::string cut = fz;
      const Layout l = layout_of(fz);
      const std::uint32_t length = read_be32(cut, l.data + 8);
      write_be32(cut, l.data + 8, length - 9);
      expect_refused(dir, cut, "tile 2 of the GZIP_");
    }
  }
  SECTION("HCOMPRESS_1, lossless and lossy, with tiles clipped at the edges") {
    for (const std::vector<std::string>& options :
         {std::vector<std::string>{"-h"}, {"-h", "-s", "4", "-t", "30,20"}}) {
      const std::string fz = fpacked(dir, 64, 48, options);
      CHECK(convert(dir, fz).hdus.size() == 2);
      // Tile 1's stream declares one row more than the tile has.
      std::string grown = fz;
      const Layout l = layout_of(fz);
      const std::size_t tile = l.heap + read_be32(grown, l.data + 4);
      write_be32(grown, tile + 2, read_be32(grown, tile + 2) + 1);
      expect_refused(dir, grown, "tile 1 of the HCOMPRESS_1-compressed image is damaged");
    }
  }
  SECTION("PLIO_1") {
    const std::string fz = fpacked(dir, 64, 48, {"-p"});
    CHECK(convert(dir, fz).hdus.size() == 2);
    // Tile 3's list declares 3 words more than its descriptor holds, and its last word no longer
    // covers a pixel (opcode 2: add 1 to the value): CFITSIO's reader goes on past the words.
    std::string longer = fz;
    const Layout l = layout_of(fz);
    const std::uint32_t words = read_be32(longer, l.data + 2 * l.row);
    const std::size_t tile = l.heap + read_be32(longer, l.data + 2 * l.row + 4);
    longer[tile + 7] = static_cast<char>(longer[tile + 7] + 3);  // word 4: the length's low bits
    longer[tile + 2 * words - 2] = 0x20;
    longer[tile + 2 * words - 1] = 0x01;
    expect_refused(dir, longer, "tile 3 of the PLIO_1-compressed image is damaged: its line list");
  }
}

TEST_CASE("fpack's tables pass the tile checks, and damaged column tiles are refused",
          "[tile_guard][error]") {
  fitsasdf::test::TempDir dir;
  // 300 rows of a J column and an 8A column: fpack compresses J with RICE_1, 8A with GZIP_1.
  std::string rows;
  for (int r = 0; r < 300; ++r) {
    rows += big_endian<std::int32_t>(r * 37 - 4000);
    std::string name = "row" + std::to_string(r);
    name.resize(8, ' ');
    rows += name;
  }
  std::vector<std::string> cards = table_cards("BINTABLE", 12, 300, 0, 2);
  for (const auto& c :
       {text("TTYPE1", "n"), text("TFORM1", "J"), text("TTYPE2", "s"), text("TFORM2", "8A")}) {
    cards.push_back(c);
  }
  const fs::path plain = dir / "plain.fits";
  std::ofstream(plain, std::ios::binary) << empty_primary() << hdu(cards, rows);
  const fs::path packed = dir / "packed.fits.fz";
  const auto r = fitsasdf::test::run({"fpack", "-table", "-O", packed.string(), plain.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::string fz;
  {
    std::ifstream in(packed, std::ios::binary);
    fz.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(fz.find("ZCTYP1  = 'RICE_1") != std::string::npos);
  REQUIRE(fz.find("ZCTYP2  = 'GZIP_1") != std::string::npos);
  CHECK(convert(dir, fz).hdus.size() == 2);
  const Layout l = layout_of(fz);
  const std::size_t descriptor = l.row / 2;  // 1PB: 8 bytes, 1QB: 16 bytes
  REQUIRE((descriptor == 8 || descriptor == 16));
  const std::size_t length_at = descriptor == 8 ? 0 : 4;  // the low 32 bits of a 1QB length
  // Column 2's gzip stream cut short; then given no bytes at all; column 1's Rice tile too.
  std::string cut = fz;
  const std::size_t second = l.data + descriptor + length_at;
  write_be32(cut, second, read_be32(cut, second) - 7);
  expect_refused(dir, cut, "tile 1 of column 2 of the GZIP_1-compressed table is damaged");
  std::string empty = fz;
  write_be32(empty, second, 0);
  expect_refused(dir, empty, "gives no bytes for the 2400 bytes of its rows");
  std::string rice = fz;
  write_be32(rice, l.data + length_at, 3);
  expect_refused(dir, rice, "tile 1 of column 1 of the RICE_1-compressed table is damaged");
  // Fuzz finding 26: CFITSIO sizes the decoded rows by ZNAXIS1 and lays the columns out by their
  // ZFORMn. Columns wider than ZNAXIS1 made it write past its buffers; narrower ones misplace rows.
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string bytes = fz;
    const std::size_t at = bytes.find(from);
    REQUIRE(at != std::string::npos);
    REQUIRE(from.size() == to.size());
    bytes.replace(at, from.size(), to);
    return bytes;
  };
  expect_refused(dir, replaced("ZFORM2  = '8A", "ZFORM2  = '9A"),
                 "columns (ZFORMn) 1 to 2 take 13 bytes a row, but its rows are 12 bytes wide",
                 ErrorCode::kMalformed);
  const std::string znaxis1 = "ZNAXIS1 =                   12";
  expect_refused(dir, replaced(znaxis1, "ZNAXIS1 =                   13"),
                 "columns (ZFORMn) take 12 bytes a row, but its rows are 13 bytes wide",
                 ErrorCode::kMalformed);
  // The fuzzer's file: fpack's table of J, 8A, 2D and I columns (30 bytes a row) whose ZFORM4
  // became '1C' (8 bytes); CFITSIO 4.2 wrote past its 15,000-byte buffer (glibc aborted).
  const fs::path found = fs::path(FITSASDF_TEST_DATA_DIR) / ".." / "fuzz" / "regressions" /
                         "fits_to_asdf" / "ztable-zform-wider-than-znaxis1";
  REQUIRE(fs::exists(found));
  expect_refused(dir, fitsasdf::test::fits_builder::read(found),
                 "take 36 bytes a row, but its rows are 30 bytes wide", ErrorCode::kMalformed);
  // Finding 27: a ZFORMn missing (the card renamed) is refused too; CFITSIO 4.2 would go on with
  // the previous column's form.
  expect_refused(dir, replaced("ZFORM2  =", "ZFORM9  ="), "ZFORM2 is missing",
                 ErrorCode::kMalformed);
}

namespace {

/// `cards` (after the mandatory ones) and `rows` + `heap` as a table of `naxis1` bytes a row,
/// compressed by `fpack -table`; returns the .fz file's bytes.
std::string fpacked_table(const fitsasdf::test::TempDir& dir, long long naxis1, long long naxis2,
                          int columns, const std::vector<std::string>& column_cards,
                          const std::string& rows, const std::string& heap) {
  std::vector<std::string> cards =
      table_cards("BINTABLE", naxis1, naxis2, static_cast<long long>(heap.size()), columns);
  cards.insert(cards.end(), column_cards.begin(), column_cards.end());
  const fs::path plain = dir / "plain.fits";
  std::ofstream(plain, std::ios::binary) << empty_primary() << hdu(cards, rows + heap);
  const fs::path packed = dir / "packed.fits.fz";
  fs::remove(packed);
  const auto r = fitsasdf::test::run({"fpack", "-table", "-O", packed.string(), plain.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return fitsasdf::test::fits_builder::read(packed);
}

Bytes gunzip(const std::string& stream) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
  Bytes out;
  Bytes chunk(1 << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
  z.avail_in = static_cast<uInt>(stream.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = chunk.data();
    z.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.insert(out.end(), chunk.data(), z.next_out);
  }
  REQUIRE(rc == Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

std::uint64_t read_be(const Bytes& b, std::size_t at, int size) {
  std::uint64_t v = 0;
  for (int i = 0; i < size; ++i) v = v << 8 | b[at + static_cast<std::size_t>(i)];
  return v;
}

void write_be(Bytes& b, std::size_t at, std::uint64_t v, int size) {
  for (int i = size - 1; i >= 0; --i, v >>= 8) b[at + static_cast<std::size_t>(i)] = v & 0xff;
}

/// `fz` (fpack's table of `columns` columns in one tile) with column `column`'s tile inflated,
/// changed by `change`, and deflated again after the heap (PCOUNT and the descriptor follow).
std::string retiled(const std::string& fz, int columns, int column,
                    const std::function<void(Bytes&)>& change) {
  const Layout l = layout_of(fz);
  const std::size_t width = l.row / static_cast<std::size_t>(columns);  // 1PB: 8, 1QB: 16
  REQUIRE((width == 8 || width == 16));
  const int half = static_cast<int>(width / 2);
  Bytes row(fz.begin() + static_cast<std::ptrdiff_t>(l.data),
            fz.begin() + static_cast<std::ptrdiff_t>(l.data + l.row));
  const std::size_t at = static_cast<std::size_t>(column - 1) * width;
  const std::uint64_t length = read_be(row, at, half);
  const std::uint64_t offset = read_be(row, at + width / 2, half);
  Bytes tile = gunzip(fz.substr(l.heap + offset, length));
  change(tile);
  const Bytes packed = gzip(tile);
  const std::size_t pcount_at = fz.find("PCOUNT  =", 2880);
  REQUIRE(pcount_at != std::string::npos);
  const std::uint64_t pcount = std::stoull(fz.substr(pcount_at + 10, 20));
  REQUIRE(fz.size() == (l.heap + pcount + 2879) / 2880 * 2880);  // the table is the last HDU
  write_be(row, at, packed.size(), half);
  write_be(row, at + width / 2, pcount, half);
  std::string out = fz.substr(0, l.heap + pcount);
  out.replace(l.data, l.row, std::string(row.begin(), row.end()));
  out.append(packed.begin(), packed.end());
  out.replace(pcount_at, 80, num("PCOUNT", static_cast<long long>(pcount + packed.size())));
  out.resize((out.size() + 2879) / 2880 * 2880, '\0');
  return out;
}

}  // namespace

TEST_CASE("compressed tables: CFITSIO's decoder for each column, and variable-length arrays",
          "[tile_guard][error]") {
  fitsasdf::test::TempDir dir;
  // 400 rows of a PJ column (row r holds r % 5 values), a QD column (r % 3 values) and a J one;
  // the QD arrays follow the PJ ones in the heap.
  std::string heap_j, heap_d;
  std::vector<std::int32_t> at_j;
  std::vector<std::int64_t> at_d;
  for (int r = 0; r < 400; ++r) {
    at_j.push_back(static_cast<std::int32_t>(heap_j.size()));
    for (int i = 0; i < r % 5; ++i) heap_j += big_endian<std::int32_t>(r * 1000 + i);
    at_d.push_back(static_cast<std::int64_t>(heap_d.size()));
    for (int i = 0; i < r % 3; ++i) heap_d += big_endian<double>(r + i / 4.0);
  }
  std::string rows;
  for (std::size_t r = 0; r < 400; ++r) {
    rows += big_endian<std::int32_t>(static_cast<std::int32_t>(r % 5)) + big_endian(at_j[r]);
    rows += big_endian<std::int64_t>(static_cast<std::int64_t>(r % 3)) +
            big_endian<std::int64_t>(at_d[r] + static_cast<std::int64_t>(heap_j.size()));
    rows += big_endian<std::int32_t>(-static_cast<std::int32_t>(r));
  }
  const std::string fz =
      fpacked_table(dir, 28, 400, 3,
                    {text("TTYPE1", "j"), text("TFORM1", "1PJ(4)"), text("TTYPE2", "d"),
                     text("TFORM2", "1QD(2)"), text("TTYPE3", "n"), text("TFORM3", "1J")},
                    rows, heap_j + heap_d);
  REQUIRE(fz.find("ZCTYP1  = 'RICE_1") != std::string::npos);
  REQUIRE(fz.find("ZCTYP2  = 'GZIP_2") != std::string::npos);
  CHECK(convert(dir, fz).hdus.size() == 2);
  // Column 1's tile: 400 P descriptors (8 bytes), then a 16-byte pair a row for the compressed
  // array (bytes, offset). Row 3 (r = 2) holds 2 values.
  constexpr std::size_t kPairs = 400 * 8;
  const auto pj = [&](std::size_t at, std::uint64_t v, int size) {
    return retiled(fz, 3, 1, [&](Bytes& t) { write_be(t, at, v, size); });
  };
  expect_refused(dir, pj(kPairs + 2 * 16, 2, 8),
                 "row 3 of the compressed table's variable-length column 1 is damaged: decoding "
                 "its RICE_1 array would read past its 2 bytes");
  expect_refused(dir, pj(2 * 8, std::uint64_t{1} << 29, 4),
                 "row 3 of the compressed table's variable-length column 1 declares an array of "
                 "536870912 elements",
                 ErrorCode::kMalformed);
  expect_refused(dir, pj(2 * 8 + 4, 0xfffffffc, 4), "elements at byte -4, outside the table's heap",
                 ErrorCode::kMalformed);
  expect_refused(dir, pj(kPairs + 2 * 16 + 8, std::uint64_t{1} << 40, 8),
                 "cannot read the compressed array of row 3 of the compressed table's "
                 "variable-length column 1: its bytes lie past the end of the file",
                 ErrorCode::kTruncated);
  expect_refused(dir, retiled(fz, 3, 1, [](Bytes& t) { t.erase(t.end() - 8, t.end()); }),
                 "tile 1 of column 1 of the RICE_1-compressed table is damaged: it inflates to "
                 "9592 bytes, not the 9600 of its rows");
  // Column 2 (GZIP_2): row 3's compressed array 3 bytes short.
  expect_refused(dir,
                 retiled(fz, 3, 2,
                         [&](Bytes& t) {
                           write_be(t, 400 * 16 + 2 * 16, read_be(t, 400 * 16 + 2 * 16, 8) - 3, 8);
                         }),
                 "row 3 of the compressed table's variable-length column 2 is damaged");

  // fpack's table of a 3E and a 1E column (GZIP_2 both) with the forms swapped: column 1's tile
  // then inflates past its 1,600 bytes. CFITSIO inflates it whatever ZCTYP1 says (RICE_1 decodes
  // only I, J and B) or when ZCTYP1 is missing, into its buffer for the whole tile, and
  // reallocated a pointer inside it (the old check skipped both: glibc aborted).
  std::string floats;
  for (int r = 0; r < 400; ++r) {
    for (int i = 0; i < 4; ++i) floats += big_endian<float>(static_cast<float>(r * 2 + i) * 0.25f);
  }
  const std::string ef = fpacked_table(
      dir, 16, 400, 2,
      {text("TTYPE1", "a"), text("TFORM1", "3E"), text("TTYPE2", "b"), text("TFORM2", "1E")},
      floats, "");
  REQUIRE(ef.find("ZCTYP1  = 'GZIP_2") != std::string::npos);
  CHECK(convert(dir, ef).hdus.size() == 2);
  const std::string swapped = fitsasdf::test::fits_builder::replace(
      fitsasdf::test::fits_builder::replace(ef, "ZFORM1  = '3E", "ZFORM1  = '1E"), "ZFORM2  = '1E",
      "ZFORM2  = '3E");
  expect_refused(dir, fitsasdf::test::fits_builder::replace(swapped, "ZCTYP1  =", "XCTYP1  ="),
                 "tile 1 of column 1 of the GZIP_2-compressed table is damaged: it inflates past "
                 "the 1600 bytes");
  expect_refused(
      dir, fitsasdf::test::fits_builder::replace(swapped, "ZCTYP1  = 'GZIP_2", "ZCTYP1  = 'RICE_1"),
      "tile 1 of column 1 of the RICE_1-compressed table is damaged: it inflates past");
}

TEST_CASE("compressed tables CFITSIO 4.2 cannot decompress are refused, not decoded",
          "[tile_guard][error]") {
  fitsasdf::test::TempDir dir;
  // fpack's table of a PA column: CFITSIO 4.2 lays it out as one byte wide and wrote past its
  // buffers (funpack aborts on it too). An M column's type code (163) does not fit the char
  // CFITSIO keeps it in: it decodes a fixed one as variable-length, from memory it never set
  // (valgrind says so of funpack on fpack's own table).
  std::string rows, heap;
  for (int r = 0; r < 400; ++r) {
    rows += big_endian<std::int32_t>(r % 6) +
            big_endian<std::int32_t>(static_cast<std::int32_t>(heap.size()));
    heap += std::string(static_cast<std::size_t>(r % 6), static_cast<char>('a' + r % 26));
  }
  const std::string pa =
      fpacked_table(dir, 8, 400, 1, {text("TTYPE1", "s"), text("TFORM1", "1PA(5)")}, rows, heap);
  expect_refused(dir, pa,
                 "CFITSIO 4.2 cannot decompress a compressed table with column 1 of ZFORM1 = "
                 "'1PA(5)'");
  std::string complex;
  for (int r = 0; r < 400; ++r) complex += big_endian<double>(r) + big_endian<double>(-r);
  const std::string m =
      fpacked_table(dir, 16, 400, 1, {text("TTYPE1", "z"), text("TFORM1", "1M")}, complex, "");
  expect_refused(dir, m, "column 1 of ZFORM1 = '1M' (an M column");
}

TEST_CASE("tiles kept in UNCOMPRESSED_DATA must hold their tile's pixels", "[tile_guard][error]") {
  fitsasdf::test::TempDir dir;
  // A GZIP_1 10 x 10 int16 image, one tile a row, every tile kept as it is in UNCOMPRESSED_DATA
  // (fpack until 2011); tile 3's descriptor declares `count` values.
  const auto image = [](std::int32_t count) {
    std::string rows, heap;
    for (int r = 0; r < 10; ++r) {
      const std::int32_t n = r == 2 ? count : 10;
      rows += big_endian<std::int32_t>(0) + big_endian<std::int32_t>(0) + big_endian(n) +
              big_endian<std::int32_t>(static_cast<std::int32_t>(heap.size()));
      for (int c = 0; c < n; ++c)
        heap += big_endian<std::int16_t>(static_cast<std::int16_t>(100 * r + c % 10));
    }
    std::vector<std::string> cards =
        table_cards("BINTABLE", 16, 10, static_cast<long long>(heap.size()), 2);
    for (const auto& c :
         {text("TTYPE1", "COMPRESSED_DATA"), text("TFORM1", "1PB(0)"),
          text("TTYPE2", "UNCOMPRESSED_DATA"),
          text("TFORM2", "1PI(" + std::to_string(std::max(count, 10)) + ")"), card("ZIMAGE", "T"),
          num("ZBITPIX", 16), num("ZNAXIS", 2), num("ZNAXIS1", 10), num("ZNAXIS2", 10),
          num("ZTILE1", 10), num("ZTILE2", 1), text("ZCMPTYPE", "GZIP_1")}) {
      cards.push_back(c);
    }
    return empty_primary() + hdu(cards, rows + heap);
  };
  CHECK(convert(dir, image(10)).hdus.size() == 2);
  // CFITSIO 4.2 reads that many values into its buffer for the tile: 200 overran it (SIGSEGV).
  expect_refused(dir, image(200),
                 "tile 3 of the GZIP_1-compressed image is damaged: its UNCOMPRESSED_DATA holds "
                 "200 values for its 10 pixels");
  expect_refused(dir, image(9), "holds 9 values for its 10 pixels");
}

TEST_CASE("a dithered float image needs a ZDITHER0 from 1 to 10000", "[tile_guard][error]") {
  fitsasdf::test::TempDir dir;
  // A float image fpack quantizes with subtractive dithering (its default for floats).
  std::string pixels;
  for (int i = 0; i < 64 * 48; ++i) pixels += big_endian<float>(static_cast<float>(i % 97) * 0.37f);
  const fs::path plain = dir / "float.fits";
  std::ofstream(plain, std::ios::binary)
      << hdu({card("SIMPLE", "T"), num("BITPIX", -32), num("NAXIS", 2), num("NAXIS1", 64),
              num("NAXIS2", 48)},
             pixels);
  const fs::path packed = dir / "float.fits.fz";
  const auto r = fitsasdf::test::run({"fpack", "-O", packed.string(), plain.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string fz = fitsasdf::test::fits_builder::read(packed);
  REQUIRE(fz.find("ZQUANTIZ= 'SUBTRACTIVE_DITHER_1'") != std::string::npos);
  const std::size_t at = fz.find("ZDITHER0=");
  REQUIRE(at != std::string::npos);
  const auto with_seed = [&](long long seed) {
    std::string bytes = fz;
    bytes.replace(at, 80, num("ZDITHER0", seed));
    return bytes;
  };
  CHECK(convert(dir, with_seed(1)).hdus.size() == 2);
  CHECK(convert(dir, with_seed(10000)).hdus.size() == 2);
  // CFITSIO 4.2 indexes its table of 10,000 random values with (tile + ZDITHER0 - 2) mod 10,000
  // in int arithmetic: 2^31 - 1 overflowed it (SIGSEGV), 0 and below read before the table.
  for (const long long seed : {0LL, -5LL, 10001LL, 2147483647LL}) {
    INFO(seed);
    expect_refused(
        dir, with_seed(seed),
        "the dithered float image's ZDITHER0 = " + std::to_string(seed) + " is outside 1 to 10000",
        ErrorCode::kMalformed);
  }
}

namespace {

/// Convert the tile-compressed `in` (in `dir`) to ASDF on 1, 2 and 3 threads, in native byte
/// order or not: each output's image holds `expected`, and the three files are the same bytes.
void check_thread_counts_agree(const fitsasdf::test::TempDir& dir, const fs::path& in,
                               bool native, const std::string& expected) {
  std::vector<std::string> outputs;
  for (const unsigned threads : {1u, 2u, 3u}) {
    INFO("threads " << threads);
    fitsasdf::ConvertOptions options;
    options.durable = false;
    options.threads = threads;
    options.native_byte_order = native;
    const fs::path out = dir / ("out" + std::to_string(threads) + ".asdf");
    fs::remove(out);
    fitsasdf::convert_fits_to_asdf(in.string(), out.string(), options);
    const auto file = asdfcore::AsdfFile::open(out.string());
    const auto data = file.array(*file.tree()->get("fits")->items()[1]->get("data")).data();
    CHECK(std::string(reinterpret_cast<const char*>(data.data()), data.size()) == expected);
    std::ifstream bytes(out, std::ios::binary);
    outputs.emplace_back(std::istreambuf_iterator<char>(bytes), std::istreambuf_iterator<char>());
  }
  CHECK(outputs[0] == outputs[1]);
  CHECK(outputs[0] == outputs[2]);
}

}  // namespace

TEST_CASE("an unsigned tile-compressed image changed on its way out: the same bytes on any thread "
          "count, in either byte order",
          "[tile_guard]") {
  // BZERO = 32768 over 16-bit pixels: each band's sign bits are flipped (and, for the native
  // byte order, its bytes swapped) by the thread that decoded it, bands out of order.
  fitsasdf::test::TempDir dir;
  const int nx = 1024, ny = 1500;
  const fs::path in = dir / "in.fits.fz";
  std::ofstream(in, std::ios::binary) << fpacked(dir, nx, ny, {"-r"}, {num("BZERO", 32768)});
  for (const bool native : {false, true}) {
    std::string expected;
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        std::string bytes =
            big_endian<std::uint16_t>(static_cast<std::uint16_t>(pixel_value(x, y) + 32768));
        if (native && std::endian::native == std::endian::little) std::swap(bytes[0], bytes[1]);
        expected += bytes;
      }
    }
    INFO((native ? "native byte order" : "big-endian"));
    check_thread_counts_agree(dir, in, native, expected);
  }
}

TEST_CASE("a tile-compressed image is decoded band by band, on one thread or several, to the same "
          "bytes, a damaged tile in a late band is refused",
          "[tile_guard][error]") {
  // 1024 x 1500 int16 pixels (3 MB) are three bands of 1 MiB: workers decode them out of order,
  // the block gets them in order.
  fitsasdf::test::TempDir dir;
  const int nx = 1024, ny = 1500;
  const std::string fz = fpacked(dir, nx, ny, {"-r"});
  const fs::path in = dir / "in.fits.fz";
  std::ofstream(in, std::ios::binary) << fz;
  std::string expected;
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      expected += big_endian<std::int16_t>(static_cast<std::int16_t>(pixel_value(x, y)));
    }
  }
  check_thread_counts_agree(dir, in, false, expected);

  // Tile 1400 (band 3 of 3) becomes a run of zero bits: the first two bands are decoded, then
  // the error comes from the block's writing, and no output is left.
  std::string damaged = fz;
  const Layout l = layout_of(fz);
  const std::size_t row = 1400 - 1;
  const std::uint32_t length = read_be32(damaged, l.data + row * l.row);
  const std::size_t tile = l.heap + read_be32(damaged, l.data + row * l.row + 4);
  std::fill(damaged.begin() + static_cast<std::ptrdiff_t>(tile + 3),
            damaged.begin() + static_cast<std::ptrdiff_t>(tile + length), '\0');
  std::ofstream(in, std::ios::binary | std::ios::trunc) << damaged;
  for (const unsigned threads : {1u, 2u}) {
    INFO("threads " << threads);
    fitsasdf::ConvertOptions options;
    options.durable = false;
    options.threads = threads;
    const fs::path out = dir / "damaged.asdf";
    try {
      fitsasdf::convert_fits_to_asdf(in.string(), out.string(), options);
      FAIL("no error");
    } catch (const asdfcore::Error& e) {
      INFO(e.what());
      CHECK(e.code() == ErrorCode::kCompression);
      CHECK(e.context().hdu == 2);
      CHECK(std::string(e.what()).find("tile 1400 of the RICE_1-compressed image is damaged") !=
            std::string::npos);
    }
    CHECK_FALSE(fs::exists(out));
    CHECK(std::distance(fs::directory_iterator(dir / ""), fs::directory_iterator()) == 6);
  }
}
