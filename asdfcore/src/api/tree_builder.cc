// Building trees to write: `Array` (an ndarray's data and how to store it) and `Tree` (handles
// that write through into a tree of nodes, arrays held as placeholder nodes).
#include "asdfcore/tree_builder.h"

#include <cstring>
#include <functional>
#include <map>

#include "asdfcore/file.h"
#include "api/builder_state.h"
#include "asdfcore/tree/walk.h"

namespace asdfcore {
namespace {

using tree::Node;
using tree::NodePtr;

std::uint64_t element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) {
      throw Error(ErrorCode::kInvalidArgument, "the array's shape holds more elements than fit in 64 bits");
    }
    n *= d;
  }
  return n;
}

std::string describe_shape(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// One array's bytes as block 0, for reading an array being built through `NDArray`.
class MemoryBlock final : public ndarray::BlockProvider {
 public:
  explicit MemoryBlock(io::Buffer bytes) : bytes_(std::move(bytes)) {}
  io::Buffer block(std::int64_t) const override { return bytes_; }
  std::uint64_t block_count() const override { return 1; }
  io::Buffer external(const std::string& uri) const override {
    throw Error(ErrorCode::kInvalidArgument,
                "an array being built has no external block '" + uri + "'");
  }

 private:
  io::Buffer bytes_;
};

}  // namespace

ndarray::NDArray array_as_ndarray(const Array::Impl& a) {
  ndarray::NDArrayNodeSpec spec;
  spec.dtype = a.dtype;
  spec.shape = a.shape;
  spec.offset = a.offset;
  spec.strides = a.strides;
  const NodePtr node = ndarray::make_ndarray_node(spec);
  return ndarray::NDArray::from_node(*node, MemoryBlock(a.storage->bytes), "");
}

Array Array::from_buffer(const ndarray::DType& dtype, std::vector<std::uint64_t> shape,
                         io::Buffer bytes) {
  const std::uint64_t want = element_count(shape) * dtype.itemsize();
  if (bytes.size() != want) {
    throw Error(ErrorCode::kInvalidArgument,
                "an array of shape " + describe_shape(shape) + " and type " + dtype.to_string() +
                    " needs " + std::to_string(want) + " bytes, not " + std::to_string(bytes.size()));
  }
  auto impl = std::make_shared<Impl>();
  impl->dtype = dtype;
  impl->shape = std::move(shape);
  impl->storage = std::make_shared<Storage>();
  impl->storage->bytes = std::move(bytes);
  return Array(std::move(impl));
}

Array Array::from_bytes(const ndarray::DType& dtype, std::vector<std::uint64_t> shape,
                        std::span<const std::uint8_t> bytes, bool copy) {
  io::Buffer buffer = copy ? io::Buffer::from_vector({bytes.begin(), bytes.end()})
                           : io::Buffer(nullptr, bytes);
  return from_buffer(dtype, std::move(shape), std::move(buffer));
}

Array Array::from_ndarray(const std::shared_ptr<const ndarray::NDArray>& array) {
  auto storage = std::make_shared<Storage>();
  storage->bytes = array->data();
  return array_from_storage(*array, std::move(storage));
}

Array array_from_storage(const ndarray::NDArray& array, std::shared_ptr<Storage> storage) {
  auto impl = std::make_shared<Array::Impl>();
  impl->dtype = array.dtype();
  impl->shape = array.shape();
  impl->storage = std::move(storage);
  impl->offset = array.offset();
  if (array.has_explicit_strides()) impl->strides = array.strides();
  return Array::from_impl(std::move(impl));
}

Array Array::placeholder(const ndarray::DType& dtype, std::vector<std::uint64_t> shape, Kind kind) {
  if (kind == Kind::kData) {
    throw Error(ErrorCode::kInvalidArgument, "Array::placeholder makes streamed or pending arrays");
  }
  (void)element_count(shape);
  auto impl = std::make_shared<Impl>();
  impl->dtype = dtype;
  impl->shape = std::move(shape);
  impl->kind = kind;
  return Array(std::move(impl));
}

