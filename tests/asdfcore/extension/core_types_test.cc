// The core tag values (complex numbers, big integers) and the converter registry: lookup by
// exact and nearest version, and the tag-version check AsdfFile runs on every tree.
#include "asdfcore/extension/core_types.h"

#include <any>
#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include "asdfcore/error.h"
#include "asdfcore/extension/converter.h"
#include "asdfcore/tree/yaml.h"
#include "support/catch.h"

using namespace asdfcore;
using namespace asdfcore::extension;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// True when `a` and `b` are the same double, NaN equal to NaN and -0 different from +0.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool same(std::complex<double> a, std::complex<double> b) {
  return same(a.real(), b.real()) && same(a.imag(), b.imag());
}

/// A converter for a tag family the builtins do not know, to check registry order.
class FakeConverter final : public Converter {
 public:
  FakeConverter(std::string name, std::string marker)
      : name_(std::move(name)), marker_(std::move(marker)) {}
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const tree::Node&, const ReadContext&) const override { return marker_; }

 private:
  static constexpr std::array<std::string_view, 3> kVersions{"1.0.0", "1.2.0", "2.0.0"};
  std::string name_;
  std::string marker_;
};

tree::NodePtr yaml(const std::string& body) {
  return tree::parse_yaml("%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- " + body + "\n...\n").root;
}

}  // namespace

TEST_CASE("parse_complex reads every form python asdf writes or accepts", "[extension]") {
  struct Case {
    const char* text;
    std::complex<double> want;
  };
  const Case cases[] = {
      {"(1+2j)", {1, 2}},
      {"1+2j", {1, 2}},
      {"-1.5e3-2.5e-3j", {-1500, -0.0025}},
      {"3j", {0, 3}},
      {"-3J", {0, -3}},
      {"nan+infj", {kNan, kInf}},
      {"(inf-infj)", {kInf, -kInf}},
      {"1I", {0, 1}},
      {"2.5i", {0, 2.5}},
      {"2.5", {2.5, 0}},
      {"(2.5)", {2.5, 0}},
      {"-7", {-7, 0}},
      {"  (1-0j)  ", {1, -0.0}},
      {"1.5E+2+.5j", {150, 0.5}},
      {"(-0+0j)", {-0.0, 0.0}},
      {"1e5j", {0, 1e5}},
      {"INF+NANj", {kInf, kNan}},
  };
  for (const auto& c : cases) {
    INFO("text '" << c.text << "'");
    const std::complex<double> got = parse_complex(c.text);
    INFO("got (" << got.real() << ", " << got.imag() << ")");
    CHECK(same(got, c.want));
  }
}

TEST_CASE("parse_complex refuses text that is not one complex number", "[extension]") {
  for (const char* text : {"", "()", "abc", "j", "1+", "1+2", "(1+2j", "1+2jj", "1 + 2j", "1++2j",
                           "--1j", ".", "1.2.3", "1e", "1+2k", "1j+2", "0x10"}) {
    INFO("text '" << text << "'");
    try {
      (void)parse_complex(text);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kMalformed);
      // The message quotes what was refused so the user can find it.
      CHECK(e.message().find("'" + std::string(text) + "'") != std::string::npos);
    }
  }
}

TEST_CASE("format_complex gives the text of Python's repr(complex)", "[extension]") {
  // Expected texts computed once with /usr/bin/python3 (3.11): `repr(complex(re, im))`.
  struct Case {
    std::complex<double> value;
    const char* python;
  };
  const Case cases[] = {
      {{1, 2}, "(1+2j)"},
      {{1.5, -0.0}, "(1.5-0j)"},
      {{0, 0}, "0j"},
      {{-0.0, 0}, "(-0+0j)"},
      {{-0.0, -0.0}, "(-0-0j)"},
      {{0, -1}, "-1j"},
      {{0.1, 0.2}, "(0.1+0.2j)"},
      {{1e16, 1e-5}, "(1e+16+1e-05j)"},
      {{1e-4, 123456789.0}, "(0.0001+123456789j)"},
      {{kNan, kInf}, "(nan+infj)"},
      {{kInf, -kInf}, "(inf-infj)"},
      {{-1.5e300, 2.5e-300}, "(-1.5e+300+2.5e-300j)"},
      {{3, kNan}, "(3+nanj)"},
      {{0, kNan}, "nanj"},
      {{1, -kNan}, "(1+nanj)"},
      {{1.0 / 3, 2.0 / 3}, "(0.3333333333333333+0.6666666666666666j)"},
      {{-2, 0}, "(-2+0j)"},
      {{5e-324, 1.7976931348623157e308}, "(5e-324+1.7976931348623157e+308j)"},
      {{1e15, 1e22}, "(1000000000000000+1e+22j)"},
      {{12345678901234567.0, 0.5}, "(1.2345678901234568e+16+0.5j)"},
  };
  for (const auto& c : cases) {
    INFO("value (" << c.value.real() << ", " << c.value.imag() << ")");
    CHECK(format_complex(c.value) == c.python);
    // What we write reads back to the same value.
    CHECK(same(parse_complex(format_complex(c.value)), c.value));
  }
}

