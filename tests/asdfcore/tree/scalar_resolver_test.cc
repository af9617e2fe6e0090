// The implicit typing of plain scalars (PyYAML's YAML 1.1 resolvers) and PyYAML's float text.
//
// The expected values below were computed once with PyYAML 6.0 (Debian python3-yaml, run by
// /usr/bin/python3) and hard-coded: for each text, SafeLoader's resolver picked the tag of the
// plain scalar and SafeLoader's constructor built the value, i.e.
//   loader = yaml.SafeLoader(""); tag = loader.resolve(yaml.ScalarNode, text, (True, False))
//   value = loader.construct_object(yaml.ScalarNode(tag, text))
// which is what yaml.safe_load does for the text as a document's only scalar (the resolver call
// also covers texts like "-" that are not a scalar on their own). Ints are str(value), floats
// repr(value), timestamps were date/datetime objects (kept as text here), kError rows raised
// the quoted Python error. The "[interop]" case checks the same table at run time.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree/yaml.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"
#include "tree/plain_scalar.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::emit_yaml;
using asdfcore::tree::format_float;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;
using asdfcore::tree::parse_yaml;
using asdfcore::tree::resolve_plain_scalar;

// What PyYAML made of a plain scalar.
enum class K {
  kNull,
  kBool,
  kInt,
  kBigInt,
  kFloat,
  kString,
  kTimestamp,
  kTaggedString,  // safe_load fails (no constructor); python asdf's loader makes a string
                  // keeping the tag, which is what we do.
  kError,         // PyYAML raised the error quoted in `value`; we throw Error (malformed).
};

struct Row {
  std::string_view text;
  K kind;
  std::string_view value;  // str() / repr() of PyYAML's value, the tag, or the error.
};

