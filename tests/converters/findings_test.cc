// Findings (issue 21, classes 2 and 7): suspicious input that FITS -> ASDF keeps as it is and
// reports. Cards astropy cannot parse (repaired as its verify('fix') does, the card image
// written back), variable-length descriptors outside the heap, TNULLn outside the column's
// values, CHECKSUM/DATASUM that do not verify. Each file converts, the finding names its code
// and HDU, and FITS -> ASDF -> FITS gives the same bytes (the checksum cards excepted: the way
// back writes them afresh, see to_fits.h).
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "fits/checksum.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/to_fits.h"
#include "support/catch.h"
#include "support/converted.h"
#include "support/fits_builder.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using fitsasdf::ConversionReport;
using fitsasdf::Finding;
using fitsasdf::test::error_of;
using fitsasdf::test::TempDir;
using namespace fitsasdf::test::fits_builder;

// --- files -----------------------------------------------------------------------------------

/// A primary int16 image of 4 pixels with `extra` cards.
std::string primary_image(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> cards{card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 1),
                                 num("NAXIS1", 4)};
  cards.insert(cards.end(), extra.begin(), extra.end());
  std::string pixels;
  for (int v : {1, 2, 3, 4}) pixels += big_endian(static_cast<std::int16_t>(v));
  return hdu(cards, pixels);
}

/// An IMAGE extension of 3 float32 values with `extra` cards.
std::string image_extension(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> cards{text("XTENSION", "IMAGE"), num("BITPIX", -32), num("NAXIS", 1),
                                 num("NAXIS1", 3),          num("PCOUNT", 0),   num("GCOUNT", 1)};
  cards.insert(cards.end(), extra.begin(), extra.end());
  std::string values;
  for (float v : {0.5f, 1.5f, 2.5f}) values += big_endian(v);
  return hdu(cards, values);
}

/// A binary table of an int column and a variable-length column of int32 (`P` or `Q`) with
/// these (count, offset) descriptors over a heap of `heap_values` int32 values; `pcount`
/// (default: the heap's bytes) and `extra` cards.
std::string vla_table(char pq, const std::vector<std::pair<std::int64_t, std::int64_t>>& desc,
                      int heap_values, const std::vector<std::string>& extra = {},
                      long long pcount = -1) {
  const int half = pq == 'P' ? 4 : 8;
  std::string data;
  for (std::size_t r = 0; r < desc.size(); ++r) {
    data += big_endian<std::int32_t>(static_cast<std::int32_t>(r));
    data += big_endian(static_cast<std::uint64_t>(desc[r].first), half);
    data += big_endian(static_cast<std::uint64_t>(desc[r].second), half);
  }
  for (int i = 0; i < heap_values; ++i) data += big_endian<std::int32_t>(100 + i);
  std::vector<std::string> cards =
      table_cards("BINTABLE", 4 + 2 * half, static_cast<long long>(desc.size()),
                  pcount >= 0 ? pcount : 4LL * heap_values, 2);
  for (const auto& c : {text("TTYPE1", "id"), text("TFORM1", "J"), text("TTYPE2", "v"),
                        text("TFORM2", std::string("1") + pq + "J(5)")}) {
    cards.push_back(c);
  }
  cards.insert(cards.end(), extra.begin(), extra.end());
  return hdu(cards, data);
}

/// A binary table of 3 rows with one column of type `tform` (one element) and `extra` cards.
std::string one_column_table(const std::string& tform, int width,
                             const std::vector<std::string>& extra) {
  std::vector<std::string> cards = table_cards("BINTABLE", width, 3, 0, 1);
  cards.push_back(text("TTYPE1", "x"));
  cards.push_back(text("TFORM1", tform));
  cards.insert(cards.end(), extra.begin(), extra.end());
  return hdu(cards, std::string(static_cast<std::size_t>(3 * width), '\x07'));
}

// --- converting ------------------------------------------------------------------------------

struct RoundTrip {
  ConversionReport report;  ///< FITS -> ASDF.
  std::string original;     ///< The FITS bytes (decompressed).
  std::string back;         ///< ASDF -> FITS.
};

