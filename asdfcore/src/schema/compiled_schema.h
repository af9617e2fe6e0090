#pragma once
// A schema compiled for validation: every keyword read once into typed fields, subschemas
// compiled into pointers, regular expressions compiled, `$ref` resolved on first use.

#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "asdfcore/schema/schema_registry.h"
#include "asdfcore/tree/node.h"
#include "schema/regex.h"

namespace asdfcore::schema::detail {

// The JSON types of draft-04's `type`, as bits.
enum TypeBits : std::uint8_t {
  kTypeNull = 1,
  kTypeBoolean = 2,
  kTypeInteger = 4,
  kTypeNumber = 8,
  kTypeString = 16,
  kTypeArray = 32,
  kTypeObject = 64,
};

class SchemaSet;

struct Schema {
  // Where the schema is: its document's URI and the JSON Pointer inside it.
  std::string document;
  std::string pointer;
  std::string base;  // resolution scope (the nearest `id`)
  bool ref_ignores_siblings = true;

  // $ref (combine family)
  bool has_ref = false;
  std::string ref;                       // absolute target
  mutable const Schema* ref_target = nullptr;

  // type, enum (type family)
  std::uint8_t types = 0;
  bool has_type = false;
  bool date_time_format = false;         // `format: date-time` lets a timestamp be a string
  tree::NodePtr enum_values;             // a sequence, or nullptr

  // numbers
  tree::NodePtr minimum, maximum, multiple_of;
  bool exclusive_minimum = false, exclusive_maximum = false;

  // strings
  std::optional<std::uint64_t> min_length, max_length;
  std::shared_ptr<Regex> pattern;

  // arrays
  const Schema* items = nullptr;         // one schema for every item
  std::vector<const Schema*> item_list;  // positional schemas (items is a list)
  bool items_is_list = false;
  bool additional_items_allowed = true;
  const Schema* additional_items = nullptr;
  std::optional<std::uint64_t> min_items, max_items;
  bool unique_items = false;

  // objects
  std::map<std::string, const Schema*, std::less<>> properties;
  std::vector<std::pair<std::shared_ptr<Regex>, const Schema*>> pattern_properties;
  bool additional_properties_allowed = true;
  const Schema* additional_properties = nullptr;
  std::vector<std::string> required;
  std::optional<std::uint64_t> min_properties, max_properties;
  std::vector<std::pair<std::string, std::variant<std::vector<std::string>, const Schema*>>>
      dependencies;

  // combinations
  std::vector<const Schema*> all_of, any_of, one_of;
  const Schema* not_schema = nullptr;

  // ASDF
  std::optional<std::string> tag;
  std::optional<std::int64_t> ndim, max_ndim;
  tree::NodePtr datatype;
  bool exact_datatype = false;

  // The keyword's JSON Pointer in the document, for findings.
  std::string at(std::string_view keyword) const { return pointer + "/" + std::string(keyword); }
};

// Compiles and keeps schemas, each node once. Not thread-safe: one per Validator.
class SchemaSet {
 public:
  explicit SchemaSet(std::shared_ptr<const SchemaRegistry> registry);

  // Return the compiled schema `uri` names (document URI with optional fragment). Throws
  // `Error` (not-found) when nothing has that URI or fragment.
  const Schema& get(const std::string& uri);
  // Return whether the document `uri` names (fragment ignored) exists, remembering the answer:
  // a tree may name the same missing schema many times.
  bool has_document(const std::string& uri);
  // Return the target of `schema`'s `$ref`, compiling it on first use.
  const Schema& ref_target(const Schema& schema);

 private:
  struct Document {
    std::string uri;
    tree::NodePtr root;
    bool ref_ignores_siblings = true;
  };
  const Document& load(const std::string& uri);
  const Schema& compile(const tree::NodePtr& node, const Document& doc, std::string base,
                        std::string pointer);
  void fill(Schema& s, const tree::NodePtr& node, const Document& doc, std::string base,
            std::string pointer);
  void index_ids(const tree::NodePtr& node, const std::string& base, const Document& doc,
                 const std::string& pointer, int depth);

  std::shared_ptr<const SchemaRegistry> registry_;
  std::map<std::string, std::unique_ptr<Document>, std::less<>> documents_;
  std::set<std::string, std::less<>> missing_;
  // Subschemas reachable by an `id` of their own: absolute URI -> (node, document, pointer).
  struct Located {
    tree::NodePtr node;
    const Document* doc;
    std::string pointer;
    std::string parent_base;  // the resolution scope around the node (its own id not applied)
  };
  std::map<std::string, Located, std::less<>> ids_;
  std::map<const tree::Node*, std::unique_ptr<Schema>> compiled_;
};

}  // namespace asdfcore::schema::detail
