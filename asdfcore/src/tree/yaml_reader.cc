// Reading one YAML 1.1 document into a `Node` tree with libyaml's event parser.
//
// The tree is built with an explicit stack of open collections, never by recursion, so hostile
// nesting ends in a limit error rather than a stack overflow. Each subtree's size (aliases
// counted as the size of what they point to) is tracked so that alias bombs fail as soon as the
// expansion they stand for passes the limit, long before anything is copied.

#include <yaml.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree/yaml.h"

namespace asdfcore::tree {
namespace {

constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";
constexpr std::string_view kValueTag = "tag:yaml.org,2002:value";

// Owns a libyaml parser.
class Parser {
 public:
  Parser() {
    if (yaml_parser_initialize(&parser_) == 0) {
      throw Error(ErrorCode::kLimit, "out of memory while setting up the YAML parser");
    }
  }
  ~Parser() { yaml_parser_delete(&parser_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  yaml_parser_t* get() noexcept { return &parser_; }

 private:
  yaml_parser_t parser_;
};

// Owns one libyaml event once the parser has filled it.
class Event {
 public:
  Event() = default;
  ~Event() {
    if (live_) yaml_event_delete(&event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Fill the event from `parser`; return false on a parse error.
  bool next(yaml_parser_t* parser) {
    if (live_) yaml_event_delete(&event_);
    live_ = yaml_parser_parse(parser, &event_) != 0;
    return live_;
  }
  const yaml_event_t& operator*() const noexcept { return event_; }
  const yaml_event_t* operator->() const noexcept { return &event_; }

 private:
  yaml_event_t event_{};
  bool live_ = false;
};

std::string_view text_of(const yaml_char_t* s) {
  return s == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(s));
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

ScalarStyle scalar_style_of(yaml_scalar_style_t style) {
  switch (style) {
    case YAML_PLAIN_SCALAR_STYLE:
      return ScalarStyle::kPlain;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
      return ScalarStyle::kSingleQuoted;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
      return ScalarStyle::kDoubleQuoted;
    case YAML_LITERAL_SCALAR_STYLE:
      return ScalarStyle::kLiteral;
    case YAML_FOLDED_SCALAR_STYLE:
      return ScalarStyle::kFolded;
    default:
      return ScalarStyle::kAny;
  }
}

// Return what kind of node the standard tag `name` (after "tag:yaml.org,2002:") belongs on, or
// "" when any kind may carry it.
std::string_view needed_kind(std::string_view name) {
  if (name == "map") return "a mapping";
  if (name == "seq") return "a sequence";
  if (name == "omap") return "a sequence of pairs";
  if (name == "str" || name == "int" || name == "float" || name == "bool" || name == "null" ||
      name == "binary" || name == "timestamp") {
    return "a scalar";
  }
  return "";
}

bool is_plain_string_key(const Node& key) { return key.is_string() && key.tag().empty(); }

// A sequence or mapping whose items are still being read.
struct Frame {
  NodePtr node;          // The collection (for `!!omap`, a sequence of its pairs).
  bool omap = false;     // Turn the sequence into an ordered mapping at its end.
  bool has_key = false;  // Mapping: `key` waits for its value.
  NodePtr key;
  std::string anchor;
  std::uint64_t size = 1;  // Nodes in the subtree so far, aliases counted as their size.
  yaml_mark_t start{};
  yaml_mark_t key_mark{};  // where the pending key started
  std::vector<NodePtr> merges;                               // Values of `<<` keys, in order.
  std::unordered_map<std::string, std::size_t> string_keys;  // Plain string key -> entry.
};

// What an anchor names: null while its collection is still being read.
struct Anchor {
  NodePtr node;
  std::uint64_t size = 0;
};

// Add `key: value` to `map` as a Python dict would: a key already present keeps its place and
// takes the new value. Plain string keys of a large mapping are found through `index` (built
// once the mapping grows), other keys by deep_equal. Return true when the key was present.
bool upsert(Node& map, std::unordered_map<std::string, std::size_t>& index, NodePtr key,
            NodePtr value) {
  constexpr std::size_t kIndexFrom = 16;
  auto& entries = map.entries();
  if (is_plain_string_key(*key)) {
    const std::string& name = key->as_string();
    if (index.empty() && entries.size() < kIndexFrom) {
      for (auto& entry : entries) {
        if (is_plain_string_key(*entry.first) && entry.first->as_string() == name) {
          entry.second = std::move(value);
          return true;
        }
      }
    } else {
      if (index.empty()) {
        for (std::size_t i = 0; i < entries.size(); ++i) {
          if (is_plain_string_key(*entries[i].first)) {
            index.try_emplace(entries[i].first->as_string(), i);
          }
        }
      }
      const auto [it, inserted] = index.try_emplace(name, entries.size());
      if (!inserted) {
        entries[it->second].second = std::move(value);
        return true;
      }
    }
  } else {
    for (auto& entry : entries) {
      if (!is_plain_string_key(*entry.first) && deep_equal(*entry.first, *key)) {
        entry.second = std::move(value);
        return true;
      }
    }
  }
  entries.emplace_back(std::move(key), std::move(value));
  return false;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& name, std::uint64_t base_offset,
         const YamlReadOptions& options)
      : text_(text), name_(name), base_offset_(base_offset), options_(options) {}

  YamlDocument run() {
    // A UTF-8 byte order mark is allowed at the start; libyaml is told the encoding, so drop it
    // here (and count it in the offsets).
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text_.starts_with(kBom)) {
      text_.remove_prefix(kBom.size());
      base_offset_ += kBom.size();
    }
    Parser parser;
    // libyaml asserts on a null input pointer, which an empty string_view may hold.
    const char* input = text_.data() != nullptr ? text_.data() : "";
    yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(input),
                                 text_.size());
    yaml_parser_set_encoding(parser.get(), YAML_UTF8_ENCODING);
    Event event;
    while (true) {
      if (!event.next(parser.get())) parser_error(*parser.get());
      event_mark_ = event->start_mark;
      switch (event->type) {
        case YAML_DOCUMENT_START_EVENT:
          start_document(*event);
          break;
        case YAML_SCALAR_EVENT:
          scalar(*event);
          break;
        case YAML_ALIAS_EVENT:
          alias(*event);
          break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
          start_collection(*event);
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          end_collection();
          break;
        case YAML_STREAM_END_EVENT: {
          YamlDocument doc;
          doc.root = root_ ? root_ : Node::make_null();
          doc.tag_handles = std::move(tag_handles_);
          doc.duplicate_keys = std::move(duplicates_);
          return doc;
        }
        default:
          break;
      }
    }
  }

 private:
  // Return the byte offset in the file of libyaml's mark, which counts characters.
  std::uint64_t byte_offset(std::size_t char_index) const {
    std::size_t chars = 0;
    std::size_t i = 0;
    for (; i < text_.size(); ++i) {
      const auto byte = static_cast<unsigned char>(text_[i]);
      if ((byte & 0xC0) == 0x80) continue;  // A continuation byte of the current character.
      if (chars == char_index) break;
      ++chars;
    }
    return base_offset_ + i;
  }

  // Return the JSON Pointer of the node being read, from the open collections.
  std::string tree_path() const {
    std::string path;
    for (const auto& frame : stack_) {
      if (frame.node->is_sequence()) {
        path += "/" + std::to_string(frame.node->size());
      } else if (frame.has_key && frame.key->is_string()) {
        path += "/" + escape_pointer_token(frame.key->as_string());
      } else {
        break;
      }
    }
    return path;
  }

  ErrorContext at(const yaml_mark_t& mark) const {
    ErrorContext context;
    context.file = name_;
    context.offset = byte_offset(mark.index);
    context.tree_path = tree_path();
    return context;
  }

  static std::string line_column(const yaml_mark_t& mark) {
    return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
  }

  [[noreturn]] void fail(ErrorCode code, const std::string& message,
                         const yaml_mark_t& mark) const {
    throw Error(code, message + " (" + line_column(mark) + ")", at(mark));
  }

  [[noreturn]] void parser_error(const yaml_parser_t& parser) const {
    const std::string problem = parser.problem != nullptr ? parser.problem : "unknown problem";
    if (parser.error == YAML_MEMORY_ERROR) {
      throw Error(ErrorCode::kLimit, "out of memory while parsing the YAML text",
                  ErrorContext{name_});
    }
    if (parser.error == YAML_READER_ERROR) {
      std::string message = "the YAML text is not valid UTF-8: " + problem;
      if (parser.problem_value != -1)
        message += " (value " + std::to_string(parser.problem_value) + ")";
      ErrorContext context;
      context.file = name_;
      context.offset = base_offset_ + parser.problem_offset;
      throw Error(ErrorCode::kMalformed, message + "; write the tree as UTF-8", context);
    }
    std::string message = "invalid YAML: ";
    if (parser.context != nullptr) {
      message += std::string(parser.context) + " (" + line_column(parser.context_mark) + "), ";
    }
    message += problem + " (" + line_column(parser.problem_mark) + "); fix the YAML syntax";
    throw Error(ErrorCode::kMalformed, message, at(parser.problem_mark));
  }

  void start_document(const yaml_event_t& event) {
    if (documents_++ > 0) {
      fail(ErrorCode::kMalformed,
           "the text holds a second YAML document; an ASDF tree is exactly one document",
           event.start_mark);
    }
    const auto& directives = event.data.document_start.tag_directives;
    for (auto* d = directives.start; d != nullptr && d != directives.end; ++d) {
      tag_handles_.emplace_back(std::string(text_of(d->handle)), std::string(text_of(d->prefix)));
    }
  }

  // Count `n` more nodes in the tree; `through_alias` when they are reached through an alias.
  void count(std::uint64_t n, bool through_alias, const yaml_mark_t& mark) {
    nodes_ = saturating_add(nodes_, n);
    if (nodes_ > options_.max_nodes) {
      fail(ErrorCode::kLimit,
           "the tree has more than " + std::to_string(options_.max_nodes) +
               " nodes (aliases counted as the size of what they name); raise "
               "YamlReadOptions::max_nodes (fitsasdf --max-tree-nodes) if the file is trusted",
           mark);
    }
    if (!through_alias) return;
    alias_nodes_ = saturating_add(alias_nodes_, n);
    if (alias_nodes_ > options_.max_alias_expansion) {
      fail(ErrorCode::kLimit,
           "aliases expand to more than " + std::to_string(options_.max_alias_expansion) +
               " nodes (an alias bomb?); raise YamlReadOptions::max_alias_expansion (fitsasdf "
               "--max-alias-nodes) if the file is trusted",
           mark);
    }
  }

  // One shared copy of each collection tag's text for the whole tree.
  std::shared_ptr<const std::string> intern_tag(std::string tag) {
    if (tag.empty()) return nullptr;
    auto it = tags_.find(tag);
    if (it == tags_.end()) {
      auto text = std::make_shared<const std::string>(tag);
      it = tags_.emplace(std::move(tag), std::move(text)).first;
    }
    return it->second;
  }

  void define_anchor(const yaml_char_t* name, NodePtr node, std::uint64_t size,
                     const yaml_mark_t& mark) {
    if (name == nullptr) return;
    const std::string key(text_of(name));
    if (anchors_.contains(key)) {
      fail(ErrorCode::kMalformed, "the anchor &" + key + " is defined twice; rename one", mark);
    }
    anchors_.emplace(key, Anchor{std::move(node), size});
  }

  // Hand a finished node (scalar, alias or collection) to the open collection, or make it the
  // root.
  void add(NodePtr node, std::uint64_t size) {
    if (stack_.empty()) {
      root_ = std::move(node);
      return;
    }
    Frame& frame = stack_.back();
    frame.size = saturating_add(frame.size, size);
    if (frame.node->is_sequence()) {
      frame.node->push_back(std::move(node));
      return;
    }
    if (!frame.has_key) {
      frame.key = std::move(node);
      frame.key_mark = event_mark_;
      frame.has_key = true;
      return;
    }
    NodePtr key = std::move(frame.key);
    frame.has_key = false;
    if (key->is_string() && key->tag() == kMergeTag) {
      frame.merges.push_back(std::move(node));
      return;
    }
    if (key->is_string() && key->tag() == kValueTag) {
      key = Node::make_string(key->as_string());  // PyYAML reads a `=` key as the string "=".
    }
    const std::string shown = key->is_string() ? key->as_string() : describe_for_error(*key);
    if (upsert(*frame.node, frame.string_keys, std::move(key), std::move(node))) {
      duplicates_.push_back(DuplicateKey{shown, byte_offset(frame.key_mark.index),
                                         line_column(frame.key_mark)});
    }
  }

  void scalar(const yaml_event_t& event) {
    const auto& s = event.data.scalar;
    const std::string_view value(reinterpret_cast<const char*>(s.value), s.length);
    const std::string_view tag = text_of(s.tag);
    NodePtr node;
    try {
      if (s.tag == nullptr) {
        node =
            s.plain_implicit ? resolve_plain_scalar(value) : Node::make_string(std::string(value));
      } else if (tag == "!") {
        node = Node::make_string(std::string(value));
      } else {
        node = construct_standard_scalar(tag, value);
      }
    } catch (const Error& e) {
      fail(e.code(), e.message(), event.start_mark);
    }
    node->scalar_style = scalar_style_of(s.style);
    count(1, false, event.start_mark);
    define_anchor(s.anchor, node, 1, event.start_mark);
    add(std::move(node), 1);
  }

  void alias(const yaml_event_t& event) {
    const std::string name(text_of(event.data.alias.anchor));
    const auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      fail(ErrorCode::kMalformed, "the alias *" + name + " names no anchor defined before it",
           event.start_mark);
    }
    if (!it->second.node) {
      fail(ErrorCode::kMalformed,
           "the alias *" + name +
               " points into its own anchor's collection (a recursive structure, which an ASDF "
               "tree cannot hold)",
           event.start_mark);
    }
    count(it->second.size, true, event.start_mark);
    add(it->second.node, it->second.size);
  }

