// The converters of the ASDF core schemas (tag:stsci.edu:asdf/core/...), and the registry.
#include <algorithm>
#include <array>
#include <unordered_set>

#include "asdfcore/error.h"
#include "asdfcore/extension/converter.h"
#include "asdfcore/extension/core_types.h"
#include "asdfcore/ndarray/ndarray.h"
#include "tree/pointer_steps.h"

namespace asdfcore::extension {
namespace {

using tree::Node;
using tree::NodePtr;

constexpr std::string_view kCore = "tag:stsci.edu:asdf/core/";

[[noreturn]] void malformed(const ReadContext& ctx, const std::string& what) {
  throw Error(ErrorCode::kMalformed, what, ErrorContext{.tree_path = ctx.path});
}

const Node& require_mapping(const Node& node, const ReadContext& ctx, std::string_view tag) {
  if (!node.is_mapping()) malformed(ctx, std::string(tag) + " must be a mapping");
  return node;
}

/// A converter whose value is the node itself, after checking required string keys.
class MappingConverter final : public Converter {
 public:
  MappingConverter(std::string name, std::vector<std::string_view> versions,
                   std::vector<std::string> required)
      : name_(std::string(kCore) + name), versions_(std::move(versions)),
        required_(std::move(required)) {}
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return versions_; }
  std::any read(const Node& node, const ReadContext& ctx) const override {
    require_mapping(node, ctx, name_);
    for (const auto& key : required_) {
      if (!node.get(key)) malformed(ctx, name_ + " lacks the required key '" + key + "'");
    }
    return NodePtr(std::shared_ptr<Node>(), const_cast<Node*>(&node));
  }

 private:
  std::string name_;
  std::vector<std::string_view> versions_;
  std::vector<std::string> required_;
};

class ComplexConverter final : public Converter {
 public:
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const Node& node, const ReadContext& ctx) const override {
    if (!node.is_string()) malformed(ctx, "core/complex must be a string like '(1+2j)'");
    try {
      return parse_complex(node.as_string());
    } catch (const Error& e) {
      throw e.with_context(ErrorContext{.tree_path = ctx.path});
    }
  }

 private:
  static constexpr std::array<std::string_view, 1> kVersions{"1.0.0"};
  std::string name_ = std::string(kCore) + "complex";
};

class IntegerConverter final : public Converter {
 public:
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const Node& node, const ReadContext& ctx) const override {
    require_mapping(node, ctx, "core/integer");
    const NodePtr sign = node.get("sign");
    const NodePtr words = node.get("words");
    if (!sign || !sign->is_string() || (sign->as_string() != "+" && sign->as_string() != "-")) {
      malformed(ctx, "core/integer needs sign '+' or '-'");
    }
    if (!words) malformed(ctx, "core/integer needs 'words'");
    if (ctx.blocks == nullptr) malformed(ctx, "core/integer words cannot be read without blocks");
    const auto array = ndarray::NDArray::from_node(*words, *ctx.blocks, ctx.path + "/words");
    const auto bytes = array.to_c_order(ndarray::ByteOrder::kLittle);
    if (array.dtype().itemsize() != 4 || bytes.size() % 4 != 0) {
      malformed(ctx, "core/integer words must be uint32");
    }
    std::vector<std::uint32_t> w(bytes.size() / 4);
    for (std::size_t i = 0; i < w.size(); ++i) {
      w[i] = std::uint32_t{bytes[4 * i]} | (std::uint32_t{bytes[4 * i + 1]} << 8) |
             (std::uint32_t{bytes[4 * i + 2]} << 16) | (std::uint32_t{bytes[4 * i + 3]} << 24);
    }
    return BigInteger{words_to_decimal(w, sign->as_string() == "-")};
  }

 private:
  static constexpr std::array<std::string_view, 1> kVersions{"1.0.0"};
  std::string name_ = std::string(kCore) + "integer";
};

