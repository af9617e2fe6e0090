// Binary tables, FITS -> ASDF: the `fits` item (a structured array over the row bytes, the heap,
// logical originals), the one block per table and its in-place changes (unsigned columns,
// logicals, streamed across chunk boundaries), the native table (views, units, descriptions,
// masks, bits, physical values), astropy's own test tables, and a table compressed by fpack.
// Expected values are astropy 5.2.1's reading of the same bytes.
#include <cmath>
#include <complex>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
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
using asdfcore::AsdfFile;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::MaskKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::NodePtr;
using fitsasdf::ConversionReport;
using fitsasdf::ConvertOptions;
using fitsasdf::ScalingPolicy;
using fitsasdf::test::convert_bytes;
using fitsasdf::test::convert_path;
using fitsasdf::test::Converted;
using fitsasdf::test::TempDir;
using fitsasdf::test::values;
using fitsasdf::test::fits_builder::big_endian;
using fitsasdf::test::fits_builder::card;
using fitsasdf::test::fits_builder::empty_primary;
using fitsasdf::test::fits_builder::header;
using fitsasdf::test::fits_builder::num;
using fitsasdf::test::fits_builder::padded;
using fitsasdf::test::fits_builder::table_cards;
using fitsasdf::test::fits_builder::text;

// --- building FITS files ---------------------------------------------------------------------

/// A file with an empty primary HDU and one binary table: `data` is the data area (rows, gap,
/// heap) without padding; `columns` are the cards of each column, `extra` more cards.
std::string table_file(long long naxis1, long long naxis2, long long pcount,
                       const std::vector<std::vector<std::string>>& columns,
                       const std::string& data, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> cards =
      table_cards("BINTABLE", naxis1, naxis2, pcount, static_cast<long long>(columns.size()));
  for (const auto& c : columns) cards.insert(cards.end(), c.begin(), c.end());
  cards.insert(cards.end(), extra.begin(), extra.end());
  return empty_primary() + header(cards) + padded(data);
}

// --- converting and reading back -------------------------------------------------------------

std::vector<std::string> strings(const NDArray& a) {
  REQUIRE(a.dtype().kind() == DTypeKind::kAscii);
  const std::vector<std::uint8_t> bytes = a.to_c_order(ByteOrder::kBig);
  const std::size_t w = a.dtype().itemsize();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::string s(reinterpret_cast<const char*>(bytes.data()) + i * w, w);
    s.erase(s.find_last_not_of(std::string(" \0", 2)) + 1);
    out.push_back(s);
  }
  return out;
}

/// "name:numpy str:shape" of every field, e.g. "j:>i4:(2,)".
std::vector<std::string> fields_of(const NDArray& a) {
  std::vector<std::string> out;
  for (const auto& f : a.dtype().fields()) {
    std::string shape;
    for (std::uint64_t d : f.shape) shape += std::to_string(d) + ",";
    out.push_back(f.name + ":" + f.dtype.numpy_str() + ":(" + shape + ")");
  }
  return out;
}

std::string bytes_of(const std::vector<std::uint8_t>& v) { return {v.begin(), v.end()}; }

// --- every TFORM -----------------------------------------------------------------------------

/// Three rows of every fixed-width type, a zero-width column, bits, two descriptors, a heap
/// after a gap, and column names astropy would refuse (missing, duplicate).
struct EveryForm {
  static constexpr long long kRows = 3;
  static constexpr long long kGap = 8;
  std::string rows;
  std::string heap;
  long long naxis1 = 0;
  std::string fits;

