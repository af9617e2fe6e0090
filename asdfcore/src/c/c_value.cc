// Values of libasdf's C API: handles, types, scalar getters with libasdf's integer rules,
// mappings, sequences, iteration and search, over asdfcore's tree nodes.
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

#include "asdfcore/tree/node.h"
#include "c/c_state.h"

using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;
namespace capi = asdfcore::capi;
namespace tree = asdfcore::tree;

namespace asdfcore::capi {

asdf_value* make_value(asdf_file* file, NodePtr node, std::string path, std::string pointer) {
  auto* v = new asdf_value;
  v->file = file;
  v->node = std::move(node);
  v->path = std::move(path);
  v->pointer = std::move(pointer);
  return v;
}

asdf_value* make_floating(asdf_file* file, NodePtr node, asdf_value_type_t made_as) {
  if (!file) return nullptr;
  asdf_value* v = make_value(file, std::move(node), "", "");
  v->made_as = made_as;
  file->floating.insert(v);
  return v;
}

void release_value(asdf_value* value) noexcept {
  if (!value) return;
  if (value->file) value->file->floating.erase(value);
  delete value;
}

NodePtr uint_node(std::uint64_t value) {
  return value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             ? Node::make_integer_text(std::to_string(value))
             : Node::make_int(static_cast<std::int64_t>(value));
}

std::optional<std::string> scalar_text(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kNull:
      return std::string("null");
    case NodeKind::kBool:
      return std::string(node.as_bool() ? "true" : "false");
    case NodeKind::kInt:
    case NodeKind::kBigInt:
      return node.integer_text();
    case NodeKind::kFloat: {
      const double d = node.as_double();
      if (std::isnan(d)) return std::string(".nan");
      if (std::isinf(d)) return std::string(d > 0 ? ".inf" : "-.inf");
      char buffer[64];
      const auto result = std::to_chars(buffer, buffer + sizeof buffer, d);
      std::string text(buffer, result.ptr);
      if (text.find_first_of(".en") == std::string::npos) text += ".0";
      return text;
    }
    case NodeKind::kString:
    case NodeKind::kTimestamp:
      return node.as_string();
    case NodeKind::kBinary: {
      const auto& bytes = node.as_binary();
      return std::string(bytes.begin(), bytes.end());
    }
    default:
      return std::nullopt;
  }
}

}  // namespace asdfcore::capi

namespace {

/// An integer of the tree: its sign and magnitude (any value from INT64_MIN to UINT64_MAX).
struct Integer {
  bool negative = false;
  std::uint64_t magnitude = 0;
};

/// Return the integer `node` holds, or nothing (not an integer, or beyond 64 bits: `overflow`).
std::optional<Integer> integer_of(const Node& node, bool* overflow = nullptr) {
  if (node.kind() == NodeKind::kInt) {
    const std::int64_t v = node.as_int();
    return v < 0 ? Integer{true, static_cast<std::uint64_t>(-(v + 1)) + 1}
                 : Integer{false, static_cast<std::uint64_t>(v)};
  }
  if (node.kind() == NodeKind::kBigInt) {
    const std::string text = node.integer_text();
    std::uint64_t u = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), u);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return Integer{false, u};
    if (overflow) *overflow = true;
  }
  return std::nullopt;
}

/// Return true when `i` is a value of `T`.
template <typename T>
bool fits(const Integer& i) {
  if (i.negative) {
    if constexpr (std::is_unsigned_v<T>) {
      return false;
    } else {
      return i.magnitude <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()) + 1;
    }
  }
  return i.magnitude <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

/// Return `i` converted to `T` as C converts (wrapping), the value libasdf stores on overflow.
template <typename T>
T c_cast(const Integer& i) {
  const std::uint64_t bits = i.negative ? ~i.magnitude + 1 : i.magnitude;
  return static_cast<T>(bits);
}

/// Return the type libasdf gives an integer: the smallest unsigned type for one that is not
/// negative, the smallest signed type for one that is.
asdf_value_type_t integer_type(const Integer& i) {
  if (i.negative) {
    if (fits<std::int8_t>(i)) return ASDF_VALUE_INT8;
    if (fits<std::int16_t>(i)) return ASDF_VALUE_INT16;
    if (fits<std::int32_t>(i)) return ASDF_VALUE_INT32;
    return ASDF_VALUE_INT64;
  }
  if (fits<std::uint8_t>(i)) return ASDF_VALUE_UINT8;
  if (fits<std::uint16_t>(i)) return ASDF_VALUE_UINT16;
  if (fits<std::uint32_t>(i)) return ASDF_VALUE_UINT32;
  return ASDF_VALUE_UINT64;
}

asdf_value_type_t type_of(const asdf_value* v) {
  if (!v || !v->node) return ASDF_VALUE_UNKNOWN;
  const Node& node = *v->node;
  switch (node.kind()) {
    case NodeKind::kNull:
      return ASDF_VALUE_NULL;
    case NodeKind::kBool:
      return ASDF_VALUE_BOOL;
    case NodeKind::kInt:
    case NodeKind::kBigInt: {
      const auto i = integer_of(node);
      return i ? integer_type(*i) : ASDF_VALUE_UNKNOWN;
    }
    case NodeKind::kFloat:
      return v->made_as == ASDF_VALUE_FLOAT ? ASDF_VALUE_FLOAT : ASDF_VALUE_DOUBLE;
    case NodeKind::kString:
    case NodeKind::kTimestamp:
    case NodeKind::kBinary:
      return ASDF_VALUE_STRING;
    case NodeKind::kSequence:
      return ASDF_VALUE_SEQUENCE;
    case NodeKind::kMapping:
      return capi::is_ndarray_node(v->file, v->node) ? ASDF_VALUE_EXTENSION : ASDF_VALUE_MAPPING;
  }
  return ASDF_VALUE_UNKNOWN;
}

