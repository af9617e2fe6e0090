// ASCII tables and random groups, FITS -> ASDF: the layout of the `fits` item (the data bytes as
// stored, one block), the native view (typed columns, masks, parameters, group arrays), the
// blocks written, and the errors for malformed headers. Files come from tests/data/astropy and
// from small headers built here; expected values are astropy 5.2.1's reading of the same bytes
// (`fits.open(f)[i].data[col]`, `GroupData.par(name)`).
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/converted.h"
#include "support/fits_builder.h"
#include "support/paths.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using asdfcore::AsdfFile;
using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::NodePtr;
using fitsasdf::ConversionReport;
using fitsasdf::ConvertOptions;
using fitsasdf::ScalingPolicy;
using fitsasdf::test::convert_bytes;
using fitsasdf::test::convert_path;
using fitsasdf::test::Converted;
using fitsasdf::test::error_of;
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

/// A file with an empty primary HDU and an ASCII table of `rows` (each NAXIS1 characters) whose
/// column cards are `columns` (TFIELDS is their count unless given).
std::string ascii_file(long long naxis1, const std::vector<std::string>& rows,
                       const std::vector<std::vector<std::string>>& columns,
                       long long tfields = -1) {
  std::vector<std::string> cards =
      table_cards("TABLE", naxis1, static_cast<long long>(rows.size()), 0,
                  tfields >= 0 ? tfields : static_cast<long long>(columns.size()));
  for (const auto& column : columns) cards.insert(cards.end(), column.begin(), column.end());
  std::string data;
  for (const auto& r : rows) data += r;
  return empty_primary() + header(cards) + padded(data, ' ');
}

/// Big-endian int16 values.
std::string be16(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += big_endian(static_cast<std::uint16_t>(v), 2);
  return out;
}

/// A random-groups primary HDU of BITPIX 16: `group_axes` are NAXIS2, NAXIS3, ...
std::string groups_file(const std::vector<long long>& group_axes, long long pcount,
                        long long gcount, const std::vector<std::string>& extra,
                        const std::string& data) {
  std::vector<std::string> cards{card("SIMPLE", "T"), num("BITPIX", 16),
                                 num("NAXIS", static_cast<long long>(group_axes.size()) + 1),
                                 num("NAXIS1", 0)};
  for (std::size_t i = 0; i < group_axes.size(); ++i) {
    cards.push_back(num("NAXIS" + std::to_string(i + 2), group_axes[i]));
  }
  cards.push_back(card("GROUPS", "T"));
  cards.push_back(num("PCOUNT", pcount));
  cards.push_back(num("GCOUNT", gcount));
  cards.insert(cards.end(), extra.begin(), extra.end());
  return header(cards) + padded(data, '\0');
}

// --- converting and reading back -------------------------------------------------------------

std::vector<std::string> strings(const NDArray& a) {
  REQUIRE(a.dtype().kind() == DTypeKind::kAscii);
  const std::vector<std::uint8_t> bytes = a.to_c_order(ByteOrder::kLittle);
  const std::size_t w = a.dtype().itemsize();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.emplace_back(reinterpret_cast<const char*>(bytes.data()) + i * w, w);
  }
  return out;
}

std::vector<std::string> field_names(const NDArray& a) {
  std::vector<std::string> out;
  for (const auto& f : a.dtype().fields()) {
    out.push_back(f.name + ":" + std::to_string(f.dtype.itemsize()));
  }
  return out;
}

std::int64_t block_of(const NDArray& a) { return static_cast<std::int64_t>(a.source().block); }

// --- ASCII tables ----------------------------------------------------------------------------

