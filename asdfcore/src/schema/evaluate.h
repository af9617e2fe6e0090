#pragma once
// Evaluating a compiled schema on a tree node. `evaluate` applies `$ref` and then each keyword
// family, one file each: check_type.cc (type, enum), check_number.cc, check_string.cc,
// check_array.cc, check_object.cc, check_combine.cc (allOf, anyOf, oneOf, not), check_asdf.cc
// (tag, ndim, max_ndim, datatype).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/schema/validator.h"
#include "schema/compiled_schema.h"

namespace asdfcore::schema::detail {

struct Context {
  SchemaSet& schemas;
  std::vector<Finding>* findings;  // nullptr: only the verdict is wanted (inside anyOf, not)
  std::size_t max_findings = 0;    // 0: no limit
  std::string pointer;             // where in the instance we are
  int depth = 0;
  // Pass every mapping holding a `$ref` key without looking at it, as python asdf does for the
  // references of an ASDF tree (whose targets are in other files).
  bool skip_references = true;
  // Say which branch of a failed anyOf / oneOf came closest (off while finding that out, so
  // that nested alternatives are not explained again at every level).
  bool explain = true;

  // Whether the caller only wants a verdict, so that the first failure can end the check.
  bool verdict_only() const noexcept { return findings == nullptr; }
  // Whether no more findings are wanted.
  bool full() const noexcept {
    return findings != nullptr && max_findings != 0 && findings->size() >= max_findings;
  }
};

// Return whether `instance` keeps `schema`, adding findings to `ctx` when it collects them.
bool evaluate(const Schema& schema, const tree::Node& instance, Context& ctx);

// Evaluate `schema` on a child of the current instance, reached by the pointer token `token`.
bool evaluate_child(const Schema& schema, const tree::Node& child, std::string_view token,
                    Context& ctx);

// Record a finding (when collecting) and return false.
bool fail(Context& ctx, const Schema& schema, std::string_view keyword, std::string message,
          const tree::Node& instance);

// The keyword families. Each returns whether the instance keeps that family's keywords.
bool check_type(const Schema& s, const tree::Node& instance, Context& ctx);
bool check_number(const Schema& s, const tree::Node& instance, Context& ctx);
bool check_string(const Schema& s, const tree::Node& instance, Context& ctx);
bool check_array(const Schema& s, const tree::Node& instance, Context& ctx);
bool check_object(const Schema& s, const tree::Node& instance, Context& ctx);
bool check_combine(const Schema& s, const tree::Node& instance, Context& ctx);
bool check_asdf(const Schema& s, const tree::Node& instance, Context& ctx);

// JSON Schema equality as python's jsonschema applies it: numbers by value (1 == 1.0), true
// and false apart from 1 and 0, strings by text (tags ignored), mappings by content.
bool json_equal(const tree::Node& a, const tree::Node& b);
// Whether `node` is a mapping with a `$ref` key (of any value): what python asdf's validator
// passes over, as a reference to something it does not have.
bool has_ref_key(const tree::Node& node);
// A short rendering of `node` for messages ("'abc'", "12", "a mapping of 3 entries").
std::string show(const tree::Node& node);

}  // namespace asdfcore::schema::detail
