// Trees built with the public API (Tree, Array) and written with asdfcore::write, opened by
// python asdf 2.14 (tests/interop/api_check.py: validate_checksums=True, schema validation on,
// every warning an error but the ones a case allows). Every numeric dtype x both byte orders
// (WriteOptions::byte_order, and big-endian bytes through Array::from_bytes) x every codec x
// ASDF Standard 1.5.0 and 1.6.0; views sharing one block (a negative stride among them); the inline
// threshold; ascii and ucs4 strings; a record array; a mask; nested metadata with an unknown tag,
// an alias and big integers. All files of a test go to one python process. Expected values are
// computed here from the elements written, never read back through the library.
//
// python asdf 2.14, as pinned here:
// - 1.6.0 files with arrays warn "AsdfWarning: Unable to locate schema file for
//   'tag:stsci.edu:asdf/core/ndarray-1.1.0'"; 1.5.0 files give no warning.
// - float16: in a 1.6.0 file 2.14 fails "ValueError: Unknown datatype float16"; the 1.5.0
//   schema (ndarray-1.0.0) has no float16, so write refuses it at 1.5.0.
// - an unknown tag warns "AsdfConversionWarning: tag:example.org/foo-1.0.0 is not recognized,
//   converting to raw Python data structure".
// - validate_checksums=True checks the MD5 of the decoded data: a compressed block written with
//   the default WriteOptions::checksum (kStoredBytes, the MD5 of the bytes on disk) fails with
//   "Block at N does not match given checksum"; the cases below write kDecodedData, and one
//   case pins what the default gives.
// - a mask must be a bool8 ndarray (ndarray-1.0.0 schema); a uint8 mask fails validation.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "api_support.h"
#include "asdfcore/asdfcore.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using asdfcore::Array;
using asdfcore::Tree;
using asdfcore::WriteOptions;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::Field;
using fitsasdf::test::TempDir;
using fitsasdf::test::api::kNdarray11Warning;
using fitsasdf::test::api::le_md5;
using fitsasdf::test::api::md5_hex;
using fitsasdf::test::api::put_le;
using fitsasdf::test::api::samples;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Numeric = std::tuple<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                           std::uint16_t, std::uint32_t, std::uint64_t, float, double,
                           std::complex<float>, std::complex<double>, bool>;

/// Call `f(std::type_identity<T>{})` for every numeric type python 2.14 reads.
template <typename F>
void for_each_numeric(F&& f) {
  std::apply([&](auto... t) { (f(std::type_identity<decltype(t)>{}), ...); }, Numeric{});
}

template <typename T>
std::string name_of() {
  return std::string(asdfcore::ndarray::kind_info(asdfcore::kind_of<T>()).numpy_name);
}

/// numpy's dtype.str of `T` in `order`.
template <typename T>
std::string numpy_str(ByteOrder order) {
  return DType::numeric(asdfcore::kind_of<T>(), order).numpy_str();
}

