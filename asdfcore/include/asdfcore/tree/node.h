#pragma once
/// \file
/// The ASDF tree: YAML 1.1 values with optional tags. A node is null, bool, integer (int64, or
/// an arbitrary-size integer kept as decimal text), float, string, binary, timestamp, sequence
/// or mapping (insertion order kept, keys of any kind). Nodes are shared through `NodePtr`, so a
/// YAML alias reads as the same node reached twice.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace asdfcore::tree {

class Node;
/// A shared reference to a node; aliases are two references to one node.
using NodePtr = std::shared_ptr<Node>;

/// What a node holds.
enum class NodeKind : std::uint8_t {
  kNull,
  kBool,
  kInt,        ///< Fits in int64.
  kBigInt,     ///< An integer outside int64, kept as its decimal text ("-123...").
  kFloat,
  kString,
  kBinary,     ///< `!!binary`: bytes.
  kTimestamp,  ///< `!!timestamp` (implicit or explicit): kept as its YAML text.
  kSequence,
  kMapping,
};

/// Return the lower-case name of `kind` ("mapping", "int", ...).
std::string_view node_kind_name(NodeKind kind) noexcept;

/// How a scalar was, or should be, written. `kAny` lets the writer choose.
enum class ScalarStyle : std::uint8_t {
  kAny,
  kPlain,
  kSingleQuoted,
  kDoubleQuoted,
  kLiteral,
  kFolded,
};
/// How a sequence or mapping was, or should be, written. `kAny` lets the writer choose.
enum class CollectionStyle : std::uint8_t { kAny, kBlock, kFlow };

/// The standard YAML tag prefix ("tag:yaml.org,2002:").
inline constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";
/// The ASDF core tag prefix, bound to `!` in files python asdf writes.
inline constexpr std::string_view kAsdfTagPrefix = "tag:stsci.edu:asdf/";

/// One value of the tree.
class Node {
 public:
  /// The items of a sequence, in order.
  using Sequence = std::vector<NodePtr>;
  /// The (key, value) entries of a mapping, in insertion order.
  using Mapping = std::vector<std::pair<NodePtr, NodePtr>>;

  /// Make a null node.
  static NodePtr make_null();
  /// Make a boolean node.
  static NodePtr make_bool(bool value);
  /// Make an integer node.
  static NodePtr make_int(std::int64_t value);
  /// Make an integer node from decimal text of any size ("-12", "123456789012345678901234").
  /// The result is kInt when the value fits in int64, else kBigInt.
  static NodePtr make_integer_text(std::string decimal);
  /// Make a float node.
  static NodePtr make_float(double value);
  /// Make a string node.
  static NodePtr make_string(std::string value);
  /// Make a binary node.
  static NodePtr make_binary(std::vector<std::uint8_t> value);
  /// Make a timestamp node from its YAML text ("2001-12-14t21:59:43.10-05:00").
  static NodePtr make_timestamp(std::string text);
  /// Make an empty sequence.
  static NodePtr make_sequence();
  /// Make an empty mapping.
  static NodePtr make_mapping();

  /// Return what the node holds.
  NodeKind kind() const noexcept { return kind_; }
  /// True for kNull.
  bool is_null() const noexcept { return kind_ == NodeKind::kNull; }
  /// True for kMapping.
  bool is_mapping() const noexcept { return kind_ == NodeKind::kMapping; }
  /// True for kSequence.
  bool is_sequence() const noexcept { return kind_ == NodeKind::kSequence; }
  /// True for kString.
  bool is_string() const noexcept { return kind_ == NodeKind::kString; }
  /// True for kInt and kBigInt.
  bool is_integer() const noexcept { return kind_ == NodeKind::kInt || kind_ == NodeKind::kBigInt; }
  /// True for kInt, kBigInt and kFloat.
  bool is_number() const noexcept { return is_integer() || kind_ == NodeKind::kFloat; }

