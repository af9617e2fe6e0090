// The inputs of `fitsasdf batch`: folders walked lazily, --from lists read as they are
// consumed, shards kept.
#include "batch/batch_inputs.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>
#include <system_error>

#include "asdfcore/error.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {

namespace {

enum class EntryKind { kFile, kFolder, kLink, kOther };
using Entries = std::vector<std::pair<std::string, EntryKind>>;

/// Return the entries of `folder` (none when it cannot be opened, as a folder without
/// permission), sorted by name. Sorting the names of each folder and walking depth first gives
/// the order of relative paths compared component by component ("a/b" before "a-b").
Entries read_folder(const fs::path& folder) {
  Entries out;
  std::error_code ec;
  fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  if (ec) return out;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    // The kinds come from the folder's entries (d_type) where the file system gives them.
    EntryKind kind = EntryKind::kOther;
    if (it->is_symlink(type_ec)) {
      kind = EntryKind::kLink;
    } else if (it->is_directory(type_ec)) {
      kind = EntryKind::kFolder;
    } else if (it->is_regular_file(type_ec)) {
      kind = EntryKind::kFile;
    }
    out.emplace_back(it->path().filename().string(), kind);
    if (ec) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

/// One folder being walked: its entries, sorted by name, and the next one to look at.
struct InputWalker::Folder {
  std::string relative;  ///< "" for the root.
  Entries entries;
  std::size_t at = 0;
};

std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

Shard parse_shard(const std::string& value) {
  const auto slash = value.find('/');
  try {
    if (slash != std::string::npos && value.find('-') == std::string::npos) {
      std::size_t used_k = 0;
      std::size_t used_n = 0;
      const auto k = std::stoull(value.substr(0, slash), &used_k);
      const auto n = std::stoull(value.substr(slash + 1), &used_n);
      if (used_k == slash && used_n == value.size() - slash - 1 && n > 0 && k < n) {
        return {k, n};
      }
    }
  } catch (const std::exception&) {
  }
  throw boost::program_options::error("--shard takes K/N with 0 <= K < N (as 3/100), not '" +
                                      value + "'");
}

InputWalker::InputWalker(std::vector<std::string> roots, std::vector<std::string> lists,
                         fs::path outdir, std::optional<Shard> shard)
    : roots_(std::move(roots)),
      lists_(std::move(lists)),
      outdir_(std::move(outdir)),
      shard_(shard) {}

InputWalker::~InputWalker() = default;

bool InputWalker::keep(const std::string& relative) const {
  return !shard_ || fnv1a(relative) % shard_->n == shard_->k;
}

bool InputWalker::next_root(std::string& root) {
  if (next_root_ < roots_.size()) {
    root = roots_[next_root_++];
    return true;
  }
  std::string line;
  while (true) {
    if (list_ == nullptr) {
      if (next_list_ >= lists_.size()) return false;
      const std::string& name = lists_[next_list_++];
      if (name == "-") {
        list_ = &std::cin;
      } else {
        list_file_ = std::ifstream(name);
        if (!list_file_) {
          throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the list of inputs",
                                asdfcore::ErrorContext{.file = name});
        }
        list_ = &list_file_;
      }
    }
    while (std::getline(*list_, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) {
        root = std::move(line);
        return true;
      }
    }
    if (list_->bad()) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the list of inputs",
                            asdfcore::ErrorContext{.file = lists_[next_list_ - 1]});
    }
    list_file_.close();
    list_ = nullptr;
  }
}

bool InputWalker::next(Item& item) {
  using Kind = EntryKind;
  while (true) {
    while (!stack_.empty()) {
      Folder& folder = *stack_.back();
      if (folder.at >= folder.entries.size()) {
        stack_.pop_back();
        continue;
      }
      const auto& [name, kind] = folder.entries[folder.at++];
      const std::string relative = folder.relative.empty() ? name : folder.relative + "/" + name;
      const fs::path path = walk_root_ / relative;
      if (kind == Kind::kFolder) {
        std::error_code ec;
        if (fs::equivalent(path, outdir_, ec)) continue;  // the outputs are not inputs
        auto inner = std::make_unique<Folder>();
        inner->relative = relative;
        inner->entries = read_folder(path);
        stack_.push_back(std::move(inner));
        continue;
      }
      if (kind == Kind::kOther || !keep(relative)) continue;
      std::error_code ec;
      if (kind == Kind::kLink && !fs::is_regular_file(path, ec)) continue;
      item = Item{};
      item.input = path.string();
      item.relative = relative;
      return true;
    }
    std::string root;
    if (!next_root(root)) return false;
    std::error_code ec;
    if (fs::is_directory(root, ec)) {
      walk_root_ = root;
      auto top = std::make_unique<Folder>();
      top->entries = read_folder(root);
      stack_.push_back(std::move(top));
      continue;
    }
    // A missing or unreadable file is kept: its conversion fails and says why.
    std::string relative = fs::path(root).filename().generic_string();
    if (!keep(relative)) continue;
    item = Item{};
    item.input = std::move(root);
    item.relative = std::move(relative);
    return true;
  }
}

}  // namespace fitsasdf::cli::batch
