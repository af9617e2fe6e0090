// Failures of the typed getters of the public API: each wrong-type or missing access throws an
// Error of the documented code whose what() names the path, the type asked for and the type
// found; array_as<T> follows numpy's safe casting, checked against a table and against numpy
// itself (one run of /usr/bin/python3).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_support.h"
#include "asdfcore/asdfcore.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::File;
using asdfcore::ndarray::DTypeKind;

namespace {

/// A small ASDF file with scalars, a mapping, a sequence and inline arrays of several types.
const char* const kYaml = R"(#ASDF 1.0.0
#ASDF_STANDARD 1.5.0
%YAML 1.1
%TAG ! tag:stsci.edu:asdf/
--- !core/asdf-1.1.0
meta:
  name: NIRCAM
  count: 42
  big: 300
  ratio: 2.5
  flag: true
  when: 2024-03-01T12:30:00.5Z
  day: 2002-12-14
  zoned: 2001-12-14 21:59:43.10 -5
  list: [1, 2, 3]
  names: [a, b]
  "a/b": 7
  "t~x": 8
i16: !core/ndarray-1.0.0 {data: [1, -2, 3, 32767], datatype: int16, shape: [4]}
u8: !core/ndarray-1.0.0 {data: [0, 7, 255], datatype: uint8, shape: [3]}
f32: !core/ndarray-1.0.0 {data: [0.5, -1.25], datatype: float32, shape: [2]}
...
)";

File small_file() {
  const std::string text = kYaml;
  return File::open_memory(std::vector<std::uint8_t>(text.begin(), text.end()), "small.asdf");
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// CHECK that `f` throws an Error of `code` whose what() contains, for each group of
/// `mentions`, one of its alternatives (case-insensitive).
void check_error(const std::function<void()>& f, ErrorCode code,
                 std::initializer_list<std::initializer_list<std::string>> mentions) {
  try {
    f();
    FAIL("no error thrown");
  } catch (const Error& e) {
    INFO("what(): " << e.what());
    CHECK(asdfcore::error_code_name(e.code()) == asdfcore::error_code_name(code));
    const std::string what = lower(e.what());
    for (const auto& group : mentions) {
      bool any = false;
      std::string alternatives;
      for (const std::string& m : group) {
        any = any || what.find(lower(m)) != std::string::npos;
        alternatives += "'" + m + "' ";
      }
      INFO("mentions one of " << alternatives);
      CHECK(any);
    }
  }
}

}  // namespace

TEST_CASE("a wrong-type get names the path, the type asked for and the type found",
          "[api][error]") {
  const File f = small_file();
  SECTION("string read as double") {
    check_error([&] { (void)f.get<double>("/meta/name"); }, ErrorCode::kWrongType,
                {{"/meta/name"}, {"double", "float"}, {"string"}});
  }
  SECTION("int read as std::string") {
    check_error([&] { (void)f.get<std::string>("/meta/count"); }, ErrorCode::kWrongType,
                {{"/meta/count"}, {"string"}, {"int"}});
  }
  SECTION("mapping read as int64_t") {
    check_error([&] { (void)f.get<std::int64_t>("/meta"); }, ErrorCode::kWrongType,
                {{"/meta"}, {"int64", "integer"}, {"mapping"}});
  }
  SECTION("array<float> of an int16 array") {
    check_error([&] { (void)f.array<float>("/i16"); }, ErrorCode::kWrongType,
                {{"/i16"}, {"float32", "float"}, {"int16"}});
  }
  SECTION("uint8 of 300") {
    check_error([&] { (void)f.get<std::uint8_t>("/meta/big"); }, ErrorCode::kWrongType,
                {{"/meta/big"}, {"uint8"}, {"300"}});
  }
  SECTION("int64 of a float") {
    check_error([&] { (void)f.get<std::int64_t>("/meta/ratio"); }, ErrorCode::kWrongType,
                {{"/meta/ratio"}, {"int64", "integer"}, {"float", "2.5"}});
  }
  SECTION("a sequence read as a string, a vector<int> of strings") {
    check_error([&] { (void)f.get<std::string>("/meta/list"); }, ErrorCode::kWrongType,
                {{"/meta/list"}, {"string"}, {"sequence"}});
    check_error([&] { (void)f.get<std::vector<std::int64_t>>("/meta/names"); },
                ErrorCode::kWrongType, {{"/meta/names/0"}, {"int"}, {"string"}});
  }
  SECTION("a key of a scalar, an index of a mapping") {
    check_error([&] { (void)f["meta"]["name"]["x"]; }, ErrorCode::kWrongType,
                {{"/meta/name"}, {"mapping"}, {"string"}});
    check_error([&] { (void)f["meta"][std::size_t{0}]; }, ErrorCode::kWrongType,
                {{"/meta"}, {"sequence"}, {"mapping"}});
  }
}

