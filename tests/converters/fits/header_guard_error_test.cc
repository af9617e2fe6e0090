// The walk over extension headers that runs before CFITSIO moves to a tile-compressed HDU
// (src/fits/header_guard.h): headers on which CFITSIO 4.2 would end the process are refused
// with an error. Reproducers found by fuzzing are in tests/fuzz/regressions/fits_to_asdf.
#include <filesystem>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fits/header_guard.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/converted.h"
#include "support/fits_builder.h"
#include "support/paths.h"

namespace {

using asdfcore::ErrorCode;
using fitsasdf::fits::overlong_column_name;
using namespace fitsasdf::test::fits_builder;

std::string padded_card(std::string text) {
  text.resize(80, ' ');
  return text;
}

/// A binary table of two columns (1J, 8A) and two rows, with `name2` as its second column's
/// TTYPE2 card, and `extra` cards after the others.
std::string table_with(const std::string& name2, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> cards{text("XTENSION", "BINTABLE"),
                                 num("BITPIX", 8),
                                 num("NAXIS", 2),
                                 num("NAXIS1", 12),
                                 num("NAXIS2", 2),
                                 num("PCOUNT", 0),
                                 num("GCOUNT", 1),
                                 num("TFIELDS", 2),
                                 text("TTYPE1", "a"),
                                 text("TFORM1", "1J"),
                                 padded_card(name2),
                                 text("TFORM2", "8A")};
  cards.insert(cards.end(), extra.begin(), extra.end());
  return empty_primary() + hdu(cards, std::string(24, 'x'));
}

}  // namespace