TEST_CASE("words_to_decimal turns base-2^32 words into decimal text", "[extension]") {
  using W = std::vector<std::uint32_t>;
  CHECK(words_to_decimal(W{}, false) == "0");
  CHECK(words_to_decimal(W{0, 0}, false) == "0");
  CHECK(words_to_decimal(W{0}, true) == "0");  // no "-0"
  CHECK(words_to_decimal(W{7}, false) == "7");
  CHECK(words_to_decimal(W{1000000000u}, false) == "1000000000");
  CHECK(words_to_decimal(W{0, 1}, false) == "4294967296");                                // 2**32
  CHECK(words_to_decimal(W{0xffffffffu, 0xffffffffu}, false) == "18446744073709551615");  // 2**64-1
  CHECK(words_to_decimal(W{0, 0, 0x40}, false) == "1180591620717411303424");              // 2**70
  CHECK(words_to_decimal(W{0, 0, 0x40}, true) == "-1180591620717411303424");              // -2**70
  CHECK(words_to_decimal(W{0, 0, 0x40, 0, 0}, false) == "1180591620717411303424");  // high zeros
  // 10**27 + 5: inner groups of nine digits that are all zero must keep their zeros.
  CHECK(words_to_decimal(W{0xe8000005u, 0x9fd0803cu, 0x33b2e3cu}, false) ==
        "1000000000000000000000000005");
  CHECK(words_to_decimal(W{1, 0, 0, 0, 1}, true) ==
        "-340282366920938463463374607431768211457");  // -(2**128 + 1)
}

TEST_CASE("the registry finds converters by exact and nearest version", "[extension]") {
  const ConverterRegistry registry = ConverterRegistry::with_builtins();
  const std::string ndarray = "tag:stsci.edu:asdf/core/ndarray";

  ConverterMatch m = registry.find(ndarray + "-1.0.0");
  REQUIRE(m.converter != nullptr);
  CHECK(m.converter->tag_name() == ndarray);
  CHECK(m.exact);
  CHECK(m.used_version == "1.0.0");

  m = registry.find(ndarray + "-1.1.0");
  REQUIRE(m.converter != nullptr);
  CHECK(m.exact);
  CHECK(m.used_version == "1.1.0");

  // Newer than any known version: the newest known one not newer than it.
  m = registry.find(ndarray + "-1.9.0");
  REQUIRE(m.converter != nullptr);
  CHECK_FALSE(m.exact);
  CHECK(m.used_version == "1.1.0");
  m = registry.find(ndarray + "-1.0.5");
  CHECK_FALSE(m.exact);
  CHECK(m.used_version == "1.0.0");
  // Older than every known version: the oldest.
  m = registry.find(ndarray + "-0.9.0");
  REQUIRE(m.converter != nullptr);
  CHECK_FALSE(m.exact);
  CHECK(m.used_version == "1.0.0");

  for (const char* tag :
       {"tag:stsci.edu:asdf/core/complex-1.0.0", "tag:stsci.edu:asdf/core/integer-1.0.0",
        "tag:stsci.edu:asdf/core/asdf-1.1.0", "tag:stsci.edu:asdf/core/software-1.0.0",
        "tag:stsci.edu:asdf/core/table-1.0.0", "tag:stsci.edu:asdf/core/column-1.0.0",
        "tag:stsci.edu:asdf/core/externalarray-1.0.0", "tag:stsci.edu:asdf/core/constant-1.0.0",
        "tag:stsci.edu:asdf/core/history_entry-1.0.0",
        "tag:stsci.edu:asdf/core/extension_metadata-1.0.0"}) {
    INFO(tag);
    m = registry.find(tag);
    CHECK(m.converter != nullptr);
    CHECK(m.exact);
  }

  // Unknown names are not matched, whatever their version.
  for (const char* tag :
       {"tag:astropy.org:astropy/units/unit-1.0.0", "tag:stsci.edu:asdf/core/nd-1.0.0",
        "tag:stsci.edu:asdf/core/ndarrayx-1.0.0", "tag:stsci.edu:asdf/core/", "",
        "ndarray-1.0.0"}) {
    INFO("tag '" << tag << "'");
    m = registry.find(tag);
    CHECK(m.converter == nullptr);
    CHECK_FALSE(m.exact);
  }
}