/// The elements of `values` in big-endian order (complex: each part swapped).
template <typename T>
std::vector<std::uint8_t> be_bytes(const std::vector<T>& values) {
  std::vector<std::uint8_t> out;
  std::size_t unit = sizeof(T);
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    unit = sizeof(T) / 2;
  }
  for (const T& v : values) {
    std::vector<std::uint8_t> b;
    put_le(b, v);
    for (std::size_t k = 0; k < b.size(); k += unit)
      std::reverse(b.begin() + k, b.begin() + k + unit);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

/// Make an array owning a copy of `values` (std::vector<bool> has no span: copied to bools).
template <typename T>
Array copy_of(const std::vector<T>& values, std::vector<std::uint64_t> shape) {
  if constexpr (std::is_same_v<T, bool>) {
    const std::unique_ptr<bool[]> b(new bool[values.size()]);
    std::copy(values.begin(), values.end(), b.get());
    return Array::copy(std::span<const bool>(b.get(), values.size()), std::move(shape));
  } else {
    return Array::copy(std::span<const T>(values), std::move(shape));
  }
}

/// One file given to python and what must come back.
struct Case {
  fs::path file;
  std::string standard = "1.5.0";
  std::map<std::string, json> arrays;  ///< key -> {"md5", "shape", "dtype"[, mask...]}
  json values = json::object();        ///< key -> the JSON api_check.py prints for it
  std::vector<std::string> warnings;   ///< exactly these (prefixes), besides the 1.6.0 one
  std::string error;                   ///< python must fail with this text instead
  bool has_block_arrays = true;
};

json array_want(const std::string& md5, std::vector<std::uint64_t> shape,
                const std::string& dtype) {
  return {{"md5", md5}, {"shape", shape}, {"dtype", dtype}};
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0 || s.find(": " + prefix) != std::string::npos;
}

/// Give every case to python in one run and check what it read.
void check_cases(const std::vector<Case>& cases) {
  std::vector<fs::path> files;
  std::vector<std::string> allowed{kNdarray11Warning};
  for (const Case& c : cases) {
    files.push_back(c.file);
    for (const std::string& w : c.warnings) allowed.push_back(w);
  }
  const json all = fitsasdf::test::api::python_read(files, allowed);
  for (const Case& c : cases) {
    const json& rec = all.at(c.file.string());
    INFO(c.file.filename().string() << ": " << rec.dump().substr(0, 3000));
    if (!c.error.empty()) {
      REQUIRE(rec.contains("error"));
      CHECK(rec["error"].get<std::string>().find(c.error) != std::string::npos);
      continue;
    }
    CHECK_FALSE(rec.contains("error"));
    if (rec.contains("error")) continue;
    CHECK(rec["version"] == c.standard);
    std::vector<std::string> expected = c.warnings;
    if (c.standard == "1.6.0" && c.has_block_arrays) expected.push_back(kNdarray11Warning);
    // Without block arrays a 1.6.0 file may still warn for ndarray-1.1.0 (a core/integer's
    // words): allowed, not required.
    std::size_t optional = 0;
    if (c.standard == "1.6.0" && !c.has_block_arrays) {
      for (const json& got : rec["warnings"]) optional += starts_with(got, kNdarray11Warning);
    }
    CHECK(rec["warnings"].size() - optional == expected.size());
    for (const std::string& w : expected) {
      bool found = false;
      for (const json& got : rec["warnings"]) found = found || starts_with(got, w);
      INFO("expected warning " << w);
      CHECK(found);
    }
    for (const auto& [key, want] : c.arrays) {
      INFO("array " << key);
      CHECK(rec["tree"].contains(key));
      if (!rec["tree"].contains(key)) continue;
      const json& got = rec["tree"][key].at("$array");
      for (const auto& [field, value] : want.items()) {
        INFO(field);
        CHECK(got[field] == value);
      }
    }
    for (const auto& [key, want] : c.values.items()) {
      INFO("value " << key);
      CHECK(rec["tree"].contains(key));
      if (rec["tree"].contains(key)) CHECK(rec["tree"][key] == want);
    }
  }
}

}  // namespace

