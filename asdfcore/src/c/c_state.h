#pragma once
// The state behind fitsasdf's libasdf-compatible C API (include/libasdf): what an asdf_file_t
// and an asdf_value_t hold, and the guard every entry point runs its body in, so that no C++
// exception crosses into C. Shared by the c_*.cc files of this folder.
#include <asdf.h>

#include <cstdint>
#include <map>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/builder_state.h"
#include "asdfcore/error.h"
#include "asdfcore/file.h"
#include "asdfcore/tree/node.h"

struct asdf_value;

/// An open (or new) file: its tree, which the C API may change in place, and what the caller
/// was handed and the file still owns.
struct asdf_file {
  std::optional<asdfcore::File> source;               ///< The file read, when one was.
  std::shared_ptr<const asdfcore::AsdfFile> raw;      ///< Its lower-level handle (arrays).
  asdfcore::tree::NodePtr root;                       ///< The tree (the file's own nodes).
  std::shared_ptr<asdfcore::Tree::Context> arrays;    ///< Arrays set through the C API.
  std::string name;                                   ///< For messages.
  std::string write_on_close;                         ///< Mode "w": the path asdf_close writes.
  asdf_config_t config{};
  std::string error;                                  ///< The last error ("" when none).
  asdf_error_code_t code = ASDF_ERR_NONE;
  int error_errno = 0;
  std::set<asdf_value*> floating;                     ///< Made here, not yet in the tree.
  /// Texts handed out by the path getters, one per node (kept alive with it), so that asking
  /// again for the same value does not grow the file.
  std::map<const asdfcore::tree::Node*, std::pair<asdfcore::tree::NodePtr, std::string>> texts;

  /// Keep `text`, the text of `node`, as long as the file is open; return the kept text (the
  /// one kept before for this node, when there is one: a scalar node never changes, and a text
  /// already handed out stays valid).
  const std::string& keep_text(const asdfcore::tree::NodePtr& node, std::string text) {
    return texts.try_emplace(node.get(), node, std::move(text)).first->second.second;
  }
};

/// A handle to one node: where it is (libasdf path and JSON Pointer) and scratch space for
/// the texts handed out through it.
struct asdf_value {
  asdf_file* file = nullptr;
  asdfcore::tree::NodePtr node;
  std::string path;          ///< libasdf path ("/a/0"); "" for a value not in the tree.
  std::string pointer;       ///< JSON Pointer of the same place (for asdfcore and messages).
  asdf_value_type_t made_as = ASDF_VALUE_UNKNOWN;  ///< FLOAT for asdf_value_of_float.
  std::string scratch;       ///< Text handed out by as_string0 / as_scalar.
};

namespace asdfcore::capi {

/// Record `message` as the error of `file` (or of this thread when `file` is null).
void set_error(asdf_file* file, asdf_error_code_t code, std::string message, int err = 0);
/// Record the exception being handled as the error of `file` (or of this thread).
void set_current_exception(asdf_file* file);

/// Run `body`; when it throws, record the error on `file` and return `failure`.
template <typename R, typename F>
R guarded(asdf_file* file, R failure, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    set_current_exception(file);
    return failure;
  }
}
/// Run `body` (returning nothing); when it throws, record the error on `file`.
template <typename F>
void guarded_void(asdf_file* file, F&& body) noexcept {
  try {
    body();
  } catch (...) {
    set_current_exception(file);
  }
}

/// One parsed component of a libasdf path.
struct PathStep {
  enum class Kind { kAuto, kIndex, kKey };
  Kind kind = Kind::kAuto;
  std::string text;  ///< The key (unescaped), or the index's digits.
};
/// Parse a libasdf path; nothing for a path that cannot be read (unbalanced quote or bracket,
/// a bracket without an integer).
std::optional<std::vector<PathStep>> parse_path(std::string_view path);
/// Return the libasdf path component naming the key `key` (escaped as needed).
std::string escape_key(std::string_view key);
/// Return the text of a mapping key node (a string as is; another scalar as its YAML text).
std::string key_text(const tree::Node& key);

/// Where a path leads in a tree.
struct Found {
  tree::NodePtr node;
  std::string path;
  std::string pointer;
};
/// Follow `path` from `root`; nothing when a step does not exist or the path is not valid.
std::optional<Found> resolve(const tree::NodePtr& root, std::string_view path);

/// Run `fn` on a temporary handle to the value at `path` of `file`; `missing` when the path
/// names nothing, `failure` for a null argument or when `fn` throws.
template <typename R, typename F>
R at_path(asdf_file* file, const char* path, R missing, R failure, F&& fn) noexcept {
  if (!file || !path) return failure;
  return guarded(file, failure, [&]() -> R {
    const auto found = resolve(file->root, path);
    if (!found) return missing;
    asdf_value v;
    v.file = file;
    v.node = found->node;
    v.path = found->path;
    v.pointer = found->pointer;
    return fn(&v);
  });
}

/// Make a handle owned by the caller.
asdf_value* make_value(asdf_file* file, tree::NodePtr node, std::string path, std::string pointer);
/// Make a handle owned by `file` until inserted or destroyed.
asdf_value* make_floating(asdf_file* file, tree::NodePtr node,
                          asdf_value_type_t made_as = ASDF_VALUE_UNKNOWN);
/// Free a handle that has been inserted into the tree (or destroyed).
void release_value(asdf_value* value) noexcept;

/// Make an integer node of `value` (beyond int64 as decimal text).
tree::NodePtr uint_node(std::uint64_t value);

/// Set `node` at `path` of `file`'s tree, creating the containers on the way.
asdf_value_err_t set_at(asdf_file* file, const char* path, tree::NodePtr node);

/// Return the node of `value` ready to go into `target`'s tree: itself when it belongs to
/// `target`; else a copy whose ndarrays (read from the value's file, or set through the API
/// there) become arrays of `target`, so that they are written with their data.
tree::NodePtr adopt(asdf_file* target, const asdf_value* value);

/// Return true for an ndarray node (read from a file, or one set through the C API).
bool is_ndarray_node(const asdf_file* file, const tree::NodePtr& node);

/// Return the text of a scalar node, as asdf_value_as_scalar gives it; nothing for a mapping
/// or sequence.
std::optional<std::string> scalar_text(const tree::Node& node);

}  // namespace asdfcore::capi
