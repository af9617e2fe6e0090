// ASDF's keywords: tag (with * and ** patterns), ndim, max_ndim, datatype, exact_datatype,
// with python asdf 2.14's meaning (asdf.schema.validate_tag, asdf.tags.core.ndarray).

#include <optional>

#include "asdfcore/tree/yaml.h"
#include "schema/evaluate.h"

namespace asdfcore::schema::detail {
namespace {

using tree::Node;
using tree::NodeKind;

// `*` matches any run without '/', `**` any run at all; everything else literally.
bool uri_match(std::string_view pattern, std::string_view uri) {
  if (pattern.empty()) return uri.empty();
  if (pattern.starts_with("**")) {
    for (std::size_t i = 0; i <= uri.size(); ++i) {
      if (uri_match(pattern.substr(2), uri.substr(i))) return true;
    }
    return false;
  }
  if (pattern.front() == '*') {
    for (std::size_t i = 0; i <= uri.size(); ++i) {
      if (uri_match(pattern.substr(1), uri.substr(i))) return true;
      if (i < uri.size() && uri[i] == '/') break;
    }
    return false;
  }
  return !uri.empty() && uri.front() == pattern.front() &&
         uri_match(pattern.substr(1), uri.substr(1));
}

// The tag python asdf sees on a node: its own, else the YAML tag of its Python type.
std::optional<std::string> tag_of(const Node& node) {
  if (!node.tag().empty() && node.tag() != tree::kOmapTag) return node.tag();
  const std::string prefix(tree::kYamlTagPrefix);
  switch (node.kind()) {
    case NodeKind::kNull: return prefix + "null";
    case NodeKind::kBool: return prefix + "bool";
    case NodeKind::kInt:
    case NodeKind::kBigInt: return prefix + "int";
    case NodeKind::kFloat: return prefix + "float";
    case NodeKind::kString: return prefix + "str";
    case NodeKind::kBinary: return prefix + "binary";
    case NodeKind::kSequence: return prefix + "seq";
    case NodeKind::kMapping: return prefix + "map";
    case NodeKind::kTimestamp: return std::nullopt;  // a datetime: "unhandled object type"
  }
  return std::nullopt;
}

// The number of dimensions of inline data (nested lists), as numpy.asarray counts them.
std::int64_t inline_ndim(const Node& data) {
  std::int64_t n = 0;
  const Node* at = &data;
  while (at->is_sequence() && at->tag().empty()) {
    ++n;
    if (at->items().empty()) break;
    at = at->items().front().get();
  }
  return n;
}

std::optional<std::int64_t> ndim_of(const Node& instance) {
  if (instance.is_sequence()) return inline_ndim(instance);
  if (instance.is_mapping()) {
    if (auto shape = instance.get("shape")) return static_cast<std::int64_t>(shape->size());
    if (auto data = instance.get("data")) return inline_ndim(*data);
  }
  return std::nullopt;
}

// A datatype reduced to what numpy's safe casting looks at.
struct Scalar {
  enum Family { kBool, kInt, kUint, kFloat, kComplex, kAscii, kUcs4, kUnknown } family = kUnknown;
  std::uint64_t size = 0;  // bits for numbers, characters for strings
};

Scalar scalar_of(const Node& datatype) {
  if (datatype.is_string()) {
    const std::string& n = datatype.as_string();
    auto bits = [&](std::string_view prefix) -> std::uint64_t {
      return std::strtoull(n.c_str() + prefix.size(), nullptr, 10);
    };
    if (n == "bool8") return {Scalar::kBool, 8};
    if (n.starts_with("uint")) return {Scalar::kUint, bits("uint")};
    if (n.starts_with("int")) return {Scalar::kInt, bits("int")};
    if (n.starts_with("float")) return {Scalar::kFloat, bits("float")};
    if (n.starts_with("complex")) return {Scalar::kComplex, bits("complex")};
    return {};
  }
  if (datatype.is_sequence() && datatype.size() == 2 && datatype.items()[0]->is_string() &&
      datatype.items()[1]->kind() == NodeKind::kInt) {
    const std::string& n = datatype.items()[0]->as_string();
    const auto length = static_cast<std::uint64_t>(datatype.items()[1]->as_int());
    if (n == "ascii") return {Scalar::kAscii, length};
    if (n == "ucs4") return {Scalar::kUcs4, length};
  }
  return {};
}

// numpy.can_cast(from, to, "safe") for the scalar datatypes ASDF names.
bool can_cast_safe(const Scalar& from, const Scalar& to) {
  using F = Scalar::Family;
  if (from.family == F::kUnknown || to.family == F::kUnknown) return false;
  if (from.family == to.family) return from.size <= to.size;
  switch (from.family) {
    case F::kBool:
      return to.family != F::kAscii && to.family != F::kUcs4;
    case F::kInt:
    case F::kUint: {
      const std::uint64_t b = from.size;
      if (to.family == F::kInt) return from.family == F::kUint && to.size > b;
      if (to.family == F::kFloat) return to.size == 64 || (to.size == 32 && b <= 16) || (to.size == 16 && b <= 8);
      if (to.family == F::kComplex) return to.size == 128 || (to.size == 64 && b <= 16);
      return false;
    }
    case F::kFloat:
      return to.family == F::kComplex && to.size >= 2 * from.size;
    case F::kAscii:
      return to.family == F::kUcs4 && to.size >= from.size;
    default:
      return false;
  }
}

bool is_structured(const Node& datatype) {
  return datatype.is_sequence() && !(datatype.size() == 2 && datatype.items()[0]->is_string() &&
                                     datatype.items()[1]->is_integer());
}

// The datatype numpy infers for inline data (python asdf's inline_data_asarray).
tree::NodePtr inferred_datatype(const Node& data) {
  bool any_float = false, any_complex = false, any_int = false, any_bool = false;
  std::uint64_t longest = 0;
  bool any_string = false;
  std::vector<const Node*> stack{&data};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n->is_sequence() && n->tag().empty()) {
      for (const auto& item : n->items()) stack.push_back(item.get());
    } else if (n->tag().find("core/complex-") != std::string::npos) {
      any_complex = true;
    } else if (n->kind() == NodeKind::kFloat) {
      any_float = true;
    } else if (n->is_integer()) {
      any_int = true;
    } else if (n->kind() == NodeKind::kBool) {
      any_bool = true;
    } else if (n->is_string()) {
      any_string = true;
      std::uint64_t cp = 0;
      for (unsigned char c : n->as_string()) cp += (c & 0xC0) != 0x80;
      longest = std::max(longest, cp);
    }
  }
  if (any_string) {
    auto list = Node::make_sequence();
    list->push_back(Node::make_string("ucs4"));
    list->push_back(Node::make_int(static_cast<std::int64_t>(longest)));
    return list;
  }
  if (any_complex) return Node::make_string("complex128");
  if (any_float) return Node::make_string("float64");
  if (any_int) return Node::make_string("int64");
  if (any_bool) return Node::make_string("bool8");
  return Node::make_string("float64");  // numpy's dtype of an empty list
}

