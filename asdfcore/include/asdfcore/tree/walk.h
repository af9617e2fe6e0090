#pragma once
/// \file
/// Visiting every node of a tree with its JSON Pointer.

#include <functional>
#include <string>

#include "asdfcore/tree/node.h"

namespace asdfcore::tree {

/// Called for each node with its JSON Pointer ("" for the root). Return false to skip the
/// node's children.
using Visitor = std::function<bool(const NodePtr& node, const std::string& path)>;

/// Visit `root` and its descendants in document order (mapping entries in order, then sequence
/// items). A node shared through an alias is visited at every path that reaches it; a node
/// that contains itself is not entered again below itself.
void walk(const NodePtr& root, const Visitor& visit);

/// Return true when `node` carries a `core/ndarray` tag (any version).
bool is_ndarray(const Node& node);

}  // namespace asdfcore::tree
