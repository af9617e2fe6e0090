// FITS unit strings to VOUnit, following astropy 5.2.1 (the oracle): normalise the string,
// split it into tokens, parse it with the FITS grammar into astropy's unit arithmetic, and write
// the result as VOUnit. The pieces live in src/units/.
#include "fitsasdf/units.h"

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "asdfcore/error.h"
#include "units/lexer.h"
#include "units/parser.h"
#include "units/vounit.h"

namespace fitsasdf {
namespace {

/// The longest unit string read (bytes). FITS values hold at most 68 characters; the limit keeps
/// the quadratic merging of long products bounded.
constexpr std::size_t kMaxUnitLength = 4096;

/// How many translations are remembered: a file repeats a few unit strings over its HDUs and
/// columns ("electron/s" in every SCI extension), and one that is not a FITS unit costs a
/// thrown error each time it is parsed. Past this many distinct strings, new ones are
/// translated and not remembered.
constexpr std::size_t kRemembered = 1024;
/// The longest string remembered: a card's value holds 68 characters.
constexpr std::size_t kRememberedLength = 80;

/// Write a parsed unit; a structured unit is "(a, b)", or "(a,)" with one part.
std::string write_vounit(const units::ParsedUnit& unit) {
  if (!unit.structured) return units::to_vounit(unit.unit);
  std::string out = "(";
  for (std::size_t i = 0; i < unit.parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += write_vounit(unit.parts[i]);
  }
  return out + (unit.parts.size() == 1 ? ",)" : ")");
}

/// The translation itself (fits_unit_to_vounit remembers its results).
UnitTranslation translate_unit(std::string_view fits_unit) {
  UnitTranslation result;
  // astropy reads a blank string as the dimensionless unit, which VOUnit writes as "".
  if (units::is_blank(fits_unit)) {
    result.parsed = true;
    return result;
  }
  try {
    if (fits_unit.size() > kMaxUnitLength) {
      throw asdfcore::Error(asdfcore::ErrorCode::kLimit,
                            "the unit string is " + std::to_string(fits_unit.size()) +
                                " bytes long; at most " + std::to_string(kMaxUnitLength) +
                                " are read");
    }
    std::string normalized = units::normalize_unit_string(fits_unit);
    std::vector<units::Token> tokens = units::tokenize(normalized);
    result.vounit = write_vounit(units::parse_fits_unit(tokens));
    result.parsed = true;
  } catch (const asdfcore::Error& error) {
    result.parsed = false;
    result.vounit.clear();
    result.message = "cannot translate the FITS unit '" + std::string(fits_unit) +
                     "' to VOUnit: " + error.message();
  }
  return result;
}

}  // namespace

UnitTranslation fits_unit_to_vounit(std::string_view fits_unit) {
  static std::mutex mutex;
  static std::unordered_map<std::string, UnitTranslation> remembered;
  {
    const std::lock_guard lock(mutex);
    if (const auto it = remembered.find(std::string(fits_unit)); it != remembered.end()) {
      return it->second;
    }
  }
  UnitTranslation result = translate_unit(fits_unit);
  const std::lock_guard lock(mutex);
  if (fits_unit.size() <= kRememberedLength && remembered.size() < kRemembered) {
    remembered.emplace(fits_unit, result);
  }
  return result;
}

}  // namespace fitsasdf