TEST_CASE("ASCII table: ascii.fits keeps the text and types the columns as astropy",
          "[ascii_table]") {
  TempDir dir;
  const Converted c = convert_path(dir, fitsasdf::test::data_dir() / "astropy" / "ascii.fits");
  REQUIRE(c.report.hdus.size() == 2);
  CHECK(c.report.hdus[1].kind == "ascii table");

  const NDArray rows = c.array({"fits", "1", "data"});
  CHECK(rows.shape() == std::vector<std::uint64_t>{5});
  CHECK(field_names(rows) == std::vector<std::string>{"a:10", "_gap10:1", "b:5"});
  CHECK(block_of(rows) == 0);
  const std::vector<std::uint8_t> text = rows.to_c_order(ByteOrder::kBig);
  CHECK(std::string(text.begin(), text.end()) == c.fits_bytes.substr(5760, 80));

  // astropy: a = [10.123, 5.2, 15.61, 0 (TNULL '*'), 345.0], b = [37, 23, 17, 0, 345]
  const NDArray a = c.column_data("HDU2", "a");
  CHECK(a.dtype() == asdfcore::ndarray::DType::numeric(DTypeKind::kFloat64));
  CHECK(values<double>(a) == std::vector<double>{10.123, 5.2, 15.61, 0.0, 345.0});
  CHECK(a.mask_c_order() == std::vector<std::uint8_t>{0, 0, 0, 1, 0});
  const NDArray b = c.column_data("HDU2", "b");
  CHECK(values<std::int64_t>(b) == std::vector<std::int64_t>{37, 23, 17, 0, 345});
  CHECK(b.mask_c_order() == std::vector<std::uint8_t>{0, 0, 0, 1, 0});
  // 'pixels' and 'counts' are not FITS units: no unit, a note each.
  CHECK_FALSE(c.column("HDU2", "a")->get("unit"));
  CHECK(c.has_note(1, "'pixels'"));

  // The row block, then per numeric column its values and its mask.
  REQUIRE(c.block_count() == 5);
  CHECK(c.block_size(0) == 80);
  CHECK(c.block_size(1) == 40);
  CHECK(c.block_size(2) == 5);
  CHECK(c.block_size(3) == 40);
  CHECK(c.block_size(4) == 5);
}

TEST_CASE("ASCII table: ascii_i4-i20.fits reads every integer width into int64", "[ascii_table]") {
  TempDir dir;
  const Converted c =
      convert_path(dir, fitsasdf::test::data_dir() / "astropy" / "ascii_i4-i20.fits");
  const NDArray rows = c.array({"fits", "1", "data"});
  CHECK(field_names(rows) ==
        std::vector<std::string>{"col0:8", "col1:8", "col2:10", "col3:20", "col4:4"});
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  CHECK(values<std::int64_t>(c.column_data("HDU2", "col3")) ==
        std::vector<std::int64_t>{65536, kMax, kMin, 40, kMax});
  CHECK(values<std::int64_t>(c.column_data("HDU2", "col2")) ==
        std::vector<std::int64_t>{256, 2147483647, -536870912, 30, 2147483647});
  CHECK(values<std::int64_t>(c.column_data("HDU2", "col4")) ==
        std::vector<std::int64_t>{256, 8192, -512, 50, 8192});
  CHECK_FALSE(c.column_data("HDU2", "col0").has_mask());
  CHECK(c.block_count() == 6);
}

/// Columns with gaps between them, TNULL, a D exponent, blanks, trailing NULs, units.
std::string gaps_table() {
  const auto row = [](std::vector<std::pair<std::size_t, std::string>> parts) {
    std::string r(40, ' ');
    for (const auto& [at, t] : parts) r.replace(at, t.size(), t);
    return r;
  };
  return ascii_file(
      40,
      {row({{2, "  12"}, {9, "  1.5000D+02"}, {24, "abcde"}, {31, "  3.25"}}),
       row({{2, " -99"}, {9, "  -2.5E-3"}, {24, "NONE"}, {31, " -0.5"}}),
       row({{2, "    "}, {9, "  1_000.5"}, {24, "xy"}, {31, "inf"}}),
       row({{2, "+7  "}, {9, ".5D0"}, {24, " NONE"}, {31, "1e400"}}),
       row({{2, std::string(" 0\0\0", 4)}, {9, "   1.5e+1"}, {24, "q"}, {31, " nan"}})},
      {{text("TTYPE1", "i"), num("TBCOL1", 3), text("TFORM1", "I4"), text("TNULL1", "-99"),
        text("TUNIT1", "m"), text("TCOMM1", "an integer")},
       {text("TTYPE2", "x"), num("TBCOL2", 10), text("TFORM2", "D12.4"), card("TSCAL2", "2.0"),
        card("TZERO2", "0.5")},
       {text("TTYPE3", "s"), num("TBCOL3", 25), text("TFORM3", "A5"), text("TNULL3", "NONE")},
       {text("TTYPE4", "f"), num("TBCOL4", 32), text("TFORM4", "F6.2")}});
}