bool is_scalar_kind(NodeKind k) { return k != NodeKind::kMapping && k != NodeKind::kSequence; }

template <typename T>
asdf_value_err_t as_integer(asdf_value* v, T* out) {
  if (!v || !v->node) return ASDF_VALUE_ERR_UNKNOWN;
  bool overflow = false;
  const auto i = integer_of(*v->node, &overflow);
  if (!i) return overflow ? ASDF_VALUE_ERR_OVERFLOW : ASDF_VALUE_ERR_TYPE_MISMATCH;
  if (out) *out = c_cast<T>(*i);
  return fits<T>(*i) ? ASDF_VALUE_OK : ASDF_VALUE_ERR_OVERFLOW;
}

template <typename T>
bool is_integer(asdf_value* v) {
  if (!v || !v->node) return false;
  const auto i = integer_of(*v->node);
  return i && fits<T>(*i);
}

/// Return the node a typed view stands for, if it is a mapping.
Node* mapping_node(asdf_mapping_t* m) {
  auto* v = reinterpret_cast<asdf_value*>(m);
  return v && v->node && v->node->is_mapping() ? v->node.get() : nullptr;
}
Node* sequence_node(asdf_sequence_t* s) {
  auto* v = reinterpret_cast<asdf_value*>(s);
  return v && v->node && v->node->is_sequence() ? v->node.get() : nullptr;
}

/// Take `child`'s node into the tree of `target` and free the handle (it is now the tree's).
NodePtr take(asdf_file* target, asdf_value* child) {
  NodePtr node = capi::adopt(target, child);
  capi::release_value(child);
  return node;
}

/// A child handle of `parent` under `key` or at `index`.
asdf_value* child_value(const asdf_value* parent, const NodePtr& node, const std::string* key,
                        std::size_t index) {
  const bool attached = !parent->path.empty();
  const std::string base = parent->path == "/" ? "" : parent->path;
  std::string path, pointer;
  if (attached) {
    path = base + "/" + (key ? capi::escape_key(*key) : std::to_string(index));
    pointer = parent->pointer + "/" +
              (key ? tree::escape_pointer_token(*key) : std::to_string(index));
  }
  return capi::make_value(parent->file, node, std::move(path), std::move(pointer));
}

asdf_value_err_t mapping_put(asdf_mapping_t* m, const char* key, NodePtr node) {
  Node* map = mapping_node(m);
  if (!map || !key) return ASDF_VALUE_ERR_UNKNOWN;
  map->set(key, std::move(node));
  return ASDF_VALUE_OK;
}

asdf_value_err_t sequence_put(asdf_sequence_t* s, NodePtr node) {
  Node* seq = sequence_node(s);
  if (!seq) return ASDF_VALUE_ERR_UNKNOWN;
  seq->push_back(std::move(node));
  return ASDF_VALUE_OK;
}

tree::CollectionStyle style_of(asdf_yaml_node_style_t style) {
  return style == ASDF_YAML_NODE_STYLE_FLOW    ? tree::CollectionStyle::kFlow
         : style == ASDF_YAML_NODE_STYLE_BLOCK ? tree::CollectionStyle::kBlock
                                               : tree::CollectionStyle::kAny;
}


NodePtr string_node(const char* s, std::size_t len) {
  return Node::make_string(s ? std::string(s, len) : std::string());
}

}  // namespace