TEST_CASE("a registry built by hand: first added wins, versions compared numerically",
          "[extension]") {
  ConverterRegistry registry;
  CHECK(registry.find("tag:example.org:demo/thing-1.0.0").converter == nullptr);
  registry.add(std::make_shared<FakeConverter>("tag:example.org:demo/thing", "first"));
  registry.add(std::make_shared<FakeConverter>("tag:example.org:demo/thing", "second"));
  registry.add(nullptr);  // ignored

  ConverterMatch m = registry.find("tag:example.org:demo/thing-1.2.0");
  REQUIRE(m.converter != nullptr);
  CHECK(m.exact);
  CHECK(std::any_cast<std::string>(m.converter->read(*tree::Node::make_null(), {})) == "first");

  // 1.10.0 is newer than 1.2.0 (not a text comparison) and older than 2.0.0.
  m = registry.find("tag:example.org:demo/thing-1.10.0");
  CHECK_FALSE(m.exact);
  CHECK(m.used_version == "1.2.0");
  m = registry.find("tag:example.org:demo/thing-3.0.0");
  CHECK(m.used_version == "2.0.0");
}

TEST_CASE("the builtin converters read complex and integer values", "[extension]") {
  const ConverterRegistry registry = ConverterRegistry::with_builtins();
  const auto root = yaml("{z: !core/complex-1.0.0 '(1-2.5j)'}");
  const ConverterMatch m = registry.find(root->get("z")->tag());
  REQUIRE(m.converter != nullptr);
  const auto z = std::any_cast<std::complex<double>>(
      m.converter->read(*root->get("z"), ReadContext{.path = "/z"}));
  CHECK(same(z, {1, -2.5}));

  const auto bad = yaml("{z: !core/complex-1.0.0 'one'}");
  try {
    (void)m.converter->read(*bad->get("z"), ReadContext{.path = "/z"});
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(e.context().tree_path == "/z");
  }
}

TEST_CASE("check_tag_versions reports unknown versions of known tags only", "[extension]") {
  const ConverterRegistry registry = ConverterRegistry::with_builtins();
  const auto root = yaml(
      "!core/asdf-1.1.0\n"
      "a:\n"
      "  b: !core/ndarray-1.9.0 {data: [1, 2], datatype: int64, shape: [2]}\n"
      "  ok: !core/ndarray-1.0.0 {data: [1, 2]}\n"
      "list:\n"
      "- !core/complex-7.0.0 '1+1j'\n"
      "custom: !<tag:example.org:demo/thing-9.9.9> {x: 1}\n"
      "'we/ird~key': !core/software-2.0.0 {name: n, version: v}\n");
  const std::vector<std::string> warnings = check_tag_versions(*root, registry);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].find("tag:stsci.edu:asdf/core/ndarray-1.9.0") != std::string::npos);
  CHECK(warnings[0].find("/a/b") != std::string::npos);
  CHECK(warnings[0].find("ndarray-1.1.0") != std::string::npos);
  CHECK(warnings[1].find("complex-7.0.0") != std::string::npos);
  CHECK(warnings[1].find("/list/0") != std::string::npos);
  CHECK(warnings[1].find("complex-1.0.0") != std::string::npos);
  CHECK(warnings[2].find("software-2.0.0") != std::string::npos);
  CHECK(warnings[2].find("/we~1ird~0key") != std::string::npos);
  for (const auto& w : warnings) CHECK(w.find("example.org") == std::string::npos);

  // A node reached twice through an alias is reported once.
  const auto aliased = yaml("{a: &x [!core/complex-2.0.0 '1j'], b: *x}");
  CHECK(check_tag_versions(*aliased, registry).size() == 1);

  CHECK(check_tag_versions(*yaml("{a: 1}"), registry).empty());
}

TEST_CASE("check_tag_versions refuses a known tag without a version", "[extension]") {
  const ConverterRegistry registry = ConverterRegistry::with_builtins();
  const auto root = yaml("{outer: [{arr: !core/ndarray {data: [1]}}]}");
  try {
    (void)check_tag_versions(*root, registry);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(e.context().tree_path == "/outer/0/arr");
    CHECK(e.message().find("tag:stsci.edu:asdf/core/ndarray") != std::string::npos);
  }
  // An unknown tag without a version is fine: it is kept verbatim.
  CHECK(check_tag_versions(*yaml("{a: !<tag:example.org:demo/thing> 1}"), registry).empty());
}
