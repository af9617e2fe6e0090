// Writing a `Node` tree as one YAML 1.1 document with libyaml's emitter, in the form python
// asdf writes (PyYAML's CSafeDumper, default_flow_style=None): the same quoting, float text, flow
// and block choices, and `id001` anchors.
//
// Two passes over the tree, both with explicit stacks: the first finds collections reached more
// than once (they get anchors) and rejects cycles; the second sends libyaml its events.

#include <yaml.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree/yaml.h"
#include "tree/plain_scalar.h"
#include "tree/pointer_steps.h"

namespace asdfcore::tree {
namespace {

constexpr std::string_view kBinaryTag = "tag:yaml.org,2002:binary";
constexpr std::string_view kTimestampTag = "tag:yaml.org,2002:timestamp";

yaml_char_t* chars(const std::string& s) {
  // libyaml copies every string it is given; the cast only satisfies its non-const signature.
  return reinterpret_cast<yaml_char_t*>(const_cast<char*>(s.c_str()));
}

int append_to_string(void* data, unsigned char* buffer, std::size_t size) {
  try {
    static_cast<std::string*>(data)->append(reinterpret_cast<const char*>(buffer), size);
    return 1;
  } catch (...) {
    return 0;  // libyaml reports a writer error.
  }
}

// Owns a libyaml emitter writing into a string.
class Emitter {
 public:
  Emitter(std::string* out, int width) {
    if (yaml_emitter_initialize(&emitter_) == 0) {
      throw Error(ErrorCode::kLimit, "out of memory while setting up the YAML emitter");
    }
    yaml_emitter_set_output(&emitter_, append_to_string, out);
    yaml_emitter_set_unicode(&emitter_, 1);
    yaml_emitter_set_width(&emitter_, width);
    yaml_emitter_set_indent(&emitter_, 2);
    yaml_emitter_set_break(&emitter_, YAML_LN_BREAK);
  }
  ~Emitter() { yaml_emitter_delete(&emitter_); }
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  // Emit `event` (libyaml takes it over); `made` is the result of its initializer.
  void emit(int made, yaml_event_t& event, const char* what) {
    if (made == 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  "cannot write " + std::string(what) +
                      " as YAML: a string or tag in it is not valid UTF-8");
    }
    if (yaml_emitter_emit(&emitter_, &event) == 0) {
      const std::string problem =
          emitter_.problem != nullptr ? emitter_.problem : "unknown problem";
      throw Error(ErrorCode::kInvalidArgument,
                  "libyaml cannot write " + std::string(what) + ": " + problem);
    }
  }

  void flush() {
    if (yaml_emitter_flush(&emitter_) == 0) {
      throw Error(ErrorCode::kLimit, "out of memory while writing the YAML text");
    }
  }