  EveryForm() {
    const std::vector<std::vector<std::string>> columns{
        {text("TTYPE1", "b"), text("TFORM1", "B")},
        {text("TTYPE2", "i"), text("TFORM2", "I"), text("TUNIT2", "km/s"), num("TNULL2", -1),
         text("TCOMM2", "speed of the thing")},
        {text("TTYPE3", "j"), text("TFORM3", "2J")},
        {text("TFORM4", "K")},  // no TTYPE4: col4
        {text("TTYPE5", "e"), text("TFORM5", "E"), text("TUNIT5", "erg/s/cm2")},
        {text("TTYPE6", "d"), text("TFORM6", "6D"), text("TDIM6", "(3,2)")},
        {text("TTYPE7", "c"), text("TFORM7", "C")},
        {text("TTYPE8", "m"), text("TFORM8", "M")},
        {text("TTYPE9", "a"), text("TFORM9", "8A")},
        {text("TTYPE10", "a2"), text("TFORM10", "6A"), text("TDIM10", "(3,2)")},
        {text("TTYPE11", "z"), text("TFORM11", "0J")},
        {text("TTYPE12", "x"), text("TFORM12", "11X")},
        {text("TTYPE13", "pj"), text("TFORM13", "1PJ(3)")},
        {text("TTYPE14", "qd"), text("TFORM14", "QD(2)")},
        {text("TTYPE15", "B"), text("TFORM15", "B")},  // duplicate of 'b' ignoring case
    };
    // Heap: pj rows hold 0, 1, 2 int32 values; qd rows 2, 0, 1 float64 values.
    const std::vector<std::pair<int, int>> pj{{0, 0}, {1, 0}, {2, 4}};
    heap = big_endian(7, 4) + big_endian(8, 4) +
           big_endian(9, 4);  // 12 bytes of int32: rows 1 and 2 share from 0/4
    const std::vector<std::pair<int, int>> qd{{2, 12}, {0, 0}, {1, 28}};
    heap += big_endian<double>(1.5) + big_endian<double>(-2.5) + big_endian<double>(4.0);
    for (int r = 0; r < kRows; ++r) {
      std::string row;
      row += static_cast<char>(10 + r);                                         // B
      row += big_endian(static_cast<std::uint64_t>(r == 1 ? -1 : r * 100), 2);  // I
      row += big_endian(static_cast<std::uint64_t>(r), 4) +
             big_endian(static_cast<std::uint64_t>(-r), 4);                       // 2J
      row += big_endian(static_cast<std::uint64_t>(r) * 1000000000000ULL, 8);     // K
      row += big_endian<float>(0.25f * static_cast<float>(r));                    // E
      for (int k = 0; k < 6; ++k) row += big_endian<double>(r * 10 + k);          // 6D
      row += big_endian<float>(static_cast<float>(r)) + big_endian<float>(1.0f);  // C
      row += big_endian<double>(r) + big_endian<double>(-1.0);                    // M
      std::string a = "row" + std::to_string(r);
      a.resize(8, ' ');
      row += a;                                                         // 8A
      row += std::string("ab") + char('c' + r) + "de" + char('f' + r);  // 6A as (3,2)
      row += std::string("\xa5\x80", 2);                                // 11X: 10100101 100
      row += big_endian(static_cast<std::uint64_t>(pj[r].first), 4) +
             big_endian(static_cast<std::uint64_t>(pj[r].second), 4);
      row += big_endian(static_cast<std::uint64_t>(qd[r].first), 8) +
             big_endian(static_cast<std::uint64_t>(qd[r].second), 8);
      row += static_cast<char>(200 + r);  // B
      rows += row;
      naxis1 = static_cast<long long>(row.size());
    }
    const std::string data = rows + std::string(kGap, '\0') + heap;
    fits = table_file(naxis1, kRows, static_cast<long long>(kGap + heap.size()), columns, data,
                      {num("THEAP", naxis1 * kRows + kGap), text("EXTNAME", "EVERY")});
  }
};

}  // namespace

TEST_CASE("every TFORM becomes a big-endian field of one structured array over the row block",
          "[bintable]") {
  TempDir dir;
  const EveryForm t;
  ConvertOptions no_native;
  no_native.native_view = false;
  const Converted c = convert_bytes(dir, t.fits, no_native);
  REQUIRE(c.report.hdus.size() == 2);
  CHECK(c.report.hdus[1].kind == "binary table");

  const NDArray rows = c.array({"fits", "1", "data"});
  CHECK(rows.shape() == std::vector<std::uint64_t>{3});
  CHECK(rows.offset() == 0);
  CHECK(rows.source().block == 0);
  CHECK(rows.dtype().itemsize() == static_cast<std::uint64_t>(t.naxis1));
  CHECK(fields_of(rows) == std::vector<std::string>{"b:|u1:()", "i:>i2:()", "j:>i4:(2,)",
                                                    "col4:>i8:()", "e:>f4:()", "d:>f8:(2,3,)",
                                                    "c:>c8:()", "m:>c16:()", "a:|S8:()",
                                                    "a2:|S3:(2,)", "z:>i4:(0,)", "x:|u1:(2,)",
                                                    "pj:>i4:(2,)", "qd:>i8:(2,)", "B_15:|u1:()"});
  // Nothing to change: the block is the data area exactly (rows, gap, heap), written once.
  REQUIRE(c.block_count() == 1);
  CHECK(bytes_of(c.block(0)) == t.rows + std::string(EveryForm::kGap, '\0') + t.heap);
  CHECK(bytes_of(rows.to_c_order(ByteOrder::kBig)) == t.rows);

  // The heap: a view from THEAP to the end; descriptors point into it.
  const NDArray heap = c.array({"fits", "1", "heap"});
  CHECK(heap.source().block == 0);
  CHECK(heap.offset() == static_cast<std::uint64_t>(t.naxis1 * 3 + EveryForm::kGap));
  CHECK(heap.dtype() == DType::numeric(DTypeKind::kUInt8));
  CHECK(bytes_of(heap.to_c_order(ByteOrder::kBig)) == t.heap);
  CHECK_FALSE(c.at({"fits", "1"})->get("logical_originals"));
  // The cards as read, every one.
  CHECK(c.at({"fits", "1", "header"})->items().size() == 8 + 35 + 2);
}

