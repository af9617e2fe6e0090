#pragma once
/// \file
/// Writing a unit in the IVOA VOUnit syntax as astropy 5.2.1's `to_string("vounit")` does.

#include <string>

#include "units/unit_value.h"

namespace fitsasdf::units {

/// Return `u` written as VOUnit: the scale printed with 8 significant digits and glued to the
/// first base ("1e-17erg"), bases joined by '.', sorted by their lower-cased VOUnit name, powers
/// as `**-1` or in parentheses when fractional (`m(1/2)`, `m(0.333)`); a unit without bases and
/// with scale 1 is the empty string. Units VOUnit lacks are written through what they stand for
/// (dm -> 0.1m). Throw `asdfcore::Error` (invalid argument) when VOUnit cannot write `u`: a unit
/// it has no name for (Sun), or a dimensionless unit with a scale other than 1.
std::string to_vounit(const UnitValue& u);

}  // namespace fitsasdf::units
