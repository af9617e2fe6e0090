// The replay of CFITSIO's HCOMPRESS_1 decoder's reads (src/fits/hcompress_guard.h): every tile
// CFITSIO's encoder writes, of many shapes, kinds of data and bit depths, passes whole, and is
// refused once its last byte is cut off (the decoder reads every byte the encoder wrote, so a
// shorter tile sends it past its end).
#include "fits/hcompress_guard.h"

#include <fcntl.h>
#include <fitsio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fits/tile_compress.h"
#include "support/catch.h"

namespace {

using fitsasdf::fits::hcompress_tile_problem;
using Bytes = std::vector<std::uint8_t>;

/// `values` as big-endian bytes.
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

/// A tile's bytes and its pixels.
struct Tile {
  Bytes bytes;
  std::uint64_t pixels = 0;
};

/// The tiles of the compressed image HDU `hdu` (an image of `axes`), read back through CFITSIO
/// from a file in memory, with their pixels as its ZTILEn give them (CFITSIO may have changed the
/// tiles asked for, to keep HCOMPRESS's edge tiles at 4 pixels or more).
std::vector<Tile> tiles_of(const Bytes& hdu, const std::vector<long>& axes) {
  std::string primary = "SIMPLE  =                    T";
  primary.resize(80, ' ');
  for (const char* c :
       {"BITPIX  =                    8", "NAXIS   =                    0", "END"}) {
    std::string card = c;
    card.resize(80, ' ');
    primary += card;
  }
  primary.resize(2880, ' ');
  Bytes file(primary.size() + hdu.size());
  std::memcpy(file.data(), primary.data(), primary.size());
  std::memcpy(file.data() + primary.size(), hdu.data(), hdu.size());
  void* memory = file.data();
  std::size_t size = file.size();
  fitsfile* f = nullptr;
  int status = 0;
  fits_open_memfile(&f, "hcompress", READONLY, &memory, &size, 0, nullptr, &status);
  int type = 0;
  fits_movabs_hdu(f, 2, &type, &status);
  int column = 0;
  fits_get_colnum(f, CASEINSEN, const_cast<char*>("COMPRESSED_DATA"), &column, &status);
  long rows = 0;
  fits_get_num_rows(f, &rows, &status);
  REQUIRE(status == 0);
  REQUIRE(f->Fptr->zndim == static_cast<int>(axes.size()));
  const std::vector<long> tile(f->Fptr->tilesize, f->Fptr->tilesize + axes.size());
  std::vector<Tile> out;
  std::vector<long> index(axes.size(), 0);
  for (long row = 1; row <= rows; ++row) {
    Tile t;
    t.pixels = 1;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      t.pixels *= static_cast<std::uint64_t>(std::min(tile[k], axes[k] - index[k] * tile[k]));
    }
    for (std::size_t k = 0; k < axes.size(); ++k) {
      if (++index[k] * tile[k] < axes[k]) break;
      index[k] = 0;
    }
    LONGLONG length = 0, offset = 0;
    fits_read_descriptll(f, column, row, &length, &offset, &status);
    t.bytes.resize(static_cast<std::size_t>(length));
    unsigned char null_value = 0;
    fits_read_col(f, TBYTE, column, row, 1, length, &null_value, t.bytes.data(), nullptr, &status);
    REQUIRE(status == 0);
    out.push_back(std::move(t));
  }
  int closing = 0;
  fits_close_file(f, &closing);
  return out;
}

/// Whether CFITSIO's own decoder reads past `tile` (of `pixels` pixels, its header sound): a
/// child process decodes a copy that ends where an unreadable page begins, and a read past the
/// copy ends the child by a signal (or, under ASan, by its report).
bool cfitsio_reads_past(const Bytes& tile, std::uint64_t pixels) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t span = (tile.size() + page - 1) / page * page + page;
  void* base = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(base != MAP_FAILED);
  auto* guard = static_cast<unsigned char*>(base) + span - page;
  REQUIRE(mprotect(guard, page, PROT_NONE) == 0);
  unsigned char* copy = guard - tile.size();
  std::memcpy(copy, tile.data(), tile.size());
  std::vector<int> out(static_cast<std::size_t>(pixels) + 16);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);  // no sanitizer report for the expected fault
    std::signal(SIGSEGV, SIG_DFL);
    int nx = 0, ny = 0, scale = 0, status = 0;
    fits_hdecompress(copy, 0, out.data(), &ny, &nx, &scale, &status);
    _exit(0);
  }
  int how = 0;
  waitpid(child, &how, 0);
  munmap(base, span);
  return !(WIFEXITED(how) && WEXITSTATUS(how) == 0);
}

}  // namespace

