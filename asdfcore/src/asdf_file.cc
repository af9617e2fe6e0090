#include "asdfcore/asdf_file.h"

#include <unistd.h>

#include <map>
#include <mutex>

#include "asdfcore/error.h"
#include "asdfcore/extension/converter.h"
#include "asdfcore/schema/validator.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/update.h"

namespace asdfcore {
namespace fs = std::filesystem;

namespace {

/// Blocks of one file, plus single-block sibling files for the exploded form.
class FileBlocks final : public ndarray::BlockProvider {
 public:
  FileBlocks(format::Container container, bool verify, unsigned threads,
             tree::ReferencePolicy policy, format::ReadOptions layout)
      : container_(std::move(container)),
        verify_(verify),
        threads_(threads),
        policy_(std::move(policy)),
        layout_(layout),
        verified_(container_.blocks().size(), false) {}

  io::Buffer block(std::int64_t index) const override {
    const auto count = static_cast<std::int64_t>(container_.blocks().size());
    const std::int64_t i = index < 0 ? count + index : index;
    if (i < 0 || i >= count) {
      throw Error(ErrorCode::kMalformed,
                  "ndarray source " + std::to_string(index) + " names no block: the file has " +
                      std::to_string(count),
                  ErrorContext{.file = container_.name()});
    }
    io::Buffer data = container_.data(static_cast<std::size_t>(i), verify_);
    mark_verified(static_cast<std::size_t>(i));
    return data;
  }

  std::uint64_t block_count() const override { return container_.blocks().size(); }

  std::optional<std::uint64_t> streamable_block_size(std::int64_t index) const override {
    // Below this, decoding whole (libdeflate, a little faster) costs little memory.
    constexpr std::uint64_t kStreamFrom = std::uint64_t{16} << 20;
    const auto& blocks = container_.blocks();
    if (index < 0 || static_cast<std::uint64_t>(index) >= blocks.size()) return std::nullopt;
    const format::BlockHeader& header = blocks[static_cast<std::size_t>(index)].header;
    if (header.data_size < kStreamFrom) return std::nullopt;
    // An uncompressed block is a view of the mapping; streamed only to hash it on the way.
    if (header.compression_label().empty()) {
      const format::BlockInfo& b = blocks[static_cast<std::size_t>(index)];
      if (!verify_ || !header.has_checksum() || !b.problem.empty() ||
          header.data_size != b.stored_size) {
        return std::nullopt;
      }
    }
    return header.data_size;
  }

  void stream_block(std::int64_t index,
                    const std::function<void(std::span<const std::uint8_t>)>& write) const override {
    const auto count = static_cast<std::int64_t>(container_.blocks().size());
    if (index < 0 || index >= count) {
      (void)block(index);  // throws the error for a block that does not exist
      return;
    }
    container_.data_stream(static_cast<std::size_t>(index), verify_, write, threads_);
    mark_verified(static_cast<std::size_t>(index));
  }

  void verify_unread() const {
    const auto& blocks = container_.blocks();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (!blocks[i].problem.empty() || !blocks[i].header.has_checksum()) continue;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (verified_[i]) continue;
      }
      (void)container_.verify_checksum(i);
      mark_verified(i);
    }
  }

  io::Buffer external(const std::string& uri) const override {
    const tree::ReferenceTarget target = tree::split_reference(uri);
    const fs::path path = tree::resolve_document_path(target.document, policy_, container_.name());
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = externals_.find(path);
    if (it == externals_.end()) {
      it = externals_.emplace(path, format::Container::open(path.string(), layout_)).first;
    }
    const format::Container& other = it->second;
    if (other.blocks().empty()) {
      throw Error(ErrorCode::kMalformed, "external block file has no block",
                  ErrorContext{.file = path.string()});
    }
    return other.data(0, verify_);
  }

  std::string missing_blocks_reason() const override {
    for (const auto& p : container_.problems()) {
      if (p.kind == format::LayoutProblem::Kind::kBrokenChain) {
        return "at byte " + std::to_string(p.offset) + ": " + p.message;
      }
    }
    return {};
  }

  const format::Container& container() const { return container_; }

 private:
  void mark_verified(std::size_t i) const {
    if (!verify_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    verified_[i] = true;
  }

  format::Container container_;
  bool verify_;
  unsigned threads_;
  tree::ReferencePolicy policy_;
  format::ReadOptions layout_;
  mutable std::mutex mutex_;
  mutable std::map<fs::path, format::Container> externals_;
  mutable std::vector<bool> verified_;  ///< Blocks a read has verified (guarded by mutex_).
};

}  // namespace

struct AsdfFile::State {
  std::string path;
  OpenOptions options;
  tree::ReferencePolicy policy;
  std::unique_ptr<FileBlocks> blocks;
  tree::NodePtr tree;
  std::vector<std::string> warnings;
  std::vector<tree::DuplicateKey> duplicate_keys;
  mutable std::once_flag resolved_once;
  mutable tree::NodePtr resolved;
};

