#pragma once
/// \file
/// Building a tree to write: `Tree` holds plain C++ values, nested mappings and sequences,
/// tagged nodes and `Array`s (the data of an ndarray, borrowed or owned), much as a python
/// asdf tree holds numbers, dicts, lists and numpy arrays. `write` (write.h) numbers the blocks.
///
/// \code
///   asdfcore::Tree tree;
///   tree["meta"]["exposure"]["exptime"] = 12.5;
///   tree["meta"]["instrument"]["name"] = "NIRCAM";
///   tree["sci"] = asdfcore::Array::view(std::span<const float>(pixels), {2048, 2048});
///   asdfcore::write("out.asdf", tree);
/// \endcode

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "asdfcore/array_view.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/node.h"

namespace asdfcore {

class AsdfFile;
class File;
class Value;

/// The data of one ndarray to write: an element type, a shape and the bytes (borrowed from
/// the caller, owned, taken from an opened file, or given later to a `StreamWriter`), plus
/// how to store it. Copies share the bytes; two `Array`s made by `view_of` from one array
/// share its block in the written file, as numpy views do in python asdf.
class Array {
 public:
  /// Where the bytes of an array come from.
  enum class Kind {
    kData,      ///< The bytes are known now.
    kStreamed,  ///< A `StreamWriter` appends frames; the first dimension grows (`*`).
    kPending,   ///< A `StreamWriter` is given the bytes in pieces; the shape is known.
  };

  /// Make an array viewing `values` (C order, `shape`'s product elements) without copying:
  /// the caller keeps them alive and unchanged until the file is written. Throws `Error`
  /// (invalid-argument) when the sizes disagree.
  template <typename T>
  static Array view(std::span<const T> values, std::vector<std::uint64_t> shape) {
    return from_bytes(ndarray::DType::numeric(kind_of<T>()), std::move(shape),
                      as_bytes(values), false);
  }
  /// Make an array owning a copy of `values` (see `view`).
  template <typename T>
  static Array copy(std::span<const T> values, std::vector<std::uint64_t> shape) {
    return from_bytes(ndarray::DType::numeric(kind_of<T>()), std::move(shape),
                      as_bytes(values), true);
  }
  /// Make an array owning `values` (moved in; see `view`).
  template <typename T>
  static Array take(std::vector<T> values, std::vector<std::uint64_t> shape) {
    auto owner = std::make_shared<std::vector<T>>(std::move(values));
    const auto bytes = as_bytes(std::span<const T>(*owner));
    return from_buffer(ndarray::DType::numeric(kind_of<T>()), std::move(shape),
                       io::Buffer(owner, bytes));
  }
  /// Make an array of any element type (records, `ascii`/`ucs4` strings, another byte order)
  /// from its bytes in C order; `copy` false borrows them (see `view`). Throws `Error`
  /// (invalid-argument) when the byte count is not the shape's product times the item size.
  static Array from_bytes(const ndarray::DType& dtype, std::vector<std::uint64_t> shape,
                          std::span<const std::uint8_t> bytes, bool copy);
  /// Make an array of the bytes `bytes` (kept alive by the buffer; see `from_bytes`).
  static Array from_buffer(const ndarray::DType& dtype, std::vector<std::uint64_t> shape,
                           io::Buffer bytes);
  /// Make an array of the ndarray `array` read from a file (its bytes stay shared with the
  /// file; a strided view keeps its block, offset and strides).
  static Array from_ndarray(const std::shared_ptr<const ndarray::NDArray>& array);
  /// Make an array of `T` whose frames of shape `frame_shape` a `StreamWriter` appends one
  /// after another (written as a streamed block, shape `['*', ...frame_shape]`).
  template <typename T>
  static Array streamed(std::vector<std::uint64_t> frame_shape) {
    return placeholder(ndarray::DType::numeric(kind_of<T>()), std::move(frame_shape),
                       Kind::kStreamed);
  }
  /// Make an array of `T` of shape `shape` whose bytes a `StreamWriter` is given in pieces
  /// (in C order), so it never has to be in memory whole; it can be compressed.
  template <typename T>
  static Array pending(std::vector<std::uint64_t> shape) {
    return placeholder(ndarray::DType::numeric(kind_of<T>()), std::move(shape), Kind::kPending);
  }
  /// Make a streamed or pending array (see `streamed` and `pending`) of any element type.
  static Array placeholder(const ndarray::DType& dtype, std::vector<std::uint64_t> shape,
                           Kind kind);

  /// Return a view of this array's bytes: the element at `offset` bytes from the start of
  /// this array's first element, `shape` elements, `strides` bytes per step (C-order strides
  /// when empty). The two share one block when written. Throws `Error` (invalid-argument)
  /// when an element would lie outside the bytes.
  Array view_of(std::uint64_t offset, std::vector<std::uint64_t> shape,
                std::vector<std::int64_t> strides = {}) const;

  /// Compress this array's block with `codec` ("zlib", "bzp2", "lz4", or "" for none) at
  /// `level` (-1 for the codec's default), instead of the write's default. Returns this.
  Array& compression(std::string codec, int level = -1);
  /// Mark elements as missing with the array `mask` (same shape; non-zero = masked), written
  /// as the ndarray's `mask`: a bool8 array (a copy is made of any other type, as the 1.5.0
  /// schema takes only bool8). Throws `Error` (invalid-argument) for another shape or a mask
  /// of strings or records. Returns this.
  Array& mask(const Array& mask);

  /// Return the element type.
  const ndarray::DType& dtype() const noexcept;
  /// Return the shape in elements (a streamed array: one frame's).
  const std::vector<std::uint64_t>& shape() const noexcept;
  /// Return where the bytes come from.
  Kind kind() const noexcept;