  /// Return the full tag URI ("tag:stsci.edu:asdf/core/ndarray-1.0.0"), or "" when untagged.
  /// Standard YAML tags (`!!str`, `!!int`, ...) are not kept: they decide the kind instead.
  const std::string& tag() const noexcept { return tag_ ? *tag_ : no_tag(); }
  /// Set the full tag URI ("" removes it).
  void set_tag(std::string tag);
  /// Set the tag to `tag`'s text, sharing it with the other nodes given the same pointer (a
  /// reader tags thousands of nodes alike); nullptr or "" removes it.
  void set_tag(std::shared_ptr<const std::string> tag) noexcept;
  /// Give this node `from`'s tag, sharing its text.
  void copy_tag(const Node& from) noexcept { tag_ = from.tag_; }

  /// Return the boolean. Throws `Error` (invalid-argument) when the node is not a bool.
  bool as_bool() const;
  /// Return the integer. Throws when the node is not kInt.
  std::int64_t as_int() const;
  /// Return the integer as decimal text (kInt or kBigInt).
  std::string integer_text() const;
  /// Return the number as a double (kInt, kBigInt, kFloat).
  double as_double() const;
  /// Return the string (kString), or the text of a kTimestamp.
  const std::string& as_string() const;
  /// Return the bytes of a kBinary node.
  const std::vector<std::uint8_t>& as_binary() const;

  /// Return the items of a sequence. Throws when the node is not a sequence.
  const Sequence& items() const;
  /// Return the items of a sequence, to change. Throws when the node is not a sequence.
  Sequence& items();
  /// Append `item` to a sequence.
  void push_back(NodePtr item);

  /// Return the entries of a mapping, in insertion order. Throws when not a mapping.
  const Mapping& entries() const;
  /// Return the entries of a mapping, to change. Throws when not a mapping.
  Mapping& entries();
  /// Return the value under the string key `key`, or nullptr (also when not a mapping).
  NodePtr get(std::string_view key) const;
  /// Set the value under the string key `key`, replacing an existing entry in place.
  void set(std::string_view key, NodePtr value);
  /// Remove the entry under the string key `key`; return whether there was one.
  bool erase(std::string_view key);
  /// Return the number of items or entries (0 for scalars).
  std::size_t size() const noexcept;

  /// Scalar style as read (or wanted on write).
  ScalarStyle scalar_style = ScalarStyle::kAny;
  /// Collection style as read (or wanted on write).
  CollectionStyle collection_style = CollectionStyle::kAny;

 private:
  /// Only Node's own `make_*` can name this, so only they construct nodes of a kind.
  struct Key {
    explicit Key() = default;
  };

 public:
  /// Use the `make_*` functions (which need `Key`); public only so that they can allocate the
  /// node and its reference count together (`std::make_shared`).
  Node(Key, NodeKind kind) : kind_(kind) {}

 private:
  /// Return a new node of `kind`, allocated with its reference count in one block.
  static NodePtr create(NodeKind kind) { return std::make_shared<Node>(Key{}, kind); }
  [[noreturn]] void wrong_kind(std::string_view wanted) const;
  /// The empty string `tag()` returns for an untagged node.
  static const std::string& no_tag() noexcept;

  NodeKind kind_;
  // Shared, immutable text, null when untagged: 16 bytes a node instead of a string's 32, and
  // one copy of "tag:stsci.edu:asdf/core/ndarray-1.0.0" for all of a file's arrays.
  std::shared_ptr<const std::string> tag_;
  std::variant<std::monostate, bool, std::int64_t, double, std::string, std::vector<std::uint8_t>,
               Sequence, Mapping>
      value_;
};

/// Return true when `a` and `b` hold equal values and tags, compared deeply (floats by value,
/// NaN equal to NaN; mapping order and styles ignored).
bool deep_equal(const Node& a, const Node& b);

/// Return a short description of `node` for error messages: a string in quotes, an integer's
/// digits, else "a <kind>" ("a mapping").
std::string describe_for_error(const Node& node);

/// Return a deep copy of `root`: new containers, the same sharing (a node reached twice in
/// `root` is one node reached twice in the copy). Scalars are copied too.
NodePtr deep_copy(const NodePtr& root);

/// Return the text a mapping key is matched by and written in JSON Pointers: a string as is, an
/// integer's digits, a bool's word, a float as YAML writes it, "null", else a description.
std::string key_as_text(const Node& key);

/// Escape one JSON Pointer reference token ("~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string_view token);

}  // namespace asdfcore::tree
