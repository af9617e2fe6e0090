#include "units/unit_table.h"

#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace fitsasdf::units {
namespace {

using D = Dimension;

/// Return the dimensions made of the given (irreducible unit, power) pairs.
Dimensions dims(std::initializer_list<std::pair<Dimension, int>> parts) {
  Dimensions out{};
  for (const auto& [dimension, power] : parts) {
    out[static_cast<std::size_t>(dimension)] = static_cast<std::int8_t>(power);
  }
  return out;
}

/// A FITS base unit that takes every SI prefix.
struct BaseSpec {
  std::string_view name;
  double si_scale;  ///< astropy's decompose().scale: 1 for irreducible units.
  Dimensions dimensions;
};

/// A FITS unit without prefixes. `names` are the FITS spellings; `name` is astropy's primary
/// name and `vounit` the VOUnit one (empty: VOUnit has no name for it).
struct PlainSpec {
  std::initializer_list<std::string_view> names;
  std::string_view name;
  std::string_view vounit;
  double si_scale;  ///< astropy's decompose().scale: 1 for irreducible units.
  Dimensions dimensions;
};

/// An SI prefix; `vounit_ok` is false for deci and deka, which VOUnit refuses (astropy then
/// writes the unit as a scale times the base: dm -> 0.1m).
struct PrefixSpec {
  std::string_view symbol;
  bool vounit_ok;
  double scale;
};

/// The unit table: every name the FITS format accepts, pointing into stable storage.
class Table {
 public:
  Table() {
    // The scales are the doubles astropy 5.2.1's decompose() gives (its CODATA 2018 and IAU 2015
    // constants, erg = 1.0000000000000001e-07 included): whether a product such as "yr/a" is
    // exactly unity, and so dropped, depends on the last bit.
    const BaseSpec bases[] = {
        {"m", 1.0, dims({{D::kMetre, 1}})},
        {"g", 0.001, dims({{D::kKilogram, 1}})},
        {"s", 1.0, dims({{D::kSecond, 1}})},
        {"rad", 1.0, dims({{D::kRadian, 1}})},
        {"sr", 1.0, dims({{D::kRadian, 2}})},
        {"K", 1.0, dims({{D::kKelvin, 1}})},
        {"A", 1.0, dims({{D::kAmpere, 1}})},
        {"mol", 1.0, dims({{D::kMole, 1}})},
        {"cd", 1.0, dims({{D::kCandela, 1}})},
        {"Hz", 1.0, dims({{D::kSecond, -1}})},
        {"J", 1.0, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kSecond, -2}})},
        {"W", 1.0, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kSecond, -3}})},
        {"V", 1.0, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kAmpere, -1}, {D::kSecond, -3}})},
        {"N", 1.0, dims({{D::kKilogram, 1}, {D::kMetre, 1}, {D::kSecond, -2}})},
        {"Pa", 1.0, dims({{D::kKilogram, 1}, {D::kMetre, -1}, {D::kSecond, -2}})},
        {"C", 1.0, dims({{D::kAmpere, 1}, {D::kSecond, 1}})},
        {"Ohm", 1.0, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kAmpere, -2}, {D::kSecond, -3}})},
        {"S", 1.0, dims({{D::kSecond, 3}, {D::kAmpere, 2}, {D::kKilogram, -1}, {D::kMetre, -2}})},
        {"F", 1.0, dims({{D::kSecond, 4}, {D::kAmpere, 2}, {D::kKilogram, -1}, {D::kMetre, -2}})},
        {"Wb", 1.0, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kAmpere, -1}, {D::kSecond, -2}})},
        {"T", 1.0, dims({{D::kKilogram, 1}, {D::kAmpere, -1}, {D::kSecond, -2}})},
        {"H", 1.0, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kAmpere, -2}, {D::kSecond, -2}})},
        {"lm", 1.0, dims({{D::kRadian, 2}, {D::kCandela, 1}})},
        {"lx", 1.0, dims({{D::kRadian, 2}, {D::kCandela, 1}, {D::kMetre, -2}})},
        {"a", 31557600.0, dims({{D::kSecond, 1}})},
        {"yr", 31557600.0, dims({{D::kSecond, 1}})},
        {"eV", 1.602176634e-19, dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kSecond, -2}})},
        {"pc", 3.085677581491367e+16, dims({{D::kMetre, 1}})},
        {"Jy", 1e-26, dims({{D::kKilogram, 1}, {D::kSecond, -2}})},
        {"mag", -0.4, dims({{D::kDex, 1}})},
        {"R", 795774715.4594767,
         dims({{D::kPhoton, 1}, {D::kSecond, -1}, {D::kMetre, -2}, {D::kRadian, -2}})},
        {"bit", 1.0, dims({{D::kBit, 1}})},
        {"byte", 8.0, dims({{D::kBit, 1}})},
        {"G", 0.0001, dims({{D::kKilogram, 1}, {D::kAmpere, -1}, {D::kSecond, -2}})},
        {"barn", 1e-28, dims({{D::kMetre, 2}})},
    };
    const PrefixSpec prefixes[] = {
        {"y", true, 1e-24}, {"z", true, 1e-21}, {"a", true, 1e-18}, {"f", true, 1e-15},
        {"p", true, 1e-12}, {"n", true, 1e-9},  {"u", true, 1e-6},  {"m", true, 1e-3},
        {"c", true, 1e-2},  {"d", false, 0.1},  {"", true, 1.0},    {"da", false, 10.0},
        {"h", true, 1e2},   {"k", true, 1e3},   {"M", true, 1e6},   {"G", true, 1e9},
        {"T", true, 1e12},  {"P", true, 1e15},  {"E", true, 1e18},  {"Z", true, 1e21},
        {"Y", true, 1e24},
    };
    const PlainSpec plain[] = {
        {{"deg"}, "deg", "deg", 0.017453292519943295, dims({{D::kRadian, 1}})},
        {{"arcmin"}, "arcmin", "arcmin", 0.0002908882086657216, dims({{D::kRadian, 1}})},
        {{"arcsec"}, "arcsec", "arcsec", 4.84813681109536e-06, dims({{D::kRadian, 1}})},
        {{"mas"}, "mas", "mas", 4.84813681109536e-09, dims({{D::kRadian, 1}})},
        {{"min"}, "min", "min", 60.0, dims({{D::kSecond, 1}})},
        {{"h"}, "h", "h", 3600.0, dims({{D::kSecond, 1}})},
        {{"d"}, "d", "d", 86400.0, dims({{D::kSecond, 1}})},
        {{"Ry"},
         "Ry",
         "Ry",
         2.1798723611035847e-18,
         dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kSecond, -2}})},
        {{"solMass"}, "solMass", "solMass", 1.988409870698051e+30, dims({{D::kKilogram, 1}})},
        {{"u"}, "u", "u", 1.6605390666e-27, dims({{D::kKilogram, 1}})},
        {{"solLum"},
         "solLum",
         "solLum",
         3.828e+26,
         dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kSecond, -3}})},
        {{"solRad"}, "solRad", "solRad", 695700000.0, dims({{D::kMetre, 1}})},
        {{"AU"}, "AU", "AU", 149597870700.0, dims({{D::kMetre, 1}})},
        {{"lyr"}, "lyr", "lyr", 9460730472580800.0, dims({{D::kMetre, 1}})},
        {{"count", "ct"}, "ct", "count", 1.0, dims({{D::kCount, 1}})},
        {{"photon", "ph"}, "ph", "photon", 1.0, dims({{D::kPhoton, 1}})},
        {{"pixel", "pix"}, "pix", "pixel", 1.0, dims({{D::kPixel, 1}})},
        {{"D"},
         "D",
         "D",
         3.333333333333333e-30,
         dims({{D::kAmpere, 1}, {D::kMetre, 1}, {D::kSecond, 1}})},
        {{"Sun"}, "Sun", "", 1.0, dims({{D::kSun, 1}})},
        {{"chan"}, "chan", "chan", 1.0, dims({{D::kChannel, 1}})},
        {{"bin"}, "bin", "bin", 1.0, dims({{D::kBin, 1}})},
        {{"voxel"}, "vox", "voxel", 1.0, dims({{D::kVoxel, 1}})},
        {{"adu"}, "adu", "adu", 1.0, dims({{D::kAdu, 1}})},
        {{"beam"}, "beam", "beam", 1.0, dims({{D::kBeam, 1}})},
        {{"erg"},
         "erg",
         "erg",
         1.0000000000000001e-07,
         dims({{D::kMetre, 2}, {D::kKilogram, 1}, {D::kSecond, -2}})},
        {{"Angstrom", "angstrom"},
         "Angstrom",
         "Angstrom",
         1.0000000000000002e-10,
         dims({{D::kMetre, 1}})},
    };

    // The bare bases first, so that a prefixed spelling that collides with a base keeps the
    // base: "Pa" is the pascal, not the peta-annum.
    std::unordered_map<std::string_view, const UnitDef*> base_defs;
    for (const BaseSpec& base : bases) {
      const UnitDef* def = add({std::string(base.name), std::string(base.name), nullptr, 1.0,
                                base.dimensions, base.si_scale});
      base_defs.emplace(base.name, def);
    }
    for (const BaseSpec& base : bases) {
      for (const PrefixSpec& prefix : prefixes) {
        if (prefix.symbol.empty()) continue;
        std::string name = std::string(prefix.symbol) + std::string(base.name);
        // astropy skips names that are Python keywords: "as" (attosecond) is not a FITS unit.
        if (name == "as" || by_name_.count(name) != 0) continue;
        // astropy decomposes a prefixed unit as prefix * (the base decomposed).
        UnitDef def{name,
                    prefix.vounit_ok ? name : std::string(),
                    nullptr,
                    1.0,
                    base.dimensions,
                    prefix.scale * base.si_scale};
        if (!prefix.vounit_ok) {
          def.decompose_base = base_defs.at(base.name);
          def.decompose_scale = prefix.scale;
        }
        add(std::move(def));
      }
    }
    for (const PlainSpec& unit : plain) {
      storage_.push_back({std::string(unit.name), std::string(unit.vounit), nullptr, 1.0,
                          unit.dimensions, unit.si_scale});
      for (std::string_view spelling : unit.names) by_name_.emplace(spelling, &storage_.back());
    }
  }

  const UnitDef* find(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
  }

 private:
  const UnitDef* add(UnitDef def) {
    storage_.push_back(std::move(def));
    const UnitDef* stored = &storage_.back();
    by_name_.emplace(stored->name, stored);
    return stored;
  }

  std::deque<UnitDef> storage_;
  std::unordered_map<std::string, const UnitDef*> by_name_;
};

}  // namespace

const UnitDef* find_fits_unit(std::string_view name) {
  static const Table table;
  return table.find(name);
}

}  // namespace fitsasdf::units
