#pragma once
/// \file
/// Translating FITS unit strings (BUNIT, TUNITn) into IVOA VOUnit strings, exactly as astropy
/// 5.2.1 does with `astropy.units.Unit(s, format="fits").to_string("vounit")`.

#include <string>
#include <string_view>

namespace fitsasdf {

/// The result of translating a FITS unit string.
struct UnitTranslation {
  bool parsed = false;  ///< True when the string is a valid FITS unit.
  std::string vounit;   ///< The VOUnit form (valid when parsed).
  std::string message;  ///< Why it did not parse (when !parsed).
};

/// Translate `fits_unit` as astropy does: Unit(s, format="fits").to_string("vounit").
///
/// "erg/s/cm2/Angstrom" gives "Angstrom**-1.cm**-2.erg.s**-1", "10**-17 erg" gives "1e-17erg",
/// "m/m" and a blank string give "". A string that is not a FITS unit ("DN/s", "counts",
/// "1e-17 erg", "log(Jy)"), or that VOUnit cannot write ("Sun", "10**3" without a unit), comes
/// back with `parsed` false and a `message`; the caller then keeps the original string. Never
/// throws except std::bad_alloc.
UnitTranslation fits_unit_to_vounit(std::string_view fits_unit);

}  // namespace fitsasdf
