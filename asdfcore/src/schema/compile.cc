// SchemaSet: loading schema documents, resolving `$ref` and `id`, compiling keywords.

#include <charconv>
#include <cmath>

#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "schema/compiled_schema.h"
#include "schema/evaluate.h"
#include "schema/uri.h"

namespace asdfcore::schema::detail {
namespace {

using tree::Node;
using tree::NodeKind;
using tree::NodePtr;

// ASDF's YAML Schema; python asdf evaluates the keywords beside a `$ref` in such schemas.
constexpr std::string_view kYamlSchemaPrefix = "http://stsci.edu/schemas/yaml-schema/";

[[noreturn]] void bad_schema(const std::string& doc, const std::string& pointer,
                             const std::string& what) {
  throw Error(ErrorCode::kMalformed,
              "schema " + doc + "#" + pointer + ": " + what);
}

std::uint64_t count_value(const NodePtr& node, const std::string& doc, const std::string& at) {
  if (node->kind() == NodeKind::kInt && node->as_int() >= 0) {
    return static_cast<std::uint64_t>(node->as_int());
  }
  if (node->kind() == NodeKind::kFloat && node->as_double() >= 0 &&
      std::floor(node->as_double()) == node->as_double()) {
    return static_cast<std::uint64_t>(node->as_double());
  }
  bad_schema(doc, at, "must be a non-negative integer");
}

std::uint8_t type_bit(std::string_view name, const std::string& doc, const std::string& at) {
  if (name == "null") return kTypeNull;
  if (name == "boolean") return kTypeBoolean;
  if (name == "integer") return kTypeInteger;
  if (name == "number") return kTypeNumber;
  if (name == "string") return kTypeString;
  if (name == "array") return kTypeArray;
  if (name == "object") return kTypeObject;
  if (name == "any") return 0x7f;  // draft-03's "any", still met in old schemas
  bad_schema(doc, at, "unknown type '" + std::string(name) + "'");
}

// Follow one JSON Pointer token from `node`; nullptr when it names nothing.
NodePtr step(const NodePtr& node, const std::string& token) {
  if (node->is_mapping()) {
    for (const auto& [k, v] : node->entries()) {
      if (tree::key_as_text(*k) == token) return v;
    }
    return nullptr;
  }
  if (node->is_sequence()) {
    std::size_t index = 0;
    const auto* end = token.data() + token.size();
    if (token.empty() || std::from_chars(token.data(), end, index).ptr != end) return nullptr;
    if (index >= node->items().size()) return nullptr;
    return node->items()[index];
  }
  return nullptr;
}

}  // namespace

SchemaSet::SchemaSet(std::shared_ptr<const SchemaRegistry> registry)
    : registry_(std::move(registry)) {}

const SchemaSet::Document& SchemaSet::load(const std::string& uri) {
  if (auto it = documents_.find(uri); it != documents_.end()) return *it->second;
  NodePtr root = registry_->document(uri);
  if (!root && uri.starts_with("tag:")) {
    // Old schemas refer to others by tag ("$ref: tag:stsci.edu:asdf/core/ndarray-1.0.0").
    for (const auto& target : registry_->schemas_for_tag(uri)) {
      if ((root = registry_->document(target))) break;
    }
  }
  if (!root) {
    throw Error(ErrorCode::kNotFound, "no schema document has the URI '" + uri + "'");
  }
  auto doc = std::make_unique<Document>();
  doc->uri = uri;
  doc->root = root;
  if (root->is_mapping()) {
    if (auto dialect = root->get("$schema"); dialect && dialect->is_string()) {
      doc->ref_ignores_siblings = !dialect->as_string().starts_with(kYamlSchemaPrefix);
    }
  }
  const Document& stored = *documents_.emplace(uri, std::move(doc)).first->second;
  index_ids(stored.root, stored.uri, stored, "", 0);
  return stored;
}

void SchemaSet::index_ids(const NodePtr& node, const std::string& base, const Document& doc,
                          const std::string& pointer, int depth) {
  if (depth > 200) return;
  std::string scope = base;
  if (node->is_mapping()) {
    // Only schemas have ids, and a schema's id is a string (a property named "id" holds a
    // mapping). Good enough for draft-04 documents.
    if (auto id = node->get("id"); id && id->is_string()) {
      scope = resolve_uri(base, id->as_string());
      auto [without, fragment] = split_fragment(scope);
      ids_.emplace(fragment.empty() ? without : scope, Located{node, &doc, pointer, base});
    }
    for (const auto& [k, v] : node->entries()) {
      if (v->is_mapping() || v->is_sequence()) {
        // `enum` values are data, not schemas.
        if (k->is_string() && k->as_string() == "enum") continue;
        index_ids(v, scope, doc, pointer + "/" + tree::escape_pointer_token(tree::key_as_text(*k)),
                  depth + 1);
      }
    }
  } else if (node->is_sequence()) {
    for (std::size_t i = 0; i < node->items().size(); ++i) {
      index_ids(node->items()[i], scope, doc, pointer + "/" + std::to_string(i), depth + 1);
    }
  }
}

bool SchemaSet::has_document(const std::string& uri) {
  const std::string doc = split_fragment(uri).first;
  if (documents_.count(doc) != 0 || ids_.count(doc) != 0) return true;
  if (missing_.count(doc) != 0) return false;
  try {
    load(doc);
    return true;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kNotFound) throw;
    missing_.insert(doc);
    return false;
  }
}

