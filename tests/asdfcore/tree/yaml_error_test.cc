// What the YAML reader refuses, and how: malformed text, anchors that cannot work, hostile
// nesting and alias bombs. Each error has a code, the file name and a byte offset.
#include <chrono>
#include <string>

#include "asdfcore/error.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree/yaml.h"
#include "support/catch.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::parse_yaml;
using asdfcore::tree::YamlReadOptions;

// Parse `text` and return the error it must raise.
Error error_of(const std::string& text, std::uint64_t base_offset = 0,
               const YamlReadOptions& options = {}) {
  try {
    (void)parse_yaml(text, "tree.yaml", base_offset, options);
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error for: " << text.substr(0, 80));
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("malformed YAML fails with the place and libyaml's reason", "[yaml]") {
  const std::string text = "a: 1\nb: [1, 2\nc: 3\n";
  const Error e = error_of(text, 100);
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.context().file == "tree.yaml");
  REQUIRE(e.context().offset.has_value());
  // libyaml notices the missing "]" at the ":" after "c" (byte 15 of the text, 115 of the file).
  CHECK(*e.context().offset == 115);
  CHECK(e.message().find("flow sequence") != std::string::npos);
  CHECK(e.message().find("line 3") != std::string::npos);
  CHECK(std::string(e.what()).find("tree.yaml: at byte 115") == 0);
}

TEST_CASE("error offsets count bytes, not characters", "[yaml]") {
  // Two two-byte characters before the error: libyaml counts characters, the error says bytes.
  const std::string text = "\xc3\xa9\xc3\xa9: [\n";
  const Error e = error_of(text);
  CHECK(e.code() == ErrorCode::kMalformed);
  REQUIRE(e.context().offset.has_value());
  CHECK(*e.context().offset == text.size());
}

TEST_CASE("error offsets count CRLF line ends and a byte order mark", "[yaml]") {
  const Error crlf = error_of("a: 1\r\nb: 2\r\nc: *zz\r\n");
  REQUIRE(crlf.context().offset.has_value());
  CHECK(*crlf.context().offset == 15);
  const Error bom = error_of(
      "\xef\xbb\xbf"
      "a: 1\nb: *zz\n");
  REQUIRE(bom.context().offset.has_value());
  CHECK(*bom.context().offset == 11);
  CHECK(parse_yaml("\xef\xbb\xbf"
                   "a: 1\n")
            .root->get("a")
            ->as_int() == 1);
}

TEST_CASE("bad indentation and tabs are malformed", "[yaml]") {
  CHECK(error_of("a:\n  b: 1\n c: 2\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a:\n\t- 1\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("key: 'unterminated\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("!<> x: [}").code() == ErrorCode::kMalformed);
}

TEST_CASE("invalid UTF-8 is malformed with its byte offset", "[yaml]") {
  const Error e = error_of(std::string("abc: \xff\xfe\n"), 10);
  CHECK(e.code() == ErrorCode::kMalformed);
  REQUIRE(e.context().offset.has_value());
  CHECK(*e.context().offset == 15);
}

TEST_CASE("a recursive alias is malformed", "[yaml]") {
  const Error e = error_of("a: &x\n  b: *x\n");
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.message().find("recursive") != std::string::npos);
  CHECK(e.context().tree_path == "/a/b");
  CHECK(error_of("&x [1, [*x]]").code() == ErrorCode::kMalformed);
}

TEST_CASE("an undefined alias is malformed", "[yaml]") {
  const Error e = error_of("a: 1\nb: *nowhere\n");
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.message().find("*nowhere") != std::string::npos);
  REQUIRE(e.context().offset.has_value());
  CHECK(*e.context().offset == 8);
  // An alias may not come before its anchor either.
  CHECK(error_of("- *a\n- &a 1\n").code() == ErrorCode::kMalformed);
}

TEST_CASE("an anchor defined twice is malformed, as in PyYAML", "[yaml]") {
  CHECK(error_of("a: &x 1\nb: &x 2\n").code() == ErrorCode::kMalformed);
}

TEST_CASE("two documents in one text are refused", "[yaml]") {
  const Error e = error_of("--- a\n--- b\n");
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.message().find("second YAML document") != std::string::npos);
  CHECK(error_of("a: 1\n...\nb: 2\n").code() == ErrorCode::kMalformed);
}

TEST_CASE("an alias bomb fails fast with a limit error", "[yaml]") {
  // "Billion laughs": 10 levels of 10 aliases each would expand to 10^10 nodes.
  std::string text = "l0: &l0 [lol]\n";
  for (int level = 1; level <= 10; ++level) {
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *l" : "*l") + std::to_string(level - 1);
    text += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const Error e = error_of(text);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(e.code() == ErrorCode::kLimit);
  CHECK(e.message().find("alias") != std::string::npos);
  CHECK(elapsed < std::chrono::seconds(1));
  // A small expansion limit stops it sooner; a large one lets a modest one through.
  YamlReadOptions tight;
  tight.max_alias_expansion = 50;
  CHECK(error_of(text, 0, tight).code() == ErrorCode::kLimit);
  YamlReadOptions loose;
  loose.max_alias_expansion = 100'000'000;
  loose.max_nodes = 1000;
  CHECK(error_of(text, 0, loose).code() == ErrorCode::kLimit);  // Now max_nodes stops it.
}

TEST_CASE("10,000-deep flow nesting is a limit error, not a crash", "[yaml]") {
  const std::string text = std::string(10'000, '[') + std::string(10'000, ']');
  const Error e = error_of(text);
  CHECK(e.code() == ErrorCode::kLimit);
  CHECK(e.message().find("deeper than 1000") != std::string::npos);
  const std::string maps = std::string(10'000, '{') + std::string(10'000, '}');
  CHECK(error_of(maps).code() == ErrorCode::kLimit);
}

TEST_CASE("10,000-deep block nesting is a limit error, not a crash", "[yaml]") {
  std::string seqs;
  for (int i = 0; i < 10'000; ++i) seqs += "- ";
  seqs += "x\n";
  CHECK(error_of(seqs).code() == ErrorCode::kLimit);
  std::string maps;
  for (int i = 0; i < 2'000; ++i) maps += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  YamlReadOptions options;
  options.max_depth = 500;
  CHECK(error_of(maps, 0, options).code() == ErrorCode::kLimit);
}

TEST_CASE("nesting within the limit reads", "[yaml]") {
  YamlReadOptions options;
  options.max_depth = 50;
  const std::string ok = std::string(50, '[') + std::string(50, ']');
  CHECK_NOTHROW(parse_yaml(ok, "", 0, options));
  const std::string deep = std::string(51, '[') + std::string(51, ']');
  CHECK_THROWS_AS(parse_yaml(deep, "", 0, options), Error);
}

TEST_CASE("scalars that do not fit their type are malformed", "[yaml]") {
  // PyYAML fails on each of these as well.
  CHECK(error_of("a: 0b_\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: 2001-02-30\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!int abc\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!float abc\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!bool maybe\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!timestamp today\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!binary YQ\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!map x\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!str {b: 1}\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!map [1]\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!omap {b: 1}\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!omap [1]\n").code() == ErrorCode::kMalformed);
  CHECK(error_of("a: !!omap [{b: 1, c: 2}]\n").code() == ErrorCode::kMalformed);
  const Error e = error_of("x: 1\ny: 0x_\n", 1000);
  REQUIRE(e.context().offset.has_value());
  CHECK(*e.context().offset == 1008);
  CHECK(e.context().tree_path == "/y");
}