// clang-format off
const Row kRows[] = {
    {"0", K::kInt, "0"},
    {"-0", K::kInt, "0"},
    {"+0", K::kInt, "0"},
    {"+1", K::kInt, "1"},
    {"12", K::kInt, "12"},
    {"-12", K::kInt, "-12"},
    {"1_000", K::kInt, "1000"},
    {"1__", K::kInt, "1"},
    {"0_", K::kInt, "0"},
    {"_1", K::kString, "_1"},
    {"0o17", K::kString, "0o17"},
    {"0o", K::kString, "0o"},
    {"0x1F", K::kInt, "31"},
    {"-0x1F", K::kInt, "-31"},
    {"+0x1F", K::kInt, "31"},
    {"0x_1F", K::kInt, "31"},
    {"0xFFFFFFFFFFFFFFFFFF", K::kBigInt, "4722366482869645213695"},
    {"0x", K::kString, "0x"},
    {"0b1010", K::kInt, "10"},
    {"-0b1", K::kInt, "-1"},
    {"0b_1_0", K::kInt, "2"},
    {"0b", K::kString, "0b"},
    {"0b2", K::kString, "0b2"},
    {"017", K::kInt, "15"},
    {"-017", K::kInt, "-15"},
    {"08", K::kString, "08"},
    {"019", K::kString, "019"},
    {"0777777777777777777777777", K::kBigInt, "4722366482869645213695"},
    {"1:30", K::kInt, "90"},
    {"-1:30", K::kInt, "-90"},
    {"1:5", K::kInt, "65"},
    {"1:60", K::kString, "1:60"},
    {"12:30:45", K::kInt, "45045"},
    {"0:30", K::kString, "0:30"},
    {"1_0:30", K::kInt, "630"},
    {"1:3_0", K::kString, "1:3_0"},
    {"190:20:30.15", K::kFloat, "685230.15"},
    {"1:30.5", K::kFloat, "90.5"},
    {"0:30.5", K::kFloat, "30.5"},
    {"1:30.", K::kFloat, "90.0"},
    {"1.", K::kFloat, "1.0"},
    {"0.", K::kFloat, "0.0"},
    {".5", K::kFloat, "0.5"},
    {"-.5", K::kString, "-.5"},
    {"+.5", K::kString, "+.5"},
    {"._5", K::kString, "._5"},
    {"1_000.5", K::kFloat, "1000.5"},
    {"-0.0", K::kFloat, "-0.0"},
    {"0.1", K::kFloat, "0.1"},
    {"1.0e+3", K::kFloat, "1000.0"},
    {"1.0E+3", K::kFloat, "1000.0"},
    {"1.0e-3", K::kFloat, "0.001"},
    {"1e3", K::kString, "1e3"},
    {"1e+3", K::kString, "1e+3"},
    {"1.0e3", K::kString, "1.0e3"},
    {"1.e+5", K::kFloat, "100000.0"},
    {".5e-3", K::kFloat, "0.0005"},
    {"1.0e+400", K::kFloat, "inf"},
    {"1.0e-400", K::kFloat, "0.0"},
    {"3.0e-324", K::kFloat, "5e-324"},
    {"1.2.3", K::kString, "1.2.3"},
    {"-.inf", K::kFloat, "-inf"},
    {"+.inf", K::kFloat, "inf"},
    {".inf", K::kFloat, "inf"},
    {".Inf", K::kFloat, "inf"},
    {".INF", K::kFloat, "inf"},
    {".iNf", K::kString, ".iNf"},
    {"inf", K::kString, "inf"},
    {"-inf", K::kString, "-inf"},
    {".nan", K::kFloat, "nan"},
    {".NaN", K::kFloat, "nan"},
    {".NAN", K::kFloat, "nan"},
    {"-.nan", K::kString, "-.nan"},
    {"NaN", K::kString, "NaN"},
    {"nan", K::kString, "nan"},
    {"Yes", K::kBool, "true"},
    {"yes", K::kBool, "true"},
    {"YES", K::kBool, "true"},
    {"yEs", K::kString, "yEs"},
    {"y", K::kString, "y"},
    {"Y", K::kString, "Y"},
    {"n", K::kString, "n"},
    {"N", K::kString, "N"},
    {"no", K::kBool, "false"},
    {"No", K::kBool, "false"},
    {"NO", K::kBool, "false"},
    {"true", K::kBool, "true"},
    {"True", K::kBool, "true"},
    {"TRUE", K::kBool, "true"},
    {"tRue", K::kString, "tRue"},
    {"false", K::kBool, "false"},
    {"False", K::kBool, "false"},
    {"FALSE", K::kBool, "false"},
    {"on", K::kBool, "true"},
    {"On", K::kBool, "true"},
    {"ON", K::kBool, "true"},
    {"oN", K::kString, "oN"},
    {"off", K::kBool, "false"},
    {"Off", K::kBool, "false"},
    {"OFF", K::kBool, "false"},
    {"null", K::kNull, ""},
    {"Null", K::kNull, ""},
    {"NULL", K::kNull, ""},
    {"nULL", K::kString, "nULL"},
    {"~", K::kNull, ""},
    {"", K::kNull, ""},
    {"none", K::kString, "none"},
    {"None", K::kString, "None"},
    {"2001-12-14", K::kTimestamp, "2001-12-14"},
    {"2001-12-14t21:59:43.10-05:00", K::kTimestamp, "2001-12-14t21:59:43.10-05:00"},
    {"2001-12-14T21:59:43Z", K::kTimestamp, "2001-12-14T21:59:43Z"},
    {"2002-12-14 21:59:43.10 -5", K::kTimestamp, "2002-12-14 21:59:43.10 -5"},
    {"2001-12-14 21:59:43.1234567", K::kTimestamp, "2001-12-14 21:59:43.1234567"},
    {"2001-1-1 1:00:00", K::kTimestamp, "2001-1-1 1:00:00"},
    {"2001-1-1", K::kString, "2001-1-1"},
    {"2001-12-14 21:59:43 +05:30", K::kTimestamp, "2001-12-14 21:59:43 +05:30"},
    {"20011214", K::kInt, "20011214"},
    {"9223372036854775807", K::kInt, "9223372036854775807"},
    {"9223372036854775808", K::kBigInt, "9223372036854775808"},
    {"-9223372036854775808", K::kInt, "-9223372036854775808"},
    {"-9223372036854775809", K::kBigInt, "-9223372036854775809"},
    {"123456789012345678901234567890", K::kBigInt, "123456789012345678901234567890"},
    {"-123456789012345678901234567890", K::kBigInt, "-123456789012345678901234567890"},
    {"=", K::kTaggedString, "tag:yaml.org,2002:value"},  // safe_load: could not determine a constructor for the tag 'tag:yaml.org,2002:value'
    {"<<", K::kTaggedString, "tag:yaml.org,2002:merge"},  // safe_load: could not determine a constructor for the tag 'tag:yaml.org,2002:merge'
    {"1,000", K::kString, "1,000"},
    {"+", K::kString, "+"},
    {"-", K::kString, "-"},
    {".", K::kString, "."},
    {"1-2", K::kString, "1-2"},
    {"0x1G", K::kString, "0x1G"},
    {"hello", K::kString, "hello"},
    {"a b", K::kString, "a b"},
    {"1 000", K::kString, "1 000"},
    {"0b_", K::kError, "invalid literal for int() with base 2: ''"},
    {"0x_", K::kError, "invalid literal for int() with base 16: ''"},
    {"2001-13-45", K::kError, "month must be in 1..12"},
    {"2001-02-29", K::kError, "day is out of range for month"},
    {"2000-02-29", K::kTimestamp, "2000-02-29"},
    {"2001-12-14 24:00:00", K::kError, "hour must be in 0..23"},
    {"0000-01-01", K::kError, "year 0 is out of range"},
    {"2001-12-14 21:59:43 +24", K::kError, "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)"},
    {"2001-12-14 21:59:43 -23:59", K::kTimestamp, "2001-12-14 21:59:43 -23:59"},
    {"2001-12-14 21:59:60", K::kError, "second must be in 0..59"},
    {"2001-12-14 21:60:00", K::kError, "minute must be in 0..59"},
    {"1.0e+3_0", K::kString, "1.0e+3_0"},
    {"0x1f", K::kInt, "31"},
    {"0X1F", K::kString, "0X1F"},
    {"+0b", K::kString, "+0b"},
    {"0b1_", K::kInt, "1"},
    {"10:00:00.5", K::kFloat, "36000.5"},
    {"1_2_3", K::kInt, "123"},
    {"-1_000", K::kInt, "-1000"},
};
// clang-format on

