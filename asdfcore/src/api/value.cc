// Values of an opened tree: navigation by key, index and JSON Pointer, typed getters with
// errors that say where, what was expected and what was found, and YAML timestamps.
#include "asdfcore/value.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <regex>

#include "asdfcore/ndarray/inline_data.h"
#include "asdfcore/tree/walk.h"

namespace asdfcore {
namespace {

using tree::Node;
using tree::NodeKind;

/// Return "a string (\"abc\")", "an integer (300)", "a mapping tagged X", ... for messages.
std::string found(const Node& node) {
  auto shorten = [](std::string s) { return s.size() <= 40 ? s : s.substr(0, 37) + "..."; };
  std::string text;
  switch (node.kind()) {
    case NodeKind::kNull: text = "null"; break;
    case NodeKind::kBool: text = std::string("a boolean (") + (node.as_bool() ? "true" : "false") + ")"; break;
    case NodeKind::kInt:
    case NodeKind::kBigInt: text = "an integer (" + shorten(node.integer_text()) + ")"; break;
    case NodeKind::kFloat: text = "a float (" + tree::format_float(node.as_double()) + ")"; break;
    case NodeKind::kString: text = "a string (\"" + shorten(node.as_string()) + "\")"; break;
    case NodeKind::kBinary: text = "binary data (" + std::to_string(node.as_binary().size()) + " bytes)"; break;
    case NodeKind::kTimestamp: text = "a timestamp (" + node.as_string() + ")"; break;
    case NodeKind::kSequence: text = "a sequence of " + std::to_string(node.size()) + " items"; break;
    case NodeKind::kMapping: text = "a mapping of " + std::to_string(node.size()) + " entries"; break;
  }
  if (!node.tag().empty()) text += " tagged " + node.tag();
  return text;
}


/// Split a JSON Pointer into its unescaped steps ("/a~1b/0" -> {"a/b", "0"}).
std::vector<std::string> split_pointer(std::string_view pointer) {
  std::vector<std::string> steps;
  if (pointer.empty()) return steps;
  if (pointer.front() == '/') pointer.remove_prefix(1);
  while (true) {
    const std::size_t slash = pointer.find('/');
    const std::string_view raw = pointer.substr(0, slash);
    std::string step;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        step += raw[i];
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        step += raw[++i] == '0' ? '~' : '/';
      } else {
        throw Error(ErrorCode::kInvalidArgument,
                    "the JSON Pointer '" + std::string(pointer) +
                        "' has a '~' not followed by 0 or 1 (write ~0 for '~', ~1 for '/')");
      }
    }
    steps.push_back(std::move(step));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return steps;
}

/// Return the number `text` as an index into a sequence of `size` items (negative counts from
/// the end), or nothing.
std::optional<std::size_t> sequence_index(const std::string& text, std::size_t size) {
  long long i = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (i < 0) i += static_cast<long long>(size);
  if (i < 0 || static_cast<unsigned long long>(i) >= size) return std::nullopt;
  return static_cast<std::size_t>(i);
}

/// Return the entry `key` of `mapping` (matched by key text), or nullptr.
tree::NodePtr mapping_value(const Node& mapping, std::string_view key) {
  for (const auto& [k, v] : mapping.entries()) {
    if (k->is_string() ? k->as_string() == key : tree::key_as_text(*k) == key) return v;
  }
  return nullptr;
}

/// Return up to ten keys of `mapping` for a "no such key" message.
std::string some_keys(const Node& mapping) {
  std::string keys;
  std::size_t n = 0;
  for (const auto& entry : mapping.entries()) {
    if (n++ == 10) return keys + ", ...";
    keys += (keys.empty() ? "" : ", ") + tree::key_as_text(*entry.first);
  }
  return keys.empty() ? "none" : keys;
}

template <typename I>
I checked_integer(const Node& node, const std::function<void(std::string_view)>& fail,
                  std::string_view name) {
  if (!node.is_integer()) fail(name);
  const std::string digits = node.integer_text();
  I value{};
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    fail(std::string(name) + " (the value does not fit)");
  }
  return value;
}

}  // namespace

Value::Value(std::shared_ptr<const AsdfFile> file, tree::NodePtr node, std::string path)
    : file_(std::move(file)), node_(std::move(node)), path_(std::move(path)) {}

const Node& Value::checked() const {
  if (!node_) throw Error(ErrorCode::kInvalidArgument, "the Value handle is empty");
  return *node_;
}

void Value::wrong_type(std::string_view expected) const {
  throw Error(ErrorCode::kWrongType,
              "expected " + std::string(expected) + ", found " + found(checked()),
              ErrorContext{.file = file_name(), .tree_path = path_.empty() ? "/" : path_});
}

NodeKind Value::kind() const { return checked().kind(); }
const std::string& Value::tag() const { return checked().tag(); }
bool Value::is_ndarray() const { return tree::is_ndarray(checked()); }
std::size_t Value::size() const { return checked().size(); }

