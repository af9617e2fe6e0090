#pragma once
// Private to asdfcore: what the walks of the tree share. Where a walk is, kept as steps from the
// root and spelled as a JSON Pointer only when a message needs it (building the string at every
// node cost more than the walk itself), and which nodes a walk must remember.
#include <cstddef>
#include <string>
#include <vector>

#include "asdfcore/tree/node.h"

namespace asdfcore::tree {

/// One step from a collection to a child: its index in a sequence, or its key in a mapping.
struct PointerStep {
  const Node* key = nullptr;  ///< The mapping key; nullptr for a sequence index.
  std::size_t index = 0;      ///< The sequence index.
};

/// The JSON Pointer of `steps` ("/a/0/b~1c"), "/" for none; a key that is not a string is "?".
inline std::string spell_pointer(const std::vector<PointerStep>& steps) {
  if (steps.empty()) return "/";
  std::string out;
  for (const PointerStep& step : steps) {
    out += '/';
    if (step.key == nullptr) {
      out += std::to_string(step.index);
    } else {
      out += step.key->is_string() ? escape_pointer_token(step.key->as_string()) : "?";
    }
  }
  return out;
}

/// True when `node` is a collection that a walk may reach more than once: one held by more than
/// one owner (an alias, a node shared by a builder, or one the caller also holds). A collection
/// with a single owner is reached only through that parent, and a cycle must pass through a
/// node with two owners (its parent on the cycle and the way in), so a walk that remembers only
/// these still visits each node once and still finds every cycle.
inline bool may_be_reached_twice(const NodePtr& node) {
  return node && (node->is_sequence() || node->is_mapping()) && node.use_count() > 1;
}

}  // namespace asdfcore::tree
