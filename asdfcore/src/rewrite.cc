#include "asdfcore/rewrite.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/inline_data.h"
#include "asdfcore/tree/walk.h"

namespace asdfcore {
namespace {

namespace fs = std::filesystem;
using tree::Node;
using tree::NodePtr;

/// Every ndarray node of `root` once (the first path that reaches it), in document order,
/// masks that are ndarrays included.
std::vector<std::pair<NodePtr, std::string>> ndarray_nodes(const NodePtr& root) {
  std::vector<std::pair<NodePtr, std::string>> out;
  std::map<const Node*, bool> seen;
  tree::walk(root, [&](const NodePtr& node, const std::string& path) {
    if (tree::is_ndarray(*node)) {
      if (seen.emplace(node.get(), true).second) out.emplace_back(node, path);
      // A mask may itself be an ndarray: keep walking into the mapping for it.
      return node->is_mapping();
    }
    return true;
  });
  return out;
}

std::string standard_for(const AsdfFile& file, const RewriteOptions& options) {
  return options.asdf_standard.empty() ? file.asdf_standard() : options.asdf_standard;
}

AsdfWriteOptions write_options(const AsdfFile& file, const RewriteOptions& options) {
  AsdfWriteOptions w;
  w.asdf_standard = standard_for(file, options);
  w.layout = options.layout;
  // Compact unless asked otherwise: no room is left after the tree.
  if (!w.layout.tree_padding) w.layout.tree_padding = 0;
  return w;
}

/// The decoded bytes of every block the tree uses or the file holds, by new block number.
/// Blocks of this file keep their numbers; external block files get numbers after them.
struct PackedBlocks {
  std::vector<io::Buffer> data;
  std::vector<std::string> compression;  // the input's label of each block
};

PackedBlocks gather_blocks(const AsdfFile& file, const NodePtr& tree,
                           const RewriteOptions& options) {
  PackedBlocks packed;
  const format::Container& c = file.container();
  for (std::size_t i = 0; i < c.blocks().size(); ++i) {
    packed.data.push_back(c.data(i, options.open.verify_checksums));
    packed.compression.push_back(c.blocks()[i].header.compression_label());
  }
  std::map<std::string, std::int64_t> externals;
  for (const auto& [node, path] : ndarray_nodes(tree)) {
    if (!node->is_mapping()) continue;
    const NodePtr source = node->get("source");
    if (source && source->kind() == tree::NodeKind::kInt) {
      const std::int64_t s = source->as_int();
      const auto count = static_cast<std::int64_t>(c.blocks().size());
      const std::int64_t index = s < 0 ? count + s : s;
      if (index < 0 || index >= count) {
        throw Error(ErrorCode::kMalformed, "ndarray source " + std::to_string(s) + " names no block",
                    ErrorContext{.file = file.path(), .tree_path = path});
      }
      // Streamed arrays: resolve '*' now that the block is an ordinary one.
      const NodePtr shape = node->get("shape");
      if (shape && shape->is_sequence() && !shape->items().empty() &&
          shape->items().front()->is_string() && shape->items().front()->as_string() == "*") {
        const ndarray::NDArray a = file.array(*node, path);
        shape->items().front() = Node::make_int(static_cast<std::int64_t>(a.shape().front()));
      }
      node->set("source", Node::make_int(index));
    } else if (source && source->is_string()) {
      auto [it, fresh] = externals.emplace(source->as_string(),
                                           static_cast<std::int64_t>(packed.data.size()));
      if (fresh) {
        packed.data.push_back(file.blocks().external(source->as_string()));
        packed.compression.push_back("");
      }
      node->set("source", Node::make_int(it->second));
    }
  }
  return packed;
}

std::vector<format::BlockToWrite> to_write(const PackedBlocks& packed,
                                           const RewriteOptions& options) {
  std::vector<format::BlockToWrite> blocks;
  for (std::size_t i = 0; i < packed.data.size(); ++i) {
    format::BlockToWrite b;
    b.pieces.push_back(packed.data[i].span());
    b.compression = options.compression ? *options.compression : packed.compression[i];
    blocks.push_back(std::move(b));
  }
  return blocks;
}

}  // namespace

void defragment(const std::string& input, const std::string& output,
                const RewriteOptions& options) {
  const AsdfFile file = AsdfFile::open(input, options.open);
  const NodePtr tree = tree::deep_copy(file.tree());
  const PackedBlocks packed = gather_blocks(file, tree, options);
  const auto blocks = to_write(packed, options);
  write_asdf(output, tree, blocks, write_options(file, options));
}

void inline_arrays(const std::string& input, const std::string& output,
                   const RewriteOptions& options) {
  const AsdfFile file = AsdfFile::open(input, options.open);
  const NodePtr tree = tree::deep_copy(file.tree());
  // Read every array before changing any node: masks and views share nodes and blocks.
  std::vector<std::pair<NodePtr, ndarray::NDArray>> arrays;
  for (const auto& [node, path] : ndarray_nodes(tree)) {
    arrays.emplace_back(node, file.array(*node, path));
  }
  for (auto& [node, array] : arrays) {
    if (!node->is_mapping()) continue;  // already inline (a tagged list)
    node->erase("source");
    node->erase("offset");
    node->erase("strides");
    node->set("data", ndarray::to_inline_data(array));
    node->set("shape", Node::make_sequence());
    for (std::uint64_t d : array.shape()) {
      node->get("shape")->push_back(Node::make_int(static_cast<std::int64_t>(d)));
    }
    node->get("shape")->collection_style = tree::CollectionStyle::kFlow;
  }
  write_asdf(output, tree, {}, write_options(file, options));
}

std::vector<std::string> explode(const std::string& input, const std::string& output,
                                 const RewriteOptions& options) {
  const AsdfFile file = AsdfFile::open(input, options.open);
  const NodePtr tree = tree::deep_copy(file.tree());
  const PackedBlocks packed = gather_blocks(file, tree, options);
  const auto blocks = to_write(packed, options);
  const fs::path out(output);
  const std::string stem = out.stem().string();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "%04zu.asdf", i);
    names.push_back(stem + suffix);
  }
  for (const auto& [node, path] : ndarray_nodes(tree)) {
    if (!node->is_mapping()) continue;
    const NodePtr source = node->get("source");
    if (source && source->kind() == tree::NodeKind::kInt) {
      node->set("source", Node::make_string(names[static_cast<std::size_t>(source->as_int())]));
    }
  }
  const AsdfWriteOptions w = write_options(file, options);
  std::vector<std::string> written{output};
  try {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const std::string path = (out.parent_path() / names[i]).string();
      write_asdf(path, Node::make_mapping(), std::span(&blocks[i], 1), w);
      written.push_back(path);
    }
    // The tree last: it appears only once every block file it names is in place.
    write_asdf(output, tree, {}, w);
  } catch (...) {
    // Leave nothing behind: remove the block files written before the failure.
    for (std::size_t i = 1; i < written.size(); ++i) {
      std::error_code ignored;
      fs::remove(written[i], ignored);
    }
    throw;
  }
  return written;
}

void implode(const std::string& input, const std::string& output,
             const RewriteOptions& options) {
  defragment(input, output, options);
}

}  // namespace asdfcore