TEST_CASE("a missing key or an index past the end is not-found, naming the step", "[api][error]") {
  const File f = small_file();
  check_error([&] { (void)f.at("/meta/nothere/deeper"); }, ErrorCode::kNotFound,
              {{"nothere"}, {"/meta"}});
  check_error([&] { (void)f["meta"]["nothere"]; }, ErrorCode::kNotFound, {{"nothere"}});
  check_error([&] { (void)f.at("/meta/list/3"); }, ErrorCode::kNotFound, {{"/meta/list"}, {"3"}});
  check_error([&] { (void)f["meta"]["list"][std::size_t{3}]; }, ErrorCode::kNotFound,
              {{"/meta/list"}, {"3"}});
  check_error([&] { (void)f.get<double>("/nothing"); }, ErrorCode::kNotFound, {{"nothing"}});
  CHECK_FALSE(f.contains("/meta/nothere"));
  CHECK_FALSE(f.contains("/meta/list/3"));
  CHECK(f.root().get_or<double>("/meta/nothere", 1.5) == 1.5);
  CHECK(f.root().get_or<double>("/meta/ratio", 1.5) == 2.5);
  // A value of another type is still an error with get_or.
  CHECK_THROWS_AS(f.root().get_or<double>("/meta/name", 1.5), Error);
}

TEST_CASE("getters: JSON Pointer steps, negative indices, timestamps, vectors", "[api]") {
  const File f = small_file();
  CHECK(f.get<std::string>("/meta/name") == "NIRCAM");
  CHECK(f["meta"]["name"].path() == "/meta/name");
  CHECK(f.get<std::int32_t>("/meta/count") == 42);
  CHECK(f.get<std::uint8_t>("/meta/count") == 42);
  CHECK(f.get<float>("/meta/ratio") == 2.5f);
  CHECK(f.get<double>("/meta/count") == 42.0);
  CHECK(f.get<bool>("/meta/flag"));
  CHECK(f.get<std::int64_t>("/meta/a~1b") == 7);
  CHECK(f.get<std::int64_t>("/meta/t~0x") == 8);
  CHECK(f.get<std::int64_t>("/meta/list/-1") == 3);
  CHECK(f["meta"].get<std::int64_t>("list/0") == 1);  // the leading "/" may be left out
  CHECK(f.get<std::vector<std::int64_t>>("/meta/list") == std::vector<std::int64_t>{1, 2, 3});
  CHECK(f.get<std::vector<std::string>>("/meta/names") == std::vector<std::string>{"a", "b"});
  CHECK(f.at("").path().empty());
  check_error([&] { (void)f.at("/meta/list/x"); }, ErrorCode::kNotFound, {{"x"}});

  const auto when = f.get<asdfcore::Timestamp>("/meta/when");
  CHECK(when.text == "2024-03-01T12:30:00.5Z");
  CHECK(when.time.time_since_epoch() ==
        std::chrono::sys_days{std::chrono::year{2024} / 3 / 1}.time_since_epoch() +
            std::chrono::hours{12} + std::chrono::minutes{30} + std::chrono::milliseconds{500});
  CHECK_FALSE(when.utc_offset.has_value());
  CHECK(f.get<std::string>("/meta/when") == "2024-03-01T12:30:00.5Z");
  const auto day = f.get<asdfcore::Timestamp>("/meta/day");
  CHECK(day.date_only);
  const auto zoned = f.get<asdfcore::Timestamp>("/meta/zoned");
  REQUIRE(zoned.utc_offset.has_value());
  CHECK(*zoned.utc_offset == std::chrono::minutes{-300});
  // 21:59:43.10 at -5 is 02:59:43.10 UTC the next day.
  CHECK(zoned.time.time_since_epoch() ==
        std::chrono::sys_days{std::chrono::year{2001} / 12 / 15}.time_since_epoch() +
            std::chrono::hours{2} + std::chrono::minutes{59} + std::chrono::seconds{43} +
            std::chrono::milliseconds{100});
  CHECK_THROWS_AS(asdfcore::Timestamp::parse("yesterday"), Error);
  CHECK_THROWS_AS(f.get<asdfcore::Timestamp>("/meta/name"), Error);

  std::vector<std::string> keys;
  for (const auto& e : f["meta"].entries()) keys.push_back(e.key);
  CHECK(keys.front() == "name");
  CHECK(keys.size() == f["meta"].size());
}

