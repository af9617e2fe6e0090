// Update: the edits kept in memory until a commit (the tree, and new blocks for new and
// replaced arrays), and the plan of a commit. Writing the plan is commit.cc's.
#include "asdfcore/update.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <set>

#include "api/write_plan.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/walk.h"
#include "update/commit.h"

namespace asdfcore {

using tree::Node;
using tree::NodePtr;

std::string_view commit_kind_name(CommitKind kind) noexcept {
  switch (kind) {
    case CommitKind::kNothing: return "nothing";
    case CommitKind::kInPlace: return "in-place";
    case CommitKind::kRewritten: return "rewritten";
  }
  return "?";
}

namespace {

/// The parent of the node `pointer` names, and the last step. Throws for the root, a missing
/// step before the last, or a step into a scalar.
std::pair<NodePtr, std::string> parent_of(const NodePtr& root, std::string_view pointer,
                                          const std::string& path) {
  const std::vector<std::string> tokens = tree::parse_json_pointer(pointer);
  const ErrorContext at{.file = path, .tree_path = std::string(pointer)};
  if (tokens.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "the root of the tree cannot be set or removed", at);
  }
  const NodePtr parent =
      tree::find_by_pointer(root, std::span(tokens).first(tokens.size() - 1));
  if (!parent) {
    throw Error(ErrorCode::kNotFound, "no value at the parent of " + std::string(pointer), at);
  }
  if (!parent->is_mapping() && !parent->is_sequence()) {
    throw Error(ErrorCode::kInvalidArgument,
                "the parent of " + std::string(pointer) + " is " + tree::describe_for_error(*parent) +
                    ", not a mapping or a sequence",
                at);
  }
  return {parent, tokens.back()};
}

/// The index `token` names in a sequence of `size` items (`size` itself or "-" to append).
std::optional<std::size_t> sequence_index(const std::string& token, std::size_t size) {
  if (token == "-") return size;
  if (token.empty() || token.size() > 18 ||
      token.find_first_not_of("0123456789") != std::string::npos ||
      (token.size() > 1 && token[0] == '0')) {
    return std::nullopt;
  }
  const std::size_t i = std::stoull(token);
  if (i > size) return std::nullopt;
  return i;
}

/// The UTC time now as a YAML timestamp with microseconds.
std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          now.time_since_epoch()).count() % 1000000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(micros));
  return text;
}

/// The standard new ndarray nodes are written for in a file declaring `standard`.
std::string standard_for_arrays(const std::string& standard) {
  return standard == "1.6.0" ? "1.6.0" : "1.5.0";
}

}  // namespace

Update::Update(std::unique_ptr<State> state) : state_(std::move(state)) {}
Update::~Update() = default;
Update::Update(Update&&) noexcept = default;
Update& Update::operator=(Update&&) noexcept = default;

Update Update::open(const std::string& path, const UpdateOptions& options) {
  auto state = std::make_unique<State>();
  state->path = path;
  state->options = options;
  state->load();
  return Update(std::move(state));
}

const std::string& Update::path() const noexcept { return state_->path; }
const AsdfFile& Update::file() const noexcept { return *state_->file; }
const NodePtr& Update::root() const noexcept { return state_->root; }

void Update::set(std::string_view pointer, NodePtr value) {
  if (!value) throw Error(ErrorCode::kInvalidArgument, "no value to set");
  auto [parent, last] = parent_of(state_->root, pointer, state_->path);
  if (parent->is_mapping()) {
    parent->set(last, std::move(value));
    return;
  }
  const auto index = sequence_index(last, parent->items().size());
  if (!index) {
    throw Error(ErrorCode::kNotFound,
                "\"" + last + "\" is not an index of the sequence (0 to " +
                    std::to_string(parent->items().size()) + ", or -)",
                ErrorContext{.file = state_->path, .tree_path = std::string(pointer)});
  }
  if (*index == parent->items().size()) {
    parent->push_back(std::move(value));
  } else {
    parent->items()[*index] = std::move(value);
  }
}

