// fits::format_real against libc's printf, the definition its comment gives: %.16G, or %.17G
// when 16 digits do not read back as the same double, with ".0" after an integral value; and
// fits::format_card against the card images astropy writes for the same keyword, value and
// comment (interop/card_images.py).
#include "fits/card_format.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

namespace {

std::string printf_real(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.16G", value);
  if (std::strtod(buffer, nullptr) != value) std::snprintf(buffer, sizeof buffer, "%.17G", value);
  std::string text(buffer);
  if (text.find('.') == std::string::npos && text.find('E') == std::string::npos) text += ".0";
  return text;
}

}  // namespace

TEST_CASE("format_real writes what printf's %.16G / %.17G writes", "[card_format]") {
  using Limits = std::numeric_limits<double>;
  std::vector<double> values = {0.0,    -0.0,   1.0,    -1.0,   0.1,     1e-5,    1e-4,
                                1e15,   1e16,   1e17,   123456789012345678.0, 2.5e-300,
                                0.3,    1.0 / 3, 100.0, 1e21,   Limits::max(), Limits::min(),
                                Limits::denorm_min(), Limits::epsilon(), 9007199254740993.0};
  // Random bit patterns cover every exponent; random small integers and short decimals cover
  // the values headers hold most.
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state;
  };
  for (int i = 0; i < 100000; ++i) {
    const double bits = std::bit_cast<double>(next());
    if (std::isfinite(bits)) values.push_back(bits);
    values.push_back(static_cast<double>(static_cast<std::int64_t>(next() >> 40)) / 1000.0);
  }
  for (const double v : values) {
    INFO("value " << std::hexfloat << v);
    REQUIRE(fitsasdf::fits::format_real(v) == printf_real(v));
  }
}

TEST_CASE("format_real refuses NaN and the infinities", "[card_format]") {
  using Limits = std::numeric_limits<double>;
  for (const double v : {Limits::quiet_NaN(), Limits::infinity(), -Limits::infinity()}) {
    CHECK_THROWS_AS(fitsasdf::fits::format_real(v), asdfcore::Error);
  }
}

TEST_CASE("format_card writes what astropy's Card writes", "[card_format][interop]") {
  using namespace fitsasdf::test;
  TempDir dir;
  const std::string path = (dir / "cards.asdf").string();
  const RunResult r = run({reference_python(), (scripts_dir() / "card_images.py").string(), path});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto file = asdfcore::AsdfFile::open(path);
  const auto& cards = file.tree()->get("cards")->items();
  // Every kind of card the generator makes is there, astropy having refused none of many.
  REQUIRE(cards.size() > 2500);
  std::size_t continued = 0;
  std::size_t hierarch = 0;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    const auto& c = cards[i]->items();
    const std::string keyword = c[0]->as_string();
    const std::string comment = c[2]->as_string();
    const std::string expected = c[3]->as_string();
    INFO("case " << i << ": '" << keyword << "' / '" << comment << "'");
    const auto got = fitsasdf::fits::format_card(keyword, c[1], comment);
    CHECK(got.images == expected);
    continued += expected.size() > 80 ? 1 : 0;
    hierarch += expected.starts_with("HIERARCH") ? 1 : 0;
  }
  CHECK(continued > 100);
  CHECK(hierarch > 100);
}

TEST_CASE("format_card breaks long strings and comments where astropy does", "[card_format]") {
  using asdfcore::tree::Node;
  const auto lines = [](const std::string& images) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < images.size(); at += 80) {
      std::string line = images.substr(at, 80);
      line.erase(line.find_last_not_of(' ') + 1);
      out.push_back(line);
    }
    return out;
  };
  // The rest of the string after the first card is exactly one card's 67 characters: astropy
  // still breaks it at its last blank (the end of the text counts as a blank past the width).
  const std::string value = "first piece of the value, " + std::string(30, 'w') + " then " +
                            std::string(30, 'r') + " " + std::string(36, 's');
  CHECK(lines(fitsasdf::fits::format_card("EXACT", Node::make_string(value), "").images) ==
        std::vector<std::string>{
            "EXACT   = 'first piece of the value, " + std::string(30, 'w') + " then &'",
            "CONTINUE  '" + std::string(30, 'r') + " &'",
            "CONTINUE  '" + std::string(36, 's') + "'"});
  // A comment's quotes are not doubled: an odd number of them before the break does not move
  // it (a value's doubled quotes are never split, a rule of fitsasdf's own).
  const std::string comment =
      "it's a comment with 'quoted' words that must go on a second card because";
  CHECK(lines(fitsasdf::fits::format_card("APOS", Node::make_string(std::string(60, 'x')), comment)
                  .images) ==
        std::vector<std::string>{
            "APOS    = '" + std::string(60, 'x') + "&'",
            "CONTINUE  '&' / it's a comment with 'quoted' words that must go on a second",
            "CONTINUE  '' / card because"});
}
