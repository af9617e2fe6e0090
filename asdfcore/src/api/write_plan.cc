// Planning a write: placeholders become ndarray nodes (in a block, or inline when small),
// arrays that share bytes share a block, byte orders are converted where asked.
#include "api/write_plan.h"

#include <functional>
#include <map>

#include "asdfcore/ndarray/inline_data.h"

namespace asdfcore {
namespace {

using tree::Node;
using tree::NodePtr;

/// Return the magnitude of the decimal integer `digits` (no sign) as 32-bit words, least
/// significant first, as python asdf's `core/integer` stores it.
std::vector<std::uint32_t> integer_words(std::string digits) {
  std::vector<std::uint32_t> words;
  while (!(digits.empty() || digits == "0")) {
    // One long division of the decimal text by 2^32: the remainder is the next word.
    std::string quotient;
    std::uint64_t rest = 0;
    for (char c : digits) {
      rest = rest * 10 + static_cast<std::uint64_t>(c - '0');
      const std::uint64_t q = rest >> 32;
      rest &= 0xffffffffu;
      if (!quotient.empty() || q != 0) quotient += static_cast<char>('0' + q);
    }
    words.push_back(static_cast<std::uint32_t>(rest));
    digits = quotient;
  }
  if (words.empty()) words.push_back(0);
  return words;
}

NodePtr flow_shape(const std::vector<std::uint64_t>& shape) {
  NodePtr list = Node::make_sequence();
  list->collection_style = tree::CollectionStyle::kFlow;
  for (std::uint64_t d : shape) list->push_back(Node::make_int(static_cast<std::int64_t>(d)));
  return list;
}

std::uint64_t element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

}  // namespace

AsdfWriteOptions layout_options(const WriteOptions& options) {
  AsdfWriteOptions out;
  out.asdf_standard = options.asdf_standard;
  out.layout.comments = options.comments;
  out.layout.checksum = options.checksum;
  out.layout.durable = options.durable;
  out.layout.threads = options.threads;
  out.layout.tree_padding = options.tree_padding;
  return out;
}

WritePlan plan_write(const Tree& tree, const WriteOptions& options, bool allow_stream) {
  if (options.asdf_standard != "1.5.0" && options.asdf_standard != "1.6.0") {
    throw Error(ErrorCode::kInvalidArgument, "cannot write a built tree as ASDF Standard " +
                                                 options.asdf_standard + " (1.5.0 or 1.6.0)");
  }
  if (!tree.node()->is_mapping()) {
    throw Error(ErrorCode::kInvalidArgument, "the root of an ASDF tree must be a mapping, not " +
                                                 describe_for_error(*tree.node()));
  }
  const std::string version = options.asdf_standard == "1.6.0" ? "1.1.0" : "1.0.0";
  const std::string ndarray_tag = std::string(tree::kAsdfTagPrefix) + "core/ndarray-" + version;
  const Tree::Context& context = *tree.context();

  WritePlan plan;
  NodePtr stream_node;
  std::map<const Storage*, std::int64_t> block_of;
  std::map<const Node*, NodePtr> done;

  std::function<NodePtr(const std::shared_ptr<Array::Impl>&)> array_node =
      [&](const std::shared_ptr<Array::Impl>& impl) -> NodePtr {
    const Array::Impl& a = *impl;
    if (version == "1.0.0" && a.dtype.kind() == ndarray::DTypeKind::kFloat16) {
      throw Error(ErrorCode::kInvalidArgument,
                  "float16 arrays need ASDF Standard 1.6.0 (ndarray-1.1.0); the 1.5.0 schema "
                  "has no float16");
    }
    if (a.kind != Array::Kind::kData) {
      if (!allow_stream) {
        throw Error(ErrorCode::kInvalidArgument,
                    "the tree holds a streamed or pending array: write it with a StreamWriter");
      }
      if (plan.stream && plan.stream != impl) {
        throw Error(ErrorCode::kInvalidArgument,
                    "the tree holds more than one streamed or pending array: a StreamWriter "
                    "writes one");
      }
      if (options.byte_order != ndarray::ByteOrder::kNotApplicable &&
          a.dtype.with_byte_order(options.byte_order) != a.dtype) {
        throw Error(ErrorCode::kInvalidArgument,
                    "a streamed or pending array is written in its own byte order: declare it "
                    "in the order asked for (" + std::string(ndarray::asdf_byteorder_name(options.byte_order)) + ")");
      }
      if (plan.stream) return stream_node;
      ndarray::NDArrayNodeSpec spec;
      spec.dtype = a.dtype;
      spec.version = version;
      spec.streamed = a.kind == Array::Kind::kStreamed;
      if (spec.streamed) spec.shape.push_back(0);
      spec.shape.insert(spec.shape.end(), a.shape.begin(), a.shape.end());
      plan.stream = impl;
      stream_node = ndarray::make_ndarray_node(spec);
      return stream_node;
    }

    NodePtr node;
    if (options.inline_threshold > 0 && element_count(a.shape) < options.inline_threshold) {
      node = Node::make_mapping();
      node->set_tag(ndarray_tag);
      node->set("data", ndarray::to_inline_data(array_as_ndarray(a)));
      node->set("datatype", a.dtype.to_node(false));
      node->set("shape", flow_shape(a.shape));
    } else {
      std::shared_ptr<Array::Impl> stored = impl;
      const ndarray::ByteOrder target = options.byte_order;
      if (target != ndarray::ByteOrder::kNotApplicable && a.dtype.with_byte_order(target) != a.dtype) {
        // A converted copy in C order: it no longer shares a block with other views.
        auto copy = std::make_shared<Array::Impl>(a);
        copy->storage = std::make_shared<Storage>();
        copy->storage->bytes = io::Buffer::from_vector(array_as_ndarray(a).to_c_order(target));
        copy->dtype = a.dtype.with_byte_order(target);
        copy->offset = 0;
        copy->strides.clear();
        stored = copy;
      }
      const Array::Impl& s = *stored;
      auto [it, added] = block_of.emplace(s.storage.get(), static_cast<std::int64_t>(plan.blocks.size()));
      if (added) {
        plan.keep.push_back(s.storage);  // alive (and its address unique) until written
        format::BlockToWrite block;
        block.pieces.push_back(s.storage->bytes.span());
        block.compression = s.compression ? *s.compression : options.compression;
        block.level = s.compression ? s.level : options.compression_level;
        plan.blocks.push_back(std::move(block));
      }
      ndarray::NDArrayNodeSpec spec;
      spec.dtype = s.dtype;
      spec.shape = s.shape;
      spec.source = it->second;
      spec.offset = s.offset;
      spec.strides = s.strides;
      spec.version = version;
      node = ndarray::make_ndarray_node(spec);
    }
    if (a.mask) node->set("mask", array_node(a.mask));
    return node;
  };

  std::function<NodePtr(const NodePtr&)> convert = [&](const NodePtr& node) -> NodePtr {
    if (auto it = done.find(node.get()); it != done.end()) return it->second;
    NodePtr out;
    if (node->tag() == kArrayPlaceholderTag) {
      const std::shared_ptr<Array::Impl> impl = context.find(node.get());
      if (!impl) {
        throw Error(ErrorCode::kInvalidArgument,
                    "an array of another tree was put in this one by its node: assign the Tree "
                    "handle or the Array instead");
      }
      out = array_node(impl);
    } else if (node->is_mapping()) {
      out = Node::make_mapping();
      done[node.get()] = out;
      for (const auto& [k, v] : node->entries()) out->entries().emplace_back(k, convert(v));
    } else if (node->is_sequence()) {
      out = Node::make_sequence();
      done[node.get()] = out;
      for (const auto& item : node->items()) out->push_back(convert(item));
    } else if (node->kind() == tree::NodeKind::kBigInt) {
      // Outside int64 python asdf refuses a plain literal (and warns reading one): write
      // `core/integer-1.0.0` as it does, the magnitude in 32-bit words.
      std::string digits = node->integer_text();
      const bool negative = digits.front() == '-';
      if (negative) digits.erase(0, 1);
      out = Node::make_mapping();
      out->set_tag(std::string(tree::kAsdfTagPrefix) + "core/integer-1.0.0");
      out->set("sign", Node::make_string(negative ? "-" : "+"));
      out->set("string", Node::make_string(digits));
      std::vector<std::uint32_t> words = integer_words(digits);
      const std::uint64_t count = words.size();
      out->set("words", array_node(Array::take(std::move(words), {count}).impl()));
      done[node.get()] = out;
      return out;
    } else {
      out = node;
    }
    if (out != node && node->tag() != kArrayPlaceholderTag) {
      out->copy_tag(*node);
      out->scalar_style = node->scalar_style;
      out->collection_style = node->collection_style;
    }
    done[node.get()] = out;
    return out;
  };

  plan.root = convert(tree.node());
  if (allow_stream && !plan.stream) {
    throw Error(ErrorCode::kInvalidArgument,
                "the tree holds no streamed or pending array (Array::streamed, Array::pending): "
                "write it with write()");
  }
  if (plan.stream) {
    // python asdf finds a streamed block only as source -1 (the last block), as it writes it.
    stream_node->set("source", Node::make_int(plan.stream->kind == Array::Kind::kStreamed
                                                  ? -1
                                                  : static_cast<std::int64_t>(plan.blocks.size())));
    format::BlockToWrite block;
    block.streamed = plan.stream->kind == Array::Kind::kStreamed;
    if (!block.streamed) {
      block.compression = plan.stream->compression ? *plan.stream->compression : options.compression;
      block.level = plan.stream->compression ? plan.stream->level : options.compression_level;
      block.source_size = element_count(plan.stream->shape) * plan.stream->dtype.itemsize();
    } else if (plan.stream->compression && !plan.stream->compression->empty()) {
      throw Error(ErrorCode::kInvalidArgument, "a streamed array cannot be compressed (the "
                                               "standard's streamed block is uncompressed)");
    }
    plan.blocks.push_back(std::move(block));
  }
  return plan;
}

}  // namespace asdfcore