Array Array::view_of(std::uint64_t offset, std::vector<std::uint64_t> shape,
                     std::vector<std::int64_t> strides) const {
  if (impl_->kind != Kind::kData) {
    throw Error(ErrorCode::kInvalidArgument, "a streamed or pending array has no bytes to view");
  }
  if (!strides.empty() && strides.size() != shape.size()) {
    throw Error(ErrorCode::kInvalidArgument, std::to_string(strides.size()) + " strides for " +
                                                 std::to_string(shape.size()) + " dimensions");
  }
  const std::uint64_t item = impl_->dtype.itemsize();
  if (strides.empty()) {
    std::int64_t step = static_cast<std::int64_t>(item);
    strides.assign(shape.size(), 0);
    for (std::size_t d = shape.size(); d-- > 0;) {
      strides[d] = step;
      step *= static_cast<std::int64_t>(shape[d]);
    }
  }
  // Every element must lie inside the storage: check the lowest and highest byte reached.
  const auto start = static_cast<std::int64_t>(impl_->offset + offset);
  std::int64_t low = start;
  std::int64_t high = start;
  const bool empty = element_count(shape) == 0;
  for (std::size_t d = 0; d < shape.size() && !empty; ++d) {
    const std::int64_t reach = strides[d] * static_cast<std::int64_t>(shape[d] - 1);
    (reach < 0 ? low : high) += reach;
  }
  const auto size = static_cast<std::int64_t>(impl_->storage->bytes.size());
  if (!empty && (low < 0 || high + static_cast<std::int64_t>(item) > size)) {
    throw Error(ErrorCode::kInvalidArgument,
                "the view reaches bytes " + std::to_string(low) + " to " +
                    std::to_string(high + static_cast<std::int64_t>(item)) +
                    ", outside the array's " + std::to_string(size) + " bytes");
  }
  auto impl = std::make_shared<Impl>(*impl_);
  impl->shape = std::move(shape);
  impl->offset = static_cast<std::uint64_t>(start);
  impl->strides = std::move(strides);
  impl->mask.reset();
  return Array(std::move(impl));
}

Array& Array::compression(std::string codec, int level) {
  impl_->compression = std::move(codec);
  impl_->level = level;
  return *this;
}

Array& Array::mask(const Array& mask) {
  if (mask.impl_->kind != Kind::kData || mask.shape() != shape()) {
    throw Error(ErrorCode::kInvalidArgument, "a mask must be an array of the same shape, " +
                                                 describe_shape(shape()) + ", not " +
                                                 describe_shape(mask.shape()));
  }
  if (mask.dtype().kind() == ndarray::DTypeKind::kBool8) {
    impl_->mask = mask.impl_;
    return *this;
  }
  // The ndarray schema of the 1.5.0 standard takes a bool8 mask array: non-zero is masked.
  if (!mask.dtype().is_numeric()) {
    throw Error(ErrorCode::kInvalidArgument,
                "a mask must hold numbers or booleans, not " + mask.dtype().to_string());
  }
  const ndarray::NDArray values = array_as_ndarray(*mask.impl_);
  const std::vector<std::uint8_t> bytes = values.to_c_order(ndarray::native_byte_order());
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(values.size()));
  const std::uint64_t item = values.dtype().itemsize();
  ndarray::visit_numeric(values.dtype().kind(), [&](auto type) {
    using T = typename decltype(type)::type;
    for (std::size_t i = 0; i < flags.size(); ++i) {
      const std::uint8_t* p = bytes.data() + i * item;
      if constexpr (std::is_same_v<T, ndarray::Float16>) {
        std::uint16_t bits;
        std::memcpy(&bits, p, 2);
        flags[i] = (bits & 0x7fff) != 0;
      } else if constexpr (std::is_same_v<T, bool>) {
        flags[i] = *p != 0;
      } else {
        T v;
        std::memcpy(&v, p, sizeof(T));
        flags[i] = v != T{};
      }
    }
  });
  impl_->mask = Array::take(std::move(flags), mask.shape()).impl_;
  impl_->mask->dtype = ndarray::DType::numeric(ndarray::DTypeKind::kBool8);
  return *this;
}

const ndarray::DType& Array::dtype() const noexcept { return impl_->dtype; }
const std::vector<std::uint64_t>& Array::shape() const noexcept { return impl_->shape; }
Array::Kind Array::kind() const noexcept { return impl_->kind; }

// ---- Tree ----

Tree::Tree() : Tree(std::make_shared<Context>(), Node::make_mapping(), nullptr, "", std::nullopt) {}

Tree::Tree(std::shared_ptr<Context> context, NodePtr node, NodePtr parent, std::string key,
           std::optional<std::size_t> index)
    : context_(std::move(context)),
      node_(std::move(node)),
      parent_(std::move(parent)),
      key_(std::move(key)),
      index_(index) {}

Tree Tree::mapping() { return Tree(); }

Tree Tree::sequence() {
  return Tree(std::make_shared<Context>(), Node::make_sequence(), nullptr, "", std::nullopt);
}

Tree Tree::from(const File& file) { return from(file.root()); }

Tree Tree::from(const Value& value) {
  return from_nodes(value.file(), value.node(), value.path(), nullptr);
}

