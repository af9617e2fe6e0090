#include "asdfcore/tree/walk.h"

#include <unordered_set>
#include <vector>

namespace asdfcore::tree {

bool is_ndarray(const Node& node) {
  const std::string prefix = std::string(kAsdfTagPrefix) + "core/ndarray-";
  return node.tag().starts_with(prefix);
}

void walk(const NodePtr& root, const Visitor& visit) {
  // An explicit stack: trees may be as deep as the reader allows without using the C++ stack.
  struct Frame {
    NodePtr node;
    std::string path;
    std::size_t next = 0;  // next child to visit
    bool entered = false;
  };
  std::vector<Frame> stack;
  std::unordered_multiset<const Node*> open;  // containers on the current path
  stack.push_back(Frame{root, "", 0, false});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (!f.entered) {
      f.entered = true;
      const bool container = f.node && (f.node->is_mapping() || f.node->is_sequence());
      if (!f.node || !visit(f.node, f.path) || !container || open.count(f.node.get()) != 0) {
        stack.pop_back();
        continue;
      }
      open.insert(f.node.get());
    }
    const Node& n = *f.node;
    if (f.next >= n.size()) {
      open.erase(open.find(f.node.get()));
      stack.pop_back();
      continue;
    }
    const std::size_t i = f.next++;
    Frame child;
    if (n.is_mapping()) {
      const auto& [k, v] = n.entries()[i];
      const std::string token = k->is_string() ? k->as_string()
                                : k->is_integer() ? k->integer_text()
                                                  : std::string(node_kind_name(k->kind()));
      child = Frame{v, f.path + "/" + escape_pointer_token(token), 0, false};
    } else {
      child = Frame{n.items()[i], f.path + "/" + std::to_string(i), 0, false};
    }
    stack.push_back(std::move(child));
  }
}

}  // namespace asdfcore::tree
