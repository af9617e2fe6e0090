#include "units/vounit.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::units {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// Rewrite `u` with only units VOUnit names (astropy's `decompose_to_known_units`): a unit VOUnit
/// lacks is replaced by what it stands for.
UnitValue decompose_to_known(const UnitValue& u) {
  if (u.named) {
    const UnitDef& def = *u.terms.front().unit;
    if (!def.vounit.empty()) return u;
    if (def.decompose_base == nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  "unit '" + def.name +
                      "' is not part of the VOUnit standard and has no "
                      "VOUnit equivalent; keep the FITS string");
    }
    return decompose_to_known(scaled(def.decompose_scale, UnitValue::of(*def.decompose_base)));
  }
  UnitValue out = UnitValue::scalar(u.scale);
  for (const Term& term : u.terms) {
    out = multiply(out, raise(decompose_to_known(UnitValue::of(*term.unit)), term.power));
  }
  return out;
}

/// Return true when `u` decomposes to no dimension at all (astropy's physical type
/// "dimensionless"); throw as `decompose` does.
bool is_dimensionless(const UnitValue& u) {
  Decomposition d = decompose(u);
  for (const Power& power : d.powers) {
    if (!power.is_zero()) return false;
  }
  return true;
}

std::string lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string to_vounit(const UnitValue& u) {
  UnitValue known = decompose_to_known(u);
  if (known.named) return known.terms.front().unit->vounit;
  // astropy asks for the physical type first, which decomposes and can overflow (km**103).
  if (is_dimensionless(known) && known.scale != 1.0) {
    throw Error(ErrorCode::kInvalidArgument,
                "VOUnit cannot write the scale " + format_g8(known.scale) +
                    " of a dimensionless unit; keep the FITS string or multiply the data by it");
  }
  std::string out = known.scale != 1.0 ? format_g8(known.scale) : "";
  std::vector<Term> terms = known.terms;
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.power.compare(b.power) > 0; });
  std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
    return lower(a.unit->vounit) < lower(b.unit->vounit);
  });
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i > 0) out += '.';
    out += terms[i].unit->vounit;
    if (terms[i].power.is_one()) continue;
    std::string power = format_power(terms[i].power);
    if (power.find_first_of("/.") != std::string::npos) {
      out += "(" + power + ")";
    } else {
      out += "**" + power;
    }
  }
  return out;
}

}  // namespace fitsasdf::units