Tree Tree::from_nodes(const std::shared_ptr<const AsdfFile>& file, const NodePtr& root,
                      const std::string& root_path, const Context* arrays) {
  auto context = std::make_shared<Context>();
  std::map<const Node*, NodePtr> copies;                   // keeps the source's sharing
  std::map<std::uint64_t, std::shared_ptr<Storage>> blocks;  // one storage per source block
  std::function<NodePtr(const NodePtr&, const std::string&)> copy =
      [&](const NodePtr& node, const std::string& path) -> NodePtr {
    if (auto it = copies.find(node.get()); it != copies.end()) return it->second;
    NodePtr out;
    if (const auto placed = arrays ? arrays->find(node.get()) : nullptr) {
      out = context->add(Array::from_impl(placed));
    } else if (file && tree::is_ndarray(*node)) {
      const ndarray::NDArray array = file->array(*node, path);
      std::shared_ptr<Storage>& storage = array.source().kind == ndarray::SourceKind::kBlock
                                              ? blocks[array.source().block]
                                              : blocks[UINT64_MAX - blocks.size()];
      if (!storage) {
        storage = std::make_shared<Storage>();
        storage->bytes = array.data();
        if (array.source().kind == ndarray::SourceKind::kBlock) {
          const auto& header = file->container().blocks()[array.source().block].header;
          storage->compression = std::string(header.compression_label());
        }
      }
      Array a = array_from_storage(array, storage);
      if (storage->compression) a.compression(*storage->compression);
      if (const NodePtr mask = node->get("mask"); mask && tree::is_ndarray(*mask)) {
        a.mask(Array::from_ndarray(std::make_shared<ndarray::NDArray>(file->array(*mask, path + "/mask"))));
      }
      out = context->add(a);
    } else if (node->is_mapping()) {
      out = Node::make_mapping();
      copies[node.get()] = out;
      for (const auto& [k, v] : node->entries()) {
        out->entries().emplace_back(k, copy(v, path + "/" + tree::escape_pointer_token(
                                                             k->is_string() ? k->as_string()
                                                                            : describe_for_error(*k))));
      }
    } else if (node->is_sequence()) {
      out = Node::make_sequence();
      copies[node.get()] = out;
      for (std::size_t i = 0; i < node->size(); ++i) {
        out->push_back(copy(node->items()[i], path + "/" + std::to_string(i)));
      }
    } else {
      out = node;  // scalars are not changed in place by the builder: share them
    }
    if (out != node && out->tag() != kArrayPlaceholderTag) {
      out->copy_tag(*node);
      out->scalar_style = node->scalar_style;
      out->collection_style = node->collection_style;
    }
    copies[node.get()] = out;
    return out;
  };
  return Tree(context, copy(root, root_path), nullptr, "", std::nullopt);
}

Tree Tree::operator[](std::string_view key) {
  if (node_->is_null()) replace(Node::make_mapping());
  if (!node_->is_mapping()) {
    throw Error(ErrorCode::kWrongType, "cannot add the key '" + std::string(key) + "' to " +
                                           describe_for_error(*node_) + ": it is not a mapping");
  }
  NodePtr child = node_->get(key);
  if (!child) {
    child = Node::make_null();
    node_->set(key, child);
  }
  return Tree(context_, child, node_, std::string(key), std::nullopt);
}

Tree Tree::operator[](std::size_t index) {
  if (!node_->is_sequence()) {
    throw Error(ErrorCode::kWrongType, "cannot take item " + std::to_string(index) + " of " +
                                           describe_for_error(*node_) + ": it is not a sequence");
  }
  if (index >= node_->size()) {
    throw Error(ErrorCode::kNotFound, "no item " + std::to_string(index) + ": the sequence has " +
                                          std::to_string(node_->size()));
  }
  return Tree(context_, node_->items()[index], node_, "", index);
}

Tree& Tree::replace(NodePtr node) {
  if (parent_ && index_) {
    parent_->items()[*index_] = node;
  } else if (parent_) {
    parent_->set(key_, node);
  }
  node_ = std::move(node);
  return *this;
}

Tree Tree::append_null() {
  if (node_->is_null()) replace(Node::make_sequence());
  if (!node_->is_sequence()) {
    throw Error(ErrorCode::kWrongType,
                "cannot append to " + describe_for_error(*node_) + ": it is not a sequence");
  }
  node_->push_back(Node::make_null());
  return Tree(context_, node_->items().back(), node_, "", node_->size() - 1);
}

Tree& Tree::operator=(std::nullptr_t) { return replace(Node::make_null()); }
Tree& Tree::operator=(bool value) { return replace(Node::make_bool(value)); }
Tree& Tree::operator=(double value) { return replace(Node::make_float(value)); }
Tree& Tree::operator=(std::string_view value) { return replace(Node::make_string(std::string(value))); }
Tree& Tree::operator=(const Array& array) { return replace(context_->add(array)); }

Tree& Tree::operator=(const Tree& other) {
  if (this == &other) return *this;
  if (other.context_ != context_) context_->merge(*other.context_);
  return replace(other.node_);
}

Tree& Tree::set_node(NodePtr node) {
  if (!node) throw Error(ErrorCode::kInvalidArgument, "Tree::set_node: the node is null");
  return replace(std::move(node));
}

NodePtr Tree::array_node(const Array& array) { return context_->add(array); }

Tree& Tree::tag(std::string uri) {
  node_->set_tag(std::move(uri));
  return *this;
}

bool Tree::contains(std::string_view key) const { return node_->is_mapping() && node_->get(key); }
bool Tree::erase(std::string_view key) { return node_->is_mapping() && node_->erase(key); }
std::size_t Tree::size() const { return node_->size(); }

}  // namespace asdfcore
