// minimum, maximum (with their exclusive forms) and multipleOf.

#include <cmath>

#include "schema/evaluate.h"

namespace asdfcore::schema::detail {
namespace {

using tree::Node;
using tree::NodeKind;

// Compare two numbers: <0, 0, >0. Integers are compared exactly (big ones by their digits).
int compare(const Node& a, const Node& b) {
  if (a.kind() == NodeKind::kInt && b.kind() == NodeKind::kInt) {
    return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
  }
  if (a.is_integer() && b.is_integer()) {
    const std::string x = a.integer_text(), y = b.integer_text();
    const bool nx = x.starts_with('-'), ny = y.starts_with('-');
    if (nx != ny) return nx ? -1 : 1;
    const int magnitude = x.size() != y.size() ? (x.size() < y.size() ? -1 : 1) : x.compare(y);
    const int sign = magnitude < 0 ? -1 : magnitude > 0 ? 1 : 0;
    return nx ? -sign : sign;
  }
  const double x = a.as_double(), y = b.as_double();
  return x < y ? -1 : x > y ? 1 : 0;
}

// The remainder of the decimal integer `digits` (optionally signed) divided by `divisor` > 0.
std::uint64_t big_remainder(const std::string& digits, std::uint64_t divisor) {
  // (a + b) mod divisor without overflow, for a, b < divisor.
  auto add = [divisor](std::uint64_t a, std::uint64_t b) {
    return a >= divisor - b ? a - (divisor - b) : a + b;
  };
  std::uint64_t r = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') continue;
    std::uint64_t times_ten = 0;
    for (int i = 0; i < 10; ++i) times_ten = add(times_ten, r);
    r = add(times_ten, static_cast<std::uint64_t>(c - '0') % divisor);
  }
  return r;
}

bool is_multiple(const Node& value, const Node& divisor) {
  if (divisor.kind() == NodeKind::kFloat) {
    // python jsonschema: the quotient must be a whole number.
    const double q = value.as_double() / divisor.as_double();
    if (std::isinf(q)) {
      // The quotient overflows (python jsonschema then decides with exact fractions). Exactly
      // decided here for a divisor that is a power of two (0.5, 0.25, ...): a whole value is a
      // multiple. Any other divisor this small is taken as not dividing (an approximation).
      int exponent = 0;
      const double mantissa = std::frexp(divisor.as_double(), &exponent);
      const double v = value.as_double();
      return std::fabs(mantissa) == 0.5 && std::trunc(v) == v;
    }
    return std::trunc(q) == q;
  }
  if (value.kind() == NodeKind::kFloat) return std::fmod(value.as_double(), divisor.as_double()) == 0;
  if (divisor.kind() == NodeKind::kInt && divisor.as_int() != 0) {
    const std::uint64_t d = divisor.as_int() < 0 ? 0 - static_cast<std::uint64_t>(divisor.as_int())
                                                 : static_cast<std::uint64_t>(divisor.as_int());
    return big_remainder(value.integer_text(), d) == 0;
  }
  return std::fmod(value.as_double(), divisor.as_double()) == 0;
}

}  // namespace

bool check_number(const Schema& s, const Node& instance, Context& ctx) {
  if (!instance.is_number()) return true;
  bool ok = true;
  if (s.minimum) {
    const int c = compare(instance, *s.minimum);
    if (c < 0 || (c == 0 && s.exclusive_minimum)) {
      ok = fail(ctx, s, "minimum",
                show(instance) + " is less than " + (s.exclusive_minimum ? "or equal to " : "") +
                    "the minimum of " + show(*s.minimum),
                instance);
      if (ctx.verdict_only()) return false;
    }
  }
  if (s.maximum) {
    const int c = compare(instance, *s.maximum);
    if (c > 0 || (c == 0 && s.exclusive_maximum)) {
      ok = fail(ctx, s, "maximum",
                show(instance) + " is greater than " + (s.exclusive_maximum ? "or equal to " : "") +
                    "the maximum of " + show(*s.maximum),
                instance);
      if (ctx.verdict_only()) return false;
    }
  }
  if (s.multiple_of && !is_multiple(instance, *s.multiple_of)) {
    ok = fail(ctx, s, "multipleOf", show(instance) + " is not a multiple of " + show(*s.multiple_of),
              instance);
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
