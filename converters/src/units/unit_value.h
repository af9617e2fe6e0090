#pragma once
/// \file
/// Unit arithmetic as astropy 5.2.1 does it, step for step, so that the scale, the order of the
/// bases and the kind of each power come out as astropy's: a named unit, or a composite of a
/// scale and (base, power) terms with equal bases merged, zero powers dropped and the terms
/// sorted by decreasing power, then name.

#include <array>
#include <vector>

#include "units/power.h"
#include "units/unit_table.h"

namespace fitsasdf::units {

/// One base of a composite unit with its power.
struct Term {
  const UnitDef* unit = nullptr;  ///< The base (never null).
  Power power;                    ///< Its power (never zero).
};

/// A unit value: astropy's NamedUnit (one `UnitDef`) or CompositeUnit (scale and terms).
struct UnitValue {
  bool named = false;       ///< True for a named unit: `terms` is that unit to the power 1.
  double scale = 1.0;       ///< The scale of a composite; 1 for a named unit.
  std::vector<Term> terms;  ///< Bases in astropy's order: decreasing power, then name.

  /// Return the named unit `def`.
  static UnitValue of(const UnitDef& def);
  /// Return the dimensionless composite with `scale` (astropy's `Unit(scale)`).
  static UnitValue scalar(double scale);
};

/// A unit decomposed into irreducible units (astropy's `decompose()`).
struct Decomposition {
  std::array<Power, kDimensionCount> powers{};  ///< Power of each irreducible unit.
  double scale = 1.0;  ///< The scale; NaN where astropy's would be complex (mag**0.5).
};

/// Return `u` decomposed as astropy decomposes it. Throw `asdfcore::Error` where astropy raises
/// OverflowError (a scale raised to a power overflows: km**103) or ZeroDivisionError.
Decomposition decompose(const UnitValue& u);

/// Return true when `u` is physically dimensionless with scale 1 (astropy's `is_unity`: false
/// for a named unit, and for a composite true when it decomposes to nothing, so "Hz s" is unity
/// and astropy's products drop it). Throw as `decompose` does.
bool is_unity(const UnitValue& u);

/// Return `a * b` (astropy's `UnitBase.__mul__`).
UnitValue multiply(const UnitValue& a, const UnitValue& b);

/// Return `a / b` (astropy's `UnitBase.__truediv__`).
UnitValue divide(const UnitValue& a, const UnitValue& b);

/// Return `u ** p` (astropy's `UnitBase.__pow__`, which first validates `p`).
UnitValue raise(const UnitValue& u, const Power& p);

/// Return the unit of the quantity `factor * u` (astropy's `Unit(factor * u)`).
UnitValue scaled(double factor, const UnitValue& u);

}  // namespace fitsasdf::units