/// Write `fits` (gzip-compressed when `gz`), convert it to ASDF and back.
RoundTrip round_trip(const std::string& fits, bool gz = false) {
  TempDir dir;
  fs::path in = dir / "in.fits";
  write(in, fits);
  if (gz) {
    const auto r = fitsasdf::test::run({"gzip", "-1", in.string()});
    REQUIRE(r.status == 0);
    in += ".gz";
  }
  fitsasdf::ConvertOptions options;
  options.durable = false;
  RoundTrip out;
  out.original = fits;
  out.report = fitsasdf::convert_fits_to_asdf(in.string(), (dir / "out.asdf").string(), options);
  fitsasdf::AsdfToFitsOptions back;
  back.durable = false;
  fitsasdf::convert_asdf_to_fits((dir / "out.asdf").string(), (dir / "back.fits").string(), back);
  out.back = read(dir / "back.fits");
  return out;
}

/// Return the findings of `report` with `code`.
std::vector<Finding> findings(const ConversionReport& report, const std::string& code) {
  std::vector<Finding> out;
  for (const auto& f : report.all_findings()) {
    if (f.code == code) out.push_back(f);
  }
  return out;
}

/// Check that `report` has exactly one finding, of `code` in HDU `hdu`, whose message holds
/// every part of `parts`; return it.
Finding only_finding(const ConversionReport& report, const std::string& code, int hdu,
                     const std::vector<std::string>& parts = {}) {
  const auto all = report.all_findings();
  for (const auto& f : all) INFO(f.hdu << " [" << f.code << "] " << f.message);
  REQUIRE(all.size() == 1);
  CHECK(all[0].code == code);
  CHECK(all[0].hdu == hdu);
  REQUIRE(static_cast<std::size_t>(hdu) <= report.hdus.size());
  CHECK(report.hdus[static_cast<std::size_t>(hdu - 1)].findings.size() == 1);
  for (const auto& p : parts) {
    INFO(all[0].message);
    CHECK(all[0].message.find(p) != std::string::npos);
  }
  return all[0];
}

}  // namespace

// --- class 2: cards astropy cannot parse -----------------------------------------------------

TEST_CASE("a card with two numbers is read as astropy's verify('fix') reads it", "[findings]") {
  const std::string skew = "SKEW    = -1.38E+00, -1.69E+00 / Measure of skew";
  for (const bool gz : {false, true}) {
    INFO("gzip " << gz);
    const std::string fits = primary_image({skew, card("OBJECT", "'M31'")});
    TempDir dir;
    const auto c = fitsasdf::test::convert_bytes(dir, fits);
    const auto entry = c.at({"fits", "0", "header", "4"});
    REQUIRE(entry->size() == 3);
    CHECK(entry->items()[0]->as_string() == "SKEW");
    CHECK(entry->items()[1]->as_string() == "-1.38E+00, -1.69E+00");
    CHECK(entry->items()[2]->as_string() == "Measure of skew");
    only_finding(c.report, "unparsable-card", 1,
                 {"card 5 (SKEW)", "invalid value string: '-1.38E+00, -1.69E+00 / Measure of skew'",
                  "'-1.38E+00, -1.69E+00'"});
    const RoundTrip rt = round_trip(fits, gz);
    CHECK(rt.back == rt.original);
  }
}

TEST_CASE("an unclosed quote in an extension or a table header is a finding", "[findings]") {
  const std::string unclosed = "OBJECT  = 'M31 / target";
  SECTION("image extension, HDU 2") {
    const std::string fits = primary_image() + image_extension({unclosed});
    const RoundTrip rt = round_trip(fits);
    only_finding(rt.report, "unparsable-card", 2, {"card 7 (OBJECT)", "\"'M31\""});
    CHECK(rt.back == rt.original);
  }
  SECTION("binary table, HDU 3, gzip") {
    const std::string fits = primary_image() + image_extension() +
                             vla_table('P', {{2, 0}, {1, 8}}, 3, {unclosed, "EXTNAME = 'T1"});
    const RoundTrip rt = round_trip(fits, true);
    const auto all = findings(rt.report, "unparsable-card");
    REQUIRE(all.size() == 2);
    CHECK(all[0].hdu == 3);
    CHECK(all[1].hdu == 3);
    CHECK(all[1].message.find("(EXTNAME)") != std::string::npos);
    CHECK(rt.report.all_findings().size() == 2);
    CHECK(rt.back == rt.original);
  }
}