double python_float(std::string_view repr) {
  return std::strtod(std::string(repr).c_str(), nullptr);
}

bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

void check_node(const Row& row, const Node& node) {
  INFO("text '" << row.text << "' gave a " << asdfcore::tree::node_kind_name(node.kind()));
  switch (row.kind) {
    case K::kNull:
      CHECK(node.is_null());
      break;
    case K::kBool:
      REQUIRE(node.kind() == NodeKind::kBool);
      CHECK(node.as_bool() == (row.value == "true"));
      break;
    case K::kInt:
    case K::kBigInt:
      REQUIRE(node.kind() == (row.kind == K::kInt ? NodeKind::kInt : NodeKind::kBigInt));
      CHECK(node.integer_text() == row.value);
      break;
    case K::kFloat:
      REQUIRE(node.kind() == NodeKind::kFloat);
      CHECK(same_double(node.as_double(), python_float(row.value)));
      break;
    case K::kString:
      REQUIRE(node.kind() == NodeKind::kString);
      CHECK(node.tag().empty());
      CHECK(node.as_string() == row.value);
      break;
    case K::kTimestamp:
      REQUIRE(node.kind() == NodeKind::kTimestamp);
      CHECK(node.as_string() == row.text);
      break;
    case K::kTaggedString:
      REQUIRE(node.kind() == NodeKind::kString);
      CHECK(node.as_string() == row.text);
      CHECK(node.tag() == row.value);
      break;
    case K::kError:
      FAIL("expected an error");
      break;
  }
}

}  // namespace

TEST_CASE("resolve_plain_scalar types plain scalars as PyYAML's SafeLoader", "[scalar]") {
  CHECK(std::size(kRows) >= 60);
  for (const Row& row : kRows) {
    INFO("text '" << row.text << "'");
    if (row.kind == K::kError) {
      try {
        (void)resolve_plain_scalar(row.text);
        FAIL("no error; PyYAML says: " << row.value);
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::kMalformed);
      }
      continue;
    }
    check_node(row, *resolve_plain_scalar(row.text));
  }
}