extern "C" {

void asdf_value_destroy(asdf_value_t* value) { capi::release_value(value); }

asdf_value_t* asdf_value_copy(asdf_value_t* value) {
  if (!value) return nullptr;
  return capi::guarded<asdf_value_t*>(value->file, nullptr, [&] {
    asdf_value* copy = capi::make_value(value->file, tree::deep_copy(value->node), value->path,
                                        value->pointer);
    copy->made_as = value->made_as;
    return copy;
  });
}

asdf_value_type_t asdf_value_get_type(asdf_value_t* value) { return type_of(value); }

const char* asdf_value_path(asdf_value_t* value) {
  return value && !value->path.empty() ? value->path.c_str() : nullptr;
}

asdf_value_t* asdf_value_parent(asdf_value_t* value) {
  if (!value || !value->file || value->path.empty() || value->path == "/") return nullptr;
  return capi::guarded<asdf_value_t*>(value->file, nullptr, [&]() -> asdf_value_t* {
    // The parent's path is this one without its last component (which may hold "\/").
    std::size_t cut = value->path.size();
    while (cut > 0) {
      --cut;
      if (value->path[cut] != '/') continue;
      std::size_t backslashes = 0;
      for (std::size_t i = cut; i > 0 && value->path[i - 1] == '\\'; --i) ++backslashes;
      if (backslashes % 2 == 0) break;
    }
    const auto found = capi::resolve(value->file->root, value->path.substr(0, cut));
    if (!found) return nullptr;
    return capi::make_value(value->file, found->node, found->path, found->pointer);
  });
}

const char* asdf_value_type_string(asdf_value_type_t type) {
  static const char* const kNames[] = {"unknown", "sequence", "mapping", "scalar", "string",
                                       "bool",    "null",     "int8",    "int16",  "int32",
                                       "int64",   "uint8",    "uint16",  "uint32", "uint64",
                                       "float",   "double",   "extension"};
  const auto i = static_cast<int>(type);
  return i >= 0 && i < static_cast<int>(std::size(kNames)) ? kNames[i] : "unknown";
}

const char* asdf_value_tag(asdf_value_t* value) {
  if (!value || !value->node || value->node->tag().empty()) return nullptr;
  if (value->node->tag() == asdfcore::kArrayPlaceholderTag) return ASDF_CORE_NDARRAY_TAG;
  return value->node->tag().c_str();
}

asdf_file_t* asdf_value_file(asdf_value_t* value) { return value ? value->file : nullptr; }

bool asdf_value_is_type(asdf_value_t* value, asdf_value_type_t type) {
  switch (type) {
    case ASDF_VALUE_SEQUENCE: return asdf_value_is_sequence(value);
    case ASDF_VALUE_MAPPING: return asdf_value_is_mapping(value);
    case ASDF_VALUE_SCALAR: return asdf_value_is_scalar(value);
    case ASDF_VALUE_STRING: return asdf_value_is_string(value);
    case ASDF_VALUE_BOOL: return asdf_value_is_bool(value);
    case ASDF_VALUE_NULL: return asdf_value_is_null(value);
    case ASDF_VALUE_INT8: return asdf_value_is_int8(value);
    case ASDF_VALUE_INT16: return asdf_value_is_int16(value);
    case ASDF_VALUE_INT32: return asdf_value_is_int32(value);
    case ASDF_VALUE_INT64: return asdf_value_is_int64(value);
    case ASDF_VALUE_UINT8: return asdf_value_is_uint8(value);
    case ASDF_VALUE_UINT16: return asdf_value_is_uint16(value);
    case ASDF_VALUE_UINT32: return asdf_value_is_uint32(value);
    case ASDF_VALUE_UINT64: return asdf_value_is_uint64(value);
    case ASDF_VALUE_FLOAT: return asdf_value_is_float(value);
    case ASDF_VALUE_DOUBLE: return asdf_value_is_double(value);
    case ASDF_VALUE_EXTENSION: return type_of(value) == ASDF_VALUE_EXTENSION;
    default: return false;
  }
}

asdf_value_err_t asdf_value_as_type(asdf_value_t* value, asdf_value_type_t type, void* out) {
  if (!value) return ASDF_VALUE_ERR_UNKNOWN;
  switch (type) {
    case ASDF_VALUE_UNKNOWN: {
      asdf_value_t* copy = asdf_value_copy(value);
      if (!copy) return ASDF_VALUE_ERR_OOM;
      if (out) *static_cast<asdf_value_t**>(out) = copy; else asdf_value_destroy(copy);
      return ASDF_VALUE_OK;
    }
    case ASDF_VALUE_SEQUENCE: return asdf_value_as_sequence(value, static_cast<asdf_sequence_t**>(out));
    case ASDF_VALUE_MAPPING: return asdf_value_as_mapping(value, static_cast<asdf_mapping_t**>(out));
    case ASDF_VALUE_SCALAR: return asdf_value_as_scalar0(value, static_cast<const char**>(out));
    case ASDF_VALUE_STRING: return asdf_value_as_string0(value, static_cast<const char**>(out));
    case ASDF_VALUE_BOOL: return asdf_value_as_bool(value, static_cast<bool*>(out));
    case ASDF_VALUE_NULL: return asdf_value_is_null(value) ? ASDF_VALUE_OK : ASDF_VALUE_ERR_TYPE_MISMATCH;
    case ASDF_VALUE_INT8: return asdf_value_as_int8(value, static_cast<int8_t*>(out));
    case ASDF_VALUE_INT16: return asdf_value_as_int16(value, static_cast<int16_t*>(out));
    case ASDF_VALUE_INT32: return asdf_value_as_int32(value, static_cast<int32_t*>(out));
    case ASDF_VALUE_INT64: return asdf_value_as_int64(value, static_cast<int64_t*>(out));
    case ASDF_VALUE_UINT8: return asdf_value_as_uint8(value, static_cast<uint8_t*>(out));
    case ASDF_VALUE_UINT16: return asdf_value_as_uint16(value, static_cast<uint16_t*>(out));
    case ASDF_VALUE_UINT32: return asdf_value_as_uint32(value, static_cast<uint32_t*>(out));
    case ASDF_VALUE_UINT64: return asdf_value_as_uint64(value, static_cast<uint64_t*>(out));
    case ASDF_VALUE_FLOAT: return asdf_value_as_float(value, static_cast<float*>(out));
    case ASDF_VALUE_DOUBLE: return asdf_value_as_double(value, static_cast<double*>(out));
    default: return ASDF_VALUE_ERR_TYPE_MISMATCH;
  }
}

// ---- mappings

bool asdf_value_is_mapping(asdf_value_t* value) {
  return value && value->node && value->node->is_mapping();
}

int asdf_mapping_size(asdf_mapping_t* mapping) {
  const Node* m = mapping_node(mapping);
  return m ? static_cast<int>(m->size()) : -1;
}

asdf_value_err_t asdf_value_as_mapping(asdf_value_t* value, asdf_mapping_t** out) {
  if (!value) return ASDF_VALUE_ERR_UNKNOWN;
  if (!asdf_value_is_mapping(value)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  if (out) *out = reinterpret_cast<asdf_mapping_t*>(value);
  return ASDF_VALUE_OK;
}

asdf_value_t* asdf_value_of_mapping(asdf_mapping_t* mapping) {
  return reinterpret_cast<asdf_value_t*>(mapping);
}

asdf_mapping_t* asdf_mapping_create(asdf_file_t* file) {
  return capi::guarded<asdf_mapping_t*>(file, nullptr, [&] {
    return reinterpret_cast<asdf_mapping_t*>(capi::make_floating(file, Node::make_mapping()));
  });
}

void asdf_mapping_set_style(asdf_mapping_t* mapping, asdf_yaml_node_style_t style) {
  if (Node* m = mapping_node(mapping)) m->collection_style = style_of(style);
}

asdf_mapping_t* asdf_mapping_copy(asdf_mapping_t* mapping) {
  return reinterpret_cast<asdf_mapping_t*>(asdf_value_copy(reinterpret_cast<asdf_value_t*>(mapping)));
}

void asdf_mapping_destroy(asdf_mapping_t* mapping) {
  capi::release_value(reinterpret_cast<asdf_value*>(mapping));
}

asdf_value_t* asdf_mapping_get(asdf_mapping_t* mapping, const char* key) {
  Node* m = mapping_node(mapping);
  if (!m || !key) return nullptr;
  auto* parent = reinterpret_cast<asdf_value*>(mapping);
  return capi::guarded<asdf_value_t*>(parent->file, nullptr, [&]() -> asdf_value_t* {
    for (const auto& [k, v] : m->entries()) {
      const std::string text = capi::key_text(*k);
      if (text == key) return child_value(parent, v, &text, 0);
    }
    return nullptr;
  });
}

asdf_value_err_t asdf_mapping_update(asdf_mapping_t* mapping, asdf_mapping_t* update) {
  Node* m = mapping_node(mapping);
  Node* u = mapping_node(update);
  if (!m || !u) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(reinterpret_cast<asdf_value*>(mapping)->file, ASDF_VALUE_ERR_OOM, [&] {
    for (const auto& [k, v] : u->entries()) m->set(capi::key_text(*k), tree::deep_copy(v));
    return ASDF_VALUE_OK;
  });
}

asdf_value_t* asdf_mapping_pop(asdf_mapping_t* mapping, const char* key) {
  Node* m = mapping_node(mapping);
  if (!m || !key) return nullptr;
  auto* parent = reinterpret_cast<asdf_value*>(mapping);
  return capi::guarded<asdf_value_t*>(parent->file, nullptr, [&]() -> asdf_value_t* {
    auto& entries = m->entries();
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if (capi::key_text(*it->first) != key) continue;
      NodePtr node = it->second;
      entries.erase(it);
      return capi::make_value(parent->file, std::move(node), "", "");
    }
    return nullptr;
  });
}

asdf_value_err_t asdf_mapping_set(asdf_mapping_t* mapping, const char* key, asdf_value_t* value) {
  if (!value || !mapping_node(mapping) || !key) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM, [&] {
    return mapping_put(mapping, key, take(reinterpret_cast<asdf_value*>(mapping)->file, value));
  });
}