TEST_CASE("a structural card astropy cannot parse still refuses its HDU", "[findings]") {
  SECTION("NAXIS1 with two numbers") {
    std::string fits = primary_image() + image_extension();
    std::string bad = "NAXIS1  =                    3 4";
    bad.resize(80, ' ');
    fits = replace(fits, num("NAXIS1", 3), bad);
    const auto e = error_of(fits);
    CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
    INFO(e.what());
    // The HDU walk needs NAXIS1 for the HDU's size, so it refuses first, quoting the card.
    CHECK(e.message().find("NAXIS1 must be an integer ('NAXIS1  =                    3 4')") !=
          std::string::npos);
  }
  SECTION("TFORM with an unclosed quote") {
    std::string fits = primary_image() + vla_table('P', {{1, 0}}, 1);
    fits = replace(fits, text("TFORM1", "J"), std::string("TFORM1  = 'J").append(68, ' '));
    const auto e = error_of(fits);
    CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
    INFO(e.what());
    CHECK(e.message().find("TFORM1") != std::string::npos);
    CHECK(e.message().find("card 10") != std::string::npos);
  }
}

// --- class 7: variable-length descriptors ----------------------------------------------------

TEST_CASE("descriptors reaching past the heap are reported per column", "[findings]") {
  for (const char pq : {'P', 'Q'}) {
    for (const bool gz : {false, true}) {
      INFO(pq << " gzip " << gz);
      // 5 values of heap (20 bytes): row 2 reads 3 values at 12 (past by 4), row 4 at 2^20,
      // row 5 is empty but points past the heap (fitsverify counts it too).
      const std::string table =
          vla_table(pq, {{2, 0}, {3, 12}, {1, 16}, {1, 1 << 20}, {0, 999}}, 5);
      const RoundTrip rt = round_trip(primary_image() + table, gz);
      only_finding(rt.report, "descriptor-past-heap", 2,
                   {"column 2 ('v', 1" + std::string(1, pq) + "J)", "3 of 5 rows", "20-byte heap",
                    "first row 2", "3 elements at heap offset 12"});
      CHECK(rt.back == rt.original);
    }
  }
}

TEST_CASE("negative descriptors are reported", "[findings]") {
  for (const char pq : {'P', 'Q'}) {
    INFO(pq);
    const RoundTrip rt = round_trip(primary_image() + image_extension() +
                                    vla_table(pq, {{1, 0}, {-5, 0}, {1, -8}}, 2));
    only_finding(rt.report, "descriptor-negative", 3, {"2 of 3 rows", "first row 2"});
    CHECK(rt.back == rt.original);
  }
}

TEST_CASE("a gap before THEAP leaves the heap smaller than the descriptors need", "[findings]") {
  // PCOUNT 20 bytes, THEAP 8 bytes past the rows: the heap is 12 bytes, the descriptors of
  // rows 1 and 2 (values 0..4 from the rows' end) need 20.
  const std::string table = vla_table('P', {{2, 0}, {3, 8}}, 5, {num("THEAP", 2 * 12 + 8)});
  const RoundTrip rt = round_trip(primary_image() + table);
  only_finding(rt.report, "descriptor-past-heap", 2,
               {"1 of 2 rows", "12-byte heap", "PCOUNT = 20", "heap at byte 32", "first row 2"});
  CHECK(rt.back == rt.original);
}

TEST_CASE("descriptors above the TFORM maximum are reported", "[findings]") {
  // TFORM2 = '1PJ(5)': row 3 holds 6 elements (inside the heap).
  const RoundTrip rt = round_trip(primary_image() + vla_table('P', {{1, 0}, {5, 0}, {6, 4}}, 10));
  only_finding(rt.report, "descriptor-over-max", 2, {"1 of 3 rows", "maximum 5", "first row 3"});
  CHECK(rt.back == rt.original);
}

TEST_CASE("descriptors inside the heap give no finding", "[findings]") {
  const RoundTrip rt = round_trip(primary_image() + vla_table('Q', {{2, 0}, {3, 8}, {0, 0}}, 5));
  CHECK(rt.report.all_findings().empty());
  CHECK(rt.back == rt.original);
}

