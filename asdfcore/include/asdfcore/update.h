#pragma once
/// \file
/// Changing an ASDF file where it is: its tree (set, delete, add keys; a history entry) and its
/// arrays (new contents of the same dtype and shape, new arrays, removed arrays), committed in
/// place when the new tree fits in the room before the first block (or fits once a few small
/// leading blocks are moved after the last one), else by rewriting the file beside the original
/// and renaming it over. A commit interrupted at any instant (the process
/// killed, the machine down) leaves the old file or the new one: an in-place commit keeps an
/// undo journal beside the file until it is complete, and whoever opens the file next rolls an
/// interrupted one back (ARCHITECTURE.md, "In-place updates", gives the argument).
///
/// \code
///   asdfcore::Update update = asdfcore::Update::open("big.asdf");
///   update.set("/meta/calibration/version", asdfcore::tree::Node::make_string("2.1"));
///   update.add_history("recalibrated with pipeline 2.1");
///   asdfcore::CommitResult done = update.commit();   // done.kind == CommitKind::kInPlace
/// \endcode

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "asdfcore/asdf_file.h"
#include "asdfcore/format/container_writer.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree_builder.h"

namespace asdfcore {

/// How a commit may write the file.
enum class CommitMode {
  kAuto,     ///< In place when the change allows it, else a rewrite.
  kInPlace,  ///< In place, or throw `Error` (unsupported) without touching the file.
  kRewrite,  ///< Always the whole file, beside the original, renamed over it.
};

/// What a commit did (or, from `Update::plan`, would do).
enum class CommitKind {
  kNothing,    ///< Nothing was changed: the file was not touched.
  kInPlace,    ///< The tree (and any new blocks and the block index) written into the file.
  kRewritten,  ///< A new file written beside the original and renamed over it.
};

/// Return "nothing", "in-place" or "rewritten".
std::string_view commit_kind_name(CommitKind kind) noexcept;

/// Settings for an update.
struct UpdateOptions {
  /// How the file is opened (limits, checksum checks on read).
  OpenOptions open;
  /// How the commit may write the file.
  CommitMode mode = CommitMode::kAuto;
  /// fsync the journal, the file and the folder at each step (off only where a crash of the
  /// machine does not matter: tests, benchmarks).
  bool durable = true;
  /// What the MD5 of new blocks covers (the blocks already in the file keep theirs).
  format::ChecksumConvention checksum = format::ChecksumConvention::kStoredBytes;
  /// Check the new tree against its schemas before writing and throw `Error` (schema),
  /// writing nothing, when it breaks one.
  bool validate = false;
};

/// What `Update::plan` and `Update::commit` report.
struct CommitResult {
  CommitKind kind = CommitKind::kNothing;  ///< What was (or would be) done.
  std::string reason;                      ///< Why a rewrite, when it is one.
  std::uint64_t old_size = 0;              ///< Bytes of the file before.
  std::uint64_t new_size = 0;              ///< Bytes after (exact for in place, else close).
  std::uint64_t tree_room = 0;             ///< Bytes from the tree's start to the first block.
  std::uint64_t old_tree_size = 0;         ///< Bytes of the old tree text.
  std::uint64_t new_tree_size = 0;         ///< Bytes of the new tree text.
  std::uint64_t bytes_written = 0;         ///< Bytes written to the file (or the new file).
  std::size_t blocks_added = 0;            ///< New blocks (new and replaced arrays).
  std::size_t blocks_moved = 0;            ///< In place: leading blocks moved after the last one
                                           ///< to make room for the tree (renumbered).
  std::uint64_t bytes_moved = 0;           ///< Their bytes.
  std::size_t blocks_unreferenced = 0;     ///< Blocks no ndarray uses any more (left in place;
                                           ///< `defragment` reclaims them).
  std::string old_tree;                    ///< The old tree's YAML text.
  std::string new_tree;                    ///< The new tree's YAML text.
};

/// An ASDF file opened for update. Changes are kept in memory until `commit`, which checks that
/// the file has not changed on disk since `open` and refuses it if it has.
class Update {
 public:
  /// Open `path` for update (a symbolic link: the file it names). An interrupted earlier
  /// commit is rolled back first. Throws
  /// `Error` as `AsdfFile::open` does, and (unsupported) for a file that cannot be updated
  /// safely: a pre-1.0 dialect (`defragment --standard` upgrades it), a broken chain of blocks,
  /// a stale block index, bytes after the last block, or a damaged block header.
  static Update open(const std::string& path, const UpdateOptions& options = {});
  /// Close the file; changes not committed are dropped.
  ~Update();
  /// Take over `other`'s file and changes.
  Update(Update&& other) noexcept;
  /// Take over `other`'s file and changes, dropping this one's.
  Update& operator=(Update&& other) noexcept;

