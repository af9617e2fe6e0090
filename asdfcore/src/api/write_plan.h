#pragma once
// Turning a built tree into what the layout writer takes: the tree with every array's
// placeholder replaced by an ndarray node, and the blocks (views of one array share one).
#include <memory>
#include <vector>

#include "api/builder_state.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/write.h"

namespace asdfcore {

/// A tree ready to write.
struct WritePlan {
  tree::NodePtr root;                         ///< The tree to emit (arrays as ndarray nodes).
  std::vector<format::BlockToWrite> blocks;   ///< In block order.
  std::vector<io::Buffer> keep;               ///< Converted copies the blocks point into.
  /// The one streamed or pending array (its block is the last), when `allow_stream`.
  std::shared_ptr<Array::Impl> stream;
};

/// Plan the writing of `tree` with `options`. With `allow_stream`, exactly one streamed or
/// pending array must be present (its block gets no data: the caller sets its source);
/// without, none may be. Throws `Error` (invalid-argument) for the reasons `write` documents.
WritePlan plan_write(const Tree& tree, const WriteOptions& options, bool allow_stream);

/// Return the lower-level settings `options` stand for.
AsdfWriteOptions layout_options(const WriteOptions& options);

}  // namespace asdfcore
