#pragma once
/// \file
/// JSON references (`$ref`) and JSON Pointers: `{$ref: "#/a/0"}` in the same tree,
/// `{$ref: "other.asdf#/b"}` in another local file. The network is never used.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/tree/node.h"

namespace asdfcore::tree {

/// Split a JSON Pointer ("/a/b~1c/0", with or without a leading "#") into unescaped tokens.
/// Percent-escapes (as in a URI fragment) are decoded first. Throws `Error` (malformed) when
/// the pointer does not start with "/" (after "#").
std::vector<std::string> parse_json_pointer(std::string_view pointer);

/// Return the node `tokens` lead to from `root`, or nullptr when a step does not exist.
/// Sequence steps are decimal indices.
NodePtr find_by_pointer(const NodePtr& root, std::span<const std::string> tokens);

/// The two parts of a reference URI.
struct ReferenceTarget {
  std::string document;  ///< The file part ("" for the same document).
  std::string pointer;   ///< The fragment without "#" ("" for the whole document).
};

/// Split `uri` at "#". Throws `Error` (malformed) for a network URI (http:, https:, ftp:, ...)
/// or a non-local `file:` URI.
ReferenceTarget split_reference(std::string_view uri);

/// Return true when `node` is a mapping with a string `$ref` entry.
bool is_reference(const Node& node);

/// Return true when `root` or any node under it is a reference (`is_reference`).
bool has_references(const NodePtr& root);

/// Where external documents may be read from.
struct ReferencePolicy {
  /// The folder relative references are resolved against (the referring file's folder).
  std::filesystem::path base_dir;
  /// Folders outside `base_dir` that external references may also reach.
  std::vector<std::filesystem::path> allowed_dirs;
  /// Allow any local path (off by default: references stay inside `base_dir`).
  bool allow_any_path = false;
  /// The most external documents one resolution may open.
  std::size_t max_documents = 256;
  /// The most nodes the resolved tree may repeat through references to targets already
  /// resolved, counted as the size of what they repeat: the resolved tree shares such targets,
  /// but whoever walks it visits them each time (`$ref` chains can grow it exponentially, like
  /// YAML aliases).
  std::uint64_t max_expansion = 1'000'000;
  /// The deepest the resolution may go: tree nesting plus references followed in a chain
  /// (`#/a` -> `#/b` -> ...). Bounds the recursion, so a long chain cannot exhaust the stack.
  std::size_t max_depth = 3000;
};

/// Loads the tree of an external document, given its resolved absolute path.
using DocumentLoader = std::function<NodePtr(const std::filesystem::path& path)>;

/// Return the absolute path `document` (relative or `file:` URI) names, checked against
/// `policy`. Throws `Error` (malformed) when it lies outside the allowed folders.
std::filesystem::path resolve_document_path(std::string_view document,
                                            const ReferencePolicy& policy,
                                            const std::string& referring_file);

/// Return a copy of `root` in which every `$ref` mapping is replaced by its target, itself
/// resolved (forward references are fine: the whole tree is read before this runs). Shared
/// nodes stay shared. External documents are read through `loader`. Throws `Error`
/// (malformed, with the JSON Pointer of the reference) for a target that does not exist, a
/// reference cycle (a chain of references that returns to itself, or a reference to one of
/// its own ancestors), or a path outside the policy; (limit) when references repeat more than
/// `policy.max_expansion` nodes.
NodePtr resolve_references(const NodePtr& root, const std::string& file_name,
                           const ReferencePolicy& policy, const DocumentLoader& loader);

}  // namespace asdfcore::tree