TEST_CASE("ASCII table: gaps, nulls, exponents and text views", "[ascii_table]") {
  TempDir dir;
  const Converted c = convert_bytes(dir, gaps_table());
  const NDArray rows = c.array({"fits", "1", "data"});
  CHECK(field_names(rows) == std::vector<std::string>{"_gap0:2", "i:4", "_gap6:3", "x:12",
                                                      "_gap21:3", "s:5", "_gap29:2", "f:6",
                                                      "_gap37:3"});
  const std::vector<std::uint8_t> text_bytes = rows.to_c_order(ByteOrder::kBig);
  CHECK(std::string(text_bytes.begin(), text_bytes.end()) == c.fits_bytes.substr(5760, 200));

  // astropy: i = [12, 0, 0, 7, 0] (TNULL and blank -> 0; trailing NULs are blanks)
  const NDArray i = c.column_data("HDU2", "i");
  CHECK(values<std::int64_t>(i) == std::vector<std::int64_t>{12, 0, 0, 7, 0});
  CHECK(i.mask_c_order() == std::vector<std::uint8_t>{0, 1, 1, 0, 0});
  CHECK(c.column("HDU2", "i")->get("unit")->as_string() == "m");
  CHECK(c.column("HDU2", "i")->get("unit")->tag() == "tag:stsci.edu:asdf/unit/unit-1.0.0");
  CHECK(c.column("HDU2", "i")->get("description")->as_string() == "an integer");

  // Stored values by default (TSCAL/TZERO kept as cards, noted); D read as E; underscores.
  CHECK(values<double>(c.column_data("HDU2", "x")) ==
        std::vector<double>{150.0, -2.5e-3, 1000.5, 0.5, 15.0});
  CHECK_FALSE(c.column_data("HDU2", "x").has_mask());
  CHECK(c.has_note(1, "TSCAL/TZERO not applied"));

  const std::vector<double> f = values<double>(c.column_data("HDU2", "f"));
  REQUIRE(f.size() == 5);
  CHECK(f[0] == 3.25);
  CHECK(f[1] == -0.5);
  CHECK(f[2] == std::numeric_limits<double>::infinity());
  CHECK(f[3] == std::numeric_limits<double>::infinity());  // 1e400 overflows as in Python
  CHECK(std::isnan(f[4]));

  // The text column is a view into the row block; TNULL masks it (trailing blanks ignored).
  const NodePtr s_node = c.column("HDU2", "s")->get("data");
  CHECK(s_node->get("offset")->as_int() == 24);
  CHECK(s_node->get("strides")->items()[0]->as_int() == 40);
  const NDArray s = c.column_data("HDU2", "s");
  CHECK(block_of(s) == block_of(rows));
  CHECK(strings(s) == std::vector<std::string>{"abcde", "NONE ", "xy   ", " NONE", "q    "});
  CHECK(s.mask_c_order() == std::vector<std::uint8_t>{0, 1, 0, 0, 0});

  // Rows; i values + mask; x; s mask; f.
  CHECK(c.block_count() == 6);
}

TEST_CASE("ASCII table: TSCAL/TZERO applied with physical scaling", "[ascii_table]") {
  TempDir dir;
  ConvertOptions options;
  options.scaling = ScalingPolicy::kPhysical;
  const Converted c = convert_bytes(dir, gaps_table(), options);
  std::vector<double> expected;
  for (double v : {150.0, -2.5e-3, 1000.5, 0.5, 15.0}) expected.push_back(v * 2.0 + 0.5);
  CHECK(values<double>(c.column_data("HDU2", "x")) == expected);
  CHECK(c.has_note(1, "TSCAL/TZERO applied"));
  // Unscaled integer columns stay int64.
  CHECK(c.column_data("HDU2", "i").dtype().kind() == DTypeKind::kInt64);
}