TEST_CASE("plain_scalar_is_string answers as resolve_plain_scalar", "[scalar]") {
  // The writer's shortcut must say "string" exactly when the resolver gives back the same
  // untagged string: every row of the table, and a few thousand texts made of the characters
  // the patterns turn on.
  const auto resolver_says = [](std::string_view text) {
    try {
      const auto node = resolve_plain_scalar(text);
      return node->is_string() && node->tag().empty() && node->as_string() == text;
    } catch (const Error&) {
      return false;
    }
  };
  for (const Row& row : kRows) {
    INFO("text '" << row.text << "'");
    CHECK(asdfcore::tree::plain_scalar_is_string(row.text) == resolver_says(row.text));
  }
  const std::string_view alphabet = "0123456789+-._:eE~<=xXoObBTtYyNnZz ";
  std::uint64_t state = 7;
  long strings = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto length = static_cast<std::size_t>((state >> 33) % 12);
    for (std::size_t k = 0; k < length; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      text += alphabet[(state >> 33) % alphabet.size()];
    }
    INFO("text '" << text << "'");
    const bool expected = resolver_says(text);
    strings += expected ? 1 : 0;
    REQUIRE(asdfcore::tree::plain_scalar_is_string(text) == expected);
  }
  CHECK(strings > 1000);
  CHECK(strings < 19000);
}

TEST_CASE("plain scalars in a document get the same types", "[scalar]") {
  // The reader applies the resolver to each plain scalar; a flow sequence cannot hold texts
  // with ", " or a leading "-", so each text is its own block sequence item.
  for (const Row& row : kRows) {
    if (row.text.empty() || row.text == "-" || row.text.find(": ") != std::string_view::npos) {
      continue;
    }
    INFO("text '" << row.text << "'");
    const std::string doc = "- " + std::string(row.text) + "\n";
    if (row.kind == K::kError) {
      CHECK_THROWS_AS(parse_yaml(doc), Error);
      continue;
    }
    const auto parsed = parse_yaml(doc);
    REQUIRE(parsed.root->is_sequence());
    REQUIRE(parsed.root->size() == 1);
    check_node(row, *parsed.root->items()[0]);
  }
}

TEST_CASE("every scalar written by emit_yaml reads back unchanged by our reader", "[scalar]") {
  NodePtr strings = Node::make_sequence();
  NodePtr typed = Node::make_sequence();
  for (const Row& row : kRows) {
    strings->push_back(Node::make_string(std::string(row.text)));
    if (row.kind != K::kError) typed->push_back(resolve_plain_scalar(row.text));
  }
  for (const NodePtr& tree : {strings, typed}) {
    const std::string text = emit_yaml(*tree);
    const auto back = parse_yaml(text);
    INFO(text);
    CHECK(asdfcore::tree::deep_equal(*tree, *back.root));
  }
}

TEST_CASE("strings that would read as another type are quoted", "[scalar]") {
  const auto written = [](std::string s) {
    NodePtr seq = Node::make_sequence();
    seq->push_back(Node::make_string(std::move(s)));
    const std::string text = emit_yaml(*seq);
    const auto start = text.find("\n---");
    return text.substr(start + 5, text.find("\n...") - start - 5);
  };
  CHECK(written("hello") == "[hello]");
  CHECK(written("123") == "['123']");
  CHECK(written("yes") == "['yes']");
  CHECK(written("1e3") == "[1e3]");  // PyYAML reads 1e3 as a string.
  CHECK(written("1.0e+3") == "['1.0e+3']");
  CHECK(written("") == "['']");
  CHECK(written("~") == "['~']");
  CHECK(written("2001-12-14") == "['2001-12-14']");
  CHECK(written("0b_") == "['0b_']");  // PyYAML fails on the plain text.
  CHECK(written("=") == "['=']");
  CHECK(written("tab\there") == "[\"tab\\there\"]");
  CHECK(written("bell\a") == "[\"bell\\a\"]");
}

