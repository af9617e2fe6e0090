// A tile-compressed image whose table lacks what its image header needs: an Error naming the
// file and HDU, never a partial header.
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/header.h"
#include "info/image_header.h"
#include "support/catch.h"
#include "support/fits_builder.h"

using fitsasdf::Card;
using fitsasdf::parse_header;
using fitsasdf::info::compressed_image_header;

namespace {

std::string c(std::string text) {
  text.resize(80, ' ');
  return text;
}

std::vector<Card> cards_of(const std::vector<std::string>& images) {
  return parse_header(fitsasdf::test::fits_builder::header(images), 2, "test.fits");
}

const asdfcore::ErrorContext kWhere{.file = "test.fits", .hdu = 2};

}  // namespace

TEST_CASE("a compressed image without ZNAXISn has no image header", "[fits-info][error]") {
  const std::vector<Card> table = cards_of({
      c("XTENSION= 'BINTABLE'"),
      c("BITPIX  =                    8"),
      c("NAXIS   =                    2"),
      c("NAXIS1  =                    8"),
      c("NAXIS2  =                    0"),
      c("PCOUNT  =                    0"),
      c("GCOUNT  =                    1"),
      c("TFIELDS =                    1"),
      c("ZIMAGE  =                    T"),
      c("ZBITPIX =                   16"),
      c("ZNAXIS  =                    2"),
      c("ZNAXIS1 =                    5"),
  });
  try {
    compressed_image_header(table, kWhere);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
    CHECK(e.message() ==
          "the tile-compressed image has no ZNAXIS2 card, so the image's header cannot be known");
    CHECK(e.context().hdu == 2);
  }
}