#define FITSASDF_MAPPING_SETTER(name, ctype, make)                                         \
  asdf_value_err_t asdf_mapping_set_##name(asdf_mapping_t* mapping, const char* key,      \
                                            ctype val) {                                   \
    if (!mapping_node(mapping)) return ASDF_VALUE_ERR_UNKNOWN;                             \
    return capi::guarded(reinterpret_cast<asdf_value*>(mapping)->file, ASDF_VALUE_ERR_OOM, \
                         [&] { return mapping_put(mapping, key, make); });                 \
  }
FITSASDF_MAPPING_SETTER(bool, bool, Node::make_bool(val))
FITSASDF_MAPPING_SETTER(int8, int8_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(int16, int16_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(int32, int32_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(int64, int64_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(uint8, uint8_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(uint16, uint16_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(uint32, uint32_t, Node::make_int(val))
FITSASDF_MAPPING_SETTER(uint64, uint64_t, capi::uint_node(val))
FITSASDF_MAPPING_SETTER(float, float, Node::make_float(static_cast<double>(val)))
FITSASDF_MAPPING_SETTER(double, double, Node::make_float(val))
FITSASDF_MAPPING_SETTER(string0, const char*, string_node(val, val ? std::strlen(val) : 0))
#undef FITSASDF_MAPPING_SETTER

asdf_value_err_t asdf_mapping_set_string(asdf_mapping_t* mapping, const char* key,
                                         const char* str, size_t len) {
  if (!mapping_node(mapping)) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(reinterpret_cast<asdf_value*>(mapping)->file, ASDF_VALUE_ERR_OOM,
                       [&] { return mapping_put(mapping, key, string_node(str, len)); });
}

asdf_value_err_t asdf_mapping_set_null(asdf_mapping_t* mapping, const char* key) {
  if (!mapping_node(mapping)) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(reinterpret_cast<asdf_value*>(mapping)->file, ASDF_VALUE_ERR_OOM,
                       [&] { return mapping_put(mapping, key, Node::make_null()); });
}

asdf_value_err_t asdf_mapping_set_mapping(asdf_mapping_t* mapping, const char* key,
                                          asdf_mapping_t* value) {
  return asdf_mapping_set(mapping, key, reinterpret_cast<asdf_value_t*>(value));
}

asdf_value_err_t asdf_mapping_set_sequence(asdf_mapping_t* mapping, const char* key,
                                           asdf_sequence_t* value) {
  return asdf_mapping_set(mapping, key, reinterpret_cast<asdf_value_t*>(value));
}

// ---- sequences

bool asdf_value_is_sequence(asdf_value_t* value) {
  return value && value->node && value->node->is_sequence();
}

int asdf_sequence_size(asdf_sequence_t* sequence) {
  const Node* s = sequence_node(sequence);
  return s ? static_cast<int>(s->size()) : -1;
}

asdf_value_t* asdf_sequence_get(asdf_sequence_t* sequence, int index) {
  Node* s = sequence_node(sequence);
  if (!s) return nullptr;
  const auto n = static_cast<long long>(s->size());
  long long i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) return nullptr;
  auto* parent = reinterpret_cast<asdf_value*>(sequence);
  return capi::guarded<asdf_value_t*>(parent->file, nullptr, [&] {
    return child_value(parent, s->items()[static_cast<std::size_t>(i)], nullptr,
                       static_cast<std::size_t>(i));
  });
}

asdf_value_err_t asdf_value_as_sequence(asdf_value_t* value, asdf_sequence_t** out) {
  if (!value) return ASDF_VALUE_ERR_UNKNOWN;
  if (!asdf_value_is_sequence(value)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  if (out) *out = reinterpret_cast<asdf_sequence_t*>(value);
  return ASDF_VALUE_OK;
}

asdf_value_t* asdf_value_of_sequence(asdf_sequence_t* sequence) {
  return reinterpret_cast<asdf_value_t*>(sequence);
}

asdf_sequence_t* asdf_sequence_create(asdf_file_t* file) {
  return capi::guarded<asdf_sequence_t*>(file, nullptr, [&] {
    return reinterpret_cast<asdf_sequence_t*>(capi::make_floating(file, Node::make_sequence()));
  });
}

void asdf_sequence_set_style(asdf_sequence_t* sequence, asdf_yaml_node_style_t style) {
  if (Node* s = sequence_node(sequence)) s->collection_style = style_of(style);
}

void asdf_sequence_destroy(asdf_sequence_t* sequence) {
  capi::release_value(reinterpret_cast<asdf_value*>(sequence));
}

asdf_value_err_t asdf_sequence_append(asdf_sequence_t* sequence, asdf_value_t* value) {
  if (!value || !sequence_node(sequence)) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM,
                       [&] { return sequence_put(sequence, take(reinterpret_cast<asdf_value*>(sequence)->file, value)); });
}

#define FITSASDF_SEQUENCE_APPEND(name, ctype, make)                                           \
  asdf_value_err_t asdf_sequence_append_##name(asdf_sequence_t* sequence, ctype val) {       \
    if (!sequence_node(sequence)) return ASDF_VALUE_ERR_UNKNOWN;                              \
    return capi::guarded(reinterpret_cast<asdf_value*>(sequence)->file, ASDF_VALUE_ERR_OOM,   \
                         [&] { return sequence_put(sequence, make); });                       \
  }
FITSASDF_SEQUENCE_APPEND(bool, bool, Node::make_bool(val))
FITSASDF_SEQUENCE_APPEND(int8, int8_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(int16, int16_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(int32, int32_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(int64, int64_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(uint8, uint8_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(uint16, uint16_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(uint32, uint32_t, Node::make_int(val))
FITSASDF_SEQUENCE_APPEND(uint64, uint64_t, capi::uint_node(val))
FITSASDF_SEQUENCE_APPEND(float, float, Node::make_float(static_cast<double>(val)))
FITSASDF_SEQUENCE_APPEND(double, double, Node::make_float(val))
FITSASDF_SEQUENCE_APPEND(string0, const char*, string_node(val, val ? std::strlen(val) : 0))
#undef FITSASDF_SEQUENCE_APPEND

asdf_value_err_t asdf_sequence_append_string(asdf_sequence_t* sequence, const char* str,
                                             size_t len) {
  if (!sequence_node(sequence)) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(reinterpret_cast<asdf_value*>(sequence)->file, ASDF_VALUE_ERR_OOM,
                       [&] { return sequence_put(sequence, string_node(str, len)); });
}

asdf_value_err_t asdf_sequence_append_null(asdf_sequence_t* sequence) {
  if (!sequence_node(sequence)) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(reinterpret_cast<asdf_value*>(sequence)->file, ASDF_VALUE_ERR_OOM,
                       [&] { return sequence_put(sequence, Node::make_null()); });
}

asdf_value_err_t asdf_sequence_append_mapping(asdf_sequence_t* sequence, asdf_mapping_t* value) {
  return asdf_sequence_append(sequence, reinterpret_cast<asdf_value_t*>(value));
}

asdf_value_err_t asdf_sequence_append_sequence(asdf_sequence_t* sequence,
                                               asdf_sequence_t* value) {
  return asdf_sequence_append(sequence, reinterpret_cast<asdf_value_t*>(value));
}

}  // extern "C"

namespace {

/// A sequence of `size` nodes made by `make(i)`, owned by `file` until inserted.
template <typename F>
asdf_sequence_t* sequence_of(asdf_file_t* file, int size, F&& make) {
  if (!file || size < 0) return nullptr;
  return capi::guarded<asdf_sequence_t*>(file, nullptr, [&] {
    NodePtr seq = Node::make_sequence();
    for (int i = 0; i < size; ++i) seq->push_back(make(i));
    return reinterpret_cast<asdf_sequence_t*>(capi::make_floating(file, seq));
  });
}

}  // namespace

extern "C" {

asdf_sequence_t* asdf_sequence_of_null(asdf_file_t* file, int size) {
  return sequence_of(file, size, [](int) { return Node::make_null(); });
}

asdf_sequence_t* asdf_sequence_of_string(asdf_file_t* file, const char* const* arr,
                                         const size_t* lens, int size) {
  if (!arr || !lens) return nullptr;
  return sequence_of(file, size, [&](int i) { return string_node(arr[i], lens[i]); });
}

asdf_sequence_t* asdf_sequence_of_string0(asdf_file_t* file, const char* const* arr, int size) {
  if (!arr) return nullptr;
  return sequence_of(file, size, [&](int i) {
    return string_node(arr[i], arr[i] ? std::strlen(arr[i]) : 0);
  });
}

#define FITSASDF_SEQUENCE_OF(name, ctype, make)                                             \
  asdf_sequence_t* asdf_sequence_of_##name(asdf_file_t* file, const ctype* arr, int size) { \
    if (!arr && size > 0) return nullptr;                                                   \
    return sequence_of(file, size, [&](int i) {                                             \
      const ctype val = arr[i];                                                             \
      return make;                                                                          \
    });                                                                                     \
  }
FITSASDF_SEQUENCE_OF(bool, bool, Node::make_bool(val))
FITSASDF_SEQUENCE_OF(int8, int8_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(int16, int16_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(int32, int32_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(int64, int64_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(uint8, uint8_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(uint16, uint16_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(uint32, uint32_t, Node::make_int(val))
FITSASDF_SEQUENCE_OF(uint64, uint64_t, capi::uint_node(val))
FITSASDF_SEQUENCE_OF(float, float, Node::make_float(static_cast<double>(val)))
FITSASDF_SEQUENCE_OF(double, double, Node::make_float(val))
#undef FITSASDF_SEQUENCE_OF

asdf_value_t* asdf_sequence_pop(asdf_sequence_t* sequence, int index) {
  Node* s = sequence_node(sequence);
  if (!s) return nullptr;
  const auto n = static_cast<long long>(s->size());
  const long long i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) return nullptr;
  auto* parent = reinterpret_cast<asdf_value*>(sequence);
  return capi::guarded<asdf_value_t*>(parent->file, nullptr, [&] {
    auto& items = s->items();
    NodePtr node = items[static_cast<std::size_t>(i)];
    items.erase(items.begin() + i);
    return capi::make_value(parent->file, std::move(node), "", "");
  });
}

// ---- containers and iteration

bool asdf_value_is_container(asdf_value_t* value) {
  return asdf_value_is_mapping(value) || asdf_value_is_sequence(value);
}

int asdf_container_size(asdf_value_t* container) {
  return asdf_value_is_container(container) ? static_cast<int>(container->node->size()) : -1;
}

}  // extern "C"

namespace {

/// What an iterator walks and where it is; the public struct is the first member of its box.
struct IterState {
  asdf_value* parent = nullptr;  ///< A copy of the container's handle (the iterator's own).
  bool reverse = false;
  std::size_t next = 0;          ///< Items handed out so far.
  std::string key;               ///< The current key's text.
  asdf_value* current = nullptr;
  ~IterState() {
    capi::release_value(current);
    capi::release_value(parent);
  }
};

template <typename Public>
struct IterBox {
  Public pub{};
  IterState* state = nullptr;
};

template <typename Public>
Public* iter_init(asdf_value* container, bool want_mapping, bool want_sequence, bool reverse) {
  if (!container || !container->node) return nullptr;
  const bool ok = (want_mapping && container->node->is_mapping()) ||
                  (want_sequence && container->node->is_sequence());
  if (!ok) return nullptr;
  return capi::guarded<Public*>(container->file, nullptr, [&] {
    auto box = std::make_unique<IterBox<Public>>();
    box->state = new IterState;
    box->state->parent = capi::make_value(container->file, container->node, container->path,
                                          container->pointer);
    box->state->reverse = reverse;
    return &box.release()->pub;
  });
}

template <typename Public>
void iter_destroy(Public* iter) {
  if (!iter) return;
  auto* box = reinterpret_cast<IterBox<Public>*>(iter);
  delete box->state;
  delete box;
}

/// Step `state` on; false at the end. Sets `state.current`, `state.key` and `index`.
bool iter_step(IterState& state, bool* is_mapping, int* index) {
  const Node& node = *state.parent->node;
  const std::size_t n = node.size();
  if (state.next >= n) return false;
  const std::size_t i = state.reverse ? n - 1 - state.next : state.next;
  ++state.next;
  capi::release_value(state.current);
  state.current = nullptr;
  *index = static_cast<int>(i);
  *is_mapping = node.is_mapping();
  if (node.is_mapping()) {
    const auto& [k, v] = node.entries()[i];
    state.key = capi::key_text(*k);
    state.current = child_value(state.parent, v, &state.key, 0);
  } else {
    state.current = child_value(state.parent, node.items()[i], nullptr, i);
  }
  return true;
}

template <typename Public, typename Fill>
bool iter_next(Public** iter, Fill&& fill) {
  if (!iter || !*iter) return false;
  auto* box = reinterpret_cast<IterBox<Public>*>(*iter);
  const bool more = capi::guarded(box->state->parent->file, false, [&] {
    bool is_mapping = false;
    int index = 0;
    if (!iter_step(*box->state, &is_mapping, &index)) return false;
    fill(box->pub, *box->state, is_mapping, index);
    return true;
  });
  if (!more) {
    iter_destroy(*iter);
    *iter = nullptr;
  }
  return more;
}

}  // namespace

extern "C" {

asdf_mapping_iter_t* asdf_mapping_iter_init(asdf_mapping_t* mapping) {
  return iter_init<asdf_mapping_iter_t>(reinterpret_cast<asdf_value*>(mapping), true, false, false);
}
asdf_mapping_iter_t* asdf_mapping_reverse_iter_init(asdf_mapping_t* mapping) {
  return iter_init<asdf_mapping_iter_t>(reinterpret_cast<asdf_value*>(mapping), true, false, true);
}
bool asdf_mapping_iter_next(asdf_mapping_iter_t** iter) {
  return iter_next(iter, [](asdf_mapping_iter_t& pub, IterState& s, bool, int) {
    pub.key = s.key.c_str();
    pub.value = s.current;
  });
}
void asdf_mapping_iter_destroy(asdf_mapping_iter_t* iter) { iter_destroy(iter); }

asdf_sequence_iter_t* asdf_sequence_iter_init(asdf_sequence_t* sequence) {
  return iter_init<asdf_sequence_iter_t>(reinterpret_cast<asdf_value*>(sequence), false, true, false);
}
asdf_sequence_iter_t* asdf_sequence_reverse_iter_init(asdf_sequence_t* sequence) {
  return iter_init<asdf_sequence_iter_t>(reinterpret_cast<asdf_value*>(sequence), false, true, true);
}
bool asdf_sequence_iter_next(asdf_sequence_iter_t** iter) {
  return iter_next(iter, [](asdf_sequence_iter_t& pub, IterState& s, bool, int index) {
    pub.value = s.current;
    pub.index = index;
  });
}
void asdf_sequence_iter_destroy(asdf_sequence_iter_t* iter) { iter_destroy(iter); }

asdf_container_iter_t* asdf_container_iter_init(asdf_value_t* container) {
  return iter_init<asdf_container_iter_t>(container, true, true, false);
}
asdf_container_iter_t* asdf_container_reverse_iter_init(asdf_value_t* container) {
  return iter_init<asdf_container_iter_t>(container, true, true, true);
}
bool asdf_container_iter_next(asdf_container_iter_t** iter) {
  return iter_next(iter, [](asdf_container_iter_t& pub, IterState& s, bool is_mapping, int index) {
    pub.key = is_mapping ? s.key.c_str() : nullptr;
    pub.index = index;
    pub.value = s.current;
  });
}
void asdf_container_iter_destroy(asdf_container_iter_t* iter) { iter_destroy(iter); }

// ---- scalars

bool asdf_value_is_string(asdf_value_t* value) { return type_of(value) == ASDF_VALUE_STRING; }

asdf_value_err_t asdf_value_as_string(asdf_value_t* value, const char** out, size_t* out_len) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (type_of(value) != ASDF_VALUE_STRING) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  const Node& node = *value->node;
  if (node.kind() == NodeKind::kBinary) {
    const auto& bytes = node.as_binary();
    if (out) *out = reinterpret_cast<const char*>(bytes.data());
    if (out_len) *out_len = bytes.size();
    return ASDF_VALUE_OK;
  }
  if (out) *out = node.as_string().data();
  if (out_len) *out_len = node.as_string().size();
  return ASDF_VALUE_OK;
}

asdf_value_err_t asdf_value_as_string0(asdf_value_t* value, const char** out) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (type_of(value) != ASDF_VALUE_STRING) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM, [&] {
    if (value->node->kind() == NodeKind::kBinary) {
      value->scratch = *capi::scalar_text(*value->node);
      if (out) *out = value->scratch.c_str();
    } else if (out) {
      *out = value->node->as_string().c_str();
    }
    return ASDF_VALUE_OK;
  });
}

asdf_value_t* asdf_value_of_string(asdf_file_t* file, const char* value, size_t len) {
  return capi::guarded<asdf_value_t*>(file, nullptr, [&] {
    return capi::make_floating(file, string_node(value, len));
  });
}

asdf_value_t* asdf_value_of_string0(asdf_file_t* file, const char* value) {
  return asdf_value_of_string(file, value, value ? std::strlen(value) : 0);
}

bool asdf_value_is_scalar(asdf_value_t* value) {
  return value && value->node && is_scalar_kind(value->node->kind());
}

asdf_value_err_t asdf_value_as_scalar(asdf_value_t* value, const char** out, size_t* out_len) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (!asdf_value_is_scalar(value)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM, [&] {
    value->scratch = *capi::scalar_text(*value->node);
    if (out) *out = value->scratch.c_str();
    if (out_len) *out_len = value->scratch.size();
    return ASDF_VALUE_OK;
  });
}

asdf_value_err_t asdf_value_as_scalar0(asdf_value_t* value, const char** out) {
  return asdf_value_as_scalar(value, out, nullptr);
}

bool asdf_value_is_bool(asdf_value_t* value) {
  if (!value || !value->node) return false;
  if (value->node->kind() == NodeKind::kBool) return true;
  const auto i = integer_of(*value->node);
  return i && !i->negative && i->magnitude <= 1;
}

asdf_value_err_t asdf_value_as_bool(asdf_value_t* value, bool* out) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (!asdf_value_is_bool(value)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  const bool b = value->node->kind() == NodeKind::kBool ? value->node->as_bool()
                                                        : integer_of(*value->node)->magnitude == 1;
  if (out) *out = b;
  return ASDF_VALUE_OK;
}

asdf_value_t* asdf_value_of_bool(asdf_file_t* file, bool value) {
  return capi::guarded<asdf_value_t*>(file, nullptr,
                                      [&] { return capi::make_floating(file, Node::make_bool(value)); });
}

bool asdf_value_is_null(asdf_value_t* value) { return value && value->node && value->node->is_null(); }

asdf_value_t* asdf_value_of_null(asdf_file_t* file) {
  return capi::guarded<asdf_value_t*>(file, nullptr,
                                      [&] { return capi::make_floating(file, Node::make_null()); });
}

bool asdf_value_is_int(asdf_value_t* value) {
  return value && value->node && integer_of(*value->node).has_value();
}

#define FITSASDF_INTEGER_VALUE(name, ctype, make)                                           \
  bool asdf_value_is_##name(asdf_value_t* value) { return is_integer<ctype>(value); }       \
  asdf_value_err_t asdf_value_as_##name(asdf_value_t* value, ctype* out) {                  \
    return as_integer<ctype>(value, out);                                                   \
  }                                                                                         \
  asdf_value_t* asdf_value_of_##name(asdf_file_t* file, ctype value) {                      \
    return capi::guarded<asdf_value_t*>(file, nullptr, [&] {                                \
      const ctype val = value;                                                              \
      return capi::make_floating(file, make);                                               \
    });                                                                                     \
  }
FITSASDF_INTEGER_VALUE(int8, int8_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(int16, int16_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(int32, int32_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(int64, int64_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(uint8, uint8_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(uint16, uint16_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(uint32, uint32_t, Node::make_int(val))
FITSASDF_INTEGER_VALUE(uint64, uint64_t, capi::uint_node(val))
#undef FITSASDF_INTEGER_VALUE

bool asdf_value_is_float(asdf_value_t* value) {
  return value && value->node && value->node->kind() == NodeKind::kFloat;
}

bool asdf_value_is_double(asdf_value_t* value) { return asdf_value_is_float(value); }

asdf_value_err_t asdf_value_as_double(asdf_value_t* value, double* out) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  const Node& node = *value->node;
  if (node.kind() == NodeKind::kFloat) {
    if (out) *out = node.as_double();
    return ASDF_VALUE_OK;
  }
  if (node.is_integer()) {  // beyond libasdf: an integer is read as the nearest double
    if (out) *out = node.as_double();
    return ASDF_VALUE_OK;
  }
  return ASDF_VALUE_ERR_TYPE_MISMATCH;
}

asdf_value_err_t asdf_value_as_float(asdf_value_t* value, float* out) {
  double d = 0;
  const asdf_value_err_t err = asdf_value_as_double(value, &d);
  if (err != ASDF_VALUE_OK) return err;
  const auto f = static_cast<float>(d);
  if (out) *out = f;
  return std::isfinite(d) && !std::isfinite(f) ? ASDF_VALUE_ERR_OVERFLOW : ASDF_VALUE_OK;
}

asdf_value_t* asdf_value_of_float(asdf_file_t* file, float value) {
  return capi::guarded<asdf_value_t*>(file, nullptr, [&] {
    return capi::make_floating(file, Node::make_float(static_cast<double>(value)), ASDF_VALUE_FLOAT);
  });
}

asdf_value_t* asdf_value_of_double(asdf_file_t* file, double value) {
  return capi::guarded<asdf_value_t*>(file, nullptr,
                                      [&] { return capi::make_floating(file, Node::make_float(value)); });
}

}  // extern "C"

// ---- search

namespace {

struct FindState {
  asdf_value_pred_t pred = nullptr;
  asdf_value_pred_t descend = nullptr;
  bool depth_first = false;
  asdf_depth_t max_depth = -1;
  /// Values still to look at, with their depth below the root (children of the root: 0).
  std::deque<std::pair<asdf_value*, asdf_depth_t>> pending;
  asdf_value* current = nullptr;
  ~FindState() {
    capi::release_value(current);
    for (auto& [v, d] : pending) capi::release_value(v);
  }

  /// Queue the children of `v` (at `depth`).
  void expand(asdf_value* v, asdf_depth_t depth) {
    const Node& node = *v->node;
    std::vector<asdf_value*> children;
    if (node.is_mapping()) {
      for (const auto& [k, c] : node.entries()) {
        const std::string key = capi::key_text(*k);
        children.push_back(child_value(v, c, &key, 0));
      }
    } else if (node.is_sequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) {
        children.push_back(child_value(v, node.items()[i], nullptr, i));
      }
    }
    if (depth_first) {
      for (auto it = children.rbegin(); it != children.rend(); ++it) pending.emplace_front(*it, depth);
    } else {
      for (asdf_value* c : children) pending.emplace_back(c, depth);
    }
  }

  /// Return the next match (owned by this state), or null at the end.
  asdf_value* next() {
    capi::release_value(current);
    current = nullptr;
    while (!pending.empty()) {
      auto [v, depth] = pending.front();
      pending.pop_front();
      const bool match = pred && pred(v);
      const bool can_descend = (max_depth < 0 || depth < max_depth) &&
                               (v->node->is_mapping() || v->node->is_sequence()) &&
                               (!descend || descend(v));
      if (can_descend) expand(v, depth + 1);
      if (match) {
        current = v;
        return v;
      }
      capi::release_value(v);
    }
    return nullptr;
  }
};

struct FindBox {
  asdf_find_iter_t pub{};
  FindState* state = nullptr;
};

FindState* find_state(asdf_value* root, asdf_value_pred_t pred, bool depth_first,
                      asdf_value_pred_t descend, asdf_depth_t max_depth) {
  auto state = std::make_unique<FindState>();
  state->pred = pred;
  state->descend = descend;
  state->depth_first = depth_first;
  state->max_depth = max_depth;
  asdf_value* start = capi::make_value(root->file, root->node, root->path, root->pointer);
  state->expand(start, 0);
  capi::release_value(start);
  return state.release();
}

}  // namespace

extern "C" {

asdf_value_t* asdf_value_find_ex(asdf_value_t* root, asdf_value_pred_t pred, bool depth_first,
                                 asdf_value_pred_t descend_pred, asdf_depth_t max_depth) {
  if (!asdf_value_is_container(root) || !pred) return nullptr;
  return capi::guarded<asdf_value_t*>(root->file, nullptr, [&]() -> asdf_value_t* {
    std::unique_ptr<FindState> state(find_state(root, pred, depth_first, descend_pred, max_depth));
    asdf_value* found = state->next();
    if (!found) return nullptr;
    state->current = nullptr;  // handed to the caller
    return found;
  });
}

asdf_value_t* asdf_value_find(asdf_value_t* root, asdf_value_pred_t pred) {
  return asdf_value_find_ex(root, pred, false, nullptr, -1);
}

asdf_find_iter_t* asdf_find_iter_init_ex(asdf_value_t* root, asdf_value_pred_t pred,
                                         bool depth_first, asdf_value_pred_t descend_pred,
                                         asdf_depth_t max_depth) {
  if (!asdf_value_is_container(root) || !pred) return nullptr;
  return capi::guarded<asdf_find_iter_t*>(root->file, nullptr, [&] {
    auto box = std::make_unique<FindBox>();
    box->state = find_state(root, pred, depth_first, descend_pred, max_depth);
    return &box.release()->pub;
  });
}

asdf_find_iter_t* asdf_find_iter_init(asdf_value_t* root, asdf_value_pred_t pred) {
  return asdf_find_iter_init_ex(root, pred, false, nullptr, -1);
}

void asdf_find_iter_destroy(asdf_find_iter_t* iter) {
  if (!iter) return;
  auto* box = reinterpret_cast<FindBox*>(iter);
  delete box->state;
  delete box;
}

bool asdf_value_find_iter_next(asdf_find_iter_t** iter) {
  if (!iter || !*iter) return false;
  auto* box = reinterpret_cast<FindBox*>(*iter);
  asdf_value* found = capi::guarded<asdf_value*>(nullptr, nullptr, [&] { return box->state->next(); });
  if (!found) {
    asdf_find_iter_destroy(*iter);
    *iter = nullptr;
    return false;
  }
  box->pub.value = found;
  return true;
}

}  // extern "C"