  void start_collection(const yaml_event_t& event) {
    const bool mapping = event.type == YAML_MAPPING_START_EVENT;
    const yaml_char_t* raw_tag =
        mapping ? event.data.mapping_start.tag : event.data.sequence_start.tag;
    const yaml_char_t* anchor =
        mapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor;
    if (stack_.size() >= options_.max_depth) {
      fail(ErrorCode::kLimit,
           "the tree nests sequences and mappings deeper than " +
               std::to_string(options_.max_depth) +
               " levels; raise YamlReadOptions::max_depth (fitsasdf --max-depth) if the file is "
               "trusted",
           event.start_mark);
    }
    std::string tag(text_of(raw_tag));
    if (tag == "!") tag.clear();
    bool omap = false;
    if (tag.starts_with(kYamlTagPrefix)) {
      const std::string_view standard = std::string_view(tag).substr(kYamlTagPrefix.size());
      const std::string_view needs = needed_kind(standard);
      const std::string_view is = mapping ? "a mapping" : "a sequence";
      // A pair of an !!omap may itself be tagged !!omap (python asdf 2.14 writes an astropy
      // table's OrderedDict meta so); PyYAML takes any one-entry mapping there.
      const bool tagged_pair = mapping && standard == "omap" && !stack_.empty() &&
                               stack_.back().omap;
      if (tagged_pair) {
        tag.clear();
      } else if (!needs.empty() && needs != is &&
                 !(needs == "a sequence of pairs" && !mapping)) {
        fail(ErrorCode::kMalformed,
             std::string(is) + " is tagged !!" + std::string(standard) + ", which needs " +
                 std::string(needs),
             event.start_mark);
      }
      omap = !tagged_pair && standard == "omap";
      if (standard == "map" || standard == "seq" || omap) tag.clear();
    }
    Frame frame;
    frame.node = mapping ? Node::make_mapping() : Node::make_sequence();
    frame.node->set_tag(intern_tag(std::move(tag)));
    frame.omap = omap;
    if (mapping) {
      const yaml_mapping_style_t style = event.data.mapping_start.style;
      frame.node->collection_style = style == YAML_FLOW_MAPPING_STYLE    ? CollectionStyle::kFlow
                                     : style == YAML_BLOCK_MAPPING_STYLE ? CollectionStyle::kBlock
                                                                         : CollectionStyle::kAny;
    } else {
      const yaml_sequence_style_t style = event.data.sequence_start.style;
      frame.node->collection_style = style == YAML_FLOW_SEQUENCE_STYLE    ? CollectionStyle::kFlow
                                     : style == YAML_BLOCK_SEQUENCE_STYLE ? CollectionStyle::kBlock
                                                                          : CollectionStyle::kAny;
    }
    frame.start = event.start_mark;
    if (anchor != nullptr) {
      frame.anchor = std::string(text_of(anchor));
      define_anchor(anchor, nullptr, 0, event.start_mark);
    }
    count(1, false, event.start_mark);
    stack_.push_back(std::move(frame));
  }