// --- class 7: TNULLn -------------------------------------------------------------------------

TEST_CASE("TNULL outside the stored values or on a non-integer column is reported", "[findings]") {
  SECTION("TNULL = 300 on a B column") {
    const RoundTrip rt =
        round_trip(primary_image() + one_column_table("B", 1, {num("TNULL1", 300)}));
    only_finding(rt.report, "tnull-out-of-range", 2, {"TNULL1 = 300", "0..255"});
    CHECK(rt.back == rt.original);
  }
  SECTION("TNULL = -40000 on an I column, HDU 3, gzip") {
    const RoundTrip rt = round_trip(
        primary_image() + image_extension() + one_column_table("I", 2, {num("TNULL1", -40000)}),
        true);
    only_finding(rt.report, "tnull-out-of-range", 3, {"TNULL1 = -40000", "-32768..32767"});
    CHECK(rt.back == rt.original);
  }
  SECTION("TNULL on an E column") {
    const RoundTrip rt = round_trip(primary_image() + one_column_table("E", 4, {num("TNULL1", 7)}));
    only_finding(rt.report, "tnull-not-integer-column", 2, {"TNULL1 = 7", "'E'"});
    CHECK(rt.back == rt.original);
  }
  SECTION("TNULL within the range: no finding") {
    const RoundTrip rt = round_trip(primary_image() + one_column_table("B", 1, {num("TNULL1", 7)}));
    CHECK(rt.report.all_findings().empty());
  }
}

// --- class 7: CHECKSUM / DATASUM -------------------------------------------------------------

