#pragma once
/// \file
/// Validating ASDF trees against their schemas: JSON Schema draft-04 with ASDF's YAML Schema
/// extensions (`tag`, `ndim`, `max_ndim`, `datatype`, `exact_datatype`), as python asdf applies
/// them when it opens a file.
///
/// What is checked, as python asdf 2.14 does on `asdf.open`: every tagged node of the tree
/// (the root included, `core/asdf`) against each schema its tag maps to. Mappings holding a
/// `$ref` key (references to other files) are skipped. Schemas are compiled once per
/// `Validator` and reused across trees; a `Validator` may be used by one thread at a time.
///
/// Semantics follow python asdf where it departs from the letter of draft-04, and say so:
/// - Schemas whose `$schema` is ASDF's YAML Schema evaluate the keywords beside `$ref` (python
///   asdf's validator does); plain draft-04 schemas ignore them, as the standard says.
/// - Types: a tagged scalar is a string (its text); a timestamp is a string only where the
///   schema says `format: date-time`; binary data is no JSON type; `1.0` is a number, not an
///   integer.
/// - `enum` and `uniqueItems` compare numbers by value (`1 == 1.0`) but keep `true` apart from 1.
/// - `pattern` and `patternProperties` use ECMA-262 regular expressions (PCRE2 in its
///   JavaScript-compatible mode), matched anywhere in the string, on code points.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "asdfcore/schema/schema_registry.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::schema {

/// One way the tree breaks a schema.
struct Finding {
  std::string pointer;     ///< JSON Pointer of the offending node ("" is the root).
  std::string schema_uri;  ///< URI of the schema document holding the keyword.
  std::string keyword;     ///< JSON Pointer of the keyword inside that document ("/properties/x/type").
  std::string message;     ///< What is wrong ("'1.5' is not of type 'integer'").
  std::string value;       ///< The offending value, shortened to about 80 characters.
};

/// The result of validating a tree.
struct ValidationResult {
  std::vector<Finding> findings;           ///< Empty when the tree keeps its schemas.
  std::vector<std::string> unknown_tags;   ///< Tags with no schema (not an error; python asdf
                                           ///< warns), each once, in tree order.
  std::vector<std::string> missing_schemas;///< Schema URIs a tag maps to that no folder has.
  std::size_t tagged_nodes = 0;            ///< Tagged nodes checked against a schema.
  /// True when nothing breaks a schema.
  bool valid() const noexcept { return findings.empty(); }
};

/// Checks trees against the schemas of a registry, compiling each schema once and keeping it.
class Validator {
 public:
  /// Make a validator whose schemas come from `registry`.
  explicit Validator(std::shared_ptr<const SchemaRegistry> registry);
  ~Validator();
  Validator(const Validator&) = delete;
  Validator& operator=(const Validator&) = delete;
  /// Move the compiled schemas along.
  Validator(Validator&&) noexcept;
  /// Move the compiled schemas along.
  Validator& operator=(Validator&&) noexcept;

  /// Check every tagged node of the tree `root` against the schemas of its tag.
  ValidationResult validate_tree(const tree::Node& root);
  /// Check `instance` against the schema named by `schema_uri` (a document URI, optionally with
  /// a `#` fragment), as plain JSON Schema: mappings with a `$ref` key are checked like any
  /// other (`validate_tree` skips them). Throws `Error` (not-found) when the registry has no
  /// such schema, (malformed) when the schema itself is broken.
  std::vector<Finding> validate(const tree::NodePtr& instance, const std::string& schema_uri);

  /// Stop collecting after this many findings (0: no limit). Default 1000.
  void set_max_findings(std::size_t limit) noexcept;

  /// Return this thread's validator over `SchemaRegistry::installed()` (schemas compiled once
  /// per thread, kept for the thread's life).
  static Validator& for_this_thread();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace asdfcore::schema
