#include "asdfcore/ndarray/inline_data.h"

#include <cstring>

#include "asdfcore/error.h"
#include "asdfcore/extension/core_types.h"

namespace asdfcore::ndarray {
namespace {

using tree::Node;
using tree::NodePtr;

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

NodePtr element(const DType& dtype, const std::uint8_t* p);

/// The items of sub-array field `f` from dimension `depth` on, as nested lists like numpy's
/// `tolist()`: `next` counts the items already written, `p` is the field's first byte.
NodePtr subarray(const Field& f, const std::uint8_t* p, std::size_t depth, std::uint64_t& next) {
  if (depth == f.shape.size()) return element(f.dtype, p + (next++) * f.dtype.itemsize());
  NodePtr items = Node::make_sequence();
  for (std::uint64_t i = 0; i < f.shape[depth]; ++i) {
    items->push_back(subarray(f, p, depth + 1, next));
  }
  return items;
}

/// The node of one element whose bytes (native byte order) start at `p`.
NodePtr element(const DType& dtype, const std::uint8_t* p) {
  switch (dtype.kind()) {
    case DTypeKind::kAscii: {
      std::string s;
      for (std::uint64_t i = 0; i < dtype.itemsize(); ++i) append_utf8(s, p[i]);
      while (!s.empty() && s.back() == '\0') s.pop_back();
      return Node::make_string(std::move(s));
    }
    case DTypeKind::kUcs4: {
      std::string s;
      for (std::uint64_t i = 0; i < dtype.length(); ++i) {
        std::uint32_t cp = 0;
        std::memcpy(&cp, p + 4 * i, 4);
        append_utf8(s, cp);
      }
      while (!s.empty() && s.back() == '\0') s.pop_back();
      return Node::make_string(std::move(s));
    }
    case DTypeKind::kStructured: {
      NodePtr record = Node::make_sequence();
      record->collection_style = tree::CollectionStyle::kFlow;
      for (const Field& f : dtype.fields()) {
        // A sub-array field nests by its shape ([[1, 2, 3], [4, 5, 6]] for shape [2, 3]), as
        // python asdf writes it and as both readers expect it.
        std::uint64_t next = 0;
        record->push_back(subarray(f, p + f.offset, 0, next));
      }
      return record;
    }
    default:
      break;
  }
  return visit_numeric(dtype.kind(), [p](auto type) -> NodePtr {
    using T = typename decltype(type)::type;
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      return Node::make_bool(v);
    } else if constexpr (std::is_same_v<T, Float16>) {
      return Node::make_float(float16_to_double(v.bits));
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      return Node::make_integer_text(std::to_string(v));
    } else if constexpr (std::is_integral_v<T>) {
      return Node::make_int(static_cast<std::int64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      return Node::make_float(static_cast<double>(v));
    } else {
      NodePtr c = Node::make_string(extension::format_complex(
          std::complex<double>(static_cast<double>(v.real()), static_cast<double>(v.imag()))));
      c->set_tag(std::string(tree::kAsdfTagPrefix) + "core/complex-1.0.0");
      return c;
    }
  });
}

}  // namespace

NodePtr to_inline_data(const NDArray& array, std::uint64_t max_elements) {
  if (array.size() > max_elements) {
    throw Error(ErrorCode::kLimit, "array of " + std::to_string(array.size()) +
                                       " elements is too large to write inline (limit " +
                                       std::to_string(max_elements) + ")");
  }
  const DType& dtype = array.dtype();
  const std::vector<std::uint8_t> bytes = array.to_c_order(native_byte_order());
  const std::uint64_t itemsize = dtype.itemsize();
  const auto& shape = array.shape();
  if (shape.empty()) return element(dtype, bytes.data());
  // Build the nested lists from the innermost dimension outwards.
  std::vector<NodePtr> level;
  level.reserve(static_cast<std::size_t>(array.size()));
  for (std::uint64_t i = 0; i < array.size(); ++i) {
    level.push_back(element(dtype, bytes.data() + i * itemsize));
  }
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::uint64_t n = shape[d];
    std::uint64_t groups = 1;  // how many lists this dimension has: the product of the outer ones
    for (std::size_t k = 0; k < d; ++k) groups *= shape[k];
    std::vector<NodePtr> up;
    for (std::uint64_t g = 0; g < groups; ++g) {
      NodePtr seq = Node::make_sequence();
      for (std::uint64_t i = 0; i < n; ++i) seq->push_back(level[g * n + i]);
      up.push_back(seq);
    }
    level = std::move(up);
  }
  return level.empty() ? Node::make_sequence() : level.front();
}

}  // namespace asdfcore::ndarray
