// properties, patternProperties, additionalProperties, required, minProperties,
// maxProperties, dependencies.

#include "schema/evaluate.h"

namespace asdfcore::schema::detail {
namespace {

const tree::Node* find_key(const tree::Node& mapping, std::string_view name) {
  for (const auto& [k, v] : mapping.entries()) {
    if (k->is_string() && k->as_string() == name) return v.get();
  }
  return nullptr;
}

}  // namespace

bool check_object(const Schema& s, const tree::Node& instance, Context& ctx) {
  if (!instance.is_mapping()) return true;
  bool ok = true;
  auto failed = [&] { ok = false; return ctx.verdict_only(); };
  const auto& entries = instance.entries();

  if (s.min_properties && entries.size() < *s.min_properties) {
    fail(ctx, s, "minProperties", show(instance) + " does not have enough properties (at least " +
                                      std::to_string(*s.min_properties) + " wanted)", instance);
    if (failed()) return false;
  }
  if (s.max_properties && entries.size() > *s.max_properties) {
    fail(ctx, s, "maxProperties", show(instance) + " has too many properties (at most " +
                                      std::to_string(*s.max_properties) + " allowed)", instance);
    if (failed()) return false;
  }
  for (const auto& name : s.required) {
    if (find_key(instance, name) == nullptr) {
      fail(ctx, s, "required", "'" + name + "' is a required property", instance);
      if (failed()) return false;
    }
  }

  const bool has_object_keywords = !s.properties.empty() || !s.pattern_properties.empty() ||
                                   !s.additional_properties_allowed ||
                                   s.additional_properties != nullptr;
  if (has_object_keywords) {
    std::vector<std::string> extras;
    for (const auto& [key, value] : entries) {
      if (ctx.full()) break;
      const std::string name = tree::key_as_text(*key);
      bool matched = false;
      if (key->is_string()) {
        if (auto it = s.properties.find(name); it != s.properties.end()) {
          matched = true;
          if (!evaluate_child(*it->second, *value, name, ctx) && failed()) return false;
        }
      }
      for (const auto& [regex, child] : s.pattern_properties) {
        const auto hit = regex->search(name);
        if (hit.value_or(false)) {
          matched = true;
          if (!evaluate_child(*child, *value, name, ctx) && failed()) return false;
        }
      }
      if (matched) continue;
      if (!s.additional_properties_allowed) {
        extras.push_back(name);
      } else if (s.additional_properties != nullptr) {
        if (!evaluate_child(*s.additional_properties, *value, name, ctx) && failed()) return false;
      }
    }
    if (!extras.empty()) {
      std::string list;
      for (const auto& e : extras) list += (list.empty() ? "'" : ", '") + e + "'";
      fail(ctx, s, "additionalProperties",
           "additional properties are not allowed (" + list +
               (extras.size() == 1 ? " was unexpected)" : " were unexpected)"), instance);
      if (failed()) return false;
    }
  }

  for (const auto& [name, dependency] : s.dependencies) {
    if (find_key(instance, name) == nullptr) continue;
    if (const auto* names = std::get_if<std::vector<std::string>>(&dependency)) {
      for (const auto& needed : *names) {
        if (find_key(instance, needed) == nullptr) {
          fail(ctx, s, "dependencies", "'" + needed + "' is a dependency of '" + name + "'",
               instance);
          if (failed()) return false;
        }
      }
    } else if (!evaluate(*std::get<const Schema*>(dependency), instance, ctx) && failed()) {
      return false;
    }
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
