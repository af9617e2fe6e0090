// Headers the header model refuses, each where astropy 5.2.1 refuses it too (`Card.value`
// raises VerifyError/ValueError, `fits.open` raises "Header missing END card"): the error is
// kMalformed and names the file, the HDU and the card.
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/header.h"
#include "support/catch.h"

using asdfcore::Error;
using asdfcore::ErrorCode;

namespace {

std::string header_of(const std::vector<std::string>& cards, bool with_end = true) {
  std::string h;
  for (std::string card : cards) {
    card.resize(80, ' ');
    h += card;
  }
  if (with_end) h += std::string("END").append(77, ' ');
  h.resize((h.size() + 2879) / 2880 * 2880, ' ');
  return h;
}

/// Parse `cards` as HDU 3 of "bad.fits"; return the error, failing the test if none.
Error error_of(const std::vector<std::string>& cards, bool with_end = true) {
  try {
    fitsasdf::parse_header(header_of(cards, with_end), 3, "bad.fits");
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error for " << cards.front());
  return Error(ErrorCode::kInvalidArgument, "unreachable");
}

void check_card_error(const std::vector<std::string>& cards, int card_number) {
  const Error e = error_of(cards);
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kMalformed);
  REQUIRE(e.context().hdu.has_value());
  CHECK(*e.context().hdu == 3);
  CHECK(e.context().file == "bad.fits");
  CHECK(e.message().find("HDU 3, card " + std::to_string(card_number)) != std::string::npos);
}

}  // namespace

TEST_CASE("a header without END is malformed", "[header]") {
  const Error e =
      error_of({"SIMPLE  =                    T", "NAXIS   =                    0"}, false);
  INFO(e.what());
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(*e.context().hdu == 3);
  CHECK(e.message().find("no END card") != std::string::npos);
  // "ENDER" starts with END but is a keyword, not the end of the header.
  CHECK(error_of({"A       = 1", "ENDER   = 2"}, false).code() == ErrorCode::kMalformed);
  // An empty input.
  CHECK_THROWS_AS(fitsasdf::parse_header("", 1, "empty.fits"), Error);
}

TEST_CASE("values astropy cannot parse are malformed", "[header]") {
  // An unclosed quote; text after a string; text after T.
  check_card_error({"A       = 1", "BADQ    = 'abc"}, 2);
  check_card_error({"BADQ2   = 'abc' def"}, 1);
  check_card_error({"A       = 1", "B       = 2", "TJUNK   = T junk"}, 3);
  // Numbers FITS does not have: NaN, Inf, hexadecimal; two numbers.
  check_card_error({"NANV    = NaN"}, 1);
  check_card_error({"INF     = Inf / x"}, 1);
  check_card_error({"H       = 0x10"}, 1);
  check_card_error({"NUM     = 1 2"}, 1);
  // A control character inside a string; a comment without its '/'.
  check_card_error({"CTRL    = 'a\001b'"}, 1);
  check_card_error({"KEY2    = 'a'c"}, 1);
  // A lower-case HIERARCH card whose '=' is past column 11.
  check_card_error({"hierarch low = 1"}, 1);
}

TEST_CASE("broken long strings are malformed", "[header]") {
  // A CONTINUE card after a non-string value.
  check_card_error({"A       = 1", "NUM     = 5", "CONTINUE  'x'"}, 2);
  // A CONTINUE card without a string.
  check_card_error({"STR     = 'ab&' / c0", "CONTINUE  'cd&'", "CONTINUE  "}, 1);
  // A CONTINUE card with text after its string.
  check_card_error({"STR     = 'abc&' / c", "CONTINUE  &'def'"}, 1);
  // An orphan CONTINUE card followed by another.
  check_card_error({"END1    = 3", "CONTINUE  'orphan&' / oc", "CONTINUE  'orphan2'"}, 1);
}

TEST_CASE("a header cut short inside its END block is truncated", "[header]") {
  std::string bytes = header_of({"SIMPLE  =                    T"});
  bytes.resize(400);  // astropy: "Header size is not multiple of 2880"
  try {
    fitsasdf::parse_header(bytes, 2, "short.fits");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kTruncated);
    CHECK(*e.context().hdu == 2);
  }
}

TEST_CASE("record-valued keywords with a D exponent are malformed", "[header]") {
  // astropy raises ValueError while reading the keyword; the whole header fails there.
  check_card_error({"DP1     = 'AXIS.1: 1D2'"}, 1);
}