TEST_CASE("the native table: views into the row block with names, units and descriptions",
          "[bintable]") {
  TempDir dir;
  const EveryForm t;
  const Converted c = convert_bytes(dir, t.fits);
  // Descriptors are left out (ragged data), each with a note; the zero-width column stays.
  CHECK(c.column_names("EVERY") == std::vector<std::string>{"b", "i", "j", "col4", "e", "d", "c",
                                                            "m", "a", "a2", "z", "x", "B_15"});
  CHECK(c.has_note(1, "variable-length column 'pj' is left out"));
  CHECK(c.has_note(1, "variable-length column 'qd' is left out"));
  // The row block, then the unpacked bits of 'x'.
  REQUIRE(c.block_count() == 2);

  const NDArray j = c.column_data("EVERY", "j");
  CHECK(j.source().block == 0);
  CHECK(j.offset() == 3);
  CHECK(j.strides() == std::vector<std::int64_t>{t.naxis1, 4});
  CHECK(values<std::int32_t>(j) == std::vector<std::int32_t>{0, 0, 1, -1, 2, -2});
  const NDArray d = c.column_data("EVERY", "d");
  CHECK(d.shape() == std::vector<std::uint64_t>{3, 2, 3});
  CHECK(values<double>(d)[7] == 11.0);
  CHECK(strings(c.column_data("EVERY", "a")) == std::vector<std::string>{"row0", "row1", "row2"});
  CHECK(strings(c.column_data("EVERY", "a2")) ==
        std::vector<std::string>{"abc", "def", "abd", "deg", "abe", "deh"});
  CHECK(values<std::uint64_t>(c.column_data("EVERY", "col4"))[2] == 2000000000000ULL);
  CHECK(values<std::uint8_t>(c.column_data("EVERY", "B_15")) ==
        std::vector<std::uint8_t>{200, 201, 202});
  const NDArray z = c.column_data("EVERY", "z");
  CHECK(z.shape() == std::vector<std::uint64_t>{3, 0});
  CHECK(z.size() == 0);

  // TNULL is the mask value; the unit in VOUnit; TCOMM the description.
  const NDArray i = c.column_data("EVERY", "i");
  CHECK(values<std::int16_t>(i) == std::vector<std::int16_t>{0, -1, 200});
  CHECK(i.mask_c_order() == std::vector<std::uint8_t>{0, 1, 0});
  CHECK(c.column("EVERY", "i")->get("unit")->as_string() == "km.s**-1");
  CHECK(c.column("EVERY", "i")->get("unit")->tag() == "tag:stsci.edu:asdf/unit/unit-1.0.0");
  CHECK(c.column("EVERY", "i")->get("description")->as_string() == "speed of the thing");
  CHECK(c.column("EVERY", "e")->get("unit")->as_string() == "cm**-2.erg.s**-1");  // astropy's order
  CHECK_FALSE(c.column("EVERY", "b")->get("unit"));

  // Bits: bool per bit, most significant first, in their own block.
  const NDArray x = c.column_data("EVERY", "x");
  CHECK(x.source().block == 1);
  CHECK(x.shape() == std::vector<std::uint64_t>{3, 11});
  CHECK(x.dtype() == DType::numeric(DTypeKind::kBool8));
  const std::vector<std::uint8_t> bits = x.to_c_order(ByteOrder::kLittle);
  CHECK(std::vector<std::uint8_t>(bits.begin(), bits.begin() + 11) ==
        std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0});
}

// --- in-place changes ------------------------------------------------------------------------