TEST_CASE("ASCII table: zero rows give empty arrays", "[ascii_table]") {
  TempDir dir;
  const Converted c = convert_bytes(
      dir, ascii_file(9, {},
                      {{text("TTYPE1", "a"), num("TBCOL1", 1), text("TFORM1", "I5")},
                       {text("TTYPE2", "s"), num("TBCOL2", 7), text("TFORM2", "A3")}}));
  const NDArray rows = c.array({"fits", "1", "data"});
  CHECK(rows.shape() == std::vector<std::uint64_t>{0});
  CHECK(field_names(rows) == std::vector<std::string>{"a:5", "_gap5:1", "s:3"});
  CHECK(c.column_data("HDU2", "a").shape() == std::vector<std::uint64_t>{0});
  CHECK(c.column_data("HDU2", "s").shape() == std::vector<std::uint64_t>{0});
  REQUIRE(c.block_count() == 2);  // the (empty) rows and the (empty) int64 column
  CHECK(c.block_size(0) == 0);
  CHECK(c.block_size(1) == 0);
}

TEST_CASE("ASCII table: columns out of order and overlapping columns", "[ascii_table]") {
  TempDir dir;
  SECTION("out of order: fields in row order, native columns in header order") {
    const Converted c = convert_bytes(
        dir, ascii_file(12, {"1.5e1 123   ", "2.0   -4    "},
                        {{text("TTYPE1", "late"), num("TBCOL1", 7), text("TFORM1", "I3")},
                         {text("TTYPE2", "early"), num("TBCOL2", 1), text("TFORM2", "E5")}}));
    CHECK(field_names(c.array({"fits", "1", "data"})) ==
          std::vector<std::string>{"early:5", "_gap5:1", "late:3", "_gap9:3"});
    const auto columns = c.at({"HDU2", "columns"})->items();
    REQUIRE(columns.size() == 2);
    CHECK(columns[0]->get("name")->as_string() == "late");
    CHECK(values<std::int64_t>(c.column_data("HDU2", "late")) ==
          std::vector<std::int64_t>{123, -4});
    CHECK(values<double>(c.column_data("HDU2", "early")) == std::vector<double>{15.0, 2.0});
  }
  SECTION("overlapping: one whole-row field") {
    const Converted c = convert_bytes(
        dir, ascii_file(10, {"123456    ", "   789    "},
                        {{text("TTYPE1", "whole"), num("TBCOL1", 1), text("TFORM1", "I6")},
                         {text("TTYPE2", "tail"), num("TBCOL2", 4), text("TFORM2", "I3")}}));
    CHECK(field_names(c.array({"fits", "1", "data"})) == std::vector<std::string>{"_row:10"});
    CHECK(c.has_note(1, "columns overlap"));
    CHECK(values<std::int64_t>(c.column_data("HDU2", "whole")) ==
          std::vector<std::int64_t>{123456, 789});
    CHECK(values<std::int64_t>(c.column_data("HDU2", "tail")) ==
          std::vector<std::int64_t>{456, 789});
  }
}

TEST_CASE("ASCII table: text astropy cannot read stays text, with a note", "[ascii_table]") {
  TempDir dir;
  // astropy raises ValueError for '1 2' in I4 and for '1.5d' (lower-case d) in E4.
  const Converted c = convert_bytes(
      dir, ascii_file(8, {"  1 1.5 ", "1 2 2.5 ", "  3 1.5d"},
                      {{text("TTYPE1", "n"), num("TBCOL1", 1), text("TFORM1", "I4")},
                       {text("TTYPE2", "v"), num("TBCOL2", 5), text("TFORM2", "E4")}}));
  CHECK(strings(c.column_data("HDU2", "n")) == std::vector<std::string>{"  1 ", "1 2 ", "  3 "});
  CHECK(c.has_note(1, "row 2: '1 2 ' is not a value astropy reads"));
  CHECK(c.has_note(1, "row 3: '1.5d' is not a value astropy reads"));
  CHECK(c.block_count() == 1);  // both columns are views of the rows
}

TEST_CASE("ASCII table: lower-case TFORM letters read as CFITSIO reads them", "[ascii_table]") {
  TempDir dir;
  const Converted c = convert_bytes(
      dir,
      ascii_file(6, {"   42 "}, {{text("TTYPE1", "n"), num("TBCOL1", 1), text("TFORM1", "i5")}}));
  CHECK(values<std::int64_t>(c.column_data("HDU2", "n")) == std::vector<std::int64_t>{42});
  CHECK(c.has_note(1, "lower case"));
}

