#pragma once
/// \file
/// Writing a whole ASDF file: a tree whose ndarray nodes point at blocks by index, plus the
/// blocks' bytes. The result opens in python asdf without a warning.

#include <span>
#include <string>

#include "asdfcore/format/container_writer.h"
#include "asdfcore/tree/node.h"

namespace asdfcore {

/// Settings for writing an ASDF file.
struct AsdfWriteOptions {
  /// The ASDF Standard version to declare: "1.6.0" (default) or "1.5.0" for new trees; 1.0.0 to
  /// 1.4.0 are accepted when rewriting a tree that already uses that version's tags. The caller
  /// chooses the tag versions of its own nodes (ndarray-1.1.0 exists from 1.6.0 on).
  std::string asdf_standard = "1.6.0";
  /// Layout settings (comments, block index, padding, checksum convention, fsync).
  format::WriteOptions layout;
  /// Set `asdf_library` and `history.extensions` as python asdf does (recommended: python asdf
  /// then knows which extension the file uses).
  bool add_metadata = true;
  /// Check the tree against its schemas first and throw `Error` (schema), writing nothing, when
  /// it breaks one. The environment variable FITSASDF_VALIDATE_WRITES=1 turns this on for every
  /// write of the process (the test suite sets it, so that every output it makes is checked).
  bool validate = false;
};

/// Return the ASDF Standard versions this library writes.
std::span<const std::string_view> supported_write_standards() noexcept;

/// Write `root` and `blocks` to `path` atomically. `root` gets the `core/asdf-1.1.0` tag when it
/// has none; the caller's tree is not modified. Throws `Error` (invalid-argument) for an
/// unsupported standard version or a root that is not a mapping, and whatever the layout
/// writer throws.
void write_asdf(const std::string& path, const tree::NodePtr& root,
                std::span<const format::BlockToWrite> blocks, const AsdfWriteOptions& options = {});

/// Return the YAML text `write_asdf` writes for `root` (from `%YAML` through `...`): the
/// metadata added and the tree checked as `options` say; `path` names the file in errors.
/// Throws as `write_asdf` does before it writes.
std::string render_tree(const tree::NodePtr& root, const AsdfWriteOptions& options,
                        const std::string& path);

/// Append a `core/history_entry-1.0.0` (`description`, `time`, this library as `software`)
/// to the history of `root`, as python asdf's `add_history_entry` does: `history.entries`,
/// or the `history` list itself where the root is `core/asdf-1.0.0` or the list form is used.
/// `time` is a YAML timestamp ("2026-11-27T13:45:01.250000Z"). A missing or null history (or
/// `entries`) is made; throws `Error` (invalid-argument) when it is of another kind, which is
/// left as it is.
void add_history_entry(const tree::NodePtr& root, const std::string& description,
                       const std::string& time);

}  // namespace asdfcore
