// Validator: the walk over a tree that checks each tagged node against its tag's schemas, as
// python asdf's validator does when it opens a file.

#include "asdfcore/schema/validator.h"

#include <set>
#include <tuple>
#include <unordered_set>

#include "asdfcore/error.h"
#include "schema/evaluate.h"

namespace asdfcore::schema {

struct Validator::Impl {
  explicit Impl(std::shared_ptr<const SchemaRegistry> r) : registry(r), schemas(std::move(r)) {}
  std::shared_ptr<const SchemaRegistry> registry;
  detail::SchemaSet schemas;
  std::size_t max_findings = 1000;
};

Validator::Validator(std::shared_ptr<const SchemaRegistry> registry)
    : impl_(std::make_unique<Impl>(std::move(registry))) {}
Validator::~Validator() = default;
Validator::Validator(Validator&&) noexcept = default;
Validator& Validator::operator=(Validator&&) noexcept = default;

Validator& Validator::for_this_thread() {
  thread_local Validator validator(SchemaRegistry::installed());
  return validator;
}

void Validator::set_max_findings(std::size_t limit) noexcept { impl_->max_findings = limit; }

std::vector<Finding> Validator::validate(const tree::NodePtr& instance,
                                         const std::string& schema_uri) {
  const detail::Schema& schema = impl_->schemas.get(schema_uri);
  std::vector<Finding> findings;
  detail::Context ctx{impl_->schemas, &findings, impl_->max_findings, "", 0, false};
  detail::evaluate(schema, *instance, ctx);
  return findings;
}

ValidationResult Validator::validate_tree(const tree::Node& root) {
  ValidationResult result;
  std::set<std::string, std::less<>> unknown, missing;
  std::unordered_set<const tree::Node*> seen;
  struct Item {
    const tree::Node* node;
    std::string pointer;
    bool shared;  // reachable from elsewhere too (a YAML alias): check once
  };
  std::vector<Item> stack{{&root, "", true}};
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const tree::Node& node = *item.node;
    if (item.shared && !seen.insert(&node).second) continue;  // an alias: checked where first met
    if (detail::has_ref_key(node)) continue;  // python asdf neither checks nor enters these
    const std::string& tag = node.tag();
    if (!tag.empty() && !tag.starts_with(tree::kYamlTagPrefix)) {
      const auto uris = impl_->registry->schemas_for_tag(tag);
      if (uris.empty() && unknown.insert(tag).second) result.unknown_tags.push_back(tag);
      bool checked = false;
      for (const auto& uri : uris) {
        if (!impl_->schemas.has_document(uri)) {
          if (missing.insert(uri).second) result.missing_schemas.push_back(uri);
          continue;
        }
        const detail::Schema& schema = impl_->schemas.get(uri);
        checked = true;
        detail::Context ctx{impl_->schemas, &result.findings, impl_->max_findings, item.pointer, 0, true};
        detail::evaluate(schema, node, ctx);
      }
      result.tagged_nodes += checked;
    }
    // Children, pushed in reverse so that they are visited in document order.
    if (node.is_mapping()) {
      const auto& entries = node.entries();
      for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        stack.push_back({it->second.get(),
                         item.pointer + "/" + tree::escape_pointer_token(tree::key_as_text(*it->first)),
                         it->second.use_count() > 1});
      }
    } else if (node.is_sequence()) {
      const auto& items = node.items();
      for (std::size_t i = items.size(); i-- > 0;) {
        stack.push_back({items[i].get(), item.pointer + "/" + std::to_string(i),
                         items[i].use_count() > 1});
      }
    }
  }
  // A node checked through its parent's schema (`$ref: software-1.0.0`) and again through its own
  // tag breaks the same keyword twice: report it once (python asdf skips a node and schema it
  // has seen).
  std::set<std::tuple<std::string, std::string, std::string, std::string>> reported;
  std::erase_if(result.findings, [&](const Finding& f) {
    return !reported.emplace(f.pointer, f.schema_uri, f.keyword, f.message).second;
  });
  return result;
}

}  // namespace asdfcore::schema