TEST_CASE("column names are read the way CFITSIO 4.2 reads them", "[header_guard]") {
  const std::string x70(70, 'X');
  SECTION("an unquoted token of 70 characters or more is too long; 69 fits") {
    const auto name = overlong_column_name(padded_card("TTYPE8  = " + x70));
    REQUIRE(name);
    CHECK(name->keyword == "TTYPE8");
    CHECK(name->index == 8);
    CHECK(name->length == 70);
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE8  = " + std::string(69, 'X'))));
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE8  =  " + std::string(69, 'X'))));
    // 70 digits are an integer to FITS, and too long a name to CFITSIO.
    CHECK(overlong_column_name(padded_card("TTYPE1  = " + std::string(70, '1'))));
  }
  SECTION("the keyword is CFITSIO's name: up to a blank or '=', 'T' then TYPE in any case") {
    // Fuzz finding 23 and the look-ups it led to.
    const auto named = overlong_column_name(padded_card("TTYPE0001=" + x70));
    REQUIRE(named);
    CHECK(named->keyword == "TTYPE0001");
    CHECK(named->index == 1);
    CHECK(overlong_column_name(padded_card("TType2  = " + x70)));
    CHECK_FALSE(overlong_column_name(padded_card("tTYPE2  = " + x70)));  // ffgtbp wants 'T'
    CHECK_FALSE(overlong_column_name(padded_card(" TTYPE2 = " + x70)));  // named "" by CFITSIO
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE2X = " + x70)));  // not a number
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE   = " + x70)));  // no number at all
  }
  SECTION("a token ends at a blank or a slash; a complex value at its parenthesis") {
    CHECK_FALSE(overlong_column_name(
        padded_card("TTYPE1  = " + std::string(35, 'X') + " " + std::string(34, 'X'))));
    CHECK_FALSE(overlong_column_name(
        padded_card("TTYPE1  = " + std::string(35, 'X') + "/" + std::string(34, 'X'))));
    const auto complex =
        overlong_column_name(padded_card("TTYPE1  = (" + std::string(68, ' ') + ")"));
    REQUIRE(complex);
    CHECK(complex->length == 70);
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE1  = (" + std::string(69, 'X'))));
  }
  SECTION("quoted names stay below the field") {
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE1  = '" + std::string(68, 'X') + "'")));
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE1  = '" + std::string(69, 'X'))));
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE1='" + std::string(71, 'X') + "'")));
  }
  SECTION("the value indicator where CFITSIO finds it") {
    const auto early = overlong_column_name(padded_card("TTYPE1 =" + std::string(72, 'X')));
    REQUIRE(early);
    CHECK(early->keyword == "TTYPE1");
    CHECK(early->length == 72);
    CHECK(overlong_column_name(padded_card("TTYPE1  =" + std::string(71, 'X'))));
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE1    " + x70)));  // no '=': no value
  }
  SECTION("the column number as strtol reads it; other keywords are not names") {
    const auto padded_number = overlong_column_name(padded_card("TTYPE01 = " + x70));
    REQUIRE(padded_number);
    CHECK(padded_number->index == 1);
    CHECK(overlong_column_name(padded_card("TTYPE+1 = " + x70))->index == 1);
    CHECK_FALSE(overlong_column_name(padded_card("TTYPEA  = " + x70)));
    CHECK_FALSE(overlong_column_name(padded_card("ttype1  = " + x70)));
    CHECK_FALSE(overlong_column_name(padded_card("TFORM1  = " + x70)));
    CHECK_FALSE(overlong_column_name(padded_card("HIERARCH TTYPE1 = " + std::string(62, 'X'))));
  }
  SECTION("a NUL byte ends the card, as in CFITSIO's C string") {
    CHECK_FALSE(overlong_column_name(padded_card("TTYPE1  = " + std::string(30, 'X') +
                                                 std::string(1, '\0') + std::string(39, 'X'))));
  }
}

TEST_CASE("a table whose column name CFITSIO would copy past its field is refused",
          "[header_guard][error]") {
  const std::string x70(70, 'X');
  // CFITSIO reads only tile-compressed HDUs (each alone, fits_file.h): a compressed table
  // (ZTABLE = T) is what brings such a card to it.
  const std::vector<std::string> compressed{padded_card("ZTABLE  =                    T")};
  SECTION("a column of a compressed table: refused before CFITSIO reads the header") {
    const asdfcore::Error e =
        fitsasdf::test::error_of(table_with("TTYPE2  = " + x70, compressed));
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(e.context().hdu == 2);
    CHECK(e.context().offset == 2880 + 10 * 80);
    CHECK(std::string(e.what()).find("column name TTYPE2 is an unquoted value of 70 characters") !=
          std::string::npos);
  }
  SECTION("a plain table's: CFITSIO never reads it; the card is repaired as astropy does") {
    fitsasdf::test::TempDir dir;
    const auto c = fitsasdf::test::convert_bytes(dir, table_with("TTYPE2  = " + x70));
    REQUIRE(c.report.hdus.size() == 2);
    const auto findings = c.report.all_findings();
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].code == "unparsable-card");
    CHECK(findings[0].hdu == 2);
  }
  SECTION("a header the file ends in, without END, is refused before anything reads it") {
    // Fuzz finding 14: the guard's walk stopped at such a header unchecked, and CFITSIO parsed
    // its cards all the same. The project's own walk now refuses it first.
    std::string file = table_with("TTYPE2  = " + x70, compressed);
    const std::size_t end = file.find("END     ", 2880);
    REQUIRE(end != std::string::npos);
    file.replace(end, 80, std::string(80, ' '));
    for (const std::size_t size : {std::size_t{2 * 2880}, std::size_t{2 * 2880 - 1000}}) {
      INFO(size);
      const asdfcore::Error e = fitsasdf::test::error_of(file.substr(0, size));
      INFO(e.what());
      CHECK(e.code() == ErrorCode::kTruncated);
      CHECK(e.context().hdu == 2);
      CHECK(std::string(e.what()).find("no END card") != std::string::npos);
    }
  }
  SECTION("the same card behind an image extension") {
    const std::string image = hdu({text("XTENSION", "IMAGE"), num("BITPIX", 16), num("NAXIS", 1),
                                   num("NAXIS1", 3000), num("PCOUNT", 0), num("GCOUNT", 1)},
                                  std::string(6000, '\1'));
    const std::string table = table_with("TTYPE2  = " + x70, compressed);
    const asdfcore::Error e =
        fitsasdf::test::error_of(table.substr(0, 2880) + image + table.substr(2880));
    CHECK(e.context().hdu == 3);
    CHECK(e.context().offset == 2880 + 2880 + 3 * 2880 + 10 * 80);  // primary, image, table
    CHECK(std::string(e.what()).find("TTYPE2") != std::string::npos);
  }
  SECTION("70 digits are a valid integer card where CFITSIO does not take them as a name") {
    // Beyond TFIELDS, and in an image extension: CFITSIO ignores the card, astropy reads the
    // integer, and the file converts with the card as it is.
    const std::string digits(70, '7');
    const std::string image =
        hdu({text("XTENSION", "IMAGE"), num("BITPIX", 8), num("NAXIS", 1), num("NAXIS1", 24),
             num("PCOUNT", 0), num("GCOUNT", 1), padded_card("TTYPE1  = " + digits)},
            std::string(24, 'x'));
    fitsasdf::test::TempDir dir;
    const auto c = fitsasdf::test::convert_bytes(
        dir, table_with(text("TTYPE2", "b"), {padded_card("TTYPE3  = " + digits)}) + image);
    REQUIRE(c.report.hdus.size() == 3);
    CHECK(c.fits_bytes.find("TTYPE3  = " + digits) != std::string::npos);
  }
  SECTION("a name of 69 characters is left to the card reader") {
    // astropy cannot parse the value; its verify('fix') reads it as a string, and so does the
    // conversion, with a finding (issue 21, class 2).
    fitsasdf::test::TempDir dir;
    const auto c =
        fitsasdf::test::convert_bytes(dir, table_with("TTYPE2  = " + std::string(69, 'X')));
    const auto findings = c.report.all_findings();
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].code == "unparsable-card");
    CHECK(findings[0].hdu == 2);
    CHECK(findings[0].message.find("(TTYPE2)") != std::string::npos);
  }
}

