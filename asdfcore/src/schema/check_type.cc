// type and enum, and the value helpers they share with the other families.

#include <cmath>

#include "schema/evaluate.h"

namespace asdfcore::schema::detail {
namespace {

using tree::Node;
using tree::NodeKind;

// The JSON types `node` has, as python asdf's type checker sees the values PyYAML makes.
std::uint8_t types_of(const Node& node, bool date_time_format) {
  switch (node.kind()) {
    case NodeKind::kNull: return kTypeNull;
    case NodeKind::kBool: return kTypeBoolean;
    case NodeKind::kInt:
    case NodeKind::kBigInt: return kTypeInteger | kTypeNumber;
    case NodeKind::kFloat: return kTypeNumber;
    case NodeKind::kString: return kTypeString;
    // A datetime is no JSON type, but passes `type: string` beside `format: date-time`.
    case NodeKind::kTimestamp: return date_time_format ? kTypeString : 0;
    case NodeKind::kBinary: return 0;
    case NodeKind::kSequence: return kTypeArray;
    case NodeKind::kMapping: return kTypeObject;
  }
  return 0;
}

std::string type_names(std::uint8_t bits) {
  static constexpr std::pair<std::uint8_t, const char*> kNames[] = {
      {kTypeNull, "null"},     {kTypeBoolean, "boolean"}, {kTypeInteger, "integer"},
      {kTypeNumber, "number"}, {kTypeString, "string"},   {kTypeArray, "array"},
      {kTypeObject, "object"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((bits & bit) == 0) continue;
    if (!out.empty()) out += ", ";
    out += "'" + std::string(name) + "'";
  }
  return out;
}

bool numbers_equal(const Node& a, const Node& b) {
  if (a.kind() == NodeKind::kInt && b.kind() == NodeKind::kInt) return a.as_int() == b.as_int();
  if (a.kind() == NodeKind::kBigInt || b.kind() == NodeKind::kBigInt) {
    if (a.is_integer() && b.is_integer()) return a.integer_text() == b.integer_text();
  }
  return a.as_double() == b.as_double();
}

}  // namespace

std::string show(const Node& node) {
  std::string text;
  switch (node.kind()) {
    case NodeKind::kNull: return "null";
    case NodeKind::kBool: return node.as_bool() ? "true" : "false";
    case NodeKind::kInt:
    case NodeKind::kBigInt: return node.integer_text();
    case NodeKind::kFloat: {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", node.as_double());
      return buffer;
    }
    case NodeKind::kString:
    case NodeKind::kTimestamp: text = "'" + node.as_string() + "'"; break;
    case NodeKind::kBinary: return "binary data of " + std::to_string(node.as_binary().size()) + " bytes";
    case NodeKind::kSequence: return "a sequence of " + std::to_string(node.size()) + " items";
    case NodeKind::kMapping: return "a mapping of " + std::to_string(node.size()) + " entries";
  }
  if (text.size() > 80) {
    std::size_t cut = 76;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...'";
  }
  if (!node.tag().empty()) text = "!<" + node.tag() + "> " + text;
  return text;
}

bool json_equal(const Node& a, const Node& b) {
  const auto ka = a.kind(), kb = b.kind();
  if (a.is_number() && b.is_number()) return numbers_equal(a, b);
  if ((ka == NodeKind::kString || ka == NodeKind::kTimestamp) &&
      (kb == NodeKind::kString || kb == NodeKind::kTimestamp)) {
    return ka == kb && a.as_string() == b.as_string();
  }
  if (ka != kb) return false;
  switch (ka) {
    case NodeKind::kNull: return true;
    case NodeKind::kBool: return a.as_bool() == b.as_bool();
    case NodeKind::kBinary: return a.as_binary() == b.as_binary();
    case NodeKind::kSequence: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!json_equal(*x[i], *y[i])) return false;
      }
      return true;
    }
    case NodeKind::kMapping: {
      if (a.size() != b.size()) return false;
      for (const auto& [k, v] : a.entries()) {
        bool found = false;
        for (const auto& [k2, v2] : b.entries()) {
          if (json_equal(*k, *k2)) {
            found = json_equal(*v, *v2);
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool check_type(const Schema& s, const Node& instance, Context& ctx) {
  bool ok = true;
  if (s.has_type && (types_of(instance, s.date_time_format) & s.types) == 0) {
    ok = fail(ctx, s, "type", show(instance) + " is not of type " + type_names(s.types), instance);
    if (ctx.verdict_only()) return false;
  }
  if (s.enum_values) {
    bool found = false;
    for (const auto& candidate : s.enum_values->items()) {
      if (json_equal(instance, *candidate)) {
        found = true;
        break;
      }
    }
    if (!found) {
      std::string allowed;
      for (const auto& candidate : s.enum_values->items()) {
        if (allowed.size() > 100) {
          allowed += ", ...";
          break;
        }
        allowed += (allowed.empty() ? "" : ", ") + show(*candidate);
      }
      ok = fail(ctx, s, "enum", show(instance) + " is not one of [" + allowed + "]", instance);
    }
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
