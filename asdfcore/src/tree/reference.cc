#include "asdfcore/tree/reference.h"

#include <charconv>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "asdfcore/error.h"
#include "tree/pointer_steps.h"

namespace asdfcore::tree {
namespace fs = std::filesystem;

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

bool is_within(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

/// Resolves references with memoisation (shared nodes stay shared) and cycle detection.
class Resolver {
 public:
  Resolver(const ReferencePolicy& policy, const DocumentLoader& loader)
      : policy_(policy), loader_(loader) {}

  NodePtr resolve_document(const NodePtr& root, const std::string& file) {
    return resolve(root, Doc{root, file, policy_.base_dir});
  }

 private:
  struct Doc {
    NodePtr root;
    std::string file;
    fs::path dir;
  };

  NodePtr resolve_child(const NodePtr& child, const Doc& doc, PointerStep step) {
    steps_.push_back(step);
    NodePtr out = resolve(child, doc);
    steps_.pop_back();
    return out;
  }

  NodePtr resolve(const NodePtr& node, const Doc& doc) {
    // A scalar resolves to itself: no copy to remember, and no reference or cycle in it.
    if (!node || !(node->is_sequence() || node->is_mapping())) return node;
    if (auto it = done_.find(node.get()); it != done_.end()) return it->second;
    if (active_.count(node.get()) != 0) {
      throw Error(ErrorCode::kMalformed,
                  "reference cycle: the node is reached again while it is being resolved",
                  ErrorContext{.file = doc.file, .tree_path = spell_pointer(steps_)});
    }
    if (active_.size() >= policy_.max_depth) {
      throw Error(ErrorCode::kLimit,
                  "resolving references goes deeper than " + std::to_string(policy_.max_depth) +
                      " levels (tree nesting plus references followed in a chain)",
                  ErrorContext{.file = doc.file, .tree_path = spell_pointer(steps_)});
    }
    active_.insert(node.get());
    NodePtr out;
    if (is_reference(*node)) {
      const auto [target, target_doc] = follow(*node, doc);
      const bool repeated = done_.count(target.get()) != 0;
      out = resolve(target, target_doc);
      if (repeated) {  // a second use of a resolved target repeats all of it
        expansion_ = saturating_add(expansion_, size_of(out));
        if (expansion_ > policy_.max_expansion) {
          throw Error(ErrorCode::kLimit,
                      "references repeat more than " + std::to_string(policy_.max_expansion) +
                          " nodes (a reference bomb?); raise "
                          "YamlReadOptions::max_alias_expansion (fitsasdf --max-alias-nodes) "
                          "if the file is trusted",
                      ErrorContext{.file = doc.file, .tree_path = spell_pointer(steps_)});
        }
      }
    } else if (node->is_sequence()) {
      out = Node::make_sequence();
      out->copy_tag(*node);
      out->collection_style = node->collection_style;
      out->items().reserve(node->items().size());
      std::size_t i = 0;
      for (const auto& item : node->items()) {
        out->push_back(resolve_child(item, doc, PointerStep{nullptr, i++}));
      }
    } else {
      out = Node::make_mapping();
      out->copy_tag(*node);
      out->collection_style = node->collection_style;
      out->entries().reserve(node->entries().size());
      for (const auto& [k, v] : node->entries()) {
        out->entries().emplace_back(k, resolve_child(v, doc, PointerStep{k.get(), 0}));
      }
    }
    active_.erase(node.get());
    done_.emplace(node.get(), out);
    return out;
  }

  static std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
  }

  /// The number of nodes a walk of `node` visits (shared parts counted each time), memoised.
  std::uint64_t size_of(const NodePtr& node) {
    if (!node) return 0;
    if (auto it = sizes_.find(node.get()); it != sizes_.end()) return it->second;
    std::uint64_t n = 1;
    if (node->is_sequence()) {
      for (const auto& item : node->items()) n = saturating_add(n, size_of(item));
    } else if (node->is_mapping()) {
      for (const auto& [k, v] : node->entries()) {
        n = saturating_add(saturating_add(n, 1), size_of(v));  // the key, then the value
      }
    }
    sizes_[node.get()] = n;
    return n;
  }

  std::pair<NodePtr, Doc> follow(const Node& ref, const Doc& doc) {
    const ErrorContext at{.file = doc.file, .tree_path = spell_pointer(steps_)};
    const std::string uri = ref.get("$ref")->as_string();
    ReferenceTarget target;
    try {
      target = split_reference(uri);
    } catch (const Error& e) {
      throw e.with_context(at);
    }
    Doc where = doc;
    if (!target.document.empty()) {
      ReferencePolicy local = policy_;
      local.base_dir = doc.dir;
      fs::path file;
      try {
        file = resolve_document_path(target.document, local, doc.file);
      } catch (const Error& e) {
        throw e.with_context(at);
      }
      auto it = documents_.find(file);
      if (it == documents_.end()) {
        if (documents_.size() >= policy_.max_documents) {
          throw Error(ErrorCode::kLimit,
                      "more than " + std::to_string(policy_.max_documents) +
                          " external documents referenced",
                      at);
        }
        it = documents_.emplace(file, loader_(file)).first;
      }
      where = Doc{it->second, file.string(), file.parent_path()};
    }
    std::vector<std::string> tokens;
    if (!target.pointer.empty()) {
      try {
        tokens = parse_json_pointer(target.pointer);
      } catch (const Error& e) {
        throw e.with_context(at);
      }
    }
    NodePtr found = find_by_pointer(where.root, tokens);
    if (!found) {
      throw Error(ErrorCode::kMalformed,
                  "$ref '" + uri + "' points at nothing: no node at '" + target.pointer + "'" +
                      (target.document.empty() ? "" : " in " + where.file),
                  at);
    }
    return {found, where};
  }

  const ReferencePolicy& policy_;
  const DocumentLoader& loader_;
  std::unordered_map<const Node*, NodePtr> done_;  // containers resolved, and their copies
  std::unordered_set<const Node*> active_;        // containers being resolved
  std::vector<PointerStep> steps_;                // from the root to the node being resolved
  std::map<const Node*, std::uint64_t> sizes_;
  std::uint64_t expansion_ = 0;
  std::map<fs::path, NodePtr> documents_;
};

}  // namespace

