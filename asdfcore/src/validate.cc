// validate(): the whole-file soundness check behind `fitsasdf validate`.

#include "asdfcore/validate.h"

#include <cstdio>
#include <unordered_set>

#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/walk.h"

namespace asdfcore {
namespace {

FileFinding from_error(FindingKind kind, const Error& e) {
  FileFinding f;
  f.kind = kind;
  f.pointer = e.context().tree_path;
  f.block = e.context().block;
  f.offset = e.context().offset;
  f.message = e.message();
  return f;
}

void check_blocks(const AsdfFile& file, FileValidation& out) {
  const format::Container& container = file.container();
  for (const auto& p : container.problems()) {
    if (p.kind == format::LayoutProblem::Kind::kStaleIndex) {
      // The block index is an optional hint the standard tells readers to ignore when it does
      // not match: worth saying, not a defect of the data.
      out.notes.push_back("byte " + std::to_string(p.offset) + ": " + p.message);
      continue;
    }
    FileFinding f;
    f.kind = FindingKind::kLayout;
    f.offset = p.offset;
    f.message = p.message;
    out.findings.push_back(std::move(f));
  }
  const auto& blocks = container.blocks();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    ++out.blocks;
    if (!blocks[i].problem.empty()) {
      FileFinding f;
      f.kind = FindingKind::kBlock;
      f.block = i;
      f.offset = blocks[i].offset;
      f.message = blocks[i].problem;
      out.findings.push_back(std::move(f));
      continue;
    }
    try {
      // Decoded as a stream (bounded memory) with the checksum checked on the way.
      container.data_stream(i, true, [](std::span<const std::uint8_t>) {});
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kIo) throw;
      FileFinding f = from_error(e.code() == ErrorCode::kChecksum ? FindingKind::kChecksum
                                                                  : FindingKind::kBlock, e);
      if (!f.block) f.block = i;
      if (!f.offset) f.offset = blocks[i].offset;
      out.findings.push_back(std::move(f));
    }
  }
}

void check_arrays(const AsdfFile& file, FileValidation& out) {
  tree::walk(file.tree(), [&](const tree::NodePtr& node, const std::string& path) {
    if (tree::is_reference(*node)) return false;
    if (!tree::is_ndarray(*node)) return true;
    ++out.arrays;
    try {
      (void)file.array(*node, path, ndarray::NDArray::Load::kDeferred);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kIo) throw;
      FileFinding f = from_error(FindingKind::kArray, e);
      if (f.pointer.empty()) f.pointer = path;
      out.findings.push_back(std::move(f));
    }
    return false;  // an ndarray's own keys hold no further arrays
  });
}

void check_references(const AsdfFile& file, FileValidation& out) {
  // Resolving copies the tree: only worth it when there is a reference to follow.
  bool any = false;
  tree::walk(file.tree(), [&](const tree::NodePtr& node, const std::string&) {
    any = any || tree::is_reference(*node);
    return !any;
  });
  if (!any) return;
  try {
    (void)file.resolved_tree();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kIo) throw;
    out.findings.push_back(from_error(FindingKind::kReference, e));
  }
}

// python asdf's bounds for integer literals (asdf.constants: +-(2**63 - 1), the low end one
// closer to zero).
constexpr std::int64_t kLargestLiteral = INT64_MAX;
constexpr std::int64_t kSmallestLiteral = -(INT64_MAX - 1);

bool literal_in_range(const tree::Node& n) {
  return n.kind() == tree::NodeKind::kInt && n.as_int() >= kSmallestLiteral &&
         n.as_int() <= kLargestLiteral;
}

bool allowed_key(const tree::Node& key) {
  if (!key.tag().empty()) return false;
  return key.kind() == tree::NodeKind::kString || key.is_integer() ||
         key.kind() == tree::NodeKind::kBool;
}

bool standard_at_least(const std::string& version, int major, int minor) {
  int a = 0, b = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &a, &b) != 2) return false;
  return a > major || (a == major && b >= minor);
}