bool Value::contains(std::string_view key) const {
  return checked().is_mapping() && mapping_value(*node_, key) != nullptr;
}

Value Value::operator[](std::string_view key) const {
  if (!checked().is_mapping()) wrong_type("a mapping (to look up the key '" + std::string(key) + "')");
  tree::NodePtr v = mapping_value(*node_, key);
  if (!v) {
    throw Error(ErrorCode::kNotFound,
                "no key '" + std::string(key) + "' here (keys: " + some_keys(*node_) + ")",
                ErrorContext{.file = file_name(), .tree_path = path_.empty() ? "/" : path_});
  }
  return Value(file_, std::move(v), path_ + "/" + tree::escape_pointer_token(key));
}

Value Value::operator[](std::size_t index) const {
  if (!checked().is_sequence()) wrong_type("a sequence (to take item " + std::to_string(index) + ")");
  if (index >= node_->size()) {
    throw Error(ErrorCode::kNotFound,
                "no item " + std::to_string(index) + " here: the sequence has " +
                    std::to_string(node_->size()) + " items",
                ErrorContext{.file = file_name(), .tree_path = path_.empty() ? "/" : path_});
  }
  return Value(file_, node_->items()[index], path_ + "/" + std::to_string(index));
}

namespace {

/// Return the node `step` leads to from `node` (a key of a mapping, an index of a sequence),
/// or null with `why` saying what is missing.
tree::NodePtr take_step(const Node& node, const std::string& step, std::string& why) {
  if (node.is_mapping()) {
    tree::NodePtr next = mapping_value(node, step);
    if (!next) why = "no key '" + step + "' (keys: " + some_keys(node) + ")";
    return next;
  }
  if (node.is_sequence()) {
    if (auto i = sequence_index(step, node.size())) return node.items()[*i];
    why = "no item '" + step + "' in a sequence of " + std::to_string(node.size()) + " items";
    return nullptr;
  }
  why = "cannot step to '" + step + "' inside " + found(node);
  return nullptr;
}

}  // namespace

std::optional<Value> Value::find(std::string_view pointer) const {
  checked();
  Value at = *this;
  std::string why;
  for (const std::string& step : split_pointer(pointer)) {
    tree::NodePtr next = take_step(*at.node_, step, why);
    if (!next) return std::nullopt;
    at = Value(file_, std::move(next), at.path_ + "/" + tree::escape_pointer_token(step));
  }
  return at;
}

Value Value::at(std::string_view pointer) const {
  checked();
  Value at = *this;
  std::string why;
  for (const std::string& step : split_pointer(pointer)) {
    tree::NodePtr next = take_step(*at.node_, step, why);
    if (!next) {
      throw Error(ErrorCode::kNotFound, why,
                  ErrorContext{.file = file_name(), .tree_path = at.path_.empty() ? "/" : at.path_});
    }
    at = Value(file_, std::move(next), at.path_ + "/" + tree::escape_pointer_token(step));
  }
  return at;
}

std::vector<Value::Entry> Value::entries() const {
  if (!checked().is_mapping()) wrong_type("a mapping");
  std::vector<Entry> out;
  out.reserve(node_->size());
  for (const auto& [k, v] : node_->entries()) {
    std::string key = tree::key_as_text(*k);
    std::string path = path_ + "/" + tree::escape_pointer_token(key);
    out.push_back(Entry{std::move(key), Value(file_, v, std::move(path))});
  }
  return out;
}

std::vector<Value> Value::items() const {
  if (!checked().is_sequence()) wrong_type("a sequence");
  std::vector<Value> out;
  out.reserve(node_->size());
  for (std::size_t i = 0; i < node_->size(); ++i) {
    out.emplace_back(file_, node_->items()[i], path_ + "/" + std::to_string(i));
  }
  return out;
}

std::shared_ptr<const ndarray::NDArray> Value::raw_array() const {
  const Node& node = checked();
  if (!file_) {
    throw Error(ErrorCode::kInvalidArgument, "the value belongs to no opened file",
                ErrorContext{.tree_path = path_});
  }
  if (tree::is_ndarray(node)) return std::make_shared<ndarray::NDArray>(file_->array(node, path_));
  // Wrappers python asdf hands out as arrays: a table column, a quantity, a masked array.
  const std::string& tag = node.tag();
  for (const char* key : {"data", "value"}) {
    const bool wraps = (std::string_view(key) == "data" && tag.find("/core/column-") != std::string::npos) ||
                       (std::string_view(key) == "value" && tag.find("/quantity-") != std::string::npos);
    if (wraps && contains(key)) return (*this)[key].raw_array();
  }
  wrong_type("an ndarray");
}