TEST_CASE("ASCII table: malformed headers are errors naming the HDU and the column",
          "[ascii_table]") {
  const auto one_column = [](const std::string& tbcol, const std::string& tform) {
    return ascii_file(8, {"12345   "},
                      {{text("TTYPE1", "a"), card("TBCOL1", tbcol), text("TFORM1", tform)}});
  };
  SECTION("unknown format letter") {
    const Error e = error_of(one_column("1", "X5"));
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(std::string(e.what()).find("HDU 2") != std::string::npos);
    CHECK(std::string(e.what()).find("X5") != std::string::npos);
  }
  SECTION("decimals not below the width") {
    const Error e = error_of(one_column("1", "E5.5"));
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(std::string(e.what()).find("HDU 2") != std::string::npos);
    CHECK(std::string(e.what()).find("E5.5") != std::string::npos);
  }
  SECTION("a column beyond the row") {
    const Error e = error_of(one_column("5", "I5"));
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(std::string(e.what()).find("HDU 2") != std::string::npos);
    CHECK(std::string(e.what()).find("beyond the row of NAXIS1 = 8") != std::string::npos);
  }
  SECTION("a negative TBCOL") {
    const Error e = error_of(one_column("-1", "I3"));
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(std::string(e.what()).find("TBCOL1") != std::string::npos);
  }
  SECTION("rows the data does not hold (no huge allocation)") {
    std::string fits = empty_primary() +
                       header({text("XTENSION", "TABLE"), num("BITPIX", 8), num("NAXIS", 2),
                               num("NAXIS1", 2000000000), num("NAXIS2", 2000000000),
                               num("PCOUNT", 0), num("GCOUNT", 1), num("TFIELDS", 1),
                               text("TTYPE1", "a"), num("TBCOL1", 1), text("TFORM1", "A9")}) +
                       padded("x", ' ');
    const Error e = error_of(fits);
    CHECK(std::string(e.what()).find("HDU 2") != std::string::npos);
  }
}

// --- random groups ---------------------------------------------------------------------------

TEST_CASE("Random groups: group.fits as rows, parameters and group arrays", "[groups]") {
  TempDir dir;
  const Converted c = convert_path(dir, fitsasdf::test::data_dir() / "astropy" / "group.fits");
  REQUIRE(c.report.hdus.size() == 1);
  CHECK(c.report.hdus[0].kind == "random groups");

  // The fits item: one row per group, 3 parameters + 1*1*3*5 values, float32 big-endian.
  const NDArray rows = c.array({"fits", "0", "data"});
  CHECK(rows.shape() == std::vector<std::uint64_t>{10, 18});
  CHECK(rows.dtype() == asdfcore::ndarray::DType::numeric(DTypeKind::kFloat32, ByteOrder::kBig));
  const std::vector<std::uint8_t> stored = rows.to_c_order(ByteOrder::kBig);
  CHECK(std::string(stored.begin(), stored.end()) == c.fits_bytes.substr(2880, 720));

  // astropy: par('abc') = stored float32 values; par('xyz') = 42 + 42 (same name, summed).
  const NodePtr abc = c.at({"PRIMARY", "parameters", "abc"});
  CHECK(abc->get("strides")->items()[0]->as_int() == 72);
  const NDArray abc_values = c.file.array(*abc);
  CHECK(block_of(abc_values) == 0);
  std::vector<float> expected_abc;
  for (float v : {0.1f, 1.1f, 2.1f, 3.1f, 4.1f, 5.1f, 6.1f, 7.1f, 8.1f, 9.1f}) {
    expected_abc.push_back(v);
  }
  CHECK(values<float>(abc_values) == expected_abc);
  const NDArray xyz = c.array({"PRIMARY", "parameters", "xyz"});
  CHECK(xyz.dtype() == asdfcore::ndarray::DType::numeric(DTypeKind::kFloat64));
  CHECK(values<double>(xyz) == std::vector<double>(10, 84.0));
  CHECK(c.has_note(0, "summed"));

  // The group arrays: a view with strides; group 0 holds 0..14, group 9 holds 135..149.
  const NodePtr data_node = c.at({"PRIMARY", "data"});
  CHECK(data_node->get("offset")->as_int() == 12);
  const NDArray data = c.file.array(*data_node);
  CHECK(data.shape() == std::vector<std::uint64_t>{10, 1, 1, 3, 5});
  CHECK(data.strides() == std::vector<std::int64_t>{72, 60, 60, 20, 4});
  const std::vector<float> all = values<float>(data);
  REQUIRE(all.size() == 150);
  for (std::size_t i = 0; i < 150; ++i) CHECK(all[i] == static_cast<float>(i));
  CHECK(c.at({"data"}) == c.at({"PRIMARY"}));  // the root `data` is the first native view

  CHECK(c.block_count() == 2);  // the rows, and the summed xyz
}