TEST_CASE("python reads every numeric dtype x byte order x codec x standard", "[api][python]") {
  TempDir dir;
  std::vector<Case> cases;
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    for (const std::string codec : {"", "zlib", "bzp2", "lz4"}) {
      for (const std::string order : {"little", "big", "from_bytes"}) {
        Case c;
        c.standard = standard;
        c.file = dir / (standard + "-" + (codec.empty() ? "none" : codec) + "-" + order + ".asdf");
        Tree tree;
        std::uint64_t first = 0;
        for_each_numeric([&](auto id) {
          using T = typename decltype(id)::type;
          const std::vector<T> v = samples<T>(60, first += 3);
          const std::string key = name_of<T>();
          if (order == "from_bytes") {
            const auto bytes = be_bytes(v);
            tree[key] = Array::from_bytes(DType::numeric(asdfcore::kind_of<T>(), ByteOrder::kBig),
                                          {3, 4, 5}, bytes, true);
          } else {
            tree[key] = copy_of(v, {3, 4, 5});
          }
          c.arrays[key] =
              array_want(le_md5(v), {3, 4, 5},
                         numpy_str<T>(order == "little" ? ByteOrder::kLittle : ByteOrder::kBig));
        });
        WriteOptions options;
        options.asdf_standard = standard;
        options.compression = codec;
        options.checksum = asdfcore::format::ChecksumConvention::kDecodedData;
        if (order == "little") options.byte_order = ByteOrder::kLittle;
        if (order == "big") options.byte_order = ByteOrder::kBig;
        asdfcore::write(c.file.string(), tree, options);
        cases.push_back(std::move(c));
      }
    }
  }
  // float16: the 1.5.0 schema (ndarray-1.0.0) has no float16, so write refuses it there and
  // leaves no file; at 1.6.0 (ndarray-1.1.0) it is written, our reader gets the values back,
  // and python 2.14, which knows no float16, refuses the file.
  {
    const auto v = samples<asdfcore::ndarray::Float16>(10);
    Tree tree;
    tree["half"] = Array::copy(std::span<const asdfcore::ndarray::Float16>(v), {10});
    const auto refused = dir / "float16-1.5.0.asdf";
    try {
      asdfcore::write(refused.string(), tree);
      FAIL("float16 written at 1.5.0");
    } catch (const asdfcore::Error& e) {
      CHECK(e.code() == asdfcore::ErrorCode::kInvalidArgument);
      CHECK_THAT(e.what(), Catch::Matchers::Contains("float16") &&
                               Catch::Matchers::Contains("1.6.0"));
    }
    CHECK_FALSE(fs::exists(refused));
    Case c;
    c.standard = "1.6.0";
    c.file = dir / "float16-1.6.0.asdf";
    WriteOptions options;
    options.asdf_standard = "1.6.0";
    asdfcore::write(c.file.string(), tree, options);
    const auto back =
        asdfcore::File::open(c.file.string()).array<asdfcore::ndarray::Float16>("/half");
    CHECK(le_md5(back.to_vector()) == le_md5(v));
    c.error = "Unknown datatype float16";
    cases.push_back(std::move(c));
  }
  // The default checksum convention (the stored bytes) on a compressed block.
  {
    Case c;
    c.file = dir / "default-checksum-zlib.asdf";
    const auto v = samples<std::int32_t>(100);
    Tree tree;
    tree["a"] = Array::copy(std::span<const std::int32_t>(v), {100});
    WriteOptions options;
    options.compression = "zlib";
    asdfcore::write(c.file.string(), tree, options);
    c.error = "does not match given checksum";
    cases.push_back(std::move(c));
  }
  check_cases(cases);
}

