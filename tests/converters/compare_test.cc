// compare_fits, compare_asdf, diff_files and the verification calls on small FITS files built
// here byte by byte (tests/support/fits_builder.h) and altered with byte edits: each alteration
// is found, named (keyword, values, index) and classified; verification (bytes, cards in place)
// and fitsdiff's rules (values, keywords in any order) tell the cases apart where they should.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "asdfcore/error.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/diff.h"
#include "fitsasdf/verify.h"
#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf;
using namespace fitsasdf::test;
namespace fb = fitsasdf::test::fits_builder;
namespace fs = std::filesystem;

namespace {

/// The sample file and one altered copy, written to a temporary folder.
struct Pair {
  TempDir dir;
  std::string a;
  std::string b;
  Pair(const std::string& altered, const std::string& original = fb::sample()) {
    a = (dir / "a.fits").string();
    b = (dir / "b.fits").string();
    fb::write(a, original);
    fb::write(b, altered);
  }
};

CompareOptions verify_mode() {
  CompareOptions o;
  o.mode = CompareMode::kVerify;
  return o;
}

const std::string kExptime = fb::card("EXPTIME", "12.5", "seconds");

/// A 64 x 48 int16 image (`offset` added to every pixel) compressed by `fpack -g` (GZIP_1, one
/// tile a row) into `path`.
void gzip_tiled(const fs::path& path, int offset) {
  std::string pixels;
  for (int y = 0; y < 48; ++y) {
    for (int x = 0; x < 64; ++x) {
      pixels += fb::big_endian<std::int16_t>(static_cast<std::int16_t>(offset + 5 * x - 2 * y));
    }
  }
  const fs::path plain = path.parent_path() / "plain.fits";
  fb::write(plain, fb::hdu({fb::card("SIMPLE", "T"), fb::num("BITPIX", 16), fb::num("NAXIS", 2),
                            fb::num("NAXIS1", 64), fb::num("NAXIS2", 48)},
                           pixels));
  fs::remove(path);
  const RunResult r = run({"fpack", "-g", "-O", path.string(), plain.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

}  // namespace

TEST_CASE("verify: GZIP tiles from another compressor differ in bytes, equal in pixels",
          "[compare]") {
  TempDir dir;
  const fs::path packed = dir / "packed.fits.fz";
  gzip_tiled(packed, 1000);
  CHECK(verify_round_trip(packed.string()).equivalent());  // CFITSIO's own tiles come back

  // Another compressor's tiles: every gzip header says "maximum compression" (XFL 2), where
  // CFITSIO's level 1 writes 4. The streams stay valid (the gzip CRC covers the data only);
  // the pixels are the same.
  std::string bytes = fb::read(packed);
  const std::string magic("\x1f\x8b\x08", 3);
  std::size_t tiles = 0;
  for (std::size_t at = bytes.find(magic); at != std::string::npos;
       at = bytes.find(magic, at + 1)) {
    REQUIRE(bytes[at + 8] == 4);
    bytes[at + 8] = 2;
    ++tiles;
  }
  REQUIRE(tiles == 48);
  const fs::path other = dir / "other.fits.fz";
  fb::write(other, bytes);
  const VerifyReport round = verify_round_trip(other.string());
  CHECK_FALSE(round.equivalent());
  const HduComparison& image = round.comparison.hdus.at(1);
  CHECK(image.kind == "tile-compressed image");
  CHECK_FALSE(image.data.identical);
  const auto notes = [](const HduComparison& h, const std::string& start) {
    return std::count_if(h.notes.begin(), h.notes.end(),
                         [&](const std::string& note) { return note.starts_with(start); });
  };
  // (Two more notes: fpack's DATASUM and CHECKSUM no longer match the edited bytes.)
  CHECK(notes(image, "decompressed, the images are equal in value") == 1);
  CHECK(notes(image, "decompressed, the images differ") == 0);

  // Two different images: the decompressed comparison says so.
  const fs::path shifted = dir / "shifted.fits.fz";
  gzip_tiled(shifted, 1001);
  const VerifyReport pair = verify_pair(packed.string(), shifted.string());
  CHECK_FALSE(pair.equivalent());
  CHECK(notes(pair.comparison.hdus.at(1),
              "decompressed, the images differ too: 3072 of 3072 pixels") == 1);
  CHECK(notes(pair.comparison.hdus.at(1), "decompressed, the images are equal") == 0);
}

namespace {}  // namespace

TEST_CASE("compare_fits: a file equals itself in both modes", "[compare]") {
  Pair p(fb::sample());
  for (const auto mode : {CompareMode::kVerify, CompareMode::kDiff}) {
    CompareOptions o;
    o.mode = mode;
    const FitsComparison c = compare_fits(p.a, p.b, o);
    CHECK(c.equivalent());
    REQUIRE(c.hdus.size() == 3);
    CHECK(c.hdus[0].name == "PRIMARY");
    CHECK(c.hdus[0].kind == "image");
    CHECK(c.hdus[1].name == "SCI");
    CHECK(c.hdus[2].kind == "binary table");
    for (const auto& h : c.hdus) {
      CHECK(h.header == HeaderMatch::kIdentical);
      CHECK(h.data.identical);
      CHECK(h.card_differences == 0);
    }
    CHECK(c.hdus[0].data.compared == 12);  // pixels
    CHECK(c.hdus[2].data.compared == 6);   // 3 rows x 2 columns
  }
}

TEST_CASE("compare_fits: a flipped bit in the data is the first differing element", "[compare]") {
  // SCI element 2 (FITS index [2]) is 1.5 = 0x3fc00000; its last byte's low bit flipped.
  Pair p(fb::flip_bit(fb::sample(), fb::data_start(2) + 4 + 3));
  for (const auto mode : {CompareMode::kVerify, CompareMode::kDiff}) {
    CompareOptions o;
    o.mode = mode;
    const FitsComparison c = compare_fits(p.a, p.b, o);
    CHECK_FALSE(c.equivalent());
    CHECK(c.hdus[0].equivalent());
    const HduComparison& sci = c.hdus[1];
    CHECK(sci.header == HeaderMatch::kIdentical);
    CHECK_FALSE(sci.data.identical);
    CHECK(sci.data.differing == 1);
    CHECK(sci.data.compared == 5);
    REQUIRE(sci.data.elements.size() == 1);
    CHECK(sci.data.elements[0].index == std::vector<std::uint64_t>{2});
    CHECK(sci.data.elements[0].a == "1.5");
    CHECK(sci.data.elements[0].b == "1.5000001");
  }
}

TEST_CASE("compare_fits: a 2-d image reports the index in FITS axis order, 1-based", "[compare]") {
  // Primary pixel at numpy [1, 2] = flat 6 = FITS [3, 2]; value 60 -> 61.
  Pair p(fb::flip_bit(fb::sample(), fb::data_start(1) + 6 * 2 + 1));
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  REQUIRE(c.hdus[0].data.elements.size() == 1);
  CHECK(c.hdus[0].data.elements[0].index == std::vector<std::uint64_t>{3, 2});
  CHECK(c.hdus[0].data.elements[0].a == "60");
  CHECK(c.hdus[0].data.elements[0].b == "61");
}

TEST_CASE("compare_fits: NaN payloads and the sign of zero count in verification only",
          "[compare]") {
  const std::string nan_payload = fb::flip_bit(fb::sample(), fb::data_start(2) + 8 + 3);
  const std::string zero_sign = fb::flip_bit(fb::sample(), fb::data_start(2) + 16, 7);
  for (const std::string& altered : {nan_payload, zero_sign}) {
    Pair p(altered);
    const FitsComparison exact = compare_fits(p.a, p.b, verify_mode());
    CHECK_FALSE(exact.equivalent());
    REQUIRE(exact.hdus[1].data.elements.size() == 1);
    CompareOptions values;
    CHECK(compare_fits(p.a, p.b, values).equivalent());  // fitsdiff: NaN == NaN, -0.0 == 0.0
  }
  Pair p(nan_payload);
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  const auto& e = c.hdus[1].data.elements.at(0);
  CHECK(e.index == std::vector<std::uint64_t>{3});
  CHECK(e.a == "nan(0x7fc00000)");
  CHECK(e.b == "nan(0x7fc00001)");
}

TEST_CASE("compare_fits: a changed card value names the keyword and both values", "[compare]") {
  Pair p(fb::replace(fb::sample(), kExptime, fb::card("EXPTIME", "13.5", "seconds")));
  for (const auto mode : {CompareMode::kVerify, CompareMode::kDiff}) {
    CompareOptions o;
    o.mode = mode;
    const FitsComparison c = compare_fits(p.a, p.b, o);
    CHECK_FALSE(c.equivalent());
    const HduComparison& h = c.hdus[0];
    CHECK(h.header == HeaderMatch::kDifferent);
    CHECK(h.data.identical);
    REQUIRE(h.card_differences == 1);
    CHECK(h.cards[0].kind == CardDifference::Kind::kValue);
    CHECK(h.cards[0].keyword == "EXPTIME");
    CHECK(h.cards[0].position_a == 7);
    CHECK(h.cards[0].a == "12.5");
    CHECK(h.cards[0].b == "13.5");
  }
  // Ignored keywords (with a wildcard) are not compared.
  CompareOptions ignore;
  ignore.ignore_keywords = {"exp*"};
  CHECK(compare_fits(p.a, p.b, ignore).equivalent());
}

TEST_CASE("compare_fits: a changed repeated card names its occurrence", "[compare]") {
  // The headers list the same keywords in the same order; the second HISTORY card changed.
  Pair p(fb::replace(fb::sample(), "HISTORY second line", "HISTORY other line "));
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  CHECK_FALSE(c.equivalent());
  REQUIRE(c.hdus[0].cards.size() == 1);
  CHECK(c.hdus[0].cards[0].kind == CardDifference::Kind::kValue);
  CHECK(c.hdus[0].cards[0].keyword == "HISTORY");
  CHECK(c.hdus[0].cards[0].occurrence == 2);
  CHECK(c.hdus[0].cards[0].position_a == 9);
}

TEST_CASE("compare_fits: a changed comment is a comment difference", "[compare]") {
  Pair p(fb::replace(fb::sample(), "seconds", "minutes"));
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  CHECK_FALSE(c.equivalent());
  REQUIRE(c.hdus[0].cards.size() == 1);
  CHECK(c.hdus[0].cards[0].kind == CardDifference::Kind::kComment);
  CHECK(c.hdus[0].cards[0].keyword == "EXPTIME");
  CHECK(c.hdus[0].cards[0].a == "seconds");
  CHECK(c.hdus[0].cards[0].b == "minutes");
  CHECK_FALSE(compare_fits(p.a, p.b).equivalent());  // fitsdiff compares comments too
}

TEST_CASE("compare_fits: reordered cards differ in verification, not under fitsdiff's rules",
          "[compare]") {
  Pair p(fb::swap_cards(fb::sample(), "OBJECT  =", "EXPTIME ="));
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  CHECK_FALSE(c.equivalent());
  const HduComparison& h = c.hdus[0];
  CHECK(h.header == HeaderMatch::kDifferent);
  REQUIRE(h.card_differences == 1);
  CHECK(h.cards[0].kind == CardDifference::Kind::kMoved);
  CHECK((h.cards[0].keyword == "OBJECT" || h.cards[0].keyword == "EXPTIME"));
  CHECK(h.cards[0].position_a != h.cards[0].position_b);
  CHECK(compare_fits(p.a, p.b).equivalent());
}

TEST_CASE("compare_fits: a card written differently is equal in value", "[compare]") {
  Pair p(fb::replace(fb::sample(), kExptime, fb::card("EXPTIME", "1.25E1", "seconds")));
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  CHECK(c.equivalent());
  CHECK(c.hdus[0].header == HeaderMatch::kEqualValues);
  REQUIRE(c.hdus[0].cards.size() == 1);
  CHECK(c.hdus[0].cards[0].kind == CardDifference::Kind::kText);
  CHECK(c.hdus[0].cards[0].a == kExptime);
  CHECK(compare_fits(p.a, p.b).equivalent());
}

TEST_CASE("compare_fits: a missing HDU is found and the others still paired", "[compare]") {
  std::string altered = fb::sample();
  altered.erase(fb::kHduSize, fb::kHduSize);  // drop SCI
  Pair p(altered);
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  CHECK_FALSE(c.equivalent());
  CHECK(c.hdus_a == 3);
  CHECK(c.hdus_b == 2);
  CHECK(c.missing_hdus == std::vector<int>{2});
  CHECK(c.extra_hdus.empty());
  REQUIRE(c.hdus.size() == 2);
  CHECK(c.hdus[1].hdu_a == 3);
  CHECK(c.hdus[1].hdu_b == 2);
  CHECK(c.hdus[1].equivalent());
  // The other way round, the HDU is extra.
  const FitsComparison back = compare_fits(p.b, p.a, verify_mode());
  CHECK(back.extra_hdus == std::vector<int>{2});
  // fitsdiff's rules pair the HDUs in order and report the count.
  const FitsComparison values = compare_fits(p.a, p.b);
  CHECK_FALSE(values.equivalent());
  CHECK(values.missing_hdus == std::vector<int>{3});
}

TEST_CASE("compare_fits: HDUs missing and added among thousands are paired around them",
          "[compare]") {
  // 3,000 image extensions named in turn A, B, C (so that names repeat), one byte of data each.
  const auto extension = [](int n) {
    const std::string name(1, static_cast<char>('A' + n % 3));
    return fb::hdu({fb::text("XTENSION", "IMAGE"), fb::num("BITPIX", 8), fb::num("NAXIS", 1),
                    fb::num("NAXIS1", 1), fb::num("PCOUNT", 0), fb::num("GCOUNT", 1),
                    fb::text("EXTNAME", name)},
                   std::string(1, static_cast<char>(n)));
  };
  std::string a = fb::empty_primary();
  std::string b = fb::empty_primary();
  for (int n = 1; n <= 3000; ++n) {
    a += extension(n);
    if (n == 3000) b += extension(7);  // an extra HDU before a's last
    if (n != 1500) b += extension(n);
  }
  Pair p(b, a);
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  CHECK(c.hdus_a == 3001);
  CHECK(c.hdus_b == 3001);
  // Same counts: paired in order (as fitsdiff pairs), so the run after the gap differs.
  CHECK(c.missing_hdus.empty());
  CHECK_FALSE(c.hdus[1500].equivalent());
  CHECK_FALSE(c.equivalent());
  // One fewer in b: the gap is found, everything else paired with its twin.
  std::string shorter = fb::empty_primary();
  for (int n = 1; n <= 3000; ++n) {
    if (n != 1500) shorter += extension(n);
  }
  Pair q(shorter, a);
  const FitsComparison d = compare_fits(q.a, q.b, verify_mode());
  CHECK(d.missing_hdus == std::vector<int>{1501});
  CHECK(d.extra_hdus.empty());
  REQUIRE(d.hdus.size() == 3000);
  CHECK(std::all_of(d.hdus.begin(), d.hdus.end(), [](const HduComparison& h) {
    return h.equivalent() && h.hdu_b == (h.hdu_a <= 1500 ? h.hdu_a : h.hdu_a - 1);
  }));
  // One more in b, just before its last: extra, a's last HDU paired with b's.
  std::string longer = fb::empty_primary();
  for (int n = 1; n <= 3000; ++n) {
    if (n == 3000) longer += extension(4);
    longer += extension(n);
  }
  Pair r(longer, a);
  const FitsComparison e = compare_fits(r.a, r.b, verify_mode());
  CHECK(e.missing_hdus.empty());
  CHECK(e.extra_hdus == std::vector<int>{3001});
  REQUIRE(e.hdus.size() == 3001);
  CHECK(e.hdus.back().hdu_a == 3001);
  CHECK(e.hdus.back().hdu_b == 3002);
  CHECK(e.hdus.back().equivalent());
}

TEST_CASE("compare_fits: a changed table cell names its row and column", "[compare]") {
  Pair p(fb::replace(fb::sample(), "bb      ", "bx      "));
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  const HduComparison& t = c.hdus[2];
  CHECK_FALSE(t.data.identical);
  REQUIRE(t.data.elements.size() == 1);
  CHECK(t.data.elements[0].column == "name");
  CHECK(t.data.elements[0].index == std::vector<std::uint64_t>{2});
  CHECK(t.data.elements[0].a == "'bb      '");
  CHECK(t.data.elements[0].b == "'bx      '");
  const FitsComparison values = compare_fits(p.a, p.b);
  CHECK(values.hdus[2].data.elements.at(0).a == "'bb'");
}

TEST_CASE("compare_fits: DATASUM and CHECKSUM are checked with CFITSIO", "[compare]") {
  // checksum.fits (astropy's test data): HDU 2's data start at byte 17280.
  const std::string good = fb::read(data_dir() / "astropy" / "checksum.fits");
  Pair p(fb::flip_bit(good, 17280 + 10), good);
  const FitsComparison c = compare_fits(p.a, p.b, verify_mode());
  REQUIRE(c.hdus.size() == 2);
  CHECK(c.hdus[0].datasum_a == ChecksumState::kValid);
  CHECK(c.hdus[0].checksum_b == ChecksumState::kValid);
  CHECK_FALSE(c.hdus[0].checksums_broken());
  CHECK(c.hdus[1].datasum_a == ChecksumState::kValid);
  CHECK(c.hdus[1].datasum_b == ChecksumState::kInvalid);
  CHECK(c.hdus[1].checksum_b == ChecksumState::kInvalid);
  CHECK(c.hdus[1].checksums_broken());
  CHECK_FALSE(c.hdus[1].data.identical);

  // A byte of the padding after the 80 bytes of table data: the data are the same, the padding
  // is noted, and DATASUM (which covers the padding) is broken.
  Pair q(fb::flip_bit(good, 17280 + 100), good);
  const FitsComparison d = compare_fits(q.a, q.b, verify_mode());
  CHECK(d.hdus[1].data.identical);
  CHECK(d.hdus[1].datasum_b == ChecksumState::kInvalid);
  REQUIRE(d.hdus[1].notes.size() == 1);
  CHECK(d.hdus[1].notes[0].find("padding") != std::string::npos);
  CHECK_FALSE(d.equivalent());
}

TEST_CASE("compare_fits: lists at most max_listed differences and counts them all", "[compare]") {
  std::string altered = fb::sample();
  for (int i = 0; i < 12; ++i) altered = fb::flip_bit(altered, fb::data_start(1) + 2 * i + 1);
  Pair p(altered);
  CompareOptions o = verify_mode();
  o.max_listed = 3;
  const FitsComparison c = compare_fits(p.a, p.b, o);
  CHECK(c.hdus[0].data.differing == 12);
  CHECK(c.hdus[0].data.elements.size() == 3);
}

TEST_CASE("compare_fits: input that is not FITS throws", "[compare]") {
  TempDir dir;
  fb::write(dir / "text.fits", "hello, this is not FITS\n");
  fb::write(dir / "a.fits", fb::sample());
  CHECK_THROWS_AS(compare_fits((dir / "a.fits").string(), (dir / "text.fits").string()),
                  asdfcore::Error);
  CHECK_THROWS_AS(compare_fits((dir / "a.fits").string(), (dir / "missing.fits").string()),
                  asdfcore::Error);
}

TEST_CASE("compare_asdf: a changed array element and a changed tree value", "[compare]") {
  TempDir dir;
  const std::string good = fb::sample();
  fb::write(dir / "a.fits", good);
  fb::write(dir / "b.fits", fb::replace(fb::flip_bit(good, fb::data_start(2) + 4 + 3), kExptime,
                                        fb::card("EXPTIME", "13.5", "seconds")));
  ConvertOptions convert;
  convert.durable = false;
  const std::string a = (dir / "a.asdf").string();
  const std::string a2 = (dir / "a2.asdf").string();
  const std::string b = (dir / "b.asdf").string();
  convert_fits_to_asdf((dir / "a.fits").string(), a, convert);
  convert_fits_to_asdf((dir / "b.fits").string(), b, convert);
  convert.compression = "zlib";  // the same values in other blocks
  convert_fits_to_asdf((dir / "a.fits").string(), a2, convert);

  const AsdfComparison same = compare_asdf(a, a2);
  CHECK(same.identical());
  CHECK(same.arrays_compared >= 3);

  const AsdfComparison c = compare_asdf(a, b);
  CHECK_FALSE(c.identical());
  const auto value = std::find_if(c.differences.begin(), c.differences.end(), [](const auto& d) {
    return d.kind == TreeDifference::Kind::kValue;
  });
  REQUIRE(value != c.differences.end());
  CHECK(value->path == "/fits/0/header/6/1");
  CHECK(value->a == "12.5");
  CHECK(value->b == "13.5");
  const auto array = std::find_if(c.differences.begin(), c.differences.end(), [](const auto& d) {
    return d.kind == TreeDifference::Kind::kArray;
  });
  REQUIRE(array != c.differences.end());
  CHECK(array->path == "/fits/1/data");
  CHECK(array->array.differing == 1);
  REQUIRE(array->array.elements.size() == 1);
  CHECK(array->array.elements[0].index == std::vector<std::uint64_t>{1});  // 0-based, C order
  CHECK(array->array.elements[0].a == "1.5");
  CHECK(array->array.elements[0].b == "1.5000001");
  CHECK(c.total == 2);  // the native view shares the nodes: each difference is found once

  CompareOptions ignore;
  ignore.ignore_paths = {"/fits/0/header"};
  CHECK(compare_asdf(a, b, ignore).total == 1);
}

TEST_CASE("diff_files: picks the comparison by content, converting ASDF for FITS", "[compare]") {
  TempDir dir;
  fb::write(dir / "a.fits", fb::sample());
  fb::write(dir / "b.fits", fb::replace(fb::sample(), "seconds", "minutes"));
  ConvertOptions convert;
  convert.durable = false;
  convert_fits_to_asdf((dir / "b.fits").string(), (dir / "b.asdf").string(), convert);
  convert_fits_to_asdf((dir / "a.fits").string(), (dir / "a.asdf").string(), convert);

  const DiffReport fits = diff_files((dir / "a.fits").string(), (dir / "b.fits").string());
  REQUIRE(fits.fits);
  CHECK_FALSE(fits.asdf);
  CHECK_FALSE(fits.identical());

  const DiffReport asdf = diff_files((dir / "a.asdf").string(), (dir / "b.asdf").string());
  REQUIRE(asdf.asdf);
  CHECK_FALSE(asdf.identical());

  const DiffReport mixed = diff_files((dir / "a.fits").string(), (dir / "b.asdf").string());
  REQUIRE(mixed.fits);
  CHECK(mixed.converted == "b");
  CHECK_FALSE(mixed.identical());
  CHECK(mixed.fits->hdus[0].cards.at(0).kind == CardDifference::Kind::kComment);
  CHECK(diff_files((dir / "a.asdf").string(), (dir / "a.fits").string()).identical());
}

TEST_CASE("verify: the round trip and an existing pair", "[compare]") {
  TempDir dir;
  const std::string a = (dir / "a.fits").string();
  fb::write(a, fb::sample());
  // The intermediate files go to TMPDIR: a folder of this test's own, to see them removed.
  const fs::path tmp = dir / "tmp";
  fs::create_directory(tmp);
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir ? old_tmpdir : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  const VerifyReport round = verify_round_trip(a);
  CHECK(round.round_trip);
  CHECK(round.equivalent());
  CHECK_FALSE(round.blocks.empty());
  for (const auto& b : round.blocks) CHECK(b.status == "stored");

  fb::write(dir / "b.fits", fb::flip_bit(fb::sample(), fb::data_start(2) + 4 + 3));
  ConvertOptions convert;
  convert.durable = false;
  convert_fits_to_asdf((dir / "b.fits").string(), (dir / "b.asdf").string(), convert);
  const VerifyReport pair = verify_pair(a, (dir / "b.asdf").string());
  CHECK_FALSE(pair.equivalent());
  CHECK(pair.asdf == (dir / "b.asdf").string());
  CHECK(pair.comparison.hdus.at(1).data.elements.at(0).index == std::vector<std::uint64_t>{2});

  // The temporary folders are gone, also after a failure.
  fb::write(dir / "plain.asdf", "#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n---\nfoo: 1\n...\n");
  bool refused_or_different = false;
  try {
    refused_or_different = !verify_pair(a, (dir / "plain.asdf").string()).equivalent();
  } catch (const asdfcore::Error&) {
    refused_or_different = true;  // no fits list to convert back
  }
  CHECK(refused_or_different);
  CHECK(fs::is_empty(tmp));
  if (old_tmpdir) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  // An ASDF file where the FITS file belongs is refused.
  CHECK_THROWS_AS(verify_round_trip((dir / "b.asdf").string()), asdfcore::Error);
}
