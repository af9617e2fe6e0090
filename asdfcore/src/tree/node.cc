#include "asdfcore/tree/node.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"

namespace asdfcore::tree {

std::string_view node_kind_name(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::kNull: return "null";
    case NodeKind::kBool: return "bool";
    case NodeKind::kInt: return "int";
    case NodeKind::kBigInt: return "bigint";
    case NodeKind::kFloat: return "float";
    case NodeKind::kString: return "string";
    case NodeKind::kBinary: return "binary";
    case NodeKind::kTimestamp: return "timestamp";
    case NodeKind::kSequence: return "sequence";
    case NodeKind::kMapping: return "mapping";
  }
  return "unknown";
}

NodePtr Node::make_null() { return create(NodeKind::kNull); }

NodePtr Node::make_bool(bool value) {
  NodePtr n = create(NodeKind::kBool);
  n->value_ = value;
  return n;
}

const std::string& Node::no_tag() noexcept {
  static const std::string empty;
  return empty;
}

void Node::set_tag(std::string tag) {
  if (tag.empty()) {
    tag_.reset();
  } else {
    tag_ = std::make_shared<const std::string>(std::move(tag));
  }
}

void Node::set_tag(std::shared_ptr<const std::string> tag) noexcept {
  if (tag && tag->empty()) tag.reset();
  tag_ = std::move(tag);
}

NodePtr Node::make_int(std::int64_t value) {
  NodePtr n = create(NodeKind::kInt);
  n->value_ = value;
  return n;
}

NodePtr Node::make_integer_text(std::string decimal) {
  std::int64_t v = 0;
  const char* begin = decimal.data();
  const char* end = begin + decimal.size();
  if (begin != end && *begin == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec == std::errc() && ptr == end) return make_int(v);
  NodePtr n = create(NodeKind::kBigInt);
  if (!decimal.empty() && decimal.front() == '+') decimal.erase(0, 1);
  n->value_ = std::move(decimal);
  return n;
}

NodePtr Node::make_float(double value) {
  NodePtr n = create(NodeKind::kFloat);
  n->value_ = value;
  return n;
}

NodePtr Node::make_string(std::string value) {
  NodePtr n = create(NodeKind::kString);
  n->value_ = std::move(value);
  return n;
}

NodePtr Node::make_binary(std::vector<std::uint8_t> value) {
  NodePtr n = create(NodeKind::kBinary);
  n->value_ = std::move(value);
  return n;
}

NodePtr Node::make_timestamp(std::string text) {
  NodePtr n = create(NodeKind::kTimestamp);
  n->value_ = std::move(text);
  return n;
}

NodePtr Node::make_sequence() {
  NodePtr n = create(NodeKind::kSequence);
  n->value_ = Sequence{};
  return n;
}

NodePtr Node::make_mapping() {
  NodePtr n = create(NodeKind::kMapping);
  n->value_ = Mapping{};
  return n;
}

void Node::wrong_kind(std::string_view wanted) const {
  throw Error(ErrorCode::kInvalidArgument, "expected a " + std::string(wanted) + " node, found " +
                                               std::string(node_kind_name(kind_)));
}

bool Node::as_bool() const {
  if (kind_ != NodeKind::kBool) wrong_kind("bool");
  return std::get<bool>(value_);
}

std::int64_t Node::as_int() const {
  if (kind_ != NodeKind::kInt) wrong_kind("int");
  return std::get<std::int64_t>(value_);
}

std::string Node::integer_text() const {
  if (kind_ == NodeKind::kInt) return std::to_string(std::get<std::int64_t>(value_));
  if (kind_ == NodeKind::kBigInt) return std::get<std::string>(value_);
  wrong_kind("integer");
}

double Node::as_double() const {
  switch (kind_) {
    case NodeKind::kInt: return static_cast<double>(std::get<std::int64_t>(value_));
    case NodeKind::kBigInt: return std::strtod(std::get<std::string>(value_).c_str(), nullptr);
    case NodeKind::kFloat: return std::get<double>(value_);
    default: wrong_kind("number");
  }
}

const std::string& Node::as_string() const {
  if (kind_ != NodeKind::kString && kind_ != NodeKind::kTimestamp) wrong_kind("string");
  return std::get<std::string>(value_);
}

const std::vector<std::uint8_t>& Node::as_binary() const {
  if (kind_ != NodeKind::kBinary) wrong_kind("binary");
  return std::get<std::vector<std::uint8_t>>(value_);
}

const Node::Sequence& Node::items() const {
  if (kind_ != NodeKind::kSequence) wrong_kind("sequence");
  return std::get<Sequence>(value_);
}

Node::Sequence& Node::items() {
  if (kind_ != NodeKind::kSequence) wrong_kind("sequence");
  return std::get<Sequence>(value_);
}