TEST_CASE("Random groups: random_groups.fits parameters with PZERO", "[groups]") {
  TempDir dir;
  const Converted c =
      convert_path(dir, fitsasdf::test::data_dir() / "astropy" / "random_groups.fits");
  const NDArray rows = c.array({"fits", "0", "data"});
  CHECK(rows.shape() == std::vector<std::uint64_t>{3, 389});
  // astropy: par('DATE') = stored + 2455955.5 in float64
  CHECK(values<double>(c.array({"PRIMARY", "parameters", "DATE"})) ==
        std::vector<double>(3, 2455955.5861859247));
  const NDArray baseline = c.array({"PRIMARY", "parameters", "BASELINE"});
  CHECK(baseline.dtype().kind() == DTypeKind::kFloat32);
  CHECK(values<float>(baseline) == std::vector<float>{258.0f, 259.0f, 515.0f});
  const NDArray data = c.array({"PRIMARY", "data"});
  CHECK(data.shape() == std::vector<std::uint64_t>{3, 1, 1, 128, 1, 3});
  const std::vector<float> all = values<float>(data);
  // data[2, 0, 0, 0, 0, :] = [-0.0643320381641388, 0.01164308562874794, 458.99755859375]
  CHECK(all[2 * 384 + 0] == -0.0643320381641388f);
  CHECK(all[2 * 384 + 1] == 0.01164308562874794f);
  CHECK(all[2 * 384 + 2] == 458.99755859375f);
  CHECK(c.block_count() == 2);
}

/// Two groups of int16: UU (PZERO 32768: unsigned), DATE and date (same name: summed), then a
/// 2x3 array scaled by BSCALE 2, BZERO 5, with BLANK -32768.
std::string int16_groups() {
  return groups_file(
      {3, 2}, 3, 2,
      {text("PTYPE1", "UU"), num("PZERO1", 32768), text("PTYPE2", "DATE"), card("PSCAL2", "0.5"),
       card("PZERO2", "1000.0"), text("PTYPE3", "date"), card("PZERO3", "2.5"),
       card("BSCALE", "2.0"), card("BZERO", "5.0"), num("BLANK", -32768)},
      be16({-32768, 10, -4, 1, 2, 3, 4, 5, -32768,  //
            100, -20, 7, -1, -2, -3, -4, -5, -6}));
}

