#pragma once
/// \file
/// Whole-file rewrites: defragment (compact, optionally recompress), inline every array
/// (to YAML), and the exploded form (one tree file plus one file per block) and back.

#include <optional>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/format/container_writer.h"

namespace asdfcore {

/// Settings shared by the rewrites.
struct RewriteOptions {
  /// Compression of every written block: "" for none, "zlib", "bzp2", "lz4"; nothing keeps
  /// each block's compression from the input.
  std::optional<std::string> compression;
  /// The ASDF Standard to declare; empty keeps the input's.
  std::string asdf_standard;
  /// How the input is opened (limits, allowed folders).
  OpenOptions open;
  /// Layout of the output (block index, checksum convention, fsync). The tree gets no padding
  /// unless `layout.tree_padding` asks for some: these rewrites compact.
  format::WriteOptions layout;
};

/// Rewrite `input` to `output` with every block packed after the tree, no unused space, blocks
/// of sibling files (exploded form) pulled in, streamed blocks made ordinary (`*` resolved),
/// and each block compressed as `options` says. Block numbers stay those of the input, so
/// every `source` in the tree stays valid. Throws `Error` when a block cannot be decoded.
void defragment(const std::string& input, const std::string& output,
                const RewriteOptions& options = {});

/// Write `input` to `output` with every ndarray's values in the tree (`data:` lists) and no
/// blocks.
void inline_arrays(const std::string& input, const std::string& output,
                   const RewriteOptions& options = {});

/// Write `input` in exploded form: the tree to `output` and block i to `<stem>NNNN.asdf` beside
/// it (NNNN = i, four digits), each ndarray's `source` naming its block file. Returns the paths
/// written, the tree file first. When a write fails, the block files already written are removed
/// before the `Error` propagates, so nothing is left behind.
std::vector<std::string> explode(const std::string& input, const std::string& output,
                                 const RewriteOptions& options = {});

/// Write the exploded file `input` (and the block files it names) as one file `output`.
void implode(const std::string& input, const std::string& output,
             const RewriteOptions& options = {});

}  // namespace asdfcore