void Node::push_back(NodePtr item) { items().push_back(std::move(item)); }

const Node::Mapping& Node::entries() const {
  if (kind_ != NodeKind::kMapping) wrong_kind("mapping");
  return std::get<Mapping>(value_);
}

Node::Mapping& Node::entries() {
  if (kind_ != NodeKind::kMapping) wrong_kind("mapping");
  return std::get<Mapping>(value_);
}

NodePtr Node::get(std::string_view key) const {
  if (kind_ != NodeKind::kMapping) return nullptr;
  for (const auto& [k, v] : std::get<Mapping>(value_)) {
    if (k && k->kind_ == NodeKind::kString && std::get<std::string>(k->value_) == key) return v;
  }
  return nullptr;
}

void Node::set(std::string_view key, NodePtr value) {
  for (auto& [k, v] : entries()) {
    if (k && k->kind_ == NodeKind::kString && std::get<std::string>(k->value_) == key) {
      v = std::move(value);
      return;
    }
  }
  entries().emplace_back(make_string(std::string(key)), std::move(value));
}

bool Node::erase(std::string_view key) {
  auto& map = entries();
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first && it->first->kind_ == NodeKind::kString &&
        std::get<std::string>(it->first->value_) == key) {
      map.erase(it);
      return true;
    }
  }
  return false;
}

std::size_t Node::size() const noexcept {
  if (kind_ == NodeKind::kSequence) return std::get<Sequence>(value_).size();
  if (kind_ == NodeKind::kMapping) return std::get<Mapping>(value_).size();
  return 0;
}

bool deep_equal(const Node& a, const Node& b) {
  if (&a == &b) return true;
  if (a.kind() != b.kind() || a.tag() != b.tag()) return false;
  switch (a.kind()) {
    case NodeKind::kNull: return true;
    case NodeKind::kBool: return a.as_bool() == b.as_bool();
    case NodeKind::kInt: return a.as_int() == b.as_int();
    case NodeKind::kBigInt: return a.integer_text() == b.integer_text();
    case NodeKind::kFloat: {
      const double x = a.as_double();
      const double y = b.as_double();
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case NodeKind::kString:
    case NodeKind::kTimestamp: return a.as_string() == b.as_string();
    case NodeKind::kBinary: return a.as_binary() == b.as_binary();
    case NodeKind::kSequence: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!deep_equal(*x[i], *y[i])) return false;
      }
      return true;
    }
    case NodeKind::kMapping: {
      // Mappings compare as sets of entries, as YAML (and Python's dict) define equality.
      const auto& x = a.entries();
      const auto& y = b.entries();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const bool same_place = deep_equal(*x[i].first, *y[i].first);
        bool found = same_place && deep_equal(*x[i].second, *y[i].second);
        for (std::size_t j = 0; !found && !same_place && j < y.size(); ++j) {
          found = deep_equal(*x[i].first, *y[j].first) && deep_equal(*x[i].second, *y[j].second);
        }
        if (!found) return false;
      }
      return true;
    }
  }
  return false;
}

namespace {

NodePtr copy_node(const NodePtr& node, std::unordered_map<const Node*, NodePtr>& done) {
  if (!node) return node;
  if (auto it = done.find(node.get()); it != done.end()) return it->second;
  NodePtr out = std::make_shared<Node>(*node);  // copies the scalar value, tag and styles
  done[node.get()] = out;
  if (out->is_sequence()) {
    for (auto& item : out->items()) item = copy_node(item, done);
  } else if (out->is_mapping()) {
    for (auto& [k, v] : out->entries()) {
      k = copy_node(k, done);
      v = copy_node(v, done);
    }
  }
  return out;
}

}  // namespace

std::string describe_for_error(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kString: return "'" + node.as_string() + "'";
    case NodeKind::kInt:
    case NodeKind::kBigInt: return node.integer_text();
    default: return "a " + std::string(node_kind_name(node.kind()));
  }
}

NodePtr deep_copy(const NodePtr& root) {
  // A scalar (a header card's value, copied for every card) needs no record of shared nodes.
  if (root && !root->is_sequence() && !root->is_mapping()) return std::make_shared<Node>(*root);
  std::unordered_map<const Node*, NodePtr> done;
  return copy_node(root, done);
}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string key_as_text(const Node& key) {
  switch (key.kind()) {
    case NodeKind::kString: return key.as_string();
    case NodeKind::kInt:
    case NodeKind::kBigInt: return key.integer_text();
    case NodeKind::kBool: return key.as_bool() ? "true" : "false";
    case NodeKind::kFloat: return format_float(key.as_double());
    case NodeKind::kNull: return "null";
    default: return describe_for_error(key);
  }
}

}  // namespace asdfcore::tree