const Schema& SchemaSet::get(const std::string& uri) {
  auto [doc_uri, fragment] = split_fragment(uri);
  NodePtr node;
  const Document* doc = nullptr;
  std::string pointer;
  std::string base;  // the scope around `node`; compile applies the node's own id
  if (auto it = ids_.find(doc_uri); it != ids_.end()) {
    node = it->second.node;
    doc = it->second.doc;
    pointer = it->second.pointer;
    base = it->second.parent_base;
  } else {
    doc = &load(doc_uri);
    node = doc->root;
    base = doc_uri;
  }
  if (!fragment.empty() && fragment.front() != '/') {
    // A plain-name fragment names a subschema by its `id: "#name"`.
    auto it = ids_.find(doc_uri + "#" + fragment);
    if (it == ids_.end()) {
      throw Error(ErrorCode::kNotFound, "no subschema has the id '" + uri + "'");
    }
    return compile(it->second.node, *it->second.doc, it->second.parent_base, it->second.pointer);
  }
  for (const std::string& token : tree::parse_json_pointer(fragment)) {
    if (node->is_mapping()) {
      if (auto id = node->get("id"); id && id->is_string()) base = resolve_uri(base, id->as_string());
    }
    node = step(node, token);
    if (!node) {
      throw Error(ErrorCode::kNotFound, "the schema reference '" + uri + "' names nothing");
    }
    pointer += "/" + tree::escape_pointer_token(token);
  }
  return compile(node, *doc, base, pointer);
}

const Schema& SchemaSet::ref_target(const Schema& schema) {
  if (schema.ref_target == nullptr) schema.ref_target = &get(schema.ref);
  return *schema.ref_target;
}

const Schema& SchemaSet::compile(const NodePtr& node, const Document& doc, std::string base,
                                 std::string pointer) {
  if (auto it = compiled_.find(node.get()); it != compiled_.end()) return *it->second;
  if (!node->is_mapping()) bad_schema(doc.uri, pointer, "a schema must be a mapping");
  auto owned = std::make_unique<Schema>();
  Schema& s = *owned;
  compiled_.emplace(node.get(), std::move(owned));  // before children: recursive schemas
  try {
    fill(s, node, doc, std::move(base), std::move(pointer));
  } catch (...) {
    compiled_.erase(node.get());  // never leave a half-compiled schema behind
    throw;
  }
  return s;
}