std::vector<std::string> Value::strings() const {
  const std::shared_ptr<const ndarray::NDArray> array = raw_array();
  if (!array->dtype().is_string()) {
    throw Error(ErrorCode::kWrongType,
                "expected an array of strings (ascii or ucs4), found an array of " +
                    array->dtype().to_string(),
                ErrorContext{.file = file_name(), .tree_path = path_});
  }
  // The inline form decodes ascii and ucs4 and drops trailing NULs as python asdf does.
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(array->size()));
  tree::walk(ndarray::to_inline_data(*array, std::numeric_limits<std::uint64_t>::max()),
             [&out](const tree::NodePtr& n, const std::string&) {
               if (n->is_string()) out.push_back(n->as_string());
               return true;
             });
  return out;
}


template <>
Value Value::get<Value>() const {
  checked();
  return *this;
}

template <>
bool Value::get<bool>() const {
  if (checked().kind() != NodeKind::kBool) wrong_type("a boolean");
  return node_->as_bool();
}

#define FITSASDF_INTEGER_GETTER(T, NAME)                                          \
  template <>                                                                    \
  T Value::get<T>() const {                                                      \
    return checked_integer<T>(checked(), [this](std::string_view e) { wrong_type(e); }, NAME); \
  }
FITSASDF_INTEGER_GETTER(std::int8_t, "an integer for int8")
FITSASDF_INTEGER_GETTER(std::int16_t, "an integer for int16")
FITSASDF_INTEGER_GETTER(std::int32_t, "an integer for int32")
FITSASDF_INTEGER_GETTER(std::int64_t, "an integer for int64")
FITSASDF_INTEGER_GETTER(std::uint8_t, "an integer for uint8")
FITSASDF_INTEGER_GETTER(std::uint16_t, "an integer for uint16")
FITSASDF_INTEGER_GETTER(std::uint32_t, "an integer for uint32")
FITSASDF_INTEGER_GETTER(std::uint64_t, "an integer for uint64")
#undef FITSASDF_INTEGER_GETTER

namespace {

/// Return the number inside a scalar quantity (`unit/quantity-*` with a number `value`), else
/// null: python asdf gives such a node as an astropy Quantity, whose float is its value.
tree::NodePtr quantity_number(const Node& node) {
  if (!node.is_mapping() || node.tag().find("/quantity-") == std::string::npos) return nullptr;
  tree::NodePtr value = node.get("value");
  return value && value->is_number() ? value : nullptr;
}

}  // namespace

template <>
double Value::get<double>() const {
  if (const tree::NodePtr q = quantity_number(checked())) return q->as_double();
  if (!checked().is_number()) wrong_type("a number for double");
  return node_->as_double();
}

template <>
float Value::get<float>() const {
  const tree::NodePtr q = quantity_number(checked());
  if (!q && !checked().is_number()) wrong_type("a number for float");
  const double v = (q ? q : node_)->as_double();
  if (std::isfinite(v) && std::abs(v) > std::numeric_limits<float>::max()) {
    wrong_type("a number for float (the value does not fit)");
  }
  return static_cast<float>(v);
}

template <>
std::string Value::get<std::string>() const {
  const NodeKind k = checked().kind();
  if (k != NodeKind::kString && k != NodeKind::kTimestamp) wrong_type("a string");
  return node_->as_string();
}

template <>
Timestamp Value::get<Timestamp>() const {
  // A YAML timestamp, or an astropy Time written in ISO form (`!time/time-1.1.0 2020-02-01T00:00:00`).
  const bool time_text = checked().is_string() && node_->tag().find("/time/time-") != std::string::npos;
  if (node_->kind() != NodeKind::kTimestamp && !time_text) wrong_type("a timestamp");
  try {
    return Timestamp::parse(node_->as_string());
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = file_name(), .tree_path = path_});
  }
}

Timestamp Timestamp::parse(std::string_view text) {
  // YAML 1.1's timestamp type (https://yaml.org/type/timestamp.html), as PyYAML reads it.
  static const std::regex pattern(
      R"(([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(text.begin(), text.end(), m, pattern)) {
    throw Error(ErrorCode::kWrongType, "'" + std::string(text) + "' is not a YAML timestamp");
  }
  auto number = [&m](int i) { return m[i].matched ? std::stoi(m[i].str()) : 0; };
  using namespace std::chrono;
  const year_month_day date{year(number(1)), month(static_cast<unsigned>(number(2))),
                            day(static_cast<unsigned>(number(3)))};
  if (!date.ok() || number(4) > 23 || number(5) > 59 || number(6) > 60) {
    throw Error(ErrorCode::kWrongType, "'" + std::string(text) + "' is not a valid date and time");
  }
  Timestamp t;
  t.text = std::string(text);
  t.date_only = !m[4].matched;
  std::string fraction = m[7].matched ? m[7].str() : "";
  fraction = (fraction + "000000000").substr(0, 9);
  t.time = sys_days(date) + hours(number(4)) + minutes(number(5)) + seconds(number(6)) +
           nanoseconds(std::stoll(fraction));
  if (m[9].matched) {
    const minutes offset = hours(number(10)) + minutes(number(11));
    t.utc_offset = m[9].str() == "-" ? -offset : offset;
    t.time -= *t.utc_offset;
  }
  return t;
}

}  // namespace asdfcore