void check_tree_rules(const AsdfFile& file, FileValidation& out) {
  for (const auto& d : file.duplicate_keys()) {
    FileFinding f;
    f.kind = FindingKind::kTree;
    f.offset = d.offset;
    f.message = "the key '" + d.key + "' appears twice in one mapping (" + d.where +
                "); YAML forbids it, and readers keep the last value";
    out.findings.push_back(std::move(f));
  }
  const bool restricted_keys = standard_at_least(file.asdf_standard(), 1, 6);
  auto add = [&](const std::string& pointer, std::string message, const tree::Node& node) {
    FileFinding f;
    f.kind = FindingKind::kTree;
    f.pointer = pointer;
    f.message = std::move(message);
    f.value = node.is_integer() ? node.integer_text() : tree::describe_for_error(node);
    out.findings.push_back(std::move(f));
  };
  auto out_of_range = [](const tree::Node& n) {
    return "the integer " + n.integer_text() +
           " is outside the range an ASDF literal may hold (-(2**63 - 2) to 2**63 - 1); "
           "larger values are written as core/integer";
  };
  std::unordered_set<const tree::Node*> seen;
  struct Item {
    const tree::Node* node;
    std::string pointer;
    bool shared;  // a YAML alias may reach it twice: look once
  };
  std::vector<Item> stack{{file.tree().get(), "", true}};
  while (!stack.empty()) {
    auto [node, pointer, shared] = std::move(stack.back());
    stack.pop_back();
    if (shared && !seen.insert(node).second) continue;
    if (node->is_integer() && node->tag().empty() && !literal_in_range(*node)) {
      add(pointer, out_of_range(*node), *node);
    } else if (node->is_mapping()) {
      const auto& entries = node->entries();
      for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        const tree::Node& key = *it->first;
        const std::string child = pointer + "/" + tree::escape_pointer_token(tree::key_as_text(key));
        if (key.is_integer() && key.tag().empty() && !literal_in_range(key)) {
          add(child, "a mapping key: " + out_of_range(key), key);
        } else if (restricted_keys && !allowed_key(key)) {
          add(child, "a mapping key that is " + tree::describe_for_error(key) +
                         "; from ASDF Standard 1.6.0 keys are strings, integers or booleans",
              key);
        }
        stack.push_back({it->second.get(), child, it->second.use_count() > 1});
      }
    } else if (node->is_sequence()) {
      const auto& items = node->items();
      for (std::size_t i = items.size(); i-- > 0;) {
        stack.push_back({items[i].get(), pointer + "/" + std::to_string(i),
                         items[i].use_count() > 1});
      }
    }
  }
}

void check_schemas(const AsdfFile& file, schema::Validator& validator, FileValidation& out) {
  schema::ValidationResult result = validator.validate_tree(*file.tree());
  out.unknown_tags = std::move(result.unknown_tags);
  out.missing_schemas = std::move(result.missing_schemas);
  out.tagged_nodes = result.tagged_nodes;
  for (auto& s : result.findings) {
    FileFinding f;
    f.kind = FindingKind::kSchema;
    f.pointer = std::move(s.pointer);
    f.schema_uri = std::move(s.schema_uri);
    f.keyword = std::move(s.keyword);
    f.message = std::move(s.message);
    f.value = std::move(s.value);
    out.findings.push_back(std::move(f));
  }
}

}  // namespace

std::string_view finding_kind_name(FindingKind kind) noexcept {
  switch (kind) {
    case FindingKind::kLayout: return "layout";
    case FindingKind::kBlock: return "block";
    case FindingKind::kChecksum: return "checksum";
    case FindingKind::kArray: return "array";
    case FindingKind::kReference: return "reference";
    case FindingKind::kSchema: return "schema";
    case FindingKind::kTree: return "tree";
  }
  return "unknown";
}

FileValidation validate(const AsdfFile& file, const ValidateOptions& options) {
  FileValidation out;
  out.file = file.path();
  out.asdf_standard = file.asdf_standard();
  if (const auto& legacy = file.container().legacy()) {
    std::string sizes;
    for (const auto& b : legacy->blocks) {
      const std::string size = std::to_string(b.header_size);
      if (sizes.find(size) == std::string::npos) sizes += (sizes.empty() ? "" : ", ") + size;
    }
    out.notes.push_back("a legacy file (`" + legacy->header_line + "`" +
                        (sizes.empty() ? std::string() : ", block headers of " + sizes + " bytes") +
                        ") checked as the ASDF 1.0.0 file it reads as; `fitsasdf defragment "
                        "--standard 1.6.0` upgrades it");
  }
  if (options.blocks) check_blocks(file, out);
  if (options.arrays) check_arrays(file, out);
  if (options.references) check_references(file, out);
  if (options.tree_rules) check_tree_rules(file, out);
  if (options.schemas) {
    schema::Validator& validator =
        options.validator != nullptr ? *options.validator : schema::Validator::for_this_thread();
    try {
      check_schemas(file, validator, out);
    } catch (const Error& e) {
      // A schema that is itself broken (an installed package's bug, a site schema's typo).
      if (e.code() == ErrorCode::kIo) throw;
      FileFinding f = from_error(FindingKind::kSchema, e);
      f.message = "cannot check the schemas: " + f.message;
      out.findings.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace asdfcore
