#include "format/legacy/tree_upgrade.h"

#include <set>
#include <unordered_set>

namespace asdfcore::format::legacy {
namespace {

constexpr std::string_view kAsdfTags = "tag:stsci.edu:asdf/";
constexpr std::string_view kOldPrefix = "0.1.0/";
constexpr std::string_view kOldVersion = "-0.1.0";

}  // namespace

std::string modern_tag(const std::string& tag) {
  if (!tag.starts_with(kAsdfTags)) return tag;
  std::string_view rest = std::string_view(tag).substr(kAsdfTags.size());
  if (rest.starts_with(kOldPrefix)) {
    // %TAG ! tag:stsci.edu:asdf/0.1.0/ with unversioned names: !core/ndarray
    return std::string(kAsdfTags) + std::string(rest.substr(kOldPrefix.size())) + "-1.0.0";
  }
  if (rest.ends_with(kOldVersion)) {
    return std::string(kAsdfTags) + std::string(rest.substr(0, rest.size() - kOldVersion.size())) +
           "-1.0.0";
  }
  return tag;
}

void upgrade_tree(const tree::NodePtr& root, LegacyInfo& info) {
  std::set<std::string> seen_tags;
  std::unordered_set<const tree::Node*> seen;
  std::vector<tree::Node*> stack{root.get()};
  while (!stack.empty()) {
    tree::Node* node = stack.back();
    stack.pop_back();
    if (!seen.insert(node).second) continue;
    if (!node->tag().empty()) {
      const std::string old = node->tag();
      const std::string now = modern_tag(old);
      if (seen_tags.insert(old).second) info.tags.emplace_back(old, now);
      if (now != old) node->set_tag(now);
    }
    if (node->is_mapping()) {
      if (node->tag().starts_with("tag:stsci.edu:asdf/core/ndarray-") && node->get("dtype") &&
          !node->get("datatype")) {
        for (auto& [k, v] : node->entries()) {
          if (k->is_string() && k->as_string() == "dtype" && k->tag().empty()) {
            k = tree::Node::make_string("datatype");
            info.dtype_renamed = true;
          }
        }
      }
      for (auto& [k, v] : node->entries()) stack.push_back(v.get());
    } else if (node->is_sequence()) {
      for (auto& item : node->items()) stack.push_back(item.get());
    }
  }
}

}  // namespace asdfcore::format::legacy