 private:
  yaml_emitter_t emitter_;
};

std::string base64_lines(const std::vector<std::uint8_t>& bytes) {
  // As Python's base64.encodebytes: lines of 76 characters, each ending in a newline.
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t line = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    if (n > 1) v |= std::uint32_t{bytes[i + 1]} << 8;
    if (n > 2) v |= bytes[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += n > 1 ? kAlphabet[(v >> 6) & 63] : '=';
    out += n > 2 ? kAlphabet[v & 63] : '=';
    line += 4;
    if (line == 76) {
      out += '\n';
      line = 0;
    }
  }
  if (line != 0) out += '\n';
  return out;
}

yaml_scalar_style_t libyaml_style(ScalarStyle style) {
  switch (style) {
    case ScalarStyle::kPlain:
      return YAML_PLAIN_SCALAR_STYLE;
    case ScalarStyle::kSingleQuoted:
      return YAML_SINGLE_QUOTED_SCALAR_STYLE;
    case ScalarStyle::kDoubleQuoted:
      return YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    case ScalarStyle::kLiteral:
      return YAML_LITERAL_SCALAR_STYLE;
    case ScalarStyle::kFolded:
      return YAML_FOLDED_SCALAR_STYLE;
    case ScalarStyle::kAny:
      break;
  }
  return YAML_ANY_SCALAR_STYLE;
}

bool is_collection(const Node* node) {
  return node != nullptr && (node->is_sequence() || node->is_mapping());
}

bool is_omap(const Node& node) { return node.is_mapping() && node.tag() == kOmapTag; }

// Return the number of children of `node`: items, or keys and values of a mapping.
std::size_t child_count(const Node& node) {
  if (node.is_sequence()) return node.items().size();
  if (node.is_mapping()) return 2 * node.entries().size();
  return 0;
}

const NodePtr& child_ptr(const Node& node, std::size_t i) {
  if (node.is_sequence()) return node.items()[i];
  const auto& entry = node.entries()[i / 2];
  return i % 2 == 0 ? entry.first : entry.second;
}

const Node* child(const Node& node, std::size_t i) { return child_ptr(node, i).get(); }

// True when PyYAML would write a kAny collection in flow style: every child is a scalar
// without a chosen style (binary is written as a literal block, so it counts as styled).
bool prefers_flow(const Node& node) {
  const std::size_t n = child_count(node);
  for (std::size_t i = 0; i < n; ++i) {
    const Node* c = child(node, i);
    if (c == nullptr) continue;  // Written as null.
    if (is_collection(c) || c->kind() == NodeKind::kBinary) return false;
    if (c->scalar_style != ScalarStyle::kAny && c->scalar_style != ScalarStyle::kPlain) {
      return false;
    }
  }
  return true;
}

class Writer {
 public:
  explicit Writer(const YamlWriteOptions& options) : options_(options) {}

  std::string run(const Node& root) {
    find_shared(root);
    std::string out;
    Emitter emitter(&out, options_.width);
    emitter_ = &emitter;
    yaml_event_t event;
    emitter.emit(yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING), event,
                 "the stream start");
    yaml_version_directive_t version{1, 1};
    std::vector<yaml_tag_directive_t> directives;
    for (const auto& [handle, prefix] : options_.tag_handles) {
      directives.push_back(yaml_tag_directive_t{chars(handle), chars(prefix)});
    }
    yaml_tag_directive_t* first = directives.empty() ? nullptr : directives.data();
    yaml_tag_directive_t* last =
        directives.empty() ? nullptr : directives.data() + directives.size();
    emitter.emit(yaml_document_start_event_initialize(&event, &version, first, last, 0), event,
                 "the document start (check the %TAG handles)");
    write_tree(root);
    emitter.emit(yaml_document_end_event_initialize(&event, 0), event, "the document end");
    emitter.emit(yaml_stream_end_event_initialize(&event), event, "the stream end");
    emitter.flush();
    emitter_ = nullptr;
    return out;
  }

 private:
  // A collection whose children are being written.
  struct Frame {
    enum class Kind { kSequence, kMapping, kOmap, kOmapPair } kind;
    const Node* node;
    bool flow = false;     // Written in flow style (chosen, or inside a flow collection).
    std::size_t next = 0;  // Next child (kOmapPair: 0 key, 1 value, 2 done).
    std::size_t pair = 0;  // kOmapPair: the entry of the omap.
  };

  // First pass: give an anchor to each collection reached twice, in the order PyYAML numbers
  // them (at the second encounter), and reject cycles.
  void find_shared(const Node& root) {
    // Only collections the walk may reach twice are recorded (may_be_reached_twice), so a tree
    // without aliases costs no table entry per node.
    std::unordered_map<const Node*, bool> seen;  // true while on the path from the root.
    struct Visit {
      const Node* node;
      std::size_t next;
      bool recorded;  // in `seen`
    };
    std::vector<Visit> path;
    const auto visit = [&](const Node* node, bool shared) {
      if (!is_collection(node)) return;
      if (!shared) {
        path.push_back(Visit{node, 0, false});
        return;
      }
      const auto [it, fresh] = seen.try_emplace(node, true);
      if (fresh) {
        path.push_back(Visit{node, 0, true});
        return;
      }
      if (it->second) {
        throw Error(ErrorCode::kInvalidArgument,
                    "the tree is cyclic: a " + std::string(node_kind_name(node->kind())) +
                        " contains itself; YAML written for ASDF cannot hold a cycle",
                    ErrorContext{.tree_path = pointer(path)});
      }
      if (!anchors_.contains(node)) {
        std::string number = std::to_string(anchors_.size() + 1);
        if (number.size() < 3) number.insert(0, 3 - number.size(), '0');
        anchors_.emplace(node, "id" + number);
      }
    };
    visit(&root, true);  // the caller's reference is one owner we cannot see
    while (!path.empty()) {
      Visit& top = path.back();
      if (top.next < child_count(*top.node)) {
        const NodePtr& c = child_ptr(*top.node, top.next++);
        visit(c.get(), may_be_reached_twice(c));
      } else {
        if (top.recorded) seen[top.node] = false;
        path.pop_back();
      }
    }
  }

