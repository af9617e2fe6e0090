// Resource limits and damaged headers in the FITS reader, found by the malformed-input suite
// (tests/malformed): a tile-compressed image or table whose declared size would be allocated
// whole, a .gz decompression bomb, a primary header without END, and CFITSIO messages that
// quote data bytes.
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "asdfcore/error.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/temp_dir.h"

using asdfcore::ErrorCode;
using namespace fitsasdf::test::fits_builder;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

/// Convert `fits` (written to a temporary folder) and return the error, failing if none.
asdfcore::Error convert_error(const std::string& fits, fitsasdf::ConvertOptions options = {},
                              const std::string& name = "in.fits") {
  fitsasdf::test::TempDir dir;
  write(dir / name, fits);
  try {
    fitsasdf::convert_fits_to_asdf((dir / name).string(), (dir / "out.asdf").string(), options);
  } catch (const asdfcore::Error& e) {
    CHECK_FALSE(fs::exists(dir / "out.asdf"));
    return e;
  }
  FAIL("no error");
  throw std::logic_error("unreachable");
}

std::string image_primary() {
  return hdu({card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 1), num("NAXIS1", 4),
              card("EXTEND", "T")},
             std::string(8, '\x01'));
}

}  // namespace

TEST_CASE("a tile-compressed image of 10^12 pixels is refused before it is allocated") {
  const std::string z =
      hdu({text("XTENSION", "BINTABLE"), num("BITPIX", 8), num("NAXIS", 2), num("NAXIS1", 8),
           num("NAXIS2", 1), num("PCOUNT", 0), num("GCOUNT", 1), num("TFIELDS", 1),
           text("TFORM1", "1PB"), text("TTYPE1", "COMPRESSED_DATA"), card("ZIMAGE", "T"),
           num("ZBITPIX", 32), num("ZNAXIS", 2), num("ZNAXIS1", 1000000), num("ZNAXIS2", 1000000),
           num("ZTILE1", 1000000), num("ZTILE2", 1000000), text("ZCMPTYPE", "GZIP_1")},
          std::string(8, '\0'));
  const asdfcore::Error e = convert_error(image_primary() + z);
  CHECK(e.code() == ErrorCode::kLimit);
  CHECK(e.context().hdu == 2);
  CHECK_THAT(e.message(), Catch::Contains("--max-memory"));
}

TEST_CASE("a tile-compressed table of 2^40 rows is refused before it is allocated") {
  const std::string z =
      hdu({text("XTENSION", "BINTABLE"), num("BITPIX", 8), num("NAXIS", 2), num("NAXIS1", 8),
           num("NAXIS2", 1), num("PCOUNT", 0), num("GCOUNT", 1), num("TFIELDS", 1),
           text("TFORM1", "1PB"), text("TTYPE1", "A"), card("ZTABLE", "T"), num("ZNAXIS1", 4),
           num("ZNAXIS2", 1LL << 40), num("ZPCOUNT", 0), text("ZFORM1", "1J"),
           text("ZCTYP1", "GZIP_2"), num("ZTILELEN", 1LL << 40)},
          std::string(8, '\0'));
  CHECK(convert_error(image_primary() + z).code() == ErrorCode::kLimit);
}

TEST_CASE("a compressed table's tile is measured as CFITSIO lays it out, descriptor pairs too") {
  // 1000 rows of one 8-byte PJ descriptor: 8,000 bytes of rows, inside a limit of 10,000, but
  // CFITSIO's column-major tile buffer adds a 16-byte pair a row (24,000 bytes).
  const std::string z =
      hdu({text("XTENSION", "BINTABLE"), num("BITPIX", 8), num("NAXIS", 2), num("NAXIS1", 8),
           num("NAXIS2", 1), num("PCOUNT", 0), num("GCOUNT", 1), num("TFIELDS", 1),
           text("TFORM1", "1PB"), text("TTYPE1", "A"), card("ZTABLE", "T"), num("ZNAXIS1", 8),
           num("ZNAXIS2", 1000), num("ZPCOUNT", 0), text("ZFORM1", "1PJ"), text("ZCTYP1", "GZIP_2"),
           num("ZTILELEN", 1000)},
          std::string(8, '\0'));
  fitsasdf::ConvertOptions options;
  options.limits.max_memory = 10000;
  const asdfcore::Error e = convert_error(image_primary() + z, options);
  CHECK(e.code() == ErrorCode::kLimit);
  CHECK(e.context().hdu == 2);
  CHECK_THAT(e.message(), Catch::Contains("1000 rows of 24 bytes"));
  // With room for that buffer, the same header goes on to the tiles (its one tile is empty).
  options.limits.max_memory = 24000;
  CHECK(convert_error(image_primary() + z, options).code() == ErrorCode::kCompression);
}

TEST_CASE("a .gz FITS file that inflates past max_memory is refused while streaming") {
  // 64 MiB of zero pixels, gzipped to about 64 KB; the limit is 16 MiB.
  std::string plain =
      header({card("SIMPLE", "T"), num("BITPIX", 8), num("NAXIS", 1), num("NAXIS1", 64 << 20)});
  plain += std::string(64 << 20, '\0');
  z_stream z{};
  REQUIRE(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string packed(deflateBound(&z, plain.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(packed.data());
  z.avail_out = static_cast<uInt>(packed.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  packed.resize(z.total_out);
  deflateEnd(&z);
  fitsasdf::ConvertOptions options;
  options.limits.max_memory = 16 << 20;
  const asdfcore::Error e = convert_error(packed, options, "in.fits.gz");
  CHECK(e.code() == ErrorCode::kLimit);
  CHECK_THAT(e.message(), Catch::Contains("gzip"));
}

TEST_CASE("a primary header without END is named as such, with no data bytes in the message") {
  std::string f = image_primary();
  const std::size_t end = f.find("END     ");
  REQUIRE(end != std::string::npos);
  f.replace(end, 80, "ENDX" + std::string(76, ' '));
  f.replace(2880, 8, "\x01\x02\xff\x00\x10\x20\x30\x40", 8);
  const asdfcore::Error e = convert_error(f);
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK_THAT(e.message(), Catch::Contains("no END card"));
  for (char c : std::string(e.what())) {
    CHECK((static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f));
  }
}