AsdfFile AsdfFile::open(const std::string& path, const OpenOptions& options) {
  // An in-place update interrupted by a crash left its undo journal: roll it back first, so
  // that the file read is the old one, whole (update.h).
  if (::access(update_journal_path(path).c_str(), F_OK) == 0) {
    try {
      recover_update(path);
    } catch (const Error& e) {
      throw Error(e.code(),
                  std::string("an interrupted update left its journal beside the file, and rolling "
                              "it back failed (it needs write access to the file and its folder): ") +
                      e.what(),
                  ErrorContext{.file = path});
    }
  }
  return from_container(format::Container::open(path, options.layout), path, options);
}

AsdfFile AsdfFile::open_bytes(io::Buffer bytes, const std::string& name,
                              const OpenOptions& options) {
  return from_container(format::Container::from_buffer(std::move(bytes), name, options.layout),
                        name, options);
}

AsdfFile AsdfFile::from_container(format::Container container, const std::string& path,
                                  const OpenOptions& options) {
  auto state = std::make_shared<State>();
  state->path = path;
  state->options = options;
  state->policy.base_dir = fs::absolute(fs::path(path)).parent_path();
  state->policy.allowed_dirs = options.allowed_dirs;
  state->policy.allow_any_path = options.allow_any_path;
  state->policy.max_expansion = options.yaml.max_alias_expansion;
  for (const auto& p : container.problems()) {
    state->warnings.push_back("byte " + std::to_string(p.offset) + ": " + p.message);
  }
  const auto& prologue = container.prologue();
  if (prologue.tree_offset) {
    tree::YamlDocument doc =
        tree::parse_yaml(container.tree_text(), path, *prologue.tree_offset, options.yaml);
    state->tree = std::move(doc.root);
    for (const auto& d : doc.duplicate_keys) {
      state->warnings.push_back("byte " + std::to_string(d.offset) + " (" + d.where + "): the key '" +
                                d.key + "' appears twice in one mapping; the last value is kept");
    }
    state->duplicate_keys = std::move(doc.duplicate_keys);
  }
  if (!state->tree || state->tree->is_null()) state->tree = tree::Node::make_mapping();
  try {
    for (auto& w : extension::check_tag_versions(*state->tree,
                                                 extension::ConverterRegistry::with_builtins())) {
      state->warnings.push_back(std::move(w));
    }
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = path});
  }
  if (options.validate) {
    const auto result = schema::Validator::for_this_thread().validate_tree(*state->tree);
    if (!result.valid()) {
      const schema::Finding& first = result.findings.front();
      std::string message = "the tree breaks its schema: " + first.message + " (" +
                            first.schema_uri + "#" + first.keyword + ")";
      if (result.findings.size() > 1) {
        message += "; " + std::to_string(result.findings.size() - 1) + " more finding" +
                   (result.findings.size() > 2 ? "s" : "") + " (fitsasdf validate lists them)";
      }
      throw Error(ErrorCode::kSchema, message, ErrorContext{.file = path, .tree_path = first.pointer});
    }
  }
  state->blocks = std::make_unique<FileBlocks>(std::move(container), options.verify_checksums,
                                               options.threads, state->policy, options.layout);
  return AsdfFile(std::move(state));
}

const std::string& AsdfFile::path() const noexcept { return state_->path; }
const format::Container& AsdfFile::container() const noexcept {
  return state_->blocks->container();
}
const std::string& AsdfFile::asdf_standard() const noexcept {
  return container().prologue().asdf_standard;
}
const tree::NodePtr& AsdfFile::tree() const noexcept { return state_->tree; }
const std::vector<std::string>& AsdfFile::warnings() const noexcept { return state_->warnings; }
const std::vector<tree::DuplicateKey>& AsdfFile::duplicate_keys() const noexcept {
  return state_->duplicate_keys;
}
const ndarray::BlockProvider& AsdfFile::blocks() const noexcept { return *state_->blocks; }

tree::NodePtr AsdfFile::resolved_tree() const {
  std::call_once(state_->resolved_once, [this] {
    const OpenOptions& options = state_->options;
    tree::DocumentLoader loader = [&options](const fs::path& file) {
      return AsdfFile::open(file.string(), options).tree();
    };
    // Without a reference there is nothing to replace: the tree itself, not a copy of it.
    state_->resolved = tree::has_references(state_->tree)
                           ? tree::resolve_references(state_->tree, state_->path,
                                                      state_->policy, loader)
                           : state_->tree;
  });
  return state_->resolved;
}

void AsdfFile::verify_unread_checksums() const { state_->blocks->verify_unread(); }

ndarray::NDArray AsdfFile::array(const tree::Node& node, const std::string& path) const {
  try {
    return ndarray::NDArray::from_node(node, *state_->blocks, path);
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = state_->path, .tree_path = path});
  }
}

ndarray::NDArray AsdfFile::array(const tree::Node& node, const std::string& path,
                                 ndarray::NDArray::Load load) const {
  try {
    return ndarray::NDArray::from_node(node, *state_->blocks, path, load);
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = state_->path, .tree_path = path});
  }
}

}  // namespace asdfcore