  // Apply the `<<` keys of a finished mapping: the merged entries come first, in PyYAML's order,
  // and the mapping's own entries override them.
  void apply_merges(Frame& frame) {
    std::vector<const Node*> sources;
    for (const auto& value : frame.merges) {
      if (value->is_mapping()) {
        sources.push_back(value.get());
      } else if (value->is_sequence()) {
        const auto& items = value->items();
        for (auto it = items.rbegin(); it != items.rend(); ++it) {
          if (!(*it)->is_mapping()) {
            fail(ErrorCode::kMalformed,
                 "a << merge key lists a " + std::string(node_kind_name((*it)->kind())) +
                     "; it takes mappings only",
                 frame.start);
          }
          sources.push_back(it->get());
        }
      } else {
        fail(ErrorCode::kMalformed,
             "a << merge key holds a " + std::string(node_kind_name(value->kind())) +
                 "; it takes a mapping or a sequence of mappings",
             frame.start);
      }
    }
    Node::Mapping own = std::move(frame.node->entries());
    frame.node->entries().clear();
    std::unordered_map<std::string, std::size_t> index;
    for (const Node* source : sources) {
      for (const auto& [k, v] : source->entries()) upsert(*frame.node, index, k, v);
    }
    for (auto& [k, v] : own) upsert(*frame.node, index, std::move(k), std::move(v));
  }