void SchemaSet::fill(Schema& s, const NodePtr& node, const Document& doc, std::string base,
                     std::string pointer) {
  s.document = doc.uri;
  s.pointer = pointer;
  s.ref_ignores_siblings = doc.ref_ignores_siblings;
  if (auto id = node->get("id"); id && id->is_string()) base = resolve_uri(base, id->as_string());
  s.base = base;

  auto sub = [&](const NodePtr& child, const std::string& path) -> const Schema* {
    return &compile(child, doc, s.base, path);
  };
  auto sub_list = [&](const NodePtr& list, const std::string& path) {
    std::vector<const Schema*> out;
    if (!list->is_sequence()) bad_schema(doc.uri, path, "must be a list of schemas");
    for (std::size_t i = 0; i < list->items().size(); ++i) {
      out.push_back(sub(list->items()[i], path + "/" + std::to_string(i)));
    }
    return out;
  };

  for (const auto& [key, value] : node->entries()) {
    if (!key->is_string()) continue;
    const std::string& k = key->as_string();
    const std::string at = s.at(tree::escape_pointer_token(k));
    if (k == "$ref") {
      if (!value->is_string()) bad_schema(doc.uri, at, "$ref must be a string");
      s.has_ref = true;
      s.ref = resolve_uri(s.base, value->as_string());
    } else if (k == "type") {
      s.has_type = true;
      if (value->is_string()) {
        s.types = type_bit(value->as_string(), doc.uri, at);
      } else if (value->is_sequence()) {
        for (const auto& t : value->items()) {
          if (!t->is_string()) bad_schema(doc.uri, at, "type names must be strings");
          s.types |= type_bit(t->as_string(), doc.uri, at);
        }
      } else {
        bad_schema(doc.uri, at, "type must be a name or a list of names");
      }
    } else if (k == "format") {
      s.date_time_format = value->is_string() && value->as_string() == "date-time";
    } else if (k == "enum") {
      if (!value->is_sequence()) bad_schema(doc.uri, at, "enum must be a list");
      s.enum_values = value;
    } else if (k == "minimum" || k == "maximum" || k == "multipleOf") {
      if (!value->is_number()) bad_schema(doc.uri, at, k + " must be a number");
      (k == "minimum" ? s.minimum : k == "maximum" ? s.maximum : s.multiple_of) = value;
    } else if (k == "exclusiveMinimum" || k == "exclusiveMaximum") {
      if (value->kind() != NodeKind::kBool) bad_schema(doc.uri, at, k + " must be true or false");
      (k == "exclusiveMinimum" ? s.exclusive_minimum : s.exclusive_maximum) = value->as_bool();
    } else if (k == "minLength") {
      s.min_length = count_value(value, doc.uri, at);
    } else if (k == "maxLength") {
      s.max_length = count_value(value, doc.uri, at);
    } else if (k == "pattern") {
      if (!value->is_string()) bad_schema(doc.uri, at, "pattern must be a string");
      s.pattern = std::make_shared<Regex>(value->as_string());
    } else if (k == "items") {
      if (value->is_sequence()) {
        s.items_is_list = true;
        s.item_list = sub_list(value, at);
      } else {
        s.items = sub(value, at);
      }
    } else if (k == "additionalItems") {
      if (value->kind() == NodeKind::kBool) {
        s.additional_items_allowed = value->as_bool();
      } else {
        s.additional_items = sub(value, at);
      }
    } else if (k == "minItems") {
      s.min_items = count_value(value, doc.uri, at);
    } else if (k == "maxItems") {
      s.max_items = count_value(value, doc.uri, at);
    } else if (k == "uniqueItems") {
      s.unique_items = value->kind() == NodeKind::kBool && value->as_bool();
    } else if (k == "properties" || k == "patternProperties") {
      if (!value->is_mapping()) bad_schema(doc.uri, at, k + " must be a mapping");
      for (const auto& [pk, pv] : value->entries()) {
        const std::string name = tree::key_as_text(*pk);
        const Schema* child = sub(pv, at + "/" + tree::escape_pointer_token(name));
        if (k == "properties") {
          s.properties.emplace(name, child);
        } else {
          s.pattern_properties.emplace_back(std::make_shared<Regex>(name), child);
        }
      }
    } else if (k == "additionalProperties") {
      if (value->kind() == NodeKind::kBool) {
        s.additional_properties_allowed = value->as_bool();
      } else {
        s.additional_properties = sub(value, at);
      }
    } else if (k == "required") {
      // draft-03 wrote `required: true` inside a property; it has no draft-04 meaning.
      if (value->is_sequence()) {
        for (const auto& r : value->items()) {
          if (!r->is_string()) bad_schema(doc.uri, at, "required names must be strings");
          s.required.push_back(r->as_string());
        }
      }
    } else if (k == "minProperties") {
      s.min_properties = count_value(value, doc.uri, at);
    } else if (k == "maxProperties") {
      s.max_properties = count_value(value, doc.uri, at);
    } else if (k == "dependencies") {
      if (!value->is_mapping()) bad_schema(doc.uri, at, "dependencies must be a mapping");
      for (const auto& [dk, dv] : value->entries()) {
        const std::string name = tree::key_as_text(*dk);
        if (dv->is_sequence()) {
          std::vector<std::string> names;
          for (const auto& n : dv->items()) {
            if (n->is_string()) names.push_back(n->as_string());
          }
          s.dependencies.emplace_back(name, std::move(names));
        } else {
          s.dependencies.emplace_back(name, sub(dv, at + "/" + tree::escape_pointer_token(name)));
        }
      }
    } else if (k == "allOf") {
      s.all_of = sub_list(value, at);
    } else if (k == "anyOf") {
      s.any_of = sub_list(value, at);
    } else if (k == "oneOf") {
      s.one_of = sub_list(value, at);
    } else if (k == "not") {
      s.not_schema = sub(value, at);
    } else if (k == "tag") {
      if (!value->is_string()) bad_schema(doc.uri, at, "tag must be a string");
      s.tag = value->as_string();
    } else if (k == "ndim" || k == "max_ndim") {
      if (value->kind() != NodeKind::kInt) bad_schema(doc.uri, at, k + " must be an integer");
      (k == "ndim" ? s.ndim : s.max_ndim) = value->as_int();
    } else if (k == "datatype") {
      s.datatype = value;
    } else if (k == "exact_datatype") {
      s.exact_datatype = value->kind() == NodeKind::kBool && value->as_bool();
    }
    // Everything else (title, description, default, definitions, examples, flowStyle, style,
    // propertyOrder, $schema, id) does not validate.
  }
}

}  // namespace asdfcore::schema::detail