class NdarrayConverter final : public Converter {
 public:
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const Node& node, const ReadContext& ctx) const override {
    if (ctx.blocks == nullptr) malformed(ctx, "core/ndarray cannot be read without blocks");
    return ndarray::NDArray::from_node(node, *ctx.blocks, ctx.path);
  }

 private:
  static constexpr std::array<std::string_view, 2> kVersions{"1.0.0", "1.1.0"};
  std::string name_ = std::string(kCore) + "ndarray";
};

class ExternalArrayConverter final : public Converter {
 public:
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const Node& node, const ReadContext& ctx) const override {
    require_mapping(node, ctx, "core/externalarray");
    ExternalArray out;
    const NodePtr uri = node.get("fileuri");
    const NodePtr datatype = node.get("datatype");
    const NodePtr shape = node.get("shape");
    if (!uri || !uri->is_string() || !datatype || !datatype->is_string() || !shape ||
        !shape->is_sequence() || !node.get("target")) {
      malformed(ctx, "core/externalarray needs fileuri, target, datatype and shape");
    }
    out.fileuri = uri->as_string();
    out.target = node.get("target");
    out.datatype = datatype->as_string();
    for (const auto& d : shape->items()) {
      if (d->kind() != tree::NodeKind::kInt || d->as_int() < 0) {
        malformed(ctx, "core/externalarray shape must hold non-negative integers");
      }
      out.shape.push_back(static_cast<std::uint64_t>(d->as_int()));
    }
    return out;
  }

 private:
  static constexpr std::array<std::string_view, 1> kVersions{"1.0.0"};
  std::string name_ = std::string(kCore) + "externalarray";
};

class ConstantConverter final : public Converter {
 public:
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const Node& node, const ReadContext&) const override {
    return NodePtr(std::shared_ptr<Node>(), const_cast<Node*>(&node));
  }

 private:
  static constexpr std::array<std::string_view, 1> kVersions{"1.0.0"};
  std::string name_ = std::string(kCore) + "constant";
};

class TableConverter final : public Converter {
 public:
  std::string_view tag_name() const noexcept override { return name_; }
  std::span<const std::string_view> versions() const noexcept override { return kVersions; }
  std::any read(const Node& node, const ReadContext& ctx) const override {
    require_mapping(node, ctx, "core/table");
    const NodePtr columns = node.get("columns");
    if (!columns || !columns->is_sequence()) malformed(ctx, "core/table needs a columns list");
    Table table;
    table.meta = node.get("meta");
    for (const auto& c : columns->items()) {
      TableColumn col;
      if (c->is_mapping()) {
        const NodePtr name = c->get("name");
        const NodePtr description = c->get("description");
        col.name = name && name->is_string() ? name->as_string() : "";
        col.description = description && description->is_string() ? description->as_string() : "";
        col.data = c->get("data");
        col.unit = c->get("unit");
      } else {
        col.data = c;  // a bare array (astropy writes these in some versions)
      }
      if (!col.data) malformed(ctx, "core/table column " + col.name + " has no data");
      table.columns.push_back(std::move(col));
    }
    return table;
  }

 private:
  static constexpr std::array<std::string_view, 1> kVersions{"1.0.0"};
  std::string name_ = std::string(kCore) + "table";
};

struct TagWalk {
  const ConverterRegistry& registry;
  std::vector<std::string>& out;
  std::vector<tree::PointerStep> steps;  // where the walk is
  // Collections already walked that the walk may reach again (tree::may_be_reached_twice).
  std::unordered_set<const Node*> shared_seen;

  void check(const Node& node) {
    const ConverterMatch match = registry.find(node.tag());
    if (match.converter != nullptr && split_tag(node.tag()).version.empty()) {
      throw Error(ErrorCode::kMalformed,
                  "tag " + node.tag() + " has no version (expected like " +
                      std::string(match.converter->tag_name()) + "-" + match.used_version + ")",
                  ErrorContext{.tree_path = tree::spell_pointer(steps)});
    }
    if (match.converter != nullptr && !match.exact) {
      out.push_back("tag " + node.tag() + " at " + tree::spell_pointer(steps) +
                    ": not a known version; read as " + std::string(match.converter->tag_name()) +
                    "-" + match.used_version);
    }
  }