  /// \cond INTERNAL
  struct Impl;
  const std::shared_ptr<Impl>& impl() const noexcept { return impl_; }
  static Array from_impl(std::shared_ptr<Impl> impl) { return Array(std::move(impl)); }
  /// \endcond

 private:
  template <typename T>
  static std::span<const std::uint8_t> as_bytes(std::span<const T> values) {
    return {reinterpret_cast<const std::uint8_t*>(values.data()), values.size_bytes()};
  }
  explicit Array(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

/// A tree being built: a handle to one node (the root, or a place inside it). Handles made by
/// `operator[]` write through: assigning to `tree["a"]["b"]` creates `a` as a mapping when it
/// is missing or null and sets `b`. Assigning a `Tree` shares its node (written once, with a
/// YAML alias where it appears again). Copying a handle gives a second handle to the same place.
class Tree {
 public:
  /// Make a tree whose root is an empty mapping.
  Tree();
  /// Make a tree whose root is an empty mapping (as `Tree()`).
  static Tree mapping();
  /// Make a tree whose root is an empty sequence.
  static Tree sequence();
  /// Make a tree from a copy of the tree of `file`: tags and unknown nodes kept as they are,
  /// every ndarray an `Array` sharing the file's bytes (so the file must stay readable until
  /// the new one is written). Change it, then write it elsewhere.
  static Tree from(const File& file);
  /// Make a tree from a copy of `value` and what lies below it (see `from(const File&)`).
  static Tree from(const Value& value);

  /// Return the handle of the entry `key` of this mapping, adding a null entry when missing
  /// (a null node becomes an empty mapping first). Throws `Error` (wrong-type) when this node
  /// is neither a mapping nor null.
  Tree operator[](std::string_view key);
  /// Return the handle of item `index` of this sequence. Throws `Error` (wrong-type) when this
  /// is not a sequence, (not-found) past its end.
  Tree operator[](std::size_t index);

  /// Replace this node by `value`. Returns this handle.
  Tree& operator=(std::nullptr_t);
  /// Replace this node by the boolean `value`.
  Tree& operator=(bool value);
  /// Replace this node by the integer `value` (any integer type).
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Tree& operator=(I value) {
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t)) {
      return replace(tree::Node::make_integer_text(std::to_string(value)));
    } else {
      return replace(tree::Node::make_int(static_cast<std::int64_t>(value)));
    }
  }
  /// Replace this node by the float `value`.
  Tree& operator=(double value);
  /// Replace this node by the string `value`.
  Tree& operator=(std::string_view value);
  /// Replace this node by the string `value`.
  Tree& operator=(const char* value) { return *this = std::string_view(value); }
  /// Replace this node by the string `value`.
  Tree& operator=(const std::string& value) { return *this = std::string_view(value); }
  /// Replace this node by a sequence of `values` (numbers, strings, bools).
  template <typename T>
  Tree& operator=(const std::vector<T>& values) {
    Tree list = sequence();
    for (const T& v : values) list.push_back(v);
    return *this = list;
  }
  /// Replace this node by the ndarray `array`.
  Tree& operator=(const Array& array);
  /// Replace this node by `other`'s node (shared, not copied).
  Tree& operator=(const Tree& other);
  /// Replace this node by `node`, a node of the lower-level tree API (shared, not copied): any
  /// kind the assignments above do not make (timestamps, binary, integers beyond 64 bits,
  /// mappings whose keys are not strings). Nodes made by `array_node` of this tree may lie
  /// anywhere inside it. Returns this handle.
  Tree& set_node(tree::NodePtr node);
  /// Return a new node standing for `array` in this tree, to be placed inside a node given to
  /// `set_node` (the lower-level way of `operator=(const Array&)`).
  tree::NodePtr array_node(const Array& array);
  /// Make a second handle to the place `other` names.
  Tree(const Tree& other) = default;

  /// Append `value` (anything `operator=` takes) to this sequence (a null node becomes an
  /// empty sequence first). Throws `Error` (wrong-type) for any other node. Returns this.
  template <typename T>
  Tree& push_back(const T& value) {
    Tree item = append_null();
    item = value;
    return *this;
  }
  /// Set this node's tag to the full URI `uri` ("tag:example.org:pipeline/step-1.0.0", or
  /// "" to remove it). Returns this.
  Tree& tag(std::string uri);
  /// Return true when this mapping has the key `key`.
  bool contains(std::string_view key) const;
  /// Remove the entry `key` of this mapping; return whether there was one.
  bool erase(std::string_view key);
  /// Return the number of entries or items (0 for a scalar).
  std::size_t size() const;
  /// Return the node (for the lower-level tree API). Arrays appear as placeholder nodes.
  const tree::NodePtr& node() const noexcept { return node_; }

  /// \cond INTERNAL
  struct Context;
  const std::shared_ptr<Context>& context() const noexcept { return context_; }
  /// Make a tree from a copy of `root` (at JSON Pointer `path` of `file`, which may be null):
  /// as `from(const Value&)`, and a placeholder node of `arrays` stays the array it stands for.
  static Tree from_nodes(const std::shared_ptr<const AsdfFile>& file, const tree::NodePtr& root,
                         const std::string& path, const Context* arrays);
  /// \endcond

 private:
  Tree(std::shared_ptr<Context> context, tree::NodePtr node, tree::NodePtr parent,
       std::string key, std::optional<std::size_t> index);
  Tree& replace(tree::NodePtr node);
  Tree append_null();

  std::shared_ptr<Context> context_;
  tree::NodePtr node_;
  tree::NodePtr parent_;  ///< The mapping or sequence holding this node (null for a root).
  std::string key_;       ///< The entry's key when the parent is a mapping.
  std::optional<std::size_t> index_;  ///< The item's index when the parent is a sequence.
};

}  // namespace asdfcore
