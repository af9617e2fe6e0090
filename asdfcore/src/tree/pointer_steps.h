#pragma once
// Private to asdfcore: where a walk of the tree is, kept as steps from the root and spelled as
// a JSON Pointer only when a message needs it (building the string at every node cost more
// than the walk itself).
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

}  // namespace asdfcore::tree