  /// Return the file's path.
  const std::string& path() const noexcept;
  /// Return the file as it was opened.
  const AsdfFile& file() const noexcept;
  /// Return the tree to be written (a copy of the file's, with the changes so far). It may be
  /// changed directly; ndarray nodes must keep naming blocks of this file.
  const tree::NodePtr& root() const noexcept;

  /// Set the value at the JSON Pointer `pointer`: an existing key or item is replaced, a
  /// missing last key is added to its mapping, "-" (or the length) appends to a sequence.
  /// Throws `Error` (not-found) when a step before the last does not exist, (invalid-argument)
  /// for the root or a step into a scalar.
  void set(std::string_view pointer, tree::NodePtr value);
  /// Remove the key or item at `pointer` (an ndarray's block stays in the file, unreferenced).
  /// Throws `Error` (not-found) when it does not exist, (invalid-argument) for the root.
  void remove(std::string_view pointer);
  /// Append a `core/history_entry` to `history.entries` (created when missing), as python
  /// asdf's `add_history_entry` does: the description, the time (UTC) and this library.
  void add_history(const std::string& description);
  /// Give the ndarray at `pointer` new contents: `values` must have its element type (byte
  /// order aside) and shape. The data go to a new block (compressed as the old one was); the
  /// old block stays in the file, unreferenced. Throws `Error` (invalid-argument) for another
  /// dtype or shape, (unsupported) for an array in another file (exploded form).
  void replace_array(std::string_view pointer, const Array& values);
  /// Add the array `array` at `pointer` (as `set` places values), in a new block.
  void add_array(std::string_view pointer, const Array& array);

  /// Return what `commit` would do now, writing nothing.
  CommitResult plan() const;
  /// Write the changes. Throws `Error` (conflict) when the file changed on disk since `open`,
  /// (unsupported) when `CommitMode::kInPlace` was asked and the change does not fit, (schema)
  /// with `UpdateOptions::validate` when the new tree breaks a schema, (io) when writing fails;
  /// in every case the file is left as it was. After a commit the object describes the new
  /// file and can take more changes.
  CommitResult commit();

 private:
  struct State;
  explicit Update(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// What `recover_update` found.
enum class Recovery {
  kNone,        ///< No interrupted commit.
  kRolledBack,  ///< An interrupted in-place commit was undone: the file is the old one again.
  kDiscarded,   ///< A journal written only in part was removed (the file was never touched).
};

/// Roll back an in-place commit of `path` that was interrupted (its journal is beside the file,
/// and no process is committing). `AsdfFile::open` and `Update::open` call this first, so
/// callers rarely need to. Throws `Error` (io) when the file or the journal cannot be written,
/// (conflict) when the journal belongs to another file of that name.
Recovery recover_update(const std::string& path);

/// Return the path of the journal an in-place commit of `path` keeps beside it
/// (`.NAME.fitsasdf-journal` in the same folder; for a symbolic link, beside the file it names).
std::string update_journal_path(const std::string& path);

}  // namespace asdfcore