TEST_CASE("unsigned columns get their sign bits flipped and logicals become bools, in place",
          "[bintable]") {
  TempDir dir;
  // ui: I + 2^15 (TNULL 0 -> 32768); uj: 2J + 2^31; uk: K + 2^63 (TNULL 5); sb: B - 128;
  // l: 2L with T, F, 0 and '?' bytes; i: a plain I column beside them.
  const std::vector<std::vector<std::string>> columns{
      {text("TTYPE1", "ui"), text("TFORM1", "I"), num("TZERO1", 32768), num("TNULL1", 0)},
      {text("TTYPE2", "uj"), text("TFORM2", "2J"), num("TZERO2", 2147483648LL)},
      {text("TTYPE3", "uk"), text("TFORM3", "K"), card("TZERO3", "9223372036854775808"),
       num("TNULL3", 5)},
      {text("TTYPE4", "sb"), text("TFORM4", "B"), num("TZERO4", -128)},
      {text("TTYPE5", "l"), text("TFORM5", "2L")},
      {text("TTYPE6", "i"), text("TFORM6", "I")},
  };
  const std::string logicals[3] = {"TF", std::string("\0T", 2), "F?"};
  std::string rows;
  for (int r = 0; r < 3; ++r) {
    rows += big_endian(static_cast<std::uint64_t>(r) * 0x7fff, 2);  // ui stored
    rows += big_endian(0x80000000u + r, 4) +
            big_endian(static_cast<std::uint64_t>(0x7fffffff), 4);  // uj
    rows += big_endian(r == 1 ? 5 : 0x8000000000000000ULL + r, 8);  // uk
    rows += static_cast<char>(r * 100);                             // sb
    rows += logicals[r];
    rows += big_endian(static_cast<std::uint64_t>(-r), 2);
  }
  const Converted c = convert_bytes(dir, table_file(23, 3, 0, columns, rows));

  // The block: each changed byte changed, every other byte as stored.
  std::string expected = rows;
  for (int r = 0; r < 3; ++r) {
    const std::size_t base = static_cast<std::size_t>(r) * 23;
    for (const std::size_t at : std::initializer_list<std::size_t>{0, 2, 6, 10, 18}) {
      expected[base + at] = static_cast<char>(expected[base + at] ^ 0x80);
    }
    for (const std::size_t at : std::initializer_list<std::size_t>{19, 20}) {
      expected[base + at] = expected[base + at] == 'T' ? 1 : 0;
    }
  }
  const std::vector<std::uint8_t> block = c.block(0);
  CHECK(bytes_of(block) == expected);

  const NDArray data = c.array({"fits", "1", "data"});
  CHECK(fields_of(data) == std::vector<std::string>{"ui:>u2:()", "uj:>u4:(2,)", "uk:>u8:()",
                                                    "sb:|i1:()", "l:|b1:(2,)", "i:>i2:()"});
  CHECK(c.has_note(1, "ui (uint16), uj (uint32), uk (uint64), sb (int8)"));

  // The undefined and invalid logical bytes, recorded for the way back.
  const NodePtr originals = c.at({"fits", "1", "logical_originals", "l"});
  CHECK(values<std::uint64_t>(c.file.array(*originals->get("index"))) ==
        std::vector<std::uint64_t>{2, 5});
  CHECK(values<std::uint8_t>(c.file.array(*originals->get("value"))) ==
        std::vector<std::uint8_t>{0, '?'});

  // Native values as astropy reads them: 0, 32767, 65534 ...
  const NDArray ui = c.column_data("HDU2", "ui");
  CHECK(values<std::uint16_t>(ui) == std::vector<std::uint16_t>{32768, 65535, 32766});
  CHECK(ui.mask_c_order() == std::vector<std::uint8_t>{1, 0, 0});  // TNULL 0 + TZERO
  CHECK(values<std::uint32_t>(c.column_data("HDU2", "uj")) ==
        std::vector<std::uint32_t>{0, 4294967295u, 1, 4294967295u, 2, 4294967295u});
  const NDArray uk = c.column_data("HDU2", "uk");
  CHECK(values<std::uint64_t>(uk) == std::vector<std::uint64_t>{0, 0x8000000000000005ULL, 2});
  // TNULL 5 + 2^63 is beyond int64: a mask array (own block) instead of a value.
  CHECK(uk.mask().kind == MaskKind::kArray);
  CHECK(uk.mask_c_order() == std::vector<std::uint8_t>{0, 1, 0});
  CHECK(values<std::int8_t>(c.column_data("HDU2", "sb")) ==
        std::vector<std::int8_t>{-128, -28, 72});
  const NDArray l = c.column_data("HDU2", "l");
  CHECK(l.dtype() == DType::numeric(DTypeKind::kBool8));
  CHECK(values<std::uint8_t>(l) == std::vector<std::uint8_t>{1, 0, 0, 1, 0, 0});
  CHECK(l.mask_c_order() == std::vector<std::uint8_t>{0, 0, 1, 0, 0, 1});
  CHECK(values<std::int16_t>(c.column_data("HDU2", "i")) == std::vector<std::int16_t>{0, -1, -2});
  // Row block, the two logical_originals arrays, the uk mask, the l mask.
  CHECK(c.block_count() == 5);
}

