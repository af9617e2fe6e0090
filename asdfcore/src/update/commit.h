#pragma once
// What an open update holds (shared by update.cc, which takes the edits, and commit.cc, which
// plans and writes them), and the commit itself.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "api/write_plan.h"
#include "asdfcore/update.h"

namespace asdfcore::update_detail {

/// What identifies the file's contents on disk: a change by anyone moves one of these.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

/// An open update.
struct UpdateState {
  std::string path;
  UpdateOptions options;
  std::optional<AsdfFile> file;  ///< The file as opened.
  tree::NodePtr root;            ///< The tree to write: the file's, changed.
  FileIdentity identity;         ///< Of the file when it was opened.
  std::string old_tree;          ///< The tree's bytes when it was opened.
  std::vector<WritePlan> added;  ///< New blocks, numbered after the file's, in order.

  /// (Re)open the file: roll back an interrupted commit, read it, check that it can be
  /// updated, and forget the edits.
  void load();
  /// Plan a block for `array` (compressed with `compression` unless the array says otherwise)
  /// and return its ndarray node, its `source` the block's number.
  tree::NodePtr plan_array(const Array& array, const std::string& compression);
};

/// Return the fixed name of the temporary file a rewrite writes beside `path`
/// (`.NAME.fitsasdf-journal-rewrite`).
std::string update_temp_path(const std::string& path);

/// Return what committing `state` would do.
CommitResult plan_commit(const UpdateState& state);
/// Commit `state`: in place (with the undo journal) or by a rewrite. Throws `Error` with the
/// file left as it was.
CommitResult run_commit(UpdateState& state);

}  // namespace asdfcore::update_detail

namespace asdfcore {
struct Update::State : update_detail::UpdateState {};
}  // namespace asdfcore
