#pragma once
/// \file
/// Reading and writing the YAML 1.1 text of an ASDF tree, with the implicit typing PyYAML's
/// SafeLoader applies (which python asdf relies on) and output PyYAML reads back unchanged.
///
/// How YAML maps onto `Node`:
/// - Plain scalars get PyYAML's implicit types (`resolve_plain_scalar`); quoted scalars are
///   strings; a scalar with the non-specific tag `!` is a string (the YAML rule, and PyYAML's
///   pure-Python loader; libyaml-based CSafeLoader would type `! 12` as an int).
/// - The standard tags `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!binary`,
///   `!!timestamp`, `!!map` and `!!seq` decide the node kind and are not kept as tags.
/// - `!!omap` (a sequence of one-entry mappings) becomes a kMapping, in order, that keeps the tag
///   "tag:yaml.org,2002:omap" so that it is written back as an `!!omap` sequence.
/// - A scalar with any other tag is a string holding the scalar's text and keeping the tag, as
///   python asdf's loader makes it (`!unit/unit-1.0.0 m`); collections keep any other tag.
/// - A `<<` merge key merges mappings as PyYAML does; a duplicate key keeps its first place and
///   its last value, as a Python dict does.
/// - The scalar and collection styles read are kept on the nodes; the writer honours them where
///   YAML allows.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asdfcore/tree/node.h"

namespace asdfcore::tree {

/// The tag of an ordered mapping, kept on kMapping nodes read from `!!omap`.
inline constexpr std::string_view kOmapTag = "tag:yaml.org,2002:omap";

/// Limits that protect the reader from hostile input.
struct YamlReadOptions {
  std::size_t max_depth = 1000;                 ///< Nesting of sequences and mappings.
  std::size_t max_nodes = 50'000'000;           ///< Nodes created, aliases counted as their size.
  std::size_t max_alias_expansion = 1'000'000;  ///< Nodes reachable through aliases, in total.
};

/// A key met twice in one mapping. YAML forbids it; PyYAML (and so python asdf) keeps the last
/// value without a word, and so does this reader, which also records it here.
struct DuplicateKey {
  std::string key;          ///< The key (a string key's text, else a short description).
  std::uint64_t offset = 0; ///< Byte offset of its second appearance in the file.
  std::string where;        ///< "line L, column C" of the second appearance.
};

/// The result of reading a YAML document.
struct YamlDocument {
  NodePtr root;  ///< The document's root node (a null node for an empty document).
  std::vector<std::pair<std::string, std::string>> tag_handles;  ///< `%TAG` handle -> prefix.
  std::vector<DuplicateKey> duplicate_keys;  ///< Keys met twice in one mapping, in order.
};

/// Parse `text`, which holds exactly one YAML 1.1 document (UTF-8). Tags are resolved through
/// the `%TAG` directives into full URIs; plain scalars get PyYAML's implicit types (`yes` is
/// true, `017` octal, `1e3` a string, `.inf`, `~`, timestamps); `!!binary`, `!!omap` and the
/// other standard tags set the node kind. Aliases become shared nodes. `name` and `base_offset`
/// (the byte offset of `text` in its file) are used in errors. Throws `Error` (malformed) for
/// invalid YAML, a second document, an undefined, duplicate or recursive anchor, or a scalar
/// that does not fit its type (`0b_`, `2001-02-30`, `!!int abc`); (limit) when a
/// `YamlReadOptions` limit is exceeded.
YamlDocument parse_yaml(std::string_view text, const std::string& name = "",
                        std::uint64_t base_offset = 0, const YamlReadOptions& options = {});

/// Settings for writing YAML.
struct YamlWriteOptions {
  /// `%TAG` handles to declare and use for shortening tags, as python asdf does:
  /// {"!", "tag:stsci.edu:asdf/"}. Tags with no matching prefix are written as `!<uri>`.
  std::vector<std::pair<std::string, std::string>> tag_handles = {{"!", "tag:stsci.edu:asdf/"}};
  int width = 80;  ///< Preferred line width, in characters.
};

/// Write `root` as one YAML 1.1 document, from `%YAML 1.1` through the closing `...` line.
/// Strings are written plain only when PyYAML would read the plain text back as the same
/// string, else quoted (double quotes when they hold non-printable characters); floats are
/// written in the shortest form that reads back exactly (`.inf`, `-.inf`, `.nan`); binary as
/// `!!binary` base64. A collection whose style is `kAny` is written in flow style when all its
/// items (keys and values) are plain-style scalars, else in block style, as PyYAML does with
/// `default_flow_style=None`. Collections reached more than once become an anchor (`&id001`)
/// and aliases; shared scalars are written out each time, as PyYAML does. A tag on a number,
/// bool or null is written, but reads back as a tagged string (the YAML tag decides the type).
/// Throws `Error` (invalid-argument) for a cyclic structure, a timestamp whose text is not a
/// YAML timestamp, or text libyaml refuses (invalid UTF-8, a malformed tag handle).
std::string emit_yaml(const Node& root, const YamlWriteOptions& options = {});

/// Return the scalar text PyYAML would write for a float ("1.0", "1.0e+20", ".inf", "-0.0"):
/// Python's repr() (shortest round-trip digits, exponent form below 1e-4 and from 1e16),
/// lower-cased, with ".0" added to a mantissa without a point.
std::string format_float(double value);

/// Return the node PyYAML's SafeLoader makes of the plain (unquoted, untagged) scalar `text`.
/// `<<` and `=` (the YAML 1.1 merge and value keys) give strings tagged
/// "tag:yaml.org,2002:merge" / "tag:yaml.org,2002:value", as python asdf's loader makes them.
/// Throws `Error` (malformed) when `text` has the form of a type but is no valid value of it
/// ("0b_", "2001-13-45"), where PyYAML fails too.
NodePtr resolve_plain_scalar(std::string_view text);

/// Return the node PyYAML's SafeLoader makes of the scalar `text` written with the explicit tag
/// `tag` (a full URI). The standard scalar tags ("tag:yaml.org,2002:int", ...) decide the kind
/// (`!!int "0x1F"` is 31, `!!binary` is decoded from base64); any other tag gives a string
/// keeping the tag. Throws `Error` (malformed) when `text` does not fit the tag or the tag
/// needs a collection (`!!map`).
NodePtr construct_standard_scalar(std::string_view tag, std::string_view text);

}  // namespace asdfcore::tree