TEST_CASE("the row edits stream across chunk boundaries, from plain and gzip files alike",
          "[bintable]") {
  TempDir dir;
  // 7-byte rows (I unsigned, L, J) over 5 MB: rows straddle the writer's 4 MiB chunks.
  const std::uint64_t n = 750001;
  const std::vector<std::vector<std::string>> columns{
      {text("TTYPE1", "u"), text("TFORM1", "I"), num("TZERO1", 32768)},
      {text("TTYPE2", "l"), text("TFORM2", "L")},
      {text("TTYPE3", "j"), text("TFORM3", "J")},
  };
  std::string rows;
  rows.reserve(n * 7);
  std::string expected;
  expected.reserve(n * 7);
  const char logical[4] = {'T', 'F', '\0', 'T'};
  for (std::uint64_t r = 0; r < n; ++r) {
    const std::string u = big_endian(r & 0xffff, 2);
    rows += u;
    rows += logical[r % 4];
    rows += big_endian(r, 4);
    expected += static_cast<char>(u[0] ^ 0x80);
    expected += u[1];
    expected += static_cast<char>(logical[r % 4] == 'T' ? 1 : 0);
    expected += big_endian(r, 4);
  }
  const std::string fits = table_file(7, static_cast<long long>(n), 0, columns, rows);
  ConvertOptions options;
  options.native_view = false;
  const Converted plain = convert_bytes(dir, fits, options, "big.fits");
  REQUIRE(plain.block(0).size() == expected.size());
  CHECK(bytes_of(plain.block(0)) == expected);
  CHECK(values<std::uint64_t>(
            plain.file.array(*plain.at({"fits", "1", "logical_originals", "l", "index"})))
            .size() == (n + 1) / 4);

  // The same bytes from a gzip container (taken from memory, changed on a copy).
  const auto gz = fitsasdf::test::run({"gzip", "-k", "-1", (dir / "big.fits").string()});
  REQUIRE(gz.status == 0);
  const Converted zipped = convert_path(dir, dir / "big.fits.gz", options);
  CHECK(zipped.block(0) == plain.block(0));
}

// --- scaling, byte order, empty tables --------------------------------------------------------

TEST_CASE("scaled columns: stored values by default, physical float64 with --scaling physical",
          "[bintable]") {
  TempDir dir;
  const std::vector<std::vector<std::string>> columns{
      {text("TTYPE1", "s"), text("TFORM1", "J"), card("TSCAL1", "0.5"), card("TZERO1", "10.0"),
       num("TNULL1", -99)},
      {text("TTYPE2", "f"), text("TFORM2", "2E"), card("TSCAL2", "2.0")},
  };
  std::string rows;
  const std::int32_t stored[3] = {1, -99, 7};
  for (int r = 0; r < 3; ++r) {
    rows += big_endian(static_cast<std::uint32_t>(stored[r]), 4);
    rows += big_endian<float>(0.5f * static_cast<float>(r)) + big_endian<float>(3.0f);
  }
  const std::string fits = table_file(12, 3, 0, columns, rows);
  const Converted raw = convert_bytes(dir, fits);
  CHECK(values<std::int32_t>(raw.column_data("HDU2", "s")) == std::vector<std::int32_t>{1, -99, 7});
  CHECK(raw.column_data("HDU2", "s").mask_c_order() == std::vector<std::uint8_t>{0, 1, 0});
  CHECK(raw.has_note(1, "TSCALn/TZEROn kept as cards"));
  CHECK(raw.block_count() == 1);

  ConvertOptions physical;
  physical.scaling = ScalingPolicy::kPhysical;
  const Converted phys = convert_bytes(dir, fits, physical, "phys.fits");
  // The item keeps the stored values; the native table has astropy's float64 values.
  CHECK(bytes_of(phys.block(0)) == rows);
  const NDArray s = phys.column_data("HDU2", "s");
  CHECK(s.dtype() == DType::numeric(DTypeKind::kFloat64));
  const std::vector<double> sv = values<double>(s);
  CHECK(sv[0] == 10.5);
  CHECK(std::isnan(sv[1]));  // TNULL
  CHECK(sv[2] == 13.5);
  CHECK(s.mask_c_order() == std::vector<std::uint8_t>{0, 1, 0});
  const NDArray f = phys.column_data("HDU2", "f");
  CHECK(f.shape() == std::vector<std::uint64_t>{3, 2});
  CHECK(values<double>(f) == std::vector<double>{0.0, 6.0, 1.0, 6.0, 2.0, 6.0});
  CHECK(phys.block_count() == 3);
}

TEST_CASE("native byte order (--native-byteorder) leaves tables big-endian and says so",
          "[bintable]") {
  TempDir dir;
  ConvertOptions options;
  options.native_byte_order = true;
  const Converted c =
      convert_bytes(dir,
                    table_file(4, 2, 0, {{text("TTYPE1", "j"), text("TFORM1", "J")}},
                               big_endian(1, 4) + big_endian(2, 4)),
                    options);
  CHECK(c.has_note(1, "--native-byteorder does not apply to tables"));
  CHECK(c.array({"fits", "1", "data"}).dtype().fields()[0].dtype.byte_order() == ByteOrder::kBig);
  CHECK(bytes_of(c.block(0)) == big_endian(1, 4) + big_endian(2, 4));
}

TEST_CASE("tables without rows or without row bytes", "[bintable]") {
  TempDir dir;
  const Converted none =
      convert_bytes(dir, table_file(7, 0, 0, {{text("TFORM1", "J")}, {text("TFORM2", "3A")}}, ""));
  const NDArray rows = none.array({"fits", "1", "data"});
  CHECK(rows.shape() == std::vector<std::uint64_t>{0});
  CHECK(fields_of(rows) == std::vector<std::string>{"col1:>i4:()", "col2:|S3:()"});
  CHECK(none.column_data("HDU2", "col2").size() == 0);
  CHECK(none.block_count() == 1);

  const Converted empty =
      convert_bytes(dir, table_file(0, 3, 0, {{text("TTYPE1", "z"), text("TFORM1", "0J")}}, ""), {},
                    "empty.fits");
  CHECK(empty.array({"fits", "1", "data"}).shape() == std::vector<std::uint64_t>{3});
  CHECK(empty.column_data("HDU2", "z").shape() == std::vector<std::uint64_t>{3, 0});
}