  // The JSON Pointer of the child about to be visited, for errors.
  template <typename Path>
  static std::string pointer(const Path& path) {
    std::string out;
    for (const auto& v : path) {
      const std::size_t i = v.next == 0 ? 0 : v.next - 1;
      if (v.node->is_sequence()) {
        out += "/" + std::to_string(i);
      } else {
        const Node* key = v.node->entries()[i / 2].first.get();
        if (key == nullptr || !key->is_string()) break;
        out += "/" + escape_pointer_token(key->as_string());
      }
    }
    return out;
  }

  bool in_flow() const { return !stack_.empty() && stack_.back().flow; }

  void scalar(const std::string& value, const std::string& tag, bool plain_implicit,
              bool quoted_implicit, yaml_scalar_style_t style) {
    yaml_event_t event;
    const int made = yaml_scalar_event_initialize(
        &event, nullptr, tag.empty() ? nullptr : chars(tag), chars(value),
        static_cast<int>(value.size()), tag.empty() && plain_implicit ? 1 : 0,
        tag.empty() && quoted_implicit ? 1 : 0, style);
    if (made == 0) {
      throw Error(ErrorCode::kInvalidArgument, "cannot write the scalar '" + value.substr(0, 40) +
                                                   "'" + (tag.empty() ? "" : " tagged " + tag) +
                                                   ": it is not valid UTF-8");
    }
    emitter_->emit(made, event, "a scalar");
  }

  // Write a scalar that reads back by its plain text ("12", "true", "null", "1.5").
  void typed_scalar(const std::string& text, const Node& node) {
    scalar(text, node.tag(), true, false, YAML_PLAIN_SCALAR_STYLE);
  }

  void write_scalar(const Node& node) {
    switch (node.kind()) {
      case NodeKind::kNull:
        typed_scalar("null", node);
        return;
      case NodeKind::kBool:
        typed_scalar(node.as_bool() ? "true" : "false", node);
        return;
      case NodeKind::kInt:
      case NodeKind::kBigInt:
        typed_scalar(node.integer_text(), node);
        return;
      case NodeKind::kFloat:
        typed_scalar(format_float(node.as_double()), node);
        return;
      case NodeKind::kString:
        scalar(node.as_string(), node.tag(), plain_scalar_is_string(node.as_string()), true,
               libyaml_style(node.scalar_style));
        return;
      case NodeKind::kBinary: {
        const std::string tag = node.tag().empty() ? std::string(kBinaryTag) : node.tag();
        scalar(base64_lines(node.as_binary()), tag, false, false, YAML_LITERAL_SCALAR_STYLE);
        return;
      }
      case NodeKind::kTimestamp: {
        const std::string& text = node.as_string();
        if (!node.tag().empty()) {
          scalar(text, node.tag(), false, false, YAML_PLAIN_SCALAR_STYLE);
          return;
        }
        bool implicit = false;
        try {
          const NodePtr plain = resolve_plain_scalar(text);
          implicit = plain->kind() == NodeKind::kTimestamp;
          if (!implicit) construct_standard_scalar(kTimestampTag, text);
        } catch (const Error&) {
          throw Error(ErrorCode::kInvalidArgument,
                      "the timestamp '" + text +
                          "' is not a valid YAML timestamp (write it as 2001-12-14 or "
                          "2001-12-14T21:59:43.10-05:00)");
        }
        // A time holds ':', which libyaml never writes plain inside a flow collection; it
        // would quote the text and mark it with the non-specific tag `!`. Name the type then.
        if (implicit && in_flow() && text.find(':') != std::string::npos) implicit = false;
        scalar(text, implicit ? std::string() : std::string(kTimestampTag), implicit, false,
               YAML_PLAIN_SCALAR_STYLE);
        return;
      }
      case NodeKind::kSequence:
      case NodeKind::kMapping:
        break;
    }
  }

