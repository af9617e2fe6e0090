#pragma once
/// \file
/// The FITS unit grammar as astropy 5.2.1 parses it with format="fits": products ('.', '*' or a
/// space), division ('/'), powers ("**2", "^2", "2", "-1", "(1/2)", "(0.5)"), a leading scale
/// factor that must be a power of ten ("10**-17", "10^(-17)", "10-17", "10(-17)"), parentheses,
/// sqrt(...), and astropy's structured units ("m, s"). The parser decides every case the way the
/// LALR tables astropy generates from that grammar decide it (a '(' right after a unit name opens
/// a power: "m(2)" is m**2 and "m (s)" is an error; "(m/s)" is an error, "m/(s.K)" is not).

#include <vector>

#include "units/lexer.h"
#include "units/unit_value.h"

namespace fitsasdf::units {

/// A parsed FITS unit string: one unit, or a structured unit "(m, s)" of parts.
struct ParsedUnit {
  bool structured = false;        ///< True for a structured unit.
  UnitValue unit;                 ///< The unit (when not structured).
  std::vector<ParsedUnit> parts;  ///< The parts (when structured), each a unit or structured.
};

/// Parse `tokens` (ending with kEnd) as a FITS unit. Throw `asdfcore::Error` (invalid argument)
/// for a syntax error, a unit name FITS does not define, a numeric factor other than a power of
/// ten, or a function other than sqrt.
ParsedUnit parse_fits_unit(const std::vector<Token>& tokens);

}  // namespace fitsasdf::units
