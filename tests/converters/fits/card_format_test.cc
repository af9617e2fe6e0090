// fits::format_real against libc's printf, the definition its comment gives: %.16G, or %.17G
// when 16 digits do not read back as the same double, with ".0" after an integral value.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fits/card_format.h"
#include "support/catch.h"

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