TEST_CASE("construct_standard_scalar builds explicitly tagged scalars as PyYAML", "[scalar]") {
  using asdfcore::tree::construct_standard_scalar;
  const auto make = [](std::string_view name, std::string_view text) {
    return construct_standard_scalar("tag:yaml.org,2002:" + std::string(name), text);
  };
  // Expected values from PyYAML 6.0: yaml.safe_load('!!TAG "TEXT"').
  CHECK(make("int", "0o17")->as_int() == 15);
  CHECK(make("int", " 12 ")->as_int() == 12);
  CHECK(make("int", "1:30")->as_int() == 90);
  CHECK(make("int", "-0x_1F")->as_int() == -31);
  CHECK(make("int", "017")->as_int() == 15);
  CHECK(make("float", "1e3")->as_double() == 1000.0);
  CHECK(make("float", "-1:30.5")->as_double() == -90.5);
  CHECK(make("float", ".INF")->as_double() == std::numeric_limits<double>::infinity());
  CHECK(make("float", "-inf")->as_double() == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(make("float", "nan")->as_double()));
  CHECK(make("float", "7")->as_double() == 7.0);
  CHECK(make("float", "1_0.5")->as_double() == 10.5);
  CHECK(make("bool", "ON")->as_bool());
  CHECK(make("str", "~")->as_string() == "~");
  CHECK(make("null", "anything")->is_null());
  CHECK(make("binary", "aGVsbA==")->as_binary() == std::vector<std::uint8_t>{'h', 'e', 'l', 'l'});
  CHECK(make("timestamp", "2001-1-1")->kind() == NodeKind::kTimestamp);
  CHECK(make("timestamp", "2001-12-14 21:59:43")->kind() == NodeKind::kTimestamp);
  // PyYAML raises for each of these.
  for (const auto& [name, text] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"bool", "n"},
           {"binary", "aGVsbG"},
           {"int", ""},
           {"int", "0b"},
           {"float", ""},
           {"int", "1e3"},
           {"timestamp", "2001-12-14 25:00:00"},
           {"map", "x"}}) {
    INFO(name << " " << text);
    CHECK_THROWS_AS(make(name, text), Error);
  }
  // Any other tag gives the text as a string keeping the tag.
  const NodePtr unit = construct_standard_scalar("tag:stsci.edu:asdf/unit/unit-1.0.0", "m");
  CHECK(unit->as_string() == "m");
  CHECK(unit->tag() == "tag:stsci.edu:asdf/unit/unit-1.0.0");
}