TEST_CASE("CFITSIO's HCOMPRESS tiles pass whole and are refused one byte short",
          "[tile_guard][hcompress]") {
  std::mt19937 random(20261125);
  const std::vector<std::vector<long>> shapes = {{16, 16}, {17, 13}, {40, 30}, {5, 64}, {64, 5},
                                                 {33, 33}, {100, 7}, {4, 4},   {9, 11}};
  const std::vector<std::vector<long>> tilings = {{4, 4}, {16, 4}, {5, 7}, {0, 0}};
  std::size_t checked = 0;
  for (const auto& axes : shapes) {
    for (const auto& tiling : tilings) {
      const std::vector<long> tile =
          tiling[0] == 0
              ? axes
              : std::vector<long>{std::min(tiling[0], axes[0]), std::min(tiling[1], axes[1])};
      const std::size_t n = static_cast<std::size_t>(axes[0] * axes[1]);
      // Noise, a smooth surface with a few sharp sources, a constant, and sparse spikes on 0:
      // every plane count, both formats of plane (direct and quadtree) and sign bits.
      for (int kind = 0; kind < 4; ++kind) {
        std::vector<std::int32_t> values(n);
        for (std::size_t i = 0; i < n; ++i) {
          const auto x = static_cast<double>(i % static_cast<std::size_t>(axes[0]));
          const auto y = static_cast<double>(i / static_cast<std::size_t>(axes[0]));
          switch (kind) {
            case 0:
              values[i] = static_cast<std::int32_t>(random() % 60000) - 30000;
              break;
            case 1:
              values[i] = static_cast<std::int32_t>(1000 + 300 * std::sin(x / 5) * std::cos(y / 3));
              if (random() % 50 == 0) values[i] += 20000;
              break;
            case 2:
              values[i] = 77;
              break;
            default:
              values[i] = random() % 23 == 0 ? -static_cast<int>(random() % 500) : 0;
          }
        }
        for (const int bitpix : {16, 32}) {
          for (const float scale : {0.0f, 2.5f}) {
            INFO(axes[0] << " x " << axes[1] << " image, tiles " << tile[0] << " x " << tile[1]
                         << ", data kind " << kind << ", BITPIX " << bitpix << ", SCALE " << scale);
            fitsasdf::fits::TileCompression params;
            params.type = "HCOMPRESS_1";
            params.tile = tile;
            params.hcomp_scale = scale;
            Bytes pixels;
            if (bitpix == 16) {
              std::vector<std::int16_t> narrow(values.begin(), values.end());
              pixels = big_endian(narrow);
            } else {
              // Widened on a copy: the loop over SCALE passes here twice.
              std::vector<std::int32_t> wide(values);
              for (auto& v : wide) v *= 3001;
              pixels = big_endian(wide);
            }
            fitsasdf::fits::CompressedImage made;
            try {
              made = fitsasdf::fits::compress_image(bitpix, axes, pixels, {}, params, {});
            } catch (const asdfcore::Error& e) {
              // CFITSIO's encoder takes no tile with a side below 4 pixels.
              CHECK(std::string(e.what()).find("less than 4 pixels") != std::string::npos);
              continue;
            }
            for (const Tile& t : tiles_of(made.hdu, axes)) {
              const auto whole = hcompress_tile_problem(t.bytes, t.pixels);
              INFO((whole ? *whole : std::string("whole tile passes")));
              CHECK_FALSE(whole);
              const Bytes cut(t.bytes.begin(), t.bytes.end() - 1);
              const auto shorter = hcompress_tile_problem(cut, t.pixels);
              REQUIRE(shorter);
              CHECK((shorter->find("read past its") != std::string::npos ||
                     shorter->find("shorter than an HCOMPRESS header") != std::string::npos));
              ++checked;
            }
          }
        }
      }
    }
  }
  CHECK(checked > 2000);
}