TEST_CASE("python reads views sharing one block, inline arrays, strings, records and masks",
          "[api][python]") {
  TempDir dir;
  std::vector<Case> cases;
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    const std::string s = standard;
    // Views: one base of 4 x 6 int32, its first two rows, and every other column of rows 1..3.
    {
      Case c;
      c.standard = s;
      c.file = dir / ("views-" + s + ".asdf");
      const auto v = samples<std::int32_t>(24, 5);
      const Array base = Array::copy(std::span<const std::int32_t>(v), {4, 6});
      Tree tree;
      tree["base"] = base;
      tree["rows"] = base.view_of(0, {2, 6});
      tree["cols"] = base.view_of(24, {3, 3}, {24, 8});
      tree["rev"] = base.view_of(23 * 4, {24}, {-4});  // a negative stride
      std::vector<std::int32_t> rows(v.begin(), v.begin() + 12), cols;
      for (int r = 1; r < 4; ++r) {
        for (int k = 0; k < 6; k += 2) cols.push_back(v[r * 6 + k]);
      }
      c.arrays["base"] = array_want(le_md5(v), {4, 6}, "<i4");
      c.arrays["rows"] = array_want(le_md5(rows), {2, 6}, "<i4");
      c.arrays["cols"] = array_want(le_md5(cols), {3, 3}, "<i4");
      c.arrays["rev"] =
          array_want(le_md5(std::vector<std::int32_t>(v.rbegin(), v.rend())), {24}, "<i4");
      asdfcore::write(c.file.string(), tree, WriteOptions{.asdf_standard = s});
      cases.push_back(std::move(c));
    }
    // The inline threshold: 5 elements inline, 20 in a block.
    {
      Case c;
      c.standard = s;
      c.file = dir / ("inline-" + s + ".asdf");
      const auto small = samples<double>(5, 8);
      const auto big = samples<double>(20, 8);
      Tree tree;
      tree["small"] = Array::copy(std::span<const double>(small), {5});
      tree["big"] = Array::copy(std::span<const double>(big), {20});
      c.arrays["small"] = array_want(le_md5(small), {5}, "<f8");
      c.arrays["small"]["source"] = "inline";
      c.arrays["big"] = array_want(le_md5(big), {20}, "<f8");
      c.arrays["big"]["source"] = 0;
      WriteOptions options{.asdf_standard = s};
      options.inline_threshold = 10;
      asdfcore::write(c.file.string(), tree, options);
      cases.push_back(std::move(c));
    }
    // Strings: ascii (NUL padded) and ucs4 in both byte orders.
    {
      Case c;
      c.standard = s;
      c.file = dir / ("strings-" + s + ".asdf");
      const std::vector<std::uint8_t> ascii = {'a', 'b', 'c', 0, 0, 'h', 'e', 'l', 'l', 'o',
                                               0,   0,   0,   0, 0, 'x', 'y', 'z', 'z', 'y'};
      const std::vector<std::uint32_t> chars = {'a', 0xe9, 0x1f600, 0x4e2d, 'Z', 0};
      std::vector<std::uint8_t> le, be;
      for (std::uint32_t ch : chars) {
        put_le(le, ch);
        for (int k = 3; k >= 0; --k) be.push_back(static_cast<std::uint8_t>(ch >> (8 * k)));
      }
      Tree tree;
      tree["ascii"] = Array::from_bytes(DType::ascii(5), {4}, ascii, true);
      tree["ucs4_le"] = Array::from_bytes(DType::ucs4(3, ByteOrder::kLittle), {2}, le, true);
      tree["ucs4_be"] = Array::from_bytes(DType::ucs4(3, ByteOrder::kBig), {2}, be, true);
      c.arrays["ascii"] = array_want(md5_hex(ascii), {4}, "|S5");
      c.arrays["ucs4_le"] = array_want(md5_hex(le), {2}, "<U3");
      c.arrays["ucs4_be"] = array_want(md5_hex(le), {2}, ">U3");
      asdfcore::write(c.file.string(), tree, WriteOptions{.asdf_standard = s});
      cases.push_back(std::move(c));
    }
    // A record: uint8, little float32, big int16 x 2.
    {
      Case c;
      c.standard = s;
      c.file = dir / ("record-" + s + ".asdf");
      const DType record = DType::structured(
          {Field{.name = "a", .dtype = DType::numeric(DTypeKind::kUInt8)},
           Field{.name = "b", .dtype = DType::numeric(DTypeKind::kFloat32, ByteOrder::kLittle)},
           Field{.name = "c",
                 .dtype = DType::numeric(DTypeKind::kInt16, ByteOrder::kBig),
                 .shape = {2}}});
      REQUIRE(record.itemsize() == 9);
      std::vector<std::uint8_t> bytes, want;
      for (int i = 0; i < 3; ++i) {
        const auto a = static_cast<std::uint8_t>(200 + i);
        const float b = 1.5f * static_cast<float>(i) - 0.25f;
        const std::int16_t c0 = static_cast<std::int16_t>(-300 * i),
                           c1 = static_cast<std::int16_t>(7 + i);
        bytes.push_back(a);
        want.push_back(a);
        put_le(bytes, b);
        put_le(want, b);
        for (std::int16_t x : {c0, c1}) {
          bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint16_t>(x) >> 8));
          bytes.push_back(static_cast<std::uint8_t>(x & 0xff));
          put_le(want, x);
        }
      }
      Tree tree;
      tree["record"] = Array::from_bytes(record, {3}, bytes, true);
      c.arrays["record"] = array_want(md5_hex(want), {3}, "|V9");
      asdfcore::write(c.file.string(), tree, WriteOptions{.asdf_standard = s});
      cases.push_back(std::move(c));
    }
  }
  // A mask (ndarray-1.0.0 only: python 2.14 ignores an ndarray mask of ndarray-1.1.0), given as
  // bool and as uint8 (mask.h: "non-zero = masked"; the written mask must still be bool8).
  for (const std::string mask_type : {"bool", "uint8"}) {
    Case c;
    c.file = dir / ("mask-" + mask_type + "-1.5.0.asdf");
    const auto v = samples<double>(12, 9);
    const std::vector<std::uint8_t> m = {0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1};
    Array data = Array::copy(std::span<const double>(v), {3, 4});
    if (mask_type == "bool") {
      const std::vector<bool> b(m.begin(), m.end());
      data.mask(copy_of(b, {3, 4}));
    } else {
      data.mask(Array::copy(std::span<const std::uint8_t>(m), {3, 4}));
    }
    Tree tree;
    tree["masked"] = data;
    c.arrays["masked"] = array_want(le_md5(v), {3, 4}, "<f8");
    c.arrays["masked"]["mask_md5"] = md5_hex(m);
    c.arrays["masked"]["n_masked"] = 4;
    asdfcore::write(c.file.string(), tree);
    cases.push_back(std::move(c));
  }
  check_cases(cases);

  // Our reader: the strided view reads back (a strided view cannot give a span), bounds are
  // checked by at(), and every written file's checksums verify (either convention).
  {
    const asdfcore::File views = asdfcore::File::open((dir / "views-1.5.0.asdf").string());
    const auto v = samples<std::int32_t>(24, 5);
    const auto cols = views.array<std::int32_t>("/cols");
    CHECK(cols.shape() == std::vector<std::uint64_t>{3, 3});
    CHECK(cols(2, 1) == v[3 * 6 + 2]);
    CHECK(cols.at({0, 2}) == v[1 * 6 + 4]);
    if (!cols.is_contiguous()) {
      CHECK_THROWS_AS(cols.span(), asdfcore::Error);
    }
    CHECK_THROWS_AS(cols.at({3, 0}), asdfcore::Error);
    CHECK_THROWS_AS(cols.at({0}), asdfcore::Error);
    CHECK(views.array<std::int32_t>("/rows").to_vector() ==
          std::vector<std::int32_t>(v.begin(), v.begin() + 12));
    for (const Case& c : cases) {
      INFO(c.file.filename().string());
      CHECK_NOTHROW(asdfcore::File::open(c.file.string()).verify_checksums());
    }
  }

  // Views share one block in python too.
  const json all = fitsasdf::test::api::python_read(
      {dir / "views-1.5.0.asdf", dir / "views-1.6.0.asdf"}, {kNdarray11Warning});
  for (const auto& [file, rec] : all.items()) {
    INFO(file << ": " << rec.dump());
    CHECK(rec["blocks"] == 1);
    CHECK(rec["tree"]["base"]["$array"]["source"] == 0);
    CHECK(rec["tree"]["rows"]["$array"]["source"] == 0);
    CHECK(rec["tree"]["cols"]["$array"]["source"] == 0);
    CHECK(rec["tree"]["rev"]["$array"]["source"] == 0);
  }
}