namespace {

/// One HDU of `cards` (each 80 bytes; CHECKSUM and DATASUM appended) and `data`, with valid
/// checksum cards.
std::string checksummed_hdu(std::vector<std::string> cards, const std::string& data) {
  const std::string padded_data = padded(data);
  fitsasdf::fits::ChecksumSum data_sum;
  data_sum.add({reinterpret_cast<const std::uint8_t*>(padded_data.data()), padded_data.size()});
  cards.push_back(card("CHECKSUM", "'0000000000000000'", "HDU checksum"));
  cards.push_back(card("DATASUM", "'" + std::to_string(data_sum.value()) + "'", "data sum"));
  std::string head = header(cards);
  fitsasdf::fits::ChecksumSum total(data_sum.value());
  total.add({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
  head = replace(head, "'0000000000000000'",
                 "'" + fitsasdf::fits::encode_checksum(total.value()) + "'");
  return head + padded_data;
}

std::string checksummed_extension() {
  std::string values;
  for (float v : {0.5f, 1.5f, 2.5f}) values += big_endian(v);
  return checksummed_hdu(
      {text("XTENSION", "IMAGE"), num("BITPIX", -32), num("NAXIS", 1), num("NAXIS1", 3),
       num("PCOUNT", 0), num("GCOUNT", 1), text("EXTNAME", "SCI")},
      values);
}

}  // namespace

TEST_CASE("valid checksum cards give no finding and come back as they were", "[findings]") {
  const RoundTrip rt = round_trip(primary_image() + checksummed_extension());
  CHECK(rt.report.all_findings().empty());
  CHECK(rt.back == rt.original);
}

TEST_CASE("a data byte changed after the checksums were written fails both", "[findings]") {
  for (const bool gz : {false, true}) {
    INFO("gzip " << gz);
    std::string fits = primary_image() + checksummed_extension();
    fits = flip_bit(fits, 3 * 2880 + 5);  // a byte of the extension's data
    const RoundTrip rt = round_trip(fits, gz);
    const auto all = rt.report.all_findings();
    REQUIRE(all.size() == 2);
    CHECK(all[0].code == "datasum-mismatch");
    CHECK(all[1].code == "checksum-mismatch");
    CHECK(all[0].hdu == 2);
    CHECK(all[1].hdu == 2);
    // Everything comes back as it was, the stale checksum cards as found (fits_stale_checksums).
    CHECK(rt.back == rt.original);
  }
}

TEST_CASE("a header card changed after the checksums were written fails CHECKSUM only",
          "[findings]") {
  std::string fits = primary_image() + checksummed_extension();
  fits = replace(fits, text("EXTNAME", "SCI"), text("EXTNAME", "SCJ"));
  const RoundTrip rt = round_trip(fits);
  only_finding(rt.report, "checksum-mismatch", 2, {"CHECKSUM = '"});
  CHECK(rt.back == rt.original);
}

TEST_CASE("a checksum on the primary HDU, DATASUM alone", "[findings]") {
  std::string pixels;
  for (int v : {1, 2, 3, 4}) pixels += big_endian(static_cast<std::int16_t>(v));
  std::string fits = checksummed_hdu(
      {card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 1), num("NAXIS1", 4)}, pixels);
  // Only DATASUM, and wrong.
  const std::size_t at = fits.find("CHECKSUM=");
  fits.replace(at, 80, card("COMMENT1", "1"));
  fits = flip_bit(fits, 2880 + 1);
  const RoundTrip rt = round_trip(fits + image_extension());
  only_finding(rt.report, "datasum-mismatch", 1, {"DATASUM = '"});
  CHECK(rt.back == rt.original);
}

TEST_CASE("a tile-compressed HDU's checksum cards are checked over its stored bytes",
          "[findings]") {
  TempDir dir;
  std::string values;
  for (int i = 0; i < 400; ++i) values += big_endian(static_cast<std::int16_t>(i % 37));
  write(dir / "plain.fits",
        header({card("SIMPLE", "T"), num("BITPIX", 8), num("NAXIS", 0), card("EXTEND", "T")}) +
            hdu({text("XTENSION", "IMAGE"), num("BITPIX", 16), num("NAXIS", 2), num("NAXIS1", 20),
                 num("NAXIS2", 20), num("PCOUNT", 0), num("GCOUNT", 1), text("EXTNAME", "SCI")},
                values));
  // fpack writes CHECKSUM and DATASUM into every HDU it writes.
  const auto r = fitsasdf::test::run(
      {"fpack", "-O", (dir / "packed.fits").string(), (dir / "plain.fits").string()});
  REQUIRE(r.status == 0);
  const std::string packed = read(dir / "packed.fits");
  const std::size_t second = packed.find("XTENSION= 'BINTABLE'");
  REQUIRE(second != std::string::npos);
  REQUIRE(packed.find("CHECKSUM= '", second) != std::string::npos);

  SECTION("as fpack wrote them: no finding") {
    const RoundTrip rt = round_trip(packed);
    CHECK(rt.report.all_findings().empty());
    CHECK(rt.report.hdus.at(1).kind == "tile-compressed image");
  }
  SECTION("a card changed: CHECKSUM fails") {
    std::string changed = packed;
    const std::size_t at = changed.find("EXTNAME = 'SCI", second);
    REQUIRE(at != std::string::npos);
    changed[at + 13] = 'J';
    const RoundTrip rt = round_trip(changed);
    only_finding(rt.report, "checksum-mismatch", 2);
  }
  SECTION("a DATASUM changed: both fail") {
    std::string changed = packed;
    const std::size_t at = changed.find("DATASUM = '", second);
    REQUIRE(at != std::string::npos);
    std::size_t digit = changed.find_first_of("123456789", at + 11);
    changed[digit] = changed[digit] == '9' ? '8' : static_cast<char>(changed[digit] + 1);
    const RoundTrip rt = round_trip(changed);
    const auto all = rt.report.all_findings();
    REQUIRE(all.size() == 2);
    CHECK(all[0].code == "datasum-mismatch");
    CHECK(all[1].code == "checksum-mismatch");
    CHECK(all[0].hdu == 2);
  }
}

TEST_CASE("a blank DATASUM on an HDU without data verifies, as CFITSIO reads it", "[findings]") {
  // memtest.fits (astropy's test data): the primary has no data and DATASUM = '        ' (0 to
  // CFITSIO's strtoul, the sum of no data); its table's cards are stale.
  TempDir dir;
  const auto c = fitsasdf::test::convert_path(
      dir, fitsasdf::test::corpus_dir() / "fits-astropy" / "memtest.fits");
  for (const auto& f : c.report.all_findings()) {
    INFO(f.code << ": " << f.message);
    CHECK(f.hdu == 2);
  }
  CHECK_FALSE(c.report.all_findings().empty());
}