std::vector<std::string> parse_json_pointer(std::string_view pointer) {
  std::string decoded = percent_decode(pointer);
  std::string_view p = decoded;
  if (!p.empty() && p.front() == '#') p.remove_prefix(1);
  std::vector<std::string> tokens;
  if (p.empty()) return tokens;
  if (p.front() != '/') {
    throw Error(ErrorCode::kMalformed,
                "JSON Pointer '" + std::string(pointer) + "' does not start with '/'");
  }
  p.remove_prefix(1);
  while (true) {
    const std::size_t slash = p.find('/');
    const std::string_view raw = p.substr(0, slash);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token.push_back(raw[i + 1] == '0' ? '~' : '/');
        ++i;
      } else {
        token.push_back(raw[i]);
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    p.remove_prefix(slash + 1);
  }
  return tokens;
}

NodePtr find_by_pointer(const NodePtr& root, std::span<const std::string> tokens) {
  NodePtr node = root;
  for (const auto& token : tokens) {
    if (!node) return nullptr;
    if (node->is_mapping()) {
      node = node->get(token);
    } else if (node->is_sequence()) {
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      if (ec != std::errc() || ptr != token.data() + token.size() || token.empty() ||
          index >= node->items().size()) {
        return nullptr;
      }
      node = node->items()[index];
    } else {
      return nullptr;
    }
  }
  return node;
}

ReferenceTarget split_reference(std::string_view uri) {
  const std::size_t hash = uri.find('#');
  ReferenceTarget t;
  t.document = std::string(uri.substr(0, hash));
  if (hash != std::string_view::npos) t.pointer = std::string(uri.substr(hash + 1));
  const std::size_t colon = t.document.find(':');
  const std::size_t slash = t.document.find('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon < slash)) {
    const std::string scheme = t.document.substr(0, colon);
    if (scheme == "file") {
      std::string rest = t.document.substr(colon + 1);
      if (rest.starts_with("//")) {
        // file://host/path: only an empty host or localhost is local.
        const std::size_t path_at = rest.find('/', 2);
        const std::string host = rest.substr(2, path_at - 2);
        if (!host.empty() && host != "localhost") {
          throw Error(ErrorCode::kMalformed,
                      "reference '" + std::string(uri) + "' names another host; only local "
                      "files are read");
        }
        rest = path_at == std::string::npos ? "/" : rest.substr(path_at);
      }
      t.document = percent_decode(rest);
    } else if (scheme.size() > 1) {  // one letter would be a Windows drive
      throw Error(ErrorCode::kMalformed,
                  "reference '" + std::string(uri) + "' uses the '" + scheme +
                      ":' scheme; fitsasdf never reads references over the network");
    }
  } else {
    t.document = percent_decode(t.document);
  }
  return t;
}

bool is_reference(const Node& node) {
  if (!node.is_mapping()) return false;
  const NodePtr ref = node.get("$ref");
  return ref && ref->is_string();
}

bool has_references(const NodePtr& root) {
  // Depth first with a stack of our own, remembering only the collections it may reach twice.
  std::vector<const Node*> stack;
  std::unordered_set<const Node*> shared;
  if (root) stack.push_back(root.get());
  const auto push = [&](const NodePtr& child) {
    if (!child || !(child->is_sequence() || child->is_mapping())) return;
    if (may_be_reached_twice(child) && !shared.insert(child.get()).second) return;
    stack.push_back(child.get());
  };
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (is_reference(*node)) return true;
    if (node->is_sequence()) {
      for (const auto& item : node->items()) push(item);
    } else if (node->is_mapping()) {
      for (const auto& [key, value] : node->entries()) push(value);
    }
  }
  return false;
}

fs::path resolve_document_path(std::string_view document, const ReferencePolicy& policy,
                               const std::string& referring_file) {
  const fs::path base = policy.base_dir.empty() ? fs::current_path() : policy.base_dir;
  fs::path p(document);
  if (p.is_relative()) p = base / p;
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(p, ec);
  if (ec) canonical = p.lexically_normal();
  if (!policy.allow_any_path) {
    bool ok = is_within(canonical, fs::weakly_canonical(base, ec));
    for (const auto& dir : policy.allowed_dirs) ok = ok || is_within(canonical, fs::weakly_canonical(dir, ec));
    if (!ok) {
      throw Error(ErrorCode::kMalformed,
                  "reference to '" + std::string(document) + "' leaves the folder " +
                      base.string() + "; allow the folder explicitly to read it",
                  ErrorContext{.file = referring_file});
    }
  }
  return canonical;
}

NodePtr resolve_references(const NodePtr& root, const std::string& file_name,
                           const ReferencePolicy& policy, const DocumentLoader& loader) {
  Resolver resolver(policy, loader);
  return resolver.resolve_document(root, file_name);
}

}  // namespace asdfcore::tree