TEST_CASE("Random groups: scaled, unsigned and same-named parameters", "[groups]") {
  TempDir dir;
  SECTION("raw scaling: the group arrays are views with BLANK as mask value") {
    const Converted c = convert_bytes(dir, int16_groups());
    // astropy: par('UU') = uint16 [0, 32868]; par('DATE') = [1003.5, 999.5]
    const NDArray uu = c.array({"PRIMARY", "parameters", "UU"});
    CHECK(uu.dtype().kind() == DTypeKind::kUInt16);
    CHECK(values<std::uint16_t>(uu) == std::vector<std::uint16_t>{0, 32868});
    CHECK(values<double>(c.array({"PRIMARY", "parameters", "DATE"})) ==
          std::vector<double>{1003.5, 999.5});
    CHECK_FALSE(c.at({"PRIMARY", "parameters"})->get("date"));
    const NDArray data = c.array({"PRIMARY", "data"});
    CHECK(data.shape() == std::vector<std::uint64_t>{2, 2, 3});
    CHECK(values<std::int16_t>(data) ==
          std::vector<std::int16_t>{1, 2, 3, 4, 5, -32768, -1, -2, -3, -4, -5, -6});
    CHECK(data.mask_c_order() == std::vector<std::uint8_t>{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
    CHECK(c.has_note(0, "BSCALE/BZERO kept as cards"));
    CHECK(c.block_count() == 3);  // rows, UU, DATE
    CHECK(c.array({"fits", "0", "data"}).shape() == std::vector<std::uint64_t>{2, 9});
  }
  SECTION("physical scaling: value * BSCALE + BZERO in float64, BLANK as NaN") {
    ConvertOptions options;
    options.scaling = ScalingPolicy::kPhysical;
    const Converted c = convert_bytes(dir, int16_groups(), options);
    const std::vector<double> data = values<double>(c.array({"PRIMARY", "data"}));
    REQUIRE(data.size() == 12);
    const std::vector<double> stored{1, 2, 3, 4, 5, 0, -1, -2, -3, -4, -5, -6};
    for (std::size_t i = 0; i < 12; ++i) {
      if (i == 5) {
        CHECK(std::isnan(data[i]));
      } else {
        CHECK(data[i] == stored[i] * 2.0 + 5.0);
      }
    }
    CHECK(c.block_count() == 4);
    // The fits item keeps the stored bytes.
    const std::vector<std::uint8_t> rows =
        c.array({"fits", "0", "data"}).to_c_order(ByteOrder::kBig);
    CHECK(std::string(rows.begin(), rows.end()) == c.fits_bytes.substr(2880, 36));
  }
}

TEST_CASE("Random groups: --native-byteorder swaps the block, views follow", "[groups]") {
  TempDir dir;
  ConvertOptions options;
  options.native_byte_order = true;
  const Converted c = convert_bytes(dir, int16_groups(), options);
  const NDArray rows = c.array({"fits", "0", "data"});
  CHECK(rows.dtype().byte_order() == asdfcore::ndarray::native_byte_order());
  CHECK(values<std::int16_t>(rows)[1] == 10);
  const NDArray data = c.array({"PRIMARY", "data"});
  CHECK(data.dtype().byte_order() == asdfcore::ndarray::native_byte_order());
  CHECK(values<std::int16_t>(data) ==
        std::vector<std::int16_t>{1, 2, 3, 4, 5, -32768, -1, -2, -3, -4, -5, -6});
  CHECK(values<std::uint16_t>(c.array({"PRIMARY", "parameters", "UU"})) ==
        std::vector<std::uint16_t>{0, 32868});
}

TEST_CASE("Random groups: missing parameter names, no groups", "[groups]") {
  TempDir dir;
  SECTION("a missing PTYPE gives PAR<n>") {
    const Converted c =
        convert_bytes(dir, groups_file({2}, 2, 1, {text("PTYPE2", "B")}, be16({7, 8, 9, 10})));
    CHECK(values<std::int16_t>(c.array({"PRIMARY", "parameters", "PAR1"})) ==
          std::vector<std::int16_t>{7});
    CHECK(values<std::int16_t>(c.array({"PRIMARY", "parameters", "B"})) ==
          std::vector<std::int16_t>{8});
    CHECK(c.block_count() == 1);
  }
  SECTION("GCOUNT = 0: no data, no block") {
    const Converted c = convert_bytes(dir, groups_file({2}, 1, 0, {text("PTYPE1", "A")}, ""));
    CHECK(c.at({"fits", "0", "data"})->is_null());
    CHECK(c.block_count() == 0);
    CHECK_FALSE(c.file.tree()->get("PRIMARY"));
  }
}

TEST_CASE("Random groups: data shorter than declared is an error", "[groups]") {
  // 1000 groups of 1 + 2 int16 values declared, one block of data present.
  std::string fits = groups_file({2}, 1, 1000, {text("PTYPE1", "A")}, be16({1, 2, 3}));
  const Error e = error_of(fits);
  CHECK((e.code() == ErrorCode::kTruncated || e.code() == ErrorCode::kMalformed));
  CHECK(std::string(e.what()).find("HDU 1") != std::string::npos);
}

}  // namespace