namespace {

const std::vector<std::pair<DTypeKind, std::string>> kKinds = {
    {DTypeKind::kInt8, "int8"},
    {DTypeKind::kInt16, "int16"},
    {DTypeKind::kInt32, "int32"},
    {DTypeKind::kInt64, "int64"},
    {DTypeKind::kUInt8, "uint8"},
    {DTypeKind::kUInt16, "uint16"},
    {DTypeKind::kUInt32, "uint32"},
    {DTypeKind::kUInt64, "uint64"},
    {DTypeKind::kFloat16, "float16"},
    {DTypeKind::kFloat32, "float32"},
    {DTypeKind::kFloat64, "float64"},
    {DTypeKind::kComplex64, "complex64"},
    {DTypeKind::kComplex128, "complex128"},
    {DTypeKind::kBool8, "bool"}};

}  // namespace

TEST_CASE("can_cast_safely agrees with a table of pairs and with numpy's can_cast 'safe'",
          "[api][cast][python]") {
  using K = DTypeKind;
  struct Pair {
    K from, to;
    bool ok;
  };
  const std::vector<Pair> table = {
      {K::kInt16, K::kFloat64, true},      {K::kInt16, K::kFloat32, true},
      {K::kInt32, K::kFloat32, false},     {K::kInt64, K::kFloat64, true},
      {K::kUInt8, K::kInt32, true},        {K::kUInt8, K::kInt8, false},
      {K::kUInt64, K::kInt64, false},      {K::kUInt64, K::kFloat64, true},
      {K::kInt8, K::kUInt64, false},       {K::kFloat64, K::kFloat32, false},
      {K::kFloat32, K::kComplex128, true}, {K::kFloat64, K::kComplex64, false},
      {K::kBool8, K::kInt8, true},         {K::kInt8, K::kBool8, false},
      {K::kFloat16, K::kFloat32, true},    {K::kInt8, K::kFloat16, true},
      {K::kInt16, K::kFloat16, false},     {K::kComplex64, K::kFloat64, false},
      {K::kUInt32, K::kInt64, true},       {K::kInt64, K::kInt64, true},
  };
  for (const Pair& p : table) {
    INFO(asdfcore::ndarray::kind_info(p.from).numpy_name
         << " -> " << asdfcore::ndarray::kind_info(p.to).numpy_name);
    CHECK(asdfcore::can_cast_safely(p.from, p.to) == p.ok);
  }

  const fitsasdf::test::RunResult r = fitsasdf::test::run(
      {fitsasdf::test::reference_python(), "-c",
       "import json, numpy as np\n"
       "k = ['int8','int16','int32','int64','uint8','uint16','uint32','uint64','float16',"
       "'float32','float64','complex64','complex128','bool']\n"
       "print(json.dumps({a: {b: bool(np.can_cast(a, b, 'safe')) for b in k} for a in k}))\n"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json numpy = nlohmann::json::parse(r.out);
  for (const auto& [from, from_name] : kKinds) {
    for (const auto& [to, to_name] : kKinds) {
      INFO(from_name << " -> " << to_name);
      CHECK(asdfcore::can_cast_safely(from, to) == numpy[from_name][to_name].get<bool>());
    }
  }
}

TEST_CASE("array_as converts by safe casting and refuses the rest, naming both types",
          "[api][cast]") {
  const File f = small_file();
  CHECK(f.array_as<double>("/i16").to_vector() == std::vector<double>{1, -2, 3, 32767});
  CHECK(f.array_as<float>("/i16").to_vector() == std::vector<float>{1, -2, 3, 32767});
  CHECK(f.array_as<std::int32_t>("/u8").to_vector() == std::vector<std::int32_t>{0, 7, 255});
  CHECK(f.array_as<std::uint16_t>("/u8").to_vector() == std::vector<std::uint16_t>{0, 7, 255});
  CHECK(f.array_as<std::complex<double>>("/f32").to_vector() ==
        std::vector<std::complex<double>>{{0.5, 0}, {-1.25, 0}});
  CHECK(f.array_as<std::int16_t>("/i16").to_vector() == f.array<std::int16_t>("/i16").to_vector());
  check_error([&] { (void)f.array_as<std::int8_t>("/i16"); }, ErrorCode::kWrongType,
              {{"/i16"}, {"int8"}, {"int16"}});
  check_error([&] { (void)f.array_as<std::uint16_t>("/i16"); }, ErrorCode::kWrongType,
              {{"/i16"}, {"uint16"}, {"int16"}});
  check_error([&] { (void)f.array_as<std::int64_t>("/f32"); }, ErrorCode::kWrongType,
              {{"/f32"}, {"int64"}, {"float32"}});
  check_error([&] { (void)f.array_as<bool>("/u8"); }, ErrorCode::kWrongType,
              {{"/u8"}, {"bool"}, {"uint8"}});
  // array<T> (exact) of the same type as array_as works; of a wider type it does not.
  CHECK_THROWS_AS(f.array<double>("/i16"), Error);
  // A scalar is not an ndarray.
  check_error([&] { (void)f.array<double>("/meta/ratio"); }, ErrorCode::kWrongType,
              {{"/meta/ratio"}, {"ndarray", "array"}});
}
