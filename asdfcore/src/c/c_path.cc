// libasdf's path syntax ("YAML pointer") over asdfcore's tree: parsing, following a path, and
// setting a value at a path with the containers on the way created.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "c/c_state.h"

namespace asdfcore::capi {
namespace {

using tree::Node;
using tree::NodePtr;

constexpr std::string_view kEscaped = "/{}[].&*\\";

/// Parse `text` as a whole decimal integer (an optional '-' then digits).
std::optional<std::int64_t> parse_index(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

/// Return item `index` of a sequence of `size` items (negative from the end), or nothing.
std::optional<std::size_t> item_index(std::int64_t index, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return static_cast<std::size_t>(index);
}

/// Return the value of `mapping` under the key whose text is `key`, or null.
NodePtr mapping_get(const Node& mapping, std::string_view key) {
  for (const auto& [k, v] : mapping.entries()) {
    if (k->is_string() ? k->as_string() == key : key_text(*k) == key) return v;
  }
  return nullptr;
}

}  // namespace

std::optional<std::vector<PathStep>> parse_path(std::string_view path) {
  std::vector<PathStep> steps;
  std::size_t i = 0;
  if (i < path.size() && path[i] == '/') ++i;
  while (i < path.size()) {
    PathStep step;
    const char first = path[i];
    if (first == '\'' || first == '"') {
      const std::size_t close = path.find(first, i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      step.kind = PathStep::Kind::kKey;
      step.text = std::string(path.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (first == '[') {
      const std::size_t close = path.find(']', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      step.kind = PathStep::Kind::kIndex;
      step.text = std::string(path.substr(i + 1, close - i - 1));
      if (!parse_index(step.text)) return std::nullopt;
      i = close + 1;
    } else {
      while (i < path.size() && path[i] != '/') {
        if (path[i] == '\\') {
          if (i + 1 >= path.size()) return std::nullopt;
          step.text += path[i + 1];
          i += 2;
        } else {
          step.text += path[i++];
        }
      }
    }
    if (i < path.size() && path[i] != '/') return std::nullopt;  // text after a quote or ']'
    if (i < path.size()) ++i;
    steps.push_back(std::move(step));
  }
  return steps;
}

std::string escape_key(std::string_view key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    const bool quote_first = i == 0 && (c == '\'' || c == '"');
    if (kEscaped.find(c) != std::string_view::npos || quote_first) out += '\\';
    out += c;
  }
  return out;
}

std::string key_text(const Node& key) {
  if (key.is_string()) return key.as_string();
  return scalar_text(key).value_or(tree::describe_for_error(key));
}

std::optional<Found> resolve(const NodePtr& root, std::string_view path) {
  const auto steps = parse_path(path);
  if (!steps || !root) return std::nullopt;
  Found at{root, "", ""};
  for (const PathStep& step : *steps) {
    const Node& node = *at.node;
    if (node.is_mapping() && step.kind != PathStep::Kind::kIndex) {
      NodePtr next = mapping_get(node, step.text);
      if (!next) return std::nullopt;
      at.node = std::move(next);
      at.path += "/" + escape_key(step.text);
      at.pointer += "/" + tree::escape_pointer_token(step.text);
    } else if (node.is_sequence() && step.kind != PathStep::Kind::kKey) {
      const auto index = parse_index(step.text);
      const auto item = index ? item_index(*index, node.size()) : std::nullopt;
      if (!item) return std::nullopt;
      at.node = node.items()[*item];
      at.path += "/" + std::to_string(*item);
      at.pointer += "/" + std::to_string(*item);
    } else {
      return std::nullopt;
    }
  }
  if (at.path.empty()) at.path = "/";
  return at;
}

asdf_value_err_t set_at(asdf_file* file, const char* path, NodePtr value) {
  if (!file || !path) return ASDF_VALUE_ERR_UNKNOWN;
  const auto steps = parse_path(path);
  if (!steps) {
    set_error(file, ASDF_ERR_INVALID_ARGUMENT,
              "invalid path '" + std::string(path) + "': an unclosed quote or bracket, or a "
              "bracket without an integer");
    return ASDF_VALUE_ERR_NOT_FOUND;
  }
  if (steps->empty()) {
    if (!value->is_mapping()) return ASDF_VALUE_ERR_TYPE_MISMATCH;  // the root is a mapping
    file->root = std::move(value);
    return ASDF_VALUE_OK;
  }
  NodePtr parent = file->root;
  for (std::size_t s = 0; s < steps->size(); ++s) {
    const PathStep& step = (*steps)[s];
    const bool last = s + 1 == steps->size();
    // What goes at this step when it is missing: the value, or the container the next step needs.
    const auto fresh = [&]() -> NodePtr {
      if (last) return value;
      return (*steps)[s + 1].kind == PathStep::Kind::kIndex ? Node::make_sequence()
                                                            : Node::make_mapping();
    };
    NodePtr next;
    if (parent->is_mapping() && step.kind != PathStep::Kind::kIndex) {
      next = mapping_get(*parent, step.text);
      if (!next || last || next->is_null()) {
        next = fresh();
        parent->set(step.text, next);  // replaces in place, or appends
      }
    } else if (parent->is_sequence() && step.kind != PathStep::Kind::kKey) {
      const auto index = parse_index(step.text);
      if (!index) return ASDF_VALUE_ERR_TYPE_MISMATCH;
      auto& items = parent->items();
      std::size_t at = 0;
      if (*index < 0) {
        const auto item = item_index(*index, items.size());
        if (!item) return ASDF_VALUE_ERR_NOT_FOUND;
        at = *item;
      } else {
        at = static_cast<std::size_t>(*index);
        if (at > (std::size_t{1} << 24)) return ASDF_VALUE_ERR_OVERFLOW;  // no huge padding
        while (items.size() <= at) items.push_back(Node::make_null());
      }
      next = items[at];
      if (last || next->is_null()) {
        next = fresh();
        items[at] = next;
      }
    } else {
      return ASDF_VALUE_ERR_TYPE_MISMATCH;
    }
    parent = next;
  }
  return ASDF_VALUE_OK;
}

}  // namespace asdfcore::capi