// --- astropy's test tables -------------------------------------------------------------------

TEST_CASE("astropy's test tables: heap gap, VLAs, zero-width columns, TDIM, bits", "[bintable]") {
  TempDir dir;
  const fs::path data = fitsasdf::test::data_dir() / "astropy";
  {
    // theap-gap.fits: NAXIS1 12, NAXIS2 500, PCOUNT 7624, THEAP 8640.
    const Converted c = convert_path(dir, data / "theap-gap.fits");
    const NDArray heap = c.array({"fits", "1", "heap"});
    CHECK(heap.offset() == 8640);
    CHECK(heap.shape() == std::vector<std::uint64_t>{12 * 500 + 7624 - 8640});
    CHECK(c.block(0).size() == 12 * 500 + 7624);
    CHECK(c.column_names("HDU2") == std::vector<std::string>{"i"});
    CHECK(c.column("HDU2", "i")->get("description")->as_string() == "Loop variable");
    CHECK(values<std::int32_t>(c.column_data("HDU2", "i"))[499] == 499);
    // astropy: arr[3] = [0, 1, 2]: the descriptor (3, offset) into the heap.
    const std::vector<std::uint8_t> rows =
        c.array({"fits", "1", "data"}).to_c_order(ByteOrder::kBig);
    CHECK(std::string(rows.begin() + 3 * 12 + 4, rows.begin() + 3 * 12 + 8) == big_endian(3, 4));
  }
  {
    // variable_length_table.fits: var PI(3) (a heap of 10 bytes), xyz 2I.
    const Converted c = convert_path(dir, data / "variable_length_table.fits");
    CHECK(fields_of(c.array({"fits", "1", "data"})) ==
          std::vector<std::string>{"var:>i4:(2,)", "xyz:>i2:(2,)"});
    // astropy: var = [[45, 56], [11, 12, 13]]: descriptors (2, 0) and (3, 4) into the heap.
    CHECK(bytes_of(c.array({"fits", "1", "data"}).to_c_order(ByteOrder::kBig)) ==
          big_endian(2, 4) + big_endian(0, 4) + big_endian(11, 2) + big_endian(3, 2) +
              big_endian(3, 4) + big_endian(4, 4) + big_endian(12, 2) + big_endian(4, 2));
    CHECK(values<std::uint8_t>(c.array({"fits", "1", "heap"})) ==
          std::vector<std::uint8_t>{0, 45, 0, 56, 0, 11, 0, 12, 0, 13});
  }
  {
    // zerowidth.fits: five AIPS tables; ORBPARM is 0D.
    const Converted c = convert_path(dir, data / "zerowidth.fits");
    REQUIRE(c.report.hdus.size() == 6);
    const NDArray an = c.array({"fits", "2", "data"});
    CHECK(an.dtype().fields()[2].name == "ORBPARM");
    CHECK(an.dtype().fields()[2].shape == std::vector<std::uint64_t>{0});
    // VISIBILITIES: 2I with TDIM (2,1,1,1,1,1).
    const NDArray uv = c.array({"fits", "5", "data"});
    CHECK(uv.dtype().fields()[7].shape == std::vector<std::uint64_t>{1, 1, 1, 1, 1, 2});
    // One block per table, and the primary's zero-size array (NAXIS1 = 777777701, NAXIS2 = 0:
    // astropy reads a uint8 array of shape (0, 777777701)).
    CHECK(c.block_count() == 6);
    const NDArray primary = c.array({"fits", "0", "data"});
    CHECK(primary.shape() == std::vector<std::uint64_t>{0, 777777701});
  }
  {
    // tdim.fits: V_mag E with TDIM (1,1); target 20A. astropy: NGC1001, 11.1, ...
    const Converted c = convert_path(dir, data / "tdim.fits");
    CHECK(strings(c.column_data("HDU2", "target")) ==
          std::vector<std::string>{"NGC1001", "NGC1002", "NGC1003"});
    const NDArray v = c.column_data("HDU2", "V_mag");
    CHECK(v.shape() == std::vector<std::uint64_t>{3, 1, 1});
    CHECK(values<float>(v) == std::vector<float>{11.1f, 12.3f, 15.2f});
  }
  {
    // chandra_time.fits: status 32X -> 4 bytes in the item, 32 bools in the native table.
    const Converted c = convert_path(dir, data / "chandra_time.fits");
    CHECK(c.array({"fits", "1", "data"}).dtype().fields()[18].shape ==
          std::vector<std::uint64_t>{4});
    CHECK(c.column_data("EVENTS", "status").shape() == std::vector<std::uint64_t>{2, 32});
    CHECK(c.column("EVENTS", "time")->get("unit")->as_string() == "s");
  }
}