std::string datatype_text(const Node& datatype) {
  if (datatype.is_string()) return datatype.as_string();
  tree::YamlWriteOptions options;
  std::string text = tree::emit_yaml(datatype, options);
  while (!text.empty() && (text.back() == '\n' || text.back() == '.')) text.pop_back();
  if (text.starts_with("--- ")) text = text.substr(4);
  return text;
}

bool check_datatype(const Schema& s, const Node& instance, Context& ctx) {
  tree::NodePtr have;
  if (instance.is_sequence()) {
    have = inferred_datatype(instance);
  } else if (instance.is_mapping()) {
    if (auto d = instance.get("datatype")) {
      have = d;
    } else if (auto data = instance.get("data")) {
      have = inferred_datatype(*data);
    }
  }
  if (!have) return fail(ctx, s, "datatype", "not an array: no datatype to compare", instance);
  const Node& want = *s.datatype;
  if (json_equal(want, *have)) return true;
  bool ok = true;
  if (s.exact_datatype) {
    ok = fail(ctx, s, "exact_datatype",
              "expected datatype '" + datatype_text(want) + "', got '" + datatype_text(*have) + "'",
              instance);
    if (ctx.verdict_only()) return false;
  }
  if (!is_structured(want)) {
    if (is_structured(*have)) {
      return fail(ctx, s, "datatype", "expected scalar datatype '" + datatype_text(want) +
                                          "', got '" + datatype_text(*have) + "'", instance);
    }
    if (!can_cast_safe(scalar_of(*have), scalar_of(want))) {
      return fail(ctx, s, "datatype", "cannot safely cast from '" + datatype_text(*have) +
                                          "' to '" + datatype_text(want) + "'", instance);
    }
    return ok;
  }
  if (!is_structured(*have)) {
    return fail(ctx, s, "datatype", "expected structured datatype '" + datatype_text(want) +
                                        "', got '" + datatype_text(*have) + "'", instance);
  }
  if (want.size() != have->size()) {
    return fail(ctx, s, "datatype", "mismatch in number of columns: expected " +
                                        std::to_string(want.size()) + ", got " +
                                        std::to_string(have->size()), instance);
  }
  auto field_type = [](const Node& field) -> const Node& {
    if (field.is_mapping()) {
      if (auto d = field.get("datatype")) return *d;
    }
    return field;
  };
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Node& w = field_type(*want.items()[i]);
    const Node& h = field_type(*have->items()[i]);
    if (!json_equal(w, h) && !can_cast_safe(scalar_of(h), scalar_of(w))) {
      ok = fail(ctx, s, "datatype", "cannot safely cast column " + std::to_string(i) + " from '" +
                                        datatype_text(h) + "' to '" + datatype_text(w) + "'",
                instance);
      if (ctx.verdict_only()) return false;
    }
  }
  return ok;
}

}  // namespace

bool check_asdf(const Schema& s, const Node& instance, Context& ctx) {
  bool ok = true;
  if (s.tag) {
    const auto tag = tag_of(instance);
    if (!tag) {
      ok = fail(ctx, s, "tag", "mismatched tags, wanted '" + *s.tag + "', got a timestamp", instance);
    } else if (!(s.tag->find('*') == std::string::npos ? *tag == *s.tag : uri_match(*s.tag, *tag))) {
      ok = fail(ctx, s, "tag", "mismatched tags, wanted '" + *s.tag + "', got '" + *tag + "'",
                instance);
    }
    if (!ok && ctx.verdict_only()) return false;
  }
  if (s.ndim || s.max_ndim) {
    const auto n = ndim_of(instance);
    if (s.ndim && n != s.ndim) {
      ok = fail(ctx, s, "ndim", "wrong number of dimensions: expected " + std::to_string(*s.ndim) +
                                    ", got " + (n ? std::to_string(*n) : std::string("none")),
                instance);
      if (ctx.verdict_only()) return false;
    }
    if (s.max_ndim && (!n || *n > *s.max_ndim)) {
      ok = fail(ctx, s, "max_ndim", "wrong number of dimensions: expected at most " +
                                        std::to_string(*s.max_ndim) + ", got " +
                                        (n ? std::to_string(*n) : std::string("none")),
                instance);
      if (ctx.verdict_only()) return false;
    }
  }
  if (s.datatype && !check_datatype(s, instance, ctx)) ok = false;
  return ok;
}

}  // namespace asdfcore::schema::detail