TEST_CASE(
    "python reads nested metadata: scalars, look-alike strings, big integers, a custom "
    "tag, an alias",
    "[api][python]") {
  TempDir dir;
  std::vector<Case> cases;
  for (const std::string standard : {"1.5.0", "1.6.0"}) {
    Case c;
    c.standard = standard;
    c.has_block_arrays = false;
    c.file = dir / ("meta-" + standard + ".asdf");
    Tree tree;
    tree["meta"]["exposure"]["exptime"] = 12.5;
    tree["meta"]["exposure"]["nframes"] = 4;
    tree["meta"]["instrument"]["name"] = "NIRCAM";
    tree["meta"]["flags"] = std::vector<bool>{true, false};
    tree["meta"]["list"] = std::vector<std::int64_t>{1, -2, 3};
    tree["meta"]["nothing"] = nullptr;
    tree["strings"]["true"] = "true";
    tree["strings"]["number"] = "1.5";
    tree["strings"]["null"] = "null";
    tree["strings"]["date"] = "2024-03-01";
    tree["strings"]["empty"] = "";
    tree["strings"]["lines"] = "two\nlines: here";
    tree["strings"]["unicode"] = "\xc3\xa9\xe4\xb8\xad \xf0\x9f\x98\x80";
    tree["strings"]["colon"] = "key: value # not a comment";
    tree["ints"]["max"] = std::numeric_limits<std::int64_t>::max();
    tree["ints"]["min_plus_2"] = std::numeric_limits<std::int64_t>::min() + 2;
    tree["floats"]["big"] = 1e300;
    tree["floats"]["tiny"] = 5e-324;
    tree["floats"]["third"] = 1.0 / 3.0;
    tree["floats"]["negzero"] = -0.0;
    tree["custom"]["x"] = 1;
    tree["custom"]["y"] = "why";
    tree["custom"].tag("tag:example.org/foo-1.0.0");
    Tree shared = Tree::mapping();
    shared["k"] = "v";
    tree["first"] = shared;
    tree["second"] = shared;
    Tree seq = Tree::sequence();
    seq.push_back(1).push_back("two").push_back(3.0);
    tree["seq"] = seq;

    c.values["meta"] = {{"exposure", {{"exptime", 12.5}, {"nframes", 4}}},
                        {"instrument", {{"name", "NIRCAM"}}},
                        {"flags", {true, false}},
                        {"list", {1, -2, 3}},
                        {"nothing", nullptr}};
    c.values["strings"] = {{"true", "true"},
                           {"number", "1.5"},
                           {"null", "null"},
                           {"date", "2024-03-01"},
                           {"empty", ""},
                           {"lines", "two\nlines: here"},
                           {"unicode", "\xc3\xa9\xe4\xb8\xad \xf0\x9f\x98\x80"},
                           {"colon", "key: value # not a comment"}};
    c.values["ints"] = {{"max", std::numeric_limits<std::int64_t>::max()},
                        {"min_plus_2", std::numeric_limits<std::int64_t>::min() + 2}};
    c.values["floats"] = {
        {"big", 1e300}, {"tiny", 5e-324}, {"third", 1.0 / 3.0}, {"negzero", -0.0}};
    c.values["custom"] = {{"$tagged", "tag:example.org/foo-1.0.0"},
                          {"value", {{"x", 1}, {"y", "why"}}}};
    c.values["first"] = {{"k", "v"}};
    c.values["second"] = {{"k", "v"}};
    c.values["seq"] = {1, "two", 3.0};
    c.warnings = {"tag:example.org/foo-1.0.0 is not recognized"};
    asdfcore::write(c.file.string(), tree, WriteOptions{.asdf_standard = standard});
    cases.push_back(std::move(c));

    // Beyond int64, python asdf writes (and reads without a warning) a core/integer-1.0.0; a
    // plain literal there warns "Invalid integer literal value".
    Case big;
    big.standard = standard;
    big.has_block_arrays = false;
    big.file = dir / ("bigint-" + standard + ".asdf");
    Tree ints;
    ints["u64max"] = std::numeric_limits<std::uint64_t>::max();
    ints["two63"] = std::uint64_t{1} << 63;
    ints["small_u64"] = std::uint64_t{5};
    big.values["u64max"] = {{"$int", "18446744073709551615"}};
    big.values["two63"] = {{"$int", "9223372036854775808"}};
    big.values["small_u64"] = 5;
    asdfcore::write(big.file.string(), ints, WriteOptions{.asdf_standard = standard});
    cases.push_back(std::move(big));
  }
  check_cases(cases);
}

