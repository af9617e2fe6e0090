// Binary-table headers the converter refuses, built as small byte arrays: the error has the
// right code, names the file, the HDU and (where there is one) the column, no output file is
// left behind, and a hostile size costs no allocation. Some of them CFITSIO already refuses
// when it opens the file (bad TFORM letters, widths that do not add up to NAXIS1); the rest
// are caught by the converter's own checks.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/converted.h"
#include "support/fits_builder.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using fitsasdf::test::error_of;
using fitsasdf::test::fits_builder::empty_primary;
using fitsasdf::test::fits_builder::header;
using fitsasdf::test::fits_builder::num;
using fitsasdf::test::fits_builder::padded;
using fitsasdf::test::fits_builder::table_cards;
using fitsasdf::test::fits_builder::text;

/// An empty primary HDU and a binary table with these TFORMs and cards, followed by `data`
/// bytes (zeros for the declared size when `data_bytes` is negative), padded to 2880.
std::string table(long long naxis1, long long naxis2, long long pcount,
                  const std::vector<std::string>& tforms,
                  const std::vector<std::string>& extra = {}, long long data_bytes = -1,
                  long long bitpix = 8) {
  std::vector<std::string> cards = table_cards("BINTABLE", naxis1, naxis2, pcount,
                                               static_cast<long long>(tforms.size()), bitpix);
  for (std::size_t i = 0; i < tforms.size(); ++i) {
    cards.push_back(text("TFORM" + std::to_string(i + 1), tforms[i]));
  }
  cards.insert(cards.end(), extra.begin(), extra.end());
  const std::string data(
      static_cast<std::size_t>(data_bytes >= 0 ? data_bytes : naxis1 * naxis2 + pcount), '\0');
  return empty_primary() + header(cards) + padded(data);
}

void check(const Error& e, ErrorCode code, const std::string& part) {
  INFO(e.what());
  CHECK(e.code() == code);
  REQUIRE(e.context().hdu.has_value());
  CHECK(*e.context().hdu == 2);
  CHECK(e.context().file.ends_with("bad.fits"));
  CHECK(e.message().find(part) != std::string::npos);
}

}  // namespace

TEST_CASE("column widths that do not add up to NAXIS1 are malformed", "[bintable]") {
  check(error_of(table(7, 2, 0, {"J", "I"})), ErrorCode::kMalformed, "NAXIS1 = 7");
  check(error_of(table(4, 2, 0, {"J", "I"})), ErrorCode::kMalformed, "NAXIS1 = 4");
  // A repeat count whose width overflows any row.
  check(error_of(table(6, 2, 0, {"J", "10000000000000000I"})), ErrorCode::kMalformed,
        "TFORM2 = '10000000000000000I'");
}

TEST_CASE("bad TFORMs are malformed and name the column", "[bintable]") {
  check(error_of(table(6, 2, 0, {"J", "3Z"})), ErrorCode::kMalformed, "'3Z'");
  check(error_of(table(8, 2, 0, {"P"})), ErrorCode::kMalformed, "'P'");
  // CFITSIO reads 2PJ as two descriptors; the FITS standard allows a repeat count of 0 or 1.
  check(error_of(table(16, 2, 0, {"2PJ"})), ErrorCode::kMalformed,
        "TFORM1 = '2PJ' of column 1 ('col1')");
  check(error_of(table(8, 2, 0, {"1PJ(x)"}, {text("TTYPE1", "flux")})), ErrorCode::kMalformed,
        "column 1 ('flux')");
}

TEST_CASE("THEAP before the rows or beyond the data is malformed", "[bintable]") {
  check(error_of(table(6, 2, 10, {"J", "I"}, {num("THEAP", 4)})), ErrorCode::kMalformed,
        "THEAP = 4");
  check(error_of(table(12, 2, 10, {"J", "1PI"}, {num("THEAP", 40)})), ErrorCode::kMalformed,
        "THEAP = 40");
}

TEST_CASE("a table whose data the file does not hold is truncated", "[bintable]") {
  check(error_of(table(6, 1000, 0, {"J", "I"}, {}, 100)), ErrorCode::kTruncated,
        "holds 2880 of the 6000 bytes");
  // 6 * 10^15 bytes declared, none present: refused before anything is read or allocated.
  check(error_of(table(6, 1000000000000000LL, 0, {"J", "I"}, {}, 0)), ErrorCode::kTruncated,
        "6000000000000000 bytes");
}

TEST_CASE("rows wider than a record may be are over the limit", "[bintable]") {
  // The file must hold the data for the row limit to be reached (the HDU walk refuses a file
  // that ends inside an HDU's data first): a sparse file of 3 GB.
  fitsasdf::test::TempDir dir;
  const auto path = dir / "bad.fits";
  {
    std::ofstream(path, std::ios::binary) << table(3000000000LL, 1, 0, {"3000000000B"}, {}, 0);
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) + 3000000000ULL + 2880);
  try {
    fitsasdf::ConvertOptions options;
    options.durable = false;
    fitsasdf::convert_fits_to_asdf(path.string(), (dir / "bad.asdf").string(), options);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    check(e, ErrorCode::kLimit, "NAXIS1 = 3000000000");
  }
}