// --- tile-compressed tables ------------------------------------------------------------------

TEST_CASE("a table compressed by fpack converts to the same block as the plain table",
          "[bintable]") {
  TempDir dir;
  // astropy writes the plain table and prints its reading of some columns; fpack compresses it.
  // The C column is one CFITSIO 4.2 writes unshuffled and names GZIP_2, and cannot decompress
  // itself (funpack fails on it); it is read as the GZIP_1 it is. (No M column: CFITSIO 4.2
  // decodes one from memory it never set, so such a table is refused, as
  // tile_guard_error_test.cc shows.)
  const std::string script = R"(
import json, sys
import numpy as np
from astropy.io import fits
n = 1500
r = np.arange(n)
cols = [
    fits.Column(name='j', format='J', array=(r * 7 - 5000).astype(np.int32)),
    fits.Column(name='s', format='8A', array=np.array([b'r%d' % i for i in r])),
    fits.Column(name='d', format='2D', array=np.stack([r / 3.0, -r / 7.0], 1), unit='m'),
    fits.Column(name='l', format='L', array=r % 3 == 0),
    fits.Column(name='ui', format='I', bzero=32768, array=(r + 60000).astype(np.uint16)),
    fits.Column(name='x', format='5X', array=np.stack([(r >> k) & 1 == 1 for k in range(5)], 1)),
    fits.Column(name='c', format='2C', array=np.stack([r + 0.5j * r, -r - 0.25j], 1)),
]
fits.BinTableHDU.from_columns(cols, name='CAT').writeto(sys.argv[1])
d = fits.open(sys.argv[1])[1].data
print(json.dumps({'j': d['j'].tolist(), 's': d['s'].tolist(), 'd': d['d'].ravel().tolist(),
                  'l': d['l'].tolist(), 'ui': d['ui'].tolist(),
                  'x': d['x'].ravel().astype(int).tolist(),
                  'c': [[float(v.real), float(v.imag)] for v in d['c'].ravel()]}))
)";
  const fs::path plain = dir / "cat.fits";
  const auto gen =
      fitsasdf::test::run({fitsasdf::test::reference_python(), "-c", script, plain.string()});
  INFO(gen.err);
  REQUIRE(gen.status == 0);
  const nlohmann::json expect = nlohmann::json::parse(gen.out);
  const auto pack = fitsasdf::test::run({"fpack", "-table", plain.string()});
  INFO(pack.err);
  REQUIRE(pack.status == 0);
  REQUIRE(fs::exists(dir / "cat.fits.fz"));
  // fpack names the C column GZIP_2, as the relabelling below expects.
  const auto header = fitsasdf::test::run(
      {fitsasdf::test::reference_python(), "-c",
       "import sys; from astropy.io import fits; print(fits.open(sys.argv[1])[1].header['ZCTYP7'])",
       (dir / "cat.fits.fz").string()});
  CHECK(header.out == "GZIP_2\n");

  const Converted p = convert_path(dir, plain);
  const Converted z = convert_path(dir, dir / "cat.fits.fz");
  CHECK(z.report.hdus[1].kind == "tile-compressed table");
  CHECK(z.has_note(1, "compressed_header"));
  CHECK(z.has_note(1, "column 7 is named GZIP_2 (ZCTYP7)"));
  CHECK_FALSE(z.has_note(1, "column 1 is named"));
  // The header astropy shows for the plain table; the compressed table's cards beside it.
  CHECK(asdfcore::tree::deep_equal(*z.at({"fits", "1", "header"}), *p.at({"fits", "1", "header"})));
  bool ztable = false;
  for (const auto& card_node : z.at({"fits", "1", "compressed_header"})->items()) {
    ztable = ztable || card_node->items()[0]->as_string() == "ZTABLE";
  }
  CHECK(ztable);
  CHECK_FALSE(p.at({"fits", "1"})->get("compressed_header"));
  // The same blocks (rows with their changes, then the bits of 'x').
  REQUIRE(z.block_count() == p.block_count());
  for (std::size_t b = 0; b < p.block_count(); ++b) CHECK(z.block(b) == p.block(b));

  // Values as astropy reads the plain table.
  CHECK(values<std::int32_t>(z.column_data("CAT", "j")) ==
        expect["j"].get<std::vector<std::int32_t>>());
  CHECK(strings(z.column_data("CAT", "s")) == expect["s"].get<std::vector<std::string>>());
  CHECK(values<double>(z.column_data("CAT", "d")) == expect["d"].get<std::vector<double>>());
  std::vector<bool> l;
  for (std::uint8_t b : values<std::uint8_t>(z.column_data("CAT", "l"))) l.push_back(b != 0);
  CHECK(l == expect["l"].get<std::vector<bool>>());
  CHECK(values<std::uint16_t>(z.column_data("CAT", "ui")) ==
        expect["ui"].get<std::vector<std::uint16_t>>());
  std::vector<int> x;
  for (std::uint8_t b : values<std::uint8_t>(z.column_data("CAT", "x"))) x.push_back(b);
  CHECK(x == expect["x"].get<std::vector<int>>());
  CHECK(z.column("CAT", "d")->get("unit")->as_string() == "m");
  std::vector<double> c;
  for (const std::complex<float> v : values<std::complex<float>>(z.column_data("CAT", "c"))) {
    c.push_back(v.real());
    c.push_back(v.imag());
  }
  std::vector<double> expect_c;
  for (const auto& pair : expect["c"]) {
    expect_c.push_back(pair[0].get<double>());
    expect_c.push_back(pair[1].get<double>());
  }
  CHECK(c == expect_c);

  // Back to FITS: CFITSIO compresses the table again as fpack did, byte for byte.
  fitsasdf::AsdfToFitsOptions back;
  back.durable = false;
  fitsasdf::convert_asdf_to_fits((dir / "cat.fits.fz.asdf").string(),
                                 (dir / "back.fits.fz").string(), back);
  CHECK(fitsasdf::test::fits_builder::read(dir / "back.fits.fz") ==
        fitsasdf::test::fits_builder::read(dir / "cat.fits.fz"));

  // Without ZCTYP7, CFITSIO takes GZIP_2 all the same: the column is read as GZIP_1 again.
  std::string packed = fitsasdf::test::fits_builder::read(dir / "cat.fits.fz");
  const std::size_t at = packed.find("ZCTYP7  = ");
  REQUIRE(at != std::string::npos);
  packed.replace(at, 80, "COMMENT " + std::string(72, ' '));
  fitsasdf::test::fits_builder::write(dir / "bare.fits", packed);
  const Converted bare = convert_path(dir, dir / "bare.fits");
  CHECK(bare.has_note(1, "column 7 is named GZIP_2 (ZCTYP7)"));
  REQUIRE(bare.block_count() == p.block_count());
  for (std::size_t b = 0; b < p.block_count(); ++b) CHECK(bare.block(b) == p.block(b));
}