TEST_CASE("write refuses what it documents: bad standard, codec, root, placeholders",
          "[api][error]") {
  TempDir dir;
  const auto v = samples<float>(4);
  Tree tree;
  tree["a"] = Array::copy(std::span<const float>(v), {4});
  auto refuses = [&](const Tree& t, const WriteOptions& o) {
    const fs::path out = dir / "refused.asdf";
    try {
      asdfcore::write(out.string(), t, o);
      FAIL("no error");
    } catch (const asdfcore::Error& e) {
      INFO(e.what());
      CHECK(e.code() == asdfcore::ErrorCode::kInvalidArgument);
    }
    CHECK_FALSE(fs::exists(out));
  };
  refuses(tree, WriteOptions{.asdf_standard = "1.4.0"});
  refuses(tree, WriteOptions{.compression = "zstd"});
  refuses(Tree::sequence(), WriteOptions{});
  Tree streamed;
  streamed["s"] = Array::streamed<float>({4});
  refuses(streamed, WriteOptions{});
  Tree pending;
  pending["p"] = Array::pending<float>({4});
  refuses(pending, WriteOptions{});
  CHECK_THROWS_AS(Array::copy(std::span<const float>(v), {5}), asdfcore::Error);
  CHECK_THROWS_AS(Array::copy(std::span<const float>(v), {2, 2}).view_of(4, {2, 2}),
                  asdfcore::Error);
  // write_to_memory gives the bytes write would write.
  const auto bytes = asdfcore::write_to_memory(tree);
  const asdfcore::File back = asdfcore::File::open_memory(bytes);
  CHECK(back.array<float>("/a").to_vector() == v);
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 0);
}
