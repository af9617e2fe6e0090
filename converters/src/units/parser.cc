#include "units/parser.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::units {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// A scale factor exponent beyond this magnitude gives inf or 0 anyway.
constexpr std::int64_t kExponentClamp = 100000;

/// The deepest nesting of parentheses, sqrt() and structured-unit commas read; deeper strings are
/// refused rather than exhausting the stack (astropy's table-driven parser has no such limit).
constexpr int kMaxDepth = 200;

/// A node of the parse: a unit, a structured unit, or a parenthesised structured unit (a
/// "tuple", which stays nested inside an enclosing structured unit instead of being flattened).
struct Node {
  bool structured = false;
  bool tuple = false;         ///< Structured and written in parentheses.
  bool pure_product = false;  ///< A unit that is a plain product (no factor, no '/').
  UnitValue unit;
  std::vector<ParsedUnit> parts;
};

Node unit_node(UnitValue unit, bool pure_product) {
  Node node;
  node.unit = std::move(unit);
  node.pure_product = pure_product;
  return node;
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "the end of the string";
  return "'" + token.text + "' at column " + std::to_string(token.column);
}

/// Return the digits `text` as an integer; throw when it does not fit in 64 bits.
std::int64_t to_int(const std::string& text) {
  std::int64_t value = 0;
  for (char c : text) {
    if (value > (INT64_MAX - 9) / 10) {
      throw Error(ErrorCode::kLimit,
                  "the number " + text + " in the unit is too large; powers must fit in 64 bits");
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

/// Return the digits `text` as an exponent, clamped to +-kExponentClamp.
std::int64_t to_exponent(const std::string& text) {
  std::int64_t value = 0;
  for (char c : text) {
    value = value * 10 + (c - '0');
    if (value > kExponentClamp) return kExponentClamp;
  }
  return value;
}

class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens) : tokens_(tokens) {}

  ParsedUnit parse() {
    Node node = main_rule();
    if (peek().kind != TokenKind::kEnd) syntax_error();
    return to_parsed(std::move(node));
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  const Token& advance() { return tokens_[pos_++]; }
  const Token& expect(TokenKind kind) {
    if (!at(kind)) syntax_error();
    return advance();
  }

  [[noreturn]] void syntax_error() const {
    throw Error(ErrorCode::kInvalidArgument,
                "syntax error in the unit at " + describe(peek()) +
                    "; write products with '.', division with '/', powers as m**2 or m-1");
  }

  [[noreturn]] static void numeric_factor_error() {
    throw Error(ErrorCode::kInvalidArgument,
                "FITS units only allow a power of ten as a numeric factor (10**-17, 10^3, 10-3); "
                "a number such as 1e-17 or 2 is not a FITS unit");
  }

  static ParsedUnit to_parsed(Node node) {
    ParsedUnit out;
    out.structured = node.structured;
    out.unit = std::move(node.unit);
    out.parts = std::move(node.parts);
    return out;
  }

  /// main : unit | structured_unit | structured_subunit (whose parentheses are dropped).
  Node main_rule() {
    Node first = subunit();
    if (at(TokenKind::kComma)) return structured_rest(std::move(first));
    first.tuple = false;
    return first;
  }

  bool starts_subunit() const {
    switch (peek().kind) {
      case TokenKind::kUnit:
      case TokenKind::kFuncname:
      case TokenKind::kOpenParen:
      case TokenKind::kUint:
      case TokenKind::kUfloat:
      case TokenKind::kSign:
      case TokenKind::kSolidus:
        return true;
      default:
        return false;
    }
  }

  /// After `first` and at a ',': the rest of a structured unit. A second subunit followed by
  /// another ',' starts a nested structured unit (the parser shifts), which is then flattened.
  Node structured_rest(Node first) {
    DepthGuard guard(depth_);
    expect(TokenKind::kComma);
    if (!starts_subunit()) {
      Node single = combine(std::move(first), nullptr);
      if (at(TokenKind::kComma)) return structured_rest(std::move(single));
      return single;
    }
    Node second = subunit();
    if (at(TokenKind::kComma)) second = structured_rest(std::move(second));
    return combine(std::move(first), &second);
  }

  /// Build a structured unit from one or two subunits: a bare structured subunit is flattened
  /// into it, a parenthesised one is kept as one part.
  static Node combine(Node first, Node* second) {
    Node out;
    out.structured = true;
    auto add = [&out](Node part) {
      if (part.structured && !part.tuple) {
        for (ParsedUnit& p : part.parts) out.parts.push_back(std::move(p));
      } else {
        part.tuple = false;
        out.parts.push_back(to_parsed(std::move(part)));
      }
    };
    add(std::move(first));
    if (second != nullptr) add(std::move(*second));
    return out;
  }

  /// A unit or a parenthesised structured unit, where either may start. After '(' the two are
  /// told apart by what follows the first part: ')' after a plain product makes it a
  /// parenthesised product, ',' makes it a structured unit.
  Node subunit() {
    if (!at(TokenKind::kOpenParen)) return unit();
    advance();
    DepthGuard guard(depth_);
    Node inner = subunit();
    if (!inner.structured && inner.pure_product && at(TokenKind::kCloseParen)) {
      advance();
      return unit_after(std::move(inner.unit));
    }
    if (at(TokenKind::kComma)) {
      Node structured = structured_rest(std::move(inner));
      expect(TokenKind::kCloseParen);
      structured.tuple = true;
      return structured;
    }
    syntax_error();
  }

  /// unit : [factor [product]] (product_of_units {'/' product_of_units} | '/' unit_expression)
  ///      | factor
  Node unit() {
    switch (peek().kind) {
      case TokenKind::kUint: {
        double factor = scale_factor();
        bool has_product = at(TokenKind::kStar) || at(TokenKind::kPeriod);
        if (has_product) advance();
        if (has_product || at(TokenKind::kSolidus) || starts_unit_expression()) {
          return unit_node(scaled(factor, rest_of_unit()), false);
        }
        return unit_node(UnitValue::scalar(factor), false);
      }
      case TokenKind::kUfloat:
      case TokenKind::kSign:
        numeric_factor_error();
      case TokenKind::kSolidus:
        return unit_node(rest_of_unit(), false);
      default:
        break;
    }
    if (!starts_unit_expression()) syntax_error();
    return unit_after(unit_expression());
  }

  /// The unit after a factor: an inverse "/ unit_expression" or a division of products.
  UnitValue rest_of_unit() {
    if (at(TokenKind::kSolidus)) {
      advance();
      return raise(unit_expression(), Power::integer(-1));
    }
    return unit_after(unit_expression()).unit;
  }

  /// The unit whose first unit_expression `first` is already read.
  Node unit_after(UnitValue first) {
    UnitValue value = product_after(std::move(first));
    bool pure = true;
    while (at(TokenKind::kSolidus)) {
      advance();
      value = divide(value, product_of_units());
      pure = false;
    }
    return unit_node(std::move(value), pure);
  }

  bool starts_unit_expression() const {
    return at(TokenKind::kUnit) || at(TokenKind::kFuncname) || at(TokenKind::kOpenParen);
  }

  UnitValue product_of_units() {
    if (!starts_unit_expression()) syntax_error();
    return product_after(unit_expression());
  }

  /// product_of_units : unit_expression [product] product_of_units | unit_expression, which is
  /// right-recursive: a.b.c is a * (b * c).
  UnitValue product_after(UnitValue first) {
    std::vector<UnitValue> factors;
    factors.push_back(std::move(first));
    while (true) {
      if (at(TokenKind::kStar) || at(TokenKind::kPeriod)) {
        advance();
        if (!starts_unit_expression()) syntax_error();
      } else if (!starts_unit_expression()) {
        break;
      }
      factors.push_back(unit_expression());
    }
    UnitValue value = std::move(factors.back());
    for (std::size_t i = factors.size() - 1; i-- > 0;) value = multiply(factors[i], value);
    return value;
  }

  /// unit_expression : function | UNIT [power] [numeric_power] | '(' product_of_units ')'
  UnitValue unit_expression() {
    if (at(TokenKind::kFuncname)) return function();
    if (at(TokenKind::kOpenParen)) {
      advance();
      DepthGuard guard(depth_);
      UnitValue inner = product_of_units();
      expect(TokenKind::kCloseParen);
      return inner;
    }
    const Token& name = expect(TokenKind::kUnit);
    const UnitDef* def = find_fits_unit(name.text);
    if (def == nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  "unit '" + name.text + "' at column " + std::to_string(name.column) +
                      " is not a FITS unit (FITS standard 4.0, section 4.3)");
    }
    UnitValue base = UnitValue::of(*def);
    if (at(TokenKind::kDoubleStar) || at(TokenKind::kCaret)) {
      advance();
      return raise(base, numeric_power());
    }
    // A sign, a number or '(' right after a name is its power: "cm2", "s-1", "m(1/2)".
    if (at(TokenKind::kSign) || at(TokenKind::kUint) || at(TokenKind::kOpenParen)) {
      return raise(base, numeric_power());
    }
    return base;
  }

  UnitValue function() {
    DepthGuard guard(depth_);
    std::string name = advance().text;
    expect(TokenKind::kOpenParen);
    Node argument = main_rule();
    expect(TokenKind::kCloseParen);
    if (name == "sqrt") {
      if (argument.structured) {
        throw Error(ErrorCode::kInvalidArgument,
                    "sqrt() of a structured unit is not defined; take the root of each part");
      }
      return raise(argument.unit, Power::real(0.5));
    }
    if (name == "mag") {
      throw Error(ErrorCode::kInvalidArgument,
                  "function units such as mag(...) are not supported for FITS units");
    }
    throw Error(ErrorCode::kInvalidArgument,
                "'" + name + "' is not a function FITS units allow; only sqrt(...) is");
  }

  /// numeric_power : [sign] UINT | '(' ([sign] UINT | [sign] UFLOAT | frac) ')'
  Power numeric_power() {
    if (at(TokenKind::kSign)) {
      int sign = advance().sign;
      return Power::integer(sign * to_int(expect(TokenKind::kUint).text));
    }
    if (at(TokenKind::kUint)) return Power::integer(to_int(advance().text));
    expect(TokenKind::kOpenParen);
    int sign = at(TokenKind::kSign) ? advance().sign : 1;
    Power power = Power::integer(0);
    if (at(TokenKind::kUfloat)) {
      power = Power::real(sign * advance().real);
    } else {
      std::int64_t numerator = sign * to_int(expect(TokenKind::kUint).text);
      if (at(TokenKind::kSolidus)) {
        advance();
        int denominator_sign = at(TokenKind::kSign) ? advance().sign : 1;
        std::int64_t denominator = denominator_sign * to_int(expect(TokenKind::kUint).text);
        power = Power::fraction(numerator, denominator);
      } else {
        power = Power::integer(numerator);
      }
    }
    expect(TokenKind::kCloseParen);
    return power;
  }

  /// The scale factor: 10 followed by "**n", "^n", "**(n)", "**(-n)", "-n", "+n" or "(-n)".
  /// Return its value as astropy computes it (10**n, a float for negative n).
  double scale_factor() {
    std::string base = advance().text;
    std::int64_t exponent = 0;
    if (at(TokenKind::kDoubleStar) || at(TokenKind::kCaret)) {
      advance();
      if (at(TokenKind::kOpenParen)) {
        advance();
        int sign = at(TokenKind::kSign) ? advance().sign : 1;
        if (!at(TokenKind::kUint)) numeric_factor_error();
        exponent = sign * to_exponent(advance().text);
        expect(TokenKind::kCloseParen);
      } else {
        int sign = at(TokenKind::kSign) ? advance().sign : 1;
        exponent = sign * to_exponent(expect(TokenKind::kUint).text);
      }
    } else if (at(TokenKind::kSign)) {
      int sign = advance().sign;
      exponent = sign * to_exponent(expect(TokenKind::kUint).text);
    } else if (at(TokenKind::kOpenParen)) {
      advance();
      int sign = expect(TokenKind::kSign).sign;
      exponent = sign * to_exponent(expect(TokenKind::kUint).text);
      expect(TokenKind::kCloseParen);
    } else {
      numeric_factor_error();
    }
    std::size_t nonzero = base.find_first_not_of('0');
    if (nonzero == std::string::npos || base.substr(nonzero) != "10") {
      throw Error(ErrorCode::kInvalidArgument,
                  "the base of a FITS scale factor must be 10, not " + base + " (write 10**n)");
    }
    if (exponent < 0) return std::pow(10.0, static_cast<double>(exponent));
    if (exponent > 308) {
      throw Error(ErrorCode::kLimit, "the scale factor 10**" + std::to_string(exponent) +
                                         " is too large for a double");
    }
    std::string decimal = "1e" + std::to_string(exponent);
    return std::strtod(decimal.c_str(), nullptr);
  }

  /// Count one level of nesting for the life of the guard; throw beyond kMaxDepth.
  class DepthGuard {
   public:
    explicit DepthGuard(int& depth) : depth_(depth) {
      if (++depth_ > kMaxDepth) {
        throw Error(ErrorCode::kLimit,
                    "the unit nests parentheses more than " + std::to_string(kMaxDepth) + " deep");
      }
    }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    int& depth_;
  };

  const std::vector<Token>& tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

ParsedUnit parse_fits_unit(const std::vector<Token>& tokens) { return Parser(tokens).parse(); }

}  // namespace fitsasdf::units
