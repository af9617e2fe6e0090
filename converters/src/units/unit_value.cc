#include "units/unit_value.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::units {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// Return `scale` with values within a few ulp of 1 set to 1 (astropy's `sanitize_scale`).
double sanitize_scale(double scale) { return is_effectively_unity(scale) ? 1.0 : scale; }

/// Return Python's `scale ** p` for a float scale: an overflow or 0 to a negative power is an
/// error; a negative scale to a fractional power, complex in Python, is NaN here.
double scale_power(double scale, const Power& p) {
  double exponent = p.to_double();
  if (scale == 0.0 && exponent < 0.0) {
    throw Error(ErrorCode::kInvalidArgument,
                "the unit raises a zero scale to a negative power (division by zero)");
  }
  if (scale < 0.0 && exponent != std::floor(exponent)) return std::nan("");
  double result = std::pow(scale, exponent);
  if (std::isinf(result) && std::isfinite(scale)) {
    throw Error(ErrorCode::kLimit,
                "a scale in the unit overflows a double when raised to the power " +
                    format_power(p) + "; astropy cannot handle it either");
  }
  return result;
}

/// One operand of astropy's CompositeUnit constructor.
struct Part {
  const UnitValue* unit;
  Power power;
};

/// Build astropy's `CompositeUnit(scale, bases, powers)`: one base with a non-negative power
/// takes the short cut (no merging, no re-sorting); otherwise the bases are expanded, equal ones
/// merged, zero powers dropped and the rest sorted by (-power, name).
UnitValue composite(double scale, const std::vector<Part>& parts) {
  UnitValue out;
  if (parts.size() == 1 && parts[0].power.compare(Power::integer(0)) >= 0) {
    const UnitValue& unit = *parts[0].unit;
    const Power& power = parts[0].power;
    if (power.is_one()) {
      scale *= unit.scale;
      out.terms = unit.terms;
    } else if (!power.is_zero()) {
      scale *= scale_power(unit.scale, power);
      for (const Term& term : unit.terms)
        out.terms.push_back({term.unit, multiply(term.power, power)});
    }
    out.scale = sanitize_scale(scale);
    return out;
  }
  std::vector<Term> gathered;
  auto add_unit = [&gathered](const UnitDef* unit, const Power& power) {
    for (Term& term : gathered) {
      if (term.unit == unit) {
        term.power = add(term.power, power);
        return;
      }
    }
    gathered.push_back({unit, power});
  };
  for (const Part& part : parts) {
    if (part.unit->named) {
      add_unit(part.unit->terms.front().unit, part.power);
    } else {
      scale *= scale_power(part.unit->scale, part.power);
      for (const Term& term : part.unit->terms)
        add_unit(term.unit, multiply(term.power, part.power));
    }
  }
  for (Term& term : gathered) {
    if (!term.power.is_zero()) out.terms.push_back(std::move(term));
  }
  std::stable_sort(out.terms.begin(), out.terms.end(), [](const Term& a, const Term& b) {
    int by_power = a.power.compare(b.power);
    if (by_power != 0) return by_power > 0;
    return a.unit->name < b.unit->name;
  });
  out.scale = sanitize_scale(scale);
  return out;
}

}  // namespace

UnitValue UnitValue::of(const UnitDef& def) {
  UnitValue out;
  out.named = true;
  out.terms.push_back({&def, Power::integer(1)});
  return out;
}

UnitValue UnitValue::scalar(double scale) { return composite(scale, {}); }

Decomposition decompose(const UnitValue& u) {
  Decomposition out;
  for (Power& power : out.powers) power = Power::integer(0);
  double scale = u.scale;
  for (const Term& term : u.terms) {
    const UnitDef& def = *term.unit;
    if (def.si_scale != 1.0) scale *= scale_power(def.si_scale, term.power);
    for (std::size_t d = 0; d < kDimensionCount; ++d) {
      if (def.dimensions[d] == 0) continue;
      out.powers[d] = add(out.powers[d], multiply(Power::integer(def.dimensions[d]), term.power));
    }
  }
  out.scale = sanitize_scale(scale);
  return out;
}

bool is_unity(const UnitValue& u) {
  if (u.named) return false;
  Decomposition d = decompose(u);
  for (const Power& power : d.powers) {
    if (!power.is_zero()) return false;
  }
  return d.scale == 1.0;
}

UnitValue multiply(const UnitValue& a, const UnitValue& b) {
  if (is_unity(b)) return a;
  if (is_unity(a)) return b;
  return composite(1.0, {{&a, Power::integer(1)}, {&b, Power::integer(1)}});
}

UnitValue divide(const UnitValue& a, const UnitValue& b) {
  if (is_unity(b)) return a;
  return composite(1.0, {{&a, Power::integer(1)}, {&b, Power::integer(-1)}});
}

UnitValue raise(const UnitValue& u, const Power& p) {
  return composite(1.0, {{&u, validate_power(p)}});
}

UnitValue scaled(double factor, const UnitValue& u) {
  // Unit(Quantity): a value of 1 gives the unit itself; otherwise CompositeUnit(value * scale,
  // bases, powers) over the unit's own bases.
  if (is_effectively_unity(factor)) return u;
  std::vector<UnitValue> bases;
  bases.reserve(u.terms.size());
  for (const Term& term : u.terms) bases.push_back(UnitValue::of(*term.unit));
  std::vector<Part> parts;
  for (std::size_t i = 0; i < u.terms.size(); ++i) parts.push_back({&bases[i], u.terms[i].power});
  return composite(factor * u.scale, parts);
}

}  // namespace fitsasdf::units