  // Start writing `node`: a scalar or an alias is written at once, a collection is opened.
  void open(const Node* node) {
    if (node == nullptr) {
      scalar("null", "", true, false, YAML_PLAIN_SCALAR_STYLE);
      return;
    }
    if (!is_collection(node)) {
      write_scalar(*node);
      return;
    }
    yaml_event_t event;
    std::string anchor;
    if (const auto it = anchors_.find(node); it != anchors_.end()) {
      if (!written_.insert(node).second) {
        emitter_->emit(yaml_alias_event_initialize(&event, chars(it->second)), event, "an alias");
        return;
      }
      anchor = it->second;
    }
    yaml_char_t* anchor_chars = anchor.empty() ? nullptr : chars(anchor);
    const std::string& tag = node->tag();
    yaml_char_t* tag_chars = tag.empty() ? nullptr : chars(tag);
    const int implicit = tag.empty() ? 1 : 0;
    const bool flow =
        in_flow() || node->collection_style == CollectionStyle::kFlow ||
        (node->collection_style == CollectionStyle::kAny && !is_omap(*node) && prefers_flow(*node));
    if (node->is_sequence() || is_omap(*node)) {
      const int made = yaml_sequence_start_event_initialize(
          &event, anchor_chars, tag_chars, implicit,
          flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
      emitter_->emit(made, event, "a sequence");
      stack_.push_back(
          Frame{node->is_sequence() ? Frame::Kind::kSequence : Frame::Kind::kOmap, node, flow});
    } else {
      const int made = yaml_mapping_start_event_initialize(
          &event, anchor_chars, tag_chars, implicit,
          flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
      emitter_->emit(made, event, "a mapping");
      stack_.push_back(Frame{Frame::Kind::kMapping, node, flow});
    }
  }

  void write_tree(const Node& root) {
    open(&root);
    yaml_event_t event;
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      switch (top.kind) {
        case Frame::Kind::kSequence:
        case Frame::Kind::kMapping:
          if (top.next < child_count(*top.node)) {
            open(child(*top.node, top.next++));
          } else {
            const bool seq = top.kind == Frame::Kind::kSequence;
            stack_.pop_back();
            emitter_->emit(seq ? yaml_sequence_end_event_initialize(&event)
                               : yaml_mapping_end_event_initialize(&event),
                           event, "a collection end");
          }
          break;
        case Frame::Kind::kOmap:
          if (top.next < top.node->entries().size()) {
            // Each entry of an ordered map is a one-entry block mapping, as PyYAML writes it.
            const Frame pair{Frame::Kind::kOmapPair, top.node, top.flow, 0, top.next++};
            emitter_->emit(yaml_mapping_start_event_initialize(&event, nullptr, nullptr, 1,
                                                               YAML_BLOCK_MAPPING_STYLE),
                           event, "an !!omap entry");
            stack_.push_back(pair);
          } else {
            stack_.pop_back();
            emitter_->emit(yaml_sequence_end_event_initialize(&event), event, "an !!omap end");
          }
          break;
        case Frame::Kind::kOmapPair:
          if (top.next < 2) {
            const auto& entry = top.node->entries()[top.pair];
            open((top.next++ == 0 ? entry.first : entry.second).get());
          } else {
            stack_.pop_back();
            emitter_->emit(yaml_mapping_end_event_initialize(&event), event, "an !!omap entry");
          }
          break;
      }
    }
  }

  const YamlWriteOptions& options_;
  Emitter* emitter_ = nullptr;
  std::unordered_map<const Node*, std::string> anchors_;
  std::unordered_set<const Node*> written_;
  std::vector<Frame> stack_;
};

}  // namespace

std::string emit_yaml(const Node& root, const YamlWriteOptions& options) {
  return Writer(options).run(root);
}

}  // namespace asdfcore::tree