TEST_CASE("cards that do not fit their column are noted, not fatal", "[bintable]") {
  TempDir dir;
  const std::vector<std::vector<std::string>> columns{
      // TDIM with 6 elements for 4: ignored, the field keeps [4].
      {text("TTYPE1", "v"), text("TFORM1", "4I"), text("TDIM1", "(3,2)")},
      // Scaling of a logical column: cards kept, values not scaled.
      {text("TTYPE2", "l"), text("TFORM2", "L"), card("TSCAL2", "2.0")},
      // A null outside int16 and a null on a float column: no mask.
      {text("TTYPE3", "i"), text("TFORM3", "I"), num("TNULL3", 70000)},
      {text("TTYPE4", "f"), text("TFORM4", "E"), num("TNULL4", 1)},
      // uint64 with a negative TNULL: the value as read is 2^63 - 1, an int64 mask value.
      {text("TTYPE5", "u"), text("TFORM5", "K"), card("TZERO5", "9223372036854775808"),
       num("TNULL5", -1)},
  };
  const std::string rows = big_endian(1, 2) + big_endian(2, 2) + big_endian(3, 2) +
                           big_endian(4, 2) + "T" + big_endian(5, 2) + big_endian<float>(1.0f) +
                           big_endian(0xffffffffffffffffULL, 8);
  const Converted c = convert_bytes(dir, table_file(23, 1, 0, columns, rows, {num("THEAP", 99)}));
  CHECK(fields_of(c.array({"fits", "1", "data"}))[0] == "v:>i2:(4,)");
  CHECK(c.has_note(1, "TDIM1 = '(3,2)' of column 1 ('v') does not match its 4 elements"));
  CHECK(c.has_note(1, "TSCAL2/TZERO2 of column 'l'"));
  CHECK(c.has_note(1, "TNULL3 of column 'i' lies outside"));
  CHECK(c.has_note(1, "TNULL4 of column 4 ('f') applies only to integer columns"));
  CHECK(c.has_note(1, "THEAP = 99 points outside a table that has no heap"));
  CHECK(c.column_data("HDU2", "i").mask().kind == MaskKind::kNone);
  CHECK(c.column_data("HDU2", "f").mask().kind == MaskKind::kNone);
  const NDArray u = c.column_data("HDU2", "u");
  CHECK(u.mask().kind == MaskKind::kValue);
  CHECK(values<std::uint64_t>(u) == std::vector<std::uint64_t>{0x7fffffffffffffffULL});
  CHECK(u.mask_c_order() == std::vector<std::uint8_t>{1});
}