TEST_CASE("damaged HCOMPRESS codes that send the decoder past the tile are refused",
          "[tile_guard][hcompress]") {
  // A 16 x 16 tile of sparse values (quadtree-coded planes) from CFITSIO's encoder, cut at every
  // length (the decoder reads the bytes in order, and every one of them: each cut sends it past the
  // end), then with one byte of its codes changed at random, 2,000 times: a changed code or format
  // nybble shifts what follows, and some of those make the decoder run past the tile. No damage may
  // make the check itself misbehave (the suite also runs under ASan and UBSan in CI).
  std::mt19937 random(7);
  std::vector<std::int16_t> values(256);
  for (auto& v : values) v = static_cast<std::int16_t>(random() % 9 == 0 ? random() % 300 : 0);
  fitsasdf::fits::TileCompression params;
  params.type = "HCOMPRESS_1";
  params.tile = {16, 16};
  params.hcomp_scale = 0.0f;
  const auto made =
      fitsasdf::fits::compress_image(16, {16, 16}, big_endian(values), {}, params, {});
  const auto tiles = tiles_of(made.hdu, {16, 16});
  REQUIRE(tiles.size() == 1);
  const Bytes sound = tiles[0].bytes;
  REQUIRE_FALSE(hcompress_tile_problem(sound, 256));
  for (std::size_t length = 25; length < sound.size(); ++length) {
    INFO("cut to " << length << " of " << sound.size() << " bytes");
    const auto problem = hcompress_tile_problem({sound.data(), length}, 256);
    REQUIRE(problem);
    CHECK(problem->find("read past its " + std::to_string(length) + " bytes") != std::string::npos);
  }
  std::size_t refused = 0;
  for (int n = 0; n < 2000; ++n) {
    Bytes damaged = sound;
    const std::size_t at = 25 + random() % (damaged.size() - 25);
    damaged[at] = static_cast<std::uint8_t>(random());
    if (hcompress_tile_problem(damaged, 256)) ++refused;
  }
  INFO(refused << " of 2000 damaged copies refused");
  CHECK(refused > 0);
}

TEST_CASE("the check refuses exactly the damaged tiles CFITSIO's decoder reads past",
          "[tile_guard][hcompress]") {
  // The decoder itself is the oracle: each damaged copy (1 to 3 bytes of its codes changed, a
  // quarter of them also cut short) is decoded by CFITSIO in a child process, from a buffer that
  // ends at an unreadable page. Three tiles of 19 x 19, 22 x 22 and 25 x 25 pixels: sparse,
  // smooth and noisy (by hand, 12,000 such copies of six tiles gave the same verdicts:
  // tests/fuzz/README.md, finding 22).
  fits_init_cfitsio();  // CFITSIO's lock becomes recursive: its decoder reports errors under it
  std::mt19937 random(2026);
  std::size_t refused = 0, total = 0;
  for (int kind = 0; kind < 3; ++kind) {
    const long side = 19 + 3 * kind;
    const auto n = static_cast<std::size_t>(side * side);
    std::vector<std::int32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto x = static_cast<double>(i % static_cast<std::size_t>(side));
      const auto y = static_cast<double>(i / static_cast<std::size_t>(side));
      if (kind == 0) values[i] = random() % 9 == 0 ? static_cast<std::int32_t>(random() % 300) : 0;
      if (kind == 1)
        values[i] = static_cast<std::int32_t>(1000 + 300 * std::sin(x / 4) * std::cos(y / 3));
      if (kind == 2) values[i] = static_cast<std::int32_t>(random() % 100000) - 50000;
    }
    fitsasdf::fits::TileCompression params;
    params.type = "HCOMPRESS_1";
    params.tile = {side, side};
    params.hcomp_scale = 0.0f;
    const auto made =
        fitsasdf::fits::compress_image(32, {side, side}, big_endian(values), {}, params, {});
    const auto tiles = tiles_of(made.hdu, {side, side});
    REQUIRE(tiles.size() == 1);
    const Bytes& sound = tiles[0].bytes;
    for (int copy = 0; copy < 200; ++copy) {
      Bytes damaged = sound;
      for (int hit = 0, hits = 1 + static_cast<int>(random() % 3); hit < hits; ++hit) {
        damaged[25 + random() % (damaged.size() - 25)] = static_cast<std::uint8_t>(random());
      }
      if (random() % 4 == 0) damaged.resize(25 + random() % (damaged.size() - 25));
      const bool refuses = hcompress_tile_problem(damaged, n).has_value();
      INFO("kind " << kind << ", copy " << copy << ": the check "
                   << (refuses ? "refuses" : "passes"));
      CHECK(refuses == cfitsio_reads_past(damaged, n));
      refused += refuses ? 1 : 0;
      ++total;
    }
  }
  INFO(refused << " of " << total << " refused");
  CHECK(refused > total / 10);
  CHECK(refused < total);
}