void Update::remove(std::string_view pointer) {
  auto [parent, last] = parent_of(state_->root, pointer, state_->path);
  const ErrorContext at{.file = state_->path, .tree_path = std::string(pointer)};
  if (parent->is_mapping()) {
    if (!parent->erase(last)) throw Error(ErrorCode::kNotFound, "no key \"" + last + "\"", at);
    return;
  }
  const auto index = sequence_index(last, parent->items().size());
  if (!index || *index >= parent->items().size()) {
    throw Error(ErrorCode::kNotFound, "no item " + last + " in the sequence", at);
  }
  parent->items().erase(parent->items().begin() + static_cast<std::ptrdiff_t>(*index));
}

void Update::add_history(const std::string& description) {
  add_history_entry(state_->root, description, utc_now());
}

NodePtr update_detail::UpdateState::plan_array(const Array& array, const std::string& compression) {
  Tree holder;
  holder["array"] = array;
  WriteOptions w;
  w.asdf_standard = standard_for_arrays(file->asdf_standard());
  w.compression = compression;
  w.checksum = options.checksum;
  WritePlan plan = plan_write(holder, w, false);
  NodePtr node = plan.root->get("array");
  if (plan.blocks.size() != 1 || !node || !node->is_mapping() || !node->get("source")) {
    throw Error(ErrorCode::kInvalidArgument,
                "an array added to a file must be stored in a block of its own");
  }
  const std::size_t number = file->container().blocks().size() + added.size();
  node->set("source", Node::make_int(static_cast<std::int64_t>(number)));
  added.push_back(std::move(plan));
  return node;
}

void Update::add_array(std::string_view pointer, const Array& array) {
  NodePtr node = state_->plan_array(array, "");
  try {
    set(pointer, std::move(node));
  } catch (...) {
    state_->added.pop_back();  // a bad place adds no block
    throw;
  }
}

void Update::replace_array(std::string_view pointer, const Array& values) {
  const ErrorContext at{.file = state_->path, .tree_path = std::string(pointer)};
  const NodePtr old = tree::find_by_pointer(state_->root, tree::parse_json_pointer(pointer));
  if (!old) throw Error(ErrorCode::kNotFound, "no value at " + std::string(pointer), at);
  if (!tree::is_ndarray(*old) || !old->is_mapping()) {
    throw Error(ErrorCode::kInvalidArgument,
                "not an ndarray stored in a block: " + tree::describe_for_error(*old), at);
  }
  const NodePtr source = old->get("source");
  if (source && source->is_string()) {
    throw Error(ErrorCode::kUnsupported,
                "the array is stored in another file (" + source->as_string() +
                    "); replace it there, or implode the file first",
                at);
  }
  const ndarray::NDArray current = state_->file->array(*old, std::string(pointer));
  if (current.shape() != values.shape()) {
    throw Error(ErrorCode::kInvalidArgument, "the new values' shape differs from the array's",
                at);
  }
  const ndarray::ByteOrder little = ndarray::ByteOrder::kLittle;
  if (!(current.dtype().with_byte_order(little) == values.dtype().with_byte_order(little))) {
    throw Error(ErrorCode::kInvalidArgument,
                "the new values are " + values.dtype().to_string() + ", the array is " +
                    current.dtype().to_string(),
                at);
  }
  std::string compression;
  if (source && source->kind() == tree::NodeKind::kInt) {
    const auto& blocks = state_->file->container().blocks();
    const std::int64_t s = source->as_int();
    const std::int64_t i = s < 0 ? static_cast<std::int64_t>(blocks.size()) + s : s;
    if (i >= 0 && static_cast<std::size_t>(i) < blocks.size()) {
      compression = blocks[static_cast<std::size_t>(i)].header.compression_label();
    }
  }
  const NodePtr fresh = state_->plan_array(values, compression);
  old->erase("data");
  old->erase("offset");
  old->erase("strides");
  for (const char* key : {"source", "datatype", "byteorder", "shape"}) {
    old->set(key, fresh->get(key));
  }
}

CommitResult Update::plan() const { return update_detail::plan_commit(*state_); }

CommitResult Update::commit() {
  CommitResult result = update_detail::run_commit(*state_);
  if (result.kind != CommitKind::kNothing) state_->load();
  return result;
}

std::string update_journal_path(const std::string& given) {
  // Beside the file a symbolic link names, where an update of it keeps its journal.
  std::string path = given;
  std::error_code ec;
  if (std::filesystem::is_symlink(given, ec)) {
    const auto target = std::filesystem::canonical(given, ec);
    if (!ec) path = target.string();
  }
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return folder + "." + name + ".fitsasdf-journal";
}

}  // namespace asdfcore
