// The image header of a tile-compressed HDU as astropy 5.2's `CompImageHDU.header` builds it from
// the table's cards. The expected cards are astropy's output for the same table cards (written
// into a file after an empty primary HDU, `fits.open(f)[1].header`); the interop test
// (interop/fits_info_test.cc) checks real files made by astropy and fpack.
#include "info/image_header.h"

#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/header.h"
#include "support/catch.h"
#include "support/fits_builder.h"

using fitsasdf::Card;
using fitsasdf::parse_header;
using fitsasdf::info::compressed_image_header;
using fitsasdf::info::remove_default_extnames;

namespace {

/// One 80-character card image.
std::string c(std::string text) {
  text.resize(80, ' ');
  return text;
}

std::vector<Card> cards_of(const std::vector<std::string>& images) {
  return parse_header(fitsasdf::test::fits_builder::header(images), 2, "test.fits");
}

std::vector<std::string> images_of(const std::vector<Card>& cards) {
  std::vector<std::string> out;
  for (const auto& card : cards) {
    std::string s;
    for (const auto& i : card.images) s += i;
    out.push_back(s);
  }
  return out;
}

const asdfcore::ErrorContext kWhere{.file = "test.fits", .hdu = 2};

}  // namespace

TEST_CASE("a compressed image's header: reserved cards dropped, Z cards moved, blanks kept",
          "[fits-info]") {
  std::vector<Card> table = cards_of({
      c("XTENSION= 'BINTABLE'           / binary table extension"),
      c("BITPIX  =                    8 / 8-bit bytes"),
      c("NAXIS   =                    2 / 2-dimensional binary table"),
      c("NAXIS1  =                    8 / width of table in bytes"),
      c("NAXIS2  =                    5"),
      c("PCOUNT  =                   15"),
      c("GCOUNT  =                    1"),
      c("TFIELDS =                    1"),
      c("TTYPE1  = 'COMPRESSED_DATA'"),
      c("TFORM1  = '1PB(3)  '"),
      c("ZIMAGE  =                    T"),
      c("ZBITPIX =                   16 / data type of original image"),
      c("ZNAXIS  =                    2 / dimension of original image"),
      c("ZNAXIS1 =                    5 / length of original image axis"),
      c("ZNAXIS2 =                    5 / length of original image axis"),
      c("ZTILE1  =                    5"),
      c("ZTILE2  =                    1"),
      c("ZCMPTYPE= 'RICE_1  '"),
      c("ZDITHER0=                    3"),
      c("EXTNAME = 'COMPRESSED_IMAGE'"),
      c("OBJECT  = 'M31     '           / target"),
      c("EXTNAME = 'SCI     '"),
      c("CHECKSUM= 'AAAA    '           / table"),
      c("ZHECKSUM= 'BBBB    '           / image checksum"),
      c("ZDATASUM= '123     '           / image datasum"),
      c("COMMENT a comment"),
      c(""),
      c(""),
  });
  remove_default_extnames(table);
  const auto image = images_of(compressed_image_header(table, kWhere));
  const std::vector<std::string> expected = {
      // XTENSION keeps the table card's comment (there is no ZTENSION); a card astropy changes
      // is written anew, one it leaves alone keeps its image.
      c("XTENSION= 'IMAGE   '           / binary table extension"),
      c("BITPIX  =                   16 / data type of original image"),
      c("NAXIS   =                    2 / dimension of original image"),
      c("NAXIS1  =                    5 / length of original image axis"),
      c("NAXIS2  =                    5 / length of original image axis"),
      c("PCOUNT  =                    0"),
      c("GCOUNT  =                    1"),
      // astropy's pattern for compression keywords cannot match ZDITHER0, so it stays.
      c("ZDITHER0=                    3"),
      c("OBJECT  = 'M31     '           / target"),
      // The default EXTNAME is dropped when there is another.
      c("EXTNAME = 'SCI     '"),
      // ZHECKSUM replaces CHECKSUM where it stands; DATASUM is appended after the last card
      // with a value.
      c("CHECKSUM= 'BBBB    '           / image checksum"),
      c("DATASUM = '123     '           / image datasum"),
      c("COMMENT a comment"),
      c(""),
      c(""),
  };
  CHECK(image == expected);
}

TEST_CASE("a compressed primary HDU (fpack): SIMPLE, EXTEND, no PCOUNT or GCOUNT", "[fits-info]") {
  std::vector<Card> table = cards_of({
      c("XTENSION= 'BINTABLE'           / binary table extension"),
      c("BITPIX  =                    8"),
      c("NAXIS   =                    2"),
      c("NAXIS1  =                    8"),
      c("NAXIS2  =                    3"),
      c("PCOUNT  =                    0"),
      c("GCOUNT  =                    1"),
      c("TFIELDS =                    1"),
      c("TTYPE1  = 'COMPRESSED_DATA'"),
      c("TFORM1  = '1PB(0)  '"),
      c("ZIMAGE  =                    T"),
      c("ZSIMPLE =                    T / file does conform to FITS standard"),
      c("ZBITPIX =                  -32 / number of bits per data pixel"),
      c("ZNAXIS  =                    1 / number of data axes"),
      c("ZNAXIS1 =                    3 / length of data axis 1"),
      c("ZEXTEND =                    T / FITS dataset may contain extensions"),
      c("ZCMPTYPE= 'GZIP_1  '"),
      c("HISTORY made"),
      c(""),
  });
  remove_default_extnames(table);
  const auto image = images_of(compressed_image_header(table, kWhere));
  const std::vector<std::string> expected = {
      c("SIMPLE  =                    T / file does conform to FITS standard"),
      c("BITPIX  =                  -32 / number of bits per data pixel"),
      c("NAXIS   =                    1 / number of data axes"),
      c("NAXIS1  =                    3 / length of data axis 1"),
      c("EXTEND  =                    T / FITS dataset may contain extensions"),
      c("HISTORY made"),
      c(""),
  };
  CHECK(image == expected);
}
