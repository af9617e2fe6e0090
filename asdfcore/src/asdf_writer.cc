#include "asdfcore/asdf_writer.h"

#include <algorithm>
#include <array>

#include <cstdlib>
#include <string_view>

#include "asdfcore/error.h"
#include "asdfcore/schema/validator.h"
#include "asdfcore/tree/yaml.h"
#include "asdfcore/version.h"

namespace asdfcore {
namespace {

using tree::Node;
using tree::NodePtr;

constexpr std::array<std::string_view, 7> kStandards{"1.0.0", "1.1.0", "1.2.0", "1.3.0",
                                                   "1.4.0", "1.5.0", "1.6.0"};

std::string core_tag(std::string_view name) { return std::string(tree::kAsdfTagPrefix) + "core/" + std::string(name); }

NodePtr software(std::string name, std::string version, bool with_author) {
  NodePtr s = Node::make_mapping();
  s->set_tag(core_tag("software-1.0.0"));
  s->collection_style = tree::CollectionStyle::kFlow;
  if (with_author) s->set("author", Node::make_string("The fitsasdf Developers"));
  s->set("name", Node::make_string(std::move(name)));
  s->set("version", Node::make_string(std::move(version)));
  return s;
}

/// The root tag a tree of `standard` gets when it has none.
std::string default_root_tag(const std::string& standard) {
  return core_tag(standard == "1.0.0" ? "asdf-1.0.0" : "asdf-1.1.0");
}

/// A shallow copy of `root` with the library metadata in front, as python asdf orders it.
NodePtr with_metadata(const NodePtr& root, const std::string& standard) {
  NodePtr out = Node::make_mapping();
  out->set_tag(root->tag().empty() ? default_root_tag(standard) : root->tag());
  out->set("asdf_library", software("fitsasdf", kVersion, true));
  if (out->tag() == core_tag("asdf-1.0.0")) {
    // core/asdf-1.0.0 has `history` as a plain list of entries and no extension metadata.
    for (const auto& [k, v] : root->entries()) {
      if (!(k->is_string() && k->as_string() == "asdf_library")) out->entries().emplace_back(k, v);
    }
    return out;
  }

  NodePtr ext = Node::make_mapping();
  ext->set_tag(core_tag("extension_metadata-1.0.0"));
  ext->set("extension_class", Node::make_string("asdf.extension._manifest.ManifestExtension"));
  ext->set("extension_uri",
           Node::make_string("asdf://asdf-format.org/core/extensions/core-" + standard));
  ext->set("software", software("fitsasdf", kVersion, false));

  // Keep an existing history (entries and other extensions), adding ours when missing.
  NodePtr history = Node::make_mapping();
  NodePtr extensions = Node::make_sequence();
  if (const NodePtr old = root->get("history"); old && old->is_mapping()) {
    for (const auto& [k, v] : old->entries()) history->entries().emplace_back(k, v);
    if (const NodePtr list = old->get("extensions"); list && list->is_sequence()) {
      for (const auto& e : list->items()) extensions->push_back(e);
    }
  } else if (old && old->is_sequence()) {
    history->set("entries", old);  // the list form of core/asdf-1.1.0's history
  }
  // The core tags are accounted for when the list names the core extension already: ours, or
  // python asdf's built-in one (python-written files; an update then keeps its tree small).
  const bool present = std::any_of(extensions->items().begin(), extensions->items().end(),
                                   [&](const NodePtr& e) {
                                     if (!e->is_mapping()) return false;
                                     const NodePtr uri = e->get("extension_uri");
                                     const NodePtr cls = e->get("extension_class");
                                     return (uri && uri->is_string() &&
                                             uri->as_string() == ext->get("extension_uri")->as_string()) ||
                                            (cls && cls->is_string() &&
                                             cls->as_string() == "asdf.extension.BuiltinExtension");
                                   });
  if (!present) extensions->push_back(ext);
  history->set("extensions", extensions);
  out->set("history", history);
  for (const auto& [k, v] : root->entries()) {
    if (k->is_string() && (k->as_string() == "asdf_library" || k->as_string() == "history")) {
      continue;
    }
    out->entries().emplace_back(k, v);
  }
  return out;
}

// FITSASDF_VALIDATE_WRITES=1 (the test suite sets it) makes every write validate its tree.
bool validate_writes_requested() {
  const char* value = std::getenv("FITSASDF_VALIDATE_WRITES");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

void check_before_writing(const Node& top, const std::string& path) {
  const auto result = schema::Validator::for_this_thread().validate_tree(top);
  if (result.valid()) return;
  const schema::Finding& first = result.findings.front();
  throw Error(ErrorCode::kSchema,
              "refusing to write a tree that breaks its schema: " + first.message + " (" +
                  first.schema_uri + "#" + first.keyword + "; " +
                  std::to_string(result.findings.size()) + " finding" +
                  (result.findings.size() == 1 ? ")" : "s)"),
              ErrorContext{.file = path, .tree_path = first.pointer});
}

}  // namespace

std::span<const std::string_view> supported_write_standards() noexcept { return kStandards; }

std::string render_tree(const NodePtr& root, const AsdfWriteOptions& options,
                        const std::string& path) {
  const ErrorContext at{.file = path};
  if (std::find(kStandards.begin(), kStandards.end(), options.asdf_standard) == kStandards.end()) {
    throw Error(ErrorCode::kInvalidArgument,
                "cannot write ASDF Standard " + options.asdf_standard + " (supported: 1.0.0 to 1.6.0)",
                at);
  }
  if (!root || !root->is_mapping()) {
    throw Error(ErrorCode::kInvalidArgument, "the root of an ASDF tree must be a mapping", at);
  }
  NodePtr top = options.add_metadata ? with_metadata(root, options.asdf_standard) : root;
  if (top->tag().empty()) {
    if (top == root) {
      top = Node::make_mapping();
      top->entries() = root->entries();
    }
    top->set_tag(default_root_tag(options.asdf_standard));
  }
  if (options.validate || validate_writes_requested()) check_before_writing(*top, path);
  return tree::emit_yaml(*top);
}

void write_asdf(const std::string& path, const NodePtr& root,
                std::span<const format::BlockToWrite> blocks, const AsdfWriteOptions& options) {
  const std::string yaml = render_tree(root, options, path);
  format::WriteOptions layout = options.layout;
  layout.asdf_standard = options.asdf_standard;
  format::write_container(path, yaml, blocks, layout);
}

void add_history_entry(const NodePtr& root, const std::string& description,
                       const std::string& time) {
  if (!root || !root->is_mapping()) {
    throw Error(ErrorCode::kInvalidArgument, "the root of an ASDF tree must be a mapping");
  }
  NodePtr entry = Node::make_mapping();
  entry->set_tag(core_tag("history_entry-1.0.0"));
  entry->set("description", Node::make_string(description));
  entry->set("time", Node::make_timestamp(time));
  entry->set("software", software("fitsasdf", kVersion, true));
  // A missing (or null) history or list is made; one of another kind is the tree's own data,
  // never replaced.
  NodePtr history = root->get("history");
  const bool list_form = root->tag() == core_tag("asdf-1.0.0");  // `history` is the list itself
  if (!history || history->is_null()) {
    history = list_form ? Node::make_sequence() : Node::make_mapping();
    root->set("history", history);
  }
  if (history->is_sequence()) {  // also allowed by core/asdf-1.1.0
    history->push_back(entry);
    return;
  }
  if (list_form || !history->is_mapping()) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string("the tree's history is ") + tree::describe_for_error(*history) +
                    ", not a list" + (list_form ? "" : " or a mapping") +
                    ": no history entry can be added",
                ErrorContext{.tree_path = "/history"});
  }
  NodePtr entries = history->get("entries");
  if (!entries || entries->is_null()) {
    entries = Node::make_sequence();
    history->set("entries", entries);
  }
  if (!entries->is_sequence()) {
    throw Error(ErrorCode::kInvalidArgument,
                "the tree's history/entries is " + tree::describe_for_error(*entries) +
                    ", not a list: no history entry can be added",
                ErrorContext{.tree_path = "/history/entries"});
  }
  entries->push_back(entry);
}

}  // namespace asdfcore