  void visit(const NodePtr& child, tree::PointerStep step) {
    if (!child) return;
    if (tree::may_be_reached_twice(child) && !shared_seen.insert(child.get()).second) return;
    steps.push_back(step);
    walk(*child);
    steps.pop_back();
  }

  void walk(const Node& node) {
    if (steps.size() > 100000) return;
    if (!node.tag().empty()) check(node);
    if (node.is_sequence()) {
      std::size_t i = 0;
      for (const auto& item : node.items()) visit(item, tree::PointerStep{nullptr, i++});
    } else if (node.is_mapping()) {
      for (const auto& [k, v] : node.entries()) visit(v, tree::PointerStep{k.get(), 0});
    }
  }
};

}  // namespace

ConverterRegistry ConverterRegistry::with_builtins() {
  ConverterRegistry r;
  r.add(std::make_shared<NdarrayConverter>());
  r.add(std::make_shared<ComplexConverter>());
  r.add(std::make_shared<IntegerConverter>());
  r.add(std::make_shared<ExternalArrayConverter>());
  r.add(std::make_shared<ConstantConverter>());
  r.add(std::make_shared<TableConverter>());
  r.add(std::make_shared<MappingConverter>("asdf", std::vector<std::string_view>{"1.0.0", "1.1.0"},
                                           std::vector<std::string>{}));
  r.add(std::make_shared<MappingConverter>("software", std::vector<std::string_view>{"1.0.0"},
                                           std::vector<std::string>{"name", "version"}));
  r.add(std::make_shared<MappingConverter>("history_entry",
                                           std::vector<std::string_view>{"1.0.0"},
                                           std::vector<std::string>{"description"}));
  r.add(std::make_shared<MappingConverter>("extension_metadata",
                                           std::vector<std::string_view>{"1.0.0"},
                                           std::vector<std::string>{"extension_class"}));
  r.add(std::make_shared<MappingConverter>("column", std::vector<std::string_view>{"1.0.0"},
                                           std::vector<std::string>{"data", "name"}));
  r.add(std::make_shared<MappingConverter>("subclass_metadata",
                                           std::vector<std::string_view>{"1.0.0"},
                                           std::vector<std::string>{"name"}));
  return r;
}

void ConverterRegistry::add(std::shared_ptr<const Converter> converter) {
  if (converter) converters_.push_back(std::move(converter));
}

ConverterMatch ConverterRegistry::find(std::string_view tag) const {
  const TagParts parts = split_tag(tag);
  for (const auto& c : converters_) {
    if (c->tag_name() != parts.name) continue;
    ConverterMatch m;
    m.converter = c.get();
    const auto versions = c->versions();
    if (std::find(versions.begin(), versions.end(), parts.version) != versions.end()) {
      m.exact = true;
      m.used_version = parts.version;
      return m;
    }
    // The nearest known version: the newest one not newer than the tag's, else the oldest.
    const auto wanted = Version::parse(parts.version);
    m.used_version = std::string(versions.front());
    for (const auto& v : versions) {
      const auto known = Version::parse(v);
      if (wanted && known && *known <= *wanted) m.used_version = std::string(v);
    }
    return m;
  }
  return {};
}

std::vector<std::string> check_tag_versions(const tree::Node& root,
                                            const ConverterRegistry& registry) {
  std::vector<std::string> out;
  TagWalk tags{registry, out, {}, {}};
  if (root.is_sequence() || root.is_mapping()) tags.shared_seen.insert(&root);
  tags.walk(root);
  return out;
}

}  // namespace asdfcore::extension
