#pragma once
// The state behind the builder's handles, shared by tree_builder.cc, write.cc and
// stream_writer.cc: an array's bytes and storage settings, and the arrays of a tree (held as
// placeholder nodes until written).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/tree_builder.h"

namespace asdfcore {

/// The bytes of one block to be: shared by an array and the views made of it.
struct Storage {
  io::Buffer bytes;                        ///< Empty for streamed and pending arrays.
  std::optional<std::string> compression;  ///< The codec of the block the bytes came from.
};

/// What an `Array` handle holds.
struct Array::Impl {
  ndarray::DType dtype;
  std::vector<std::uint64_t> shape;
  Kind kind = Kind::kData;
  std::shared_ptr<Storage> storage;
  std::uint64_t offset = 0;           ///< Bytes from the start of the storage to element 0.
  std::vector<std::int64_t> strides;  ///< Bytes per step; empty for C order.
  std::optional<std::string> compression;  ///< The array's own codec choice.
  int level = -1;
  std::shared_ptr<Impl> mask;
};

/// Return an array of `array`'s type, shape, offset and strides over `storage` (its block).
Array array_from_storage(const ndarray::NDArray& array, std::shared_ptr<Storage> storage);

/// The tag of the placeholder node standing for an array in a tree being built.
inline constexpr std::string_view kArrayPlaceholderTag = "tag:fitsasdf.org:internal/array-placeholder";

/// The arrays of a tree being built, by their placeholder nodes.
struct Tree::Context {
  std::map<const tree::Node*, std::pair<tree::NodePtr, std::shared_ptr<Array::Impl>>> arrays;

  /// Return a new placeholder node standing for `array`.
  tree::NodePtr add(const Array& array) {
    tree::NodePtr node = tree::Node::make_mapping();
    node->set_tag(std::string(kArrayPlaceholderTag));
    arrays[node.get()] = {node, array.impl()};
    return node;
  }
  /// Take the arrays of `other` (a tree whose nodes are being put into this one).
  void merge(const Context& other) {
    for (const auto& entry : other.arrays) arrays.insert(entry);
  }
  /// Return the array `node` stands for, or null.
  std::shared_ptr<Array::Impl> find(const tree::Node* node) const {
    const auto it = arrays.find(node);
    return it == arrays.end() ? nullptr : it->second.second;
  }
};

}  // namespace asdfcore