  // Turn the pairs read for an `!!omap` into an ordered mapping tagged !!omap.
  NodePtr finish_omap(const Frame& frame) {
    NodePtr map = Node::make_mapping();
    map->set_tag(std::string(kOmapTag));
    map->collection_style = frame.node->collection_style;
    std::unordered_map<std::string, std::size_t> index;
    for (const auto& pair : frame.node->items()) {
      if (!pair->is_mapping() || pair->size() != 1) {
        fail(ErrorCode::kMalformed,
             "an !!omap holds a " + std::string(node_kind_name(pair->kind())) +
                 (pair->is_mapping() ? " of " + std::to_string(pair->size()) + " entries" : "") +
                 "; it takes a sequence of one-entry mappings",
             frame.start);
      }
      const auto& [k, v] = pair->entries().front();
      upsert(*map, index, k, v);
    }
    return map;
  }

  void end_collection() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (!frame.merges.empty()) apply_merges(frame);
    NodePtr node = frame.omap ? finish_omap(frame) : frame.node;
    if (!frame.anchor.empty()) anchors_[frame.anchor] = Anchor{node, frame.size};
    add(std::move(node), frame.size);
  }

  std::string_view text_;
  const std::string& name_;
  std::uint64_t base_offset_;
  const YamlReadOptions& options_;

  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchor> anchors_;
  NodePtr root_;
  std::vector<std::pair<std::string, std::string>> tag_handles_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> tags_;
  std::vector<DuplicateKey> duplicates_;
  yaml_mark_t event_mark_{};
  int documents_ = 0;
  std::uint64_t nodes_ = 0;
  std::uint64_t alias_nodes_ = 0;
};

}  // namespace

YamlDocument parse_yaml(std::string_view text, const std::string& name, std::uint64_t base_offset,
                        const YamlReadOptions& options) {
  return Reader(text, name, base_offset, options).run();
}

}  // namespace asdfcore::tree