TEST_CASE("the fuzzers' headers that ended the process inside CFITSIO are refused",
          "[header_guard][error]") {
  // Findings 7, 8, 9, 18, 21, 23, 24, 34 and 35 of tests/fuzz/README.md.
  const std::filesystem::path dir = std::filesystem::path(FITSASDF_TEST_DATA_DIR) / ".." / "fuzz" /
                                    "regressions" / "fits_to_asdf";
  fitsasdf::test::TempDir out;
  for (const char* name :
       {"ztile-zero", "zval1-unconvertible-long-value", "ttype-unquoted-70-chars",
        "zval1-zero-then-text", "znaxis-duplicate-plio-descriptor", "ttype-after-indented-end",
        "compressed-blank-30-chars", "no-ztile1-znaxis1-zero", "zval1-logical-false"}) {
    INFO(name);
    REQUIRE(std::filesystem::exists(dir / name));
    try {
      fitsasdf::convert_fits_to_asdf((dir / name).string(), (out / "x.asdf").string());
      FAIL("no error");
    } catch (const asdfcore::Error& e) {
      // Refused by the guard (malformed, at the card's offset) or, where the fuzzer also cut
      // the data short, by the HDU walk before CFITSIO is reached (truncated).
      INFO(e.what());
      CHECK((e.code() == ErrorCode::kMalformed || e.code() == ErrorCode::kTruncated));
      CHECK(e.context().hdu.has_value());
      // (or by the check of the cards that decode the HDU, when astropy cannot parse one).
      if (e.code() == ErrorCode::kMalformed) {
        CHECK((e.context().offset.has_value() ||
               e.message().find("astropy cannot parse") != std::string::npos));
      }
    }
    CHECK(std::filesystem::is_empty(out.path()));
  }
}