TEST_CASE("format_float writes what PyYAML's represent_float writes", "[scalar]") {
  // Values and texts from PyYAML 6.0: yaml.SafeDumper(None).represent_float(value).value
  struct FloatRow {
    double value;
    std::string_view python_repr;
    std::string_view pyyaml;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // clang-format off
  const FloatRow rows[] = {
    {1.0, "1.0", "1.0"},
    {0.1, "0.1", "0.1"},
    {1e16, "1e+16", "1.0e+16"},
    {1e-5, "1e-05", "1.0e-05"},
    {123456789.123, "123456789.123", "123456789.123"},
    {5e-324, "5e-324", "5.0e-324"},
    {1.7976931348623157e308, "1.7976931348623157e+308", "1.7976931348623157e+308"},
    {-0.0, "-0.0", "-0.0"},
    {nan, "nan", ".nan"},
    {inf, "inf", ".inf"},
    {-inf, "-inf", "-.inf"},
    {1e22, "1e+22", "1.0e+22"},
    {0.0001, "0.0001", "0.0001"},
    {0.00001234, "1.234e-05", "1.234e-05"},
    {1e15, "1000000000000000.0", "1000000000000000.0"},
    {9999999999999998.0, "9999999999999998.0", "9999999999999998.0"},
    {1234567890123456.7, "1234567890123456.8", "1234567890123456.8"},
    {12345678901234567.0, "1.2345678901234568e+16", "1.2345678901234568e+16"},
    {0.5, "0.5", "0.5"},
    {2.5e-5, "2.5e-05", "2.5e-05"},
    {3.14159, "3.14159", "3.14159"},
    {100.0, "100.0", "100.0"},
    {1e100, "1e+100", "1.0e+100"},
    {1e-100, "1e-100", "1.0e-100"},
    {2.2250738585072014e-308, "2.2250738585072014e-308", "2.2250738585072014e-308"},
    {1.0 / 3, "0.3333333333333333", "0.3333333333333333"},
    {2.0 / 3, "0.6666666666666666", "0.6666666666666666"},
    {1e21, "1e+21", "1.0e+21"},
    {123.456, "123.456", "123.456"},
    {-1.5, "-1.5", "-1.5"},
    {0.0, "0.0", "0.0"},
    {9.999999999999999e-5, "9.999999999999999e-05", "9.999999999999999e-05"},
    {4.35, "4.35", "4.35"},
    {9007199254740992.0, "9007199254740992.0", "9007199254740992.0"},
    {9223372036854775808.0, "9.223372036854776e+18", "9.223372036854776e+18"},
    {1.5e300, "1.5e+300", "1.5e+300"},
    {6.02214076e23, "6.02214076e+23", "6.02214076e+23"},
    {1e-7, "1e-07", "1.0e-07"},
    {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004"},
    {-1e-300, "-1e-300", "-1.0e-300"},
    {1e-4, "0.0001", "0.0001"},
    {5e-5, "5e-05", "5.0e-05"},
    {1e-4 * 0.99999, "9.9999e-05", "9.9999e-05"},
    {-123.0, "-123.0", "-123.0"},
    {1e300 * 10, "1e+301", "1.0e+301"},
  };
  // clang-format on
  CHECK(std::size(rows) >= 30);
  for (const auto& row : rows) {
    INFO("Python repr " << row.python_repr);
    CHECK(format_float(row.value) == row.pyyaml);
    // And the text reads back as the same float.
    const NodePtr back = resolve_plain_scalar(format_float(row.value));
    REQUIRE(back->kind() == NodeKind::kFloat);
    CHECK(same_double(back->as_double(), row.value));
  }
}

TEST_CASE("PyYAML reads every scalar we write as the value we meant", "[scalar][interop]") {
  // Write each text as a string and as the node it resolves to; PyYAML's safe_load must give
  // back the same strings and the same typed values.
  NodePtr strings = Node::make_sequence();
  NodePtr typed = Node::make_sequence();
  std::vector<const Row*> typed_rows;
  for (const Row& row : kRows) {
    strings->push_back(Node::make_string(std::string(row.text)));
    if (row.kind == K::kError || row.kind == K::kTaggedString) continue;
    typed->push_back(resolve_plain_scalar(row.text));
    typed_rows.push_back(&row);
  }
  NodePtr root = Node::make_mapping();
  root->set("strings", strings);
  root->set("typed", typed);

  fitsasdf::test::TempDir dir;
  const auto path = dir / "scalars.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    out << emit_yaml(*root);
  }
  const std::string script = R"(
import datetime, json, sys, yaml
def describe(v):
    if isinstance(v, bool): return ["bool", "true" if v else "false"]
    if isinstance(v, int): return ["int", str(v)]
    if isinstance(v, float): return ["float", repr(v)]
    if v is None: return ["null", ""]
    if isinstance(v, str): return ["str", v]
    if isinstance(v, (datetime.date, datetime.datetime)): return ["timestamp", v.isoformat()]
    return ["other", repr(v)]
with open(sys.argv[1], encoding="utf-8") as f:
    doc = yaml.safe_load(f)
print(json.dumps({k: [describe(v) for v in doc[k]] for k in ("strings", "typed")}))
)";
  const auto result =
      fitsasdf::test::run({fitsasdf::test::reference_python(), "-c", script, path.string()});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto json = nlohmann::json::parse(result.out);

  const auto& read_strings = json.at("strings");
  REQUIRE(read_strings.size() == std::size(kRows));
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    INFO("string '" << kRows[i].text << "'");
    CHECK(read_strings[i][0] == "str");
    CHECK(read_strings[i][1] == std::string(kRows[i].text));
  }

  const auto& read_typed = json.at("typed");
  REQUIRE(read_typed.size() == typed_rows.size());
  for (std::size_t i = 0; i < typed_rows.size(); ++i) {
    const Row& row = *typed_rows[i];
    INFO("typed '" << row.text << "' read as " << read_typed[i].dump());
    const std::string type = read_typed[i][0];
    const std::string value = read_typed[i][1];
    switch (row.kind) {
      case K::kNull:
        CHECK(type == "null");
        break;
      case K::kBool:
        CHECK((type == "bool" && value == row.value));
        break;
      case K::kInt:
      case K::kBigInt:
        CHECK((type == "int" && value == row.value));
        break;
      case K::kFloat:
        CHECK(type == "float");
        CHECK(same_double(python_float(value), python_float(row.value)));
        break;
      case K::kString:
        CHECK((type == "str" && value == row.value));
        break;
      case K::kTimestamp:
        CHECK(type == "timestamp");
        break;
      default:
        break;
    }
  }
}
