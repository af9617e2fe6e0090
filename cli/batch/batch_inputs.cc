// Listing the inputs of `fitsasdf batch`: folders recursed, --from lists read, shards kept,
// outputs named.
#include "batch/batch_inputs.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <iterator>
#include <system_error>
#include <unordered_map>

#include "asdfcore/error.h"
#include "conversion_options.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

/// Compare relative paths component by component ("a/b" before "a-b/c"), as paths compare.
bool path_less(const std::string& a, const std::string& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return (x == '/' ? '\0' : x) < (y == '/' ? '\0' : y);
  });
}

/// Add `root` to `items`: a folder's regular files (recursed, sorted by relative path; the
/// folder `skip`, the output folder, left out), or the file itself; only those of `shard`.
void collect(const fs::path& root, const fs::path& skip, const std::optional<Shard>& shard,
             std::vector<Item>& items) {
  auto keep = [&](const std::string& relative) {
    return !shard || fnv1a(relative) % shard->n == shard->k;
  };
  if (fs::is_directory(root)) {
    std::vector<Item> found;
    for (auto it =
             fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
      const auto& entry = *it;
      std::error_code ec;
      if (entry.is_directory() && fs::equivalent(entry.path(), skip, ec)) {
        it.disable_recursion_pending();
      } else if (entry.is_regular_file()) {
        std::string relative = entry.path().lexically_relative(root).generic_string();
        if (keep(relative)) found.push_back({entry.path().string(), std::move(relative)});
      }
    }
    std::sort(found.begin(), found.end(),
              [](const Item& a, const Item& b) { return path_less(a.relative, b.relative); });
    items.insert(items.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
  } else {
    // A missing or unreadable file is kept: its conversion fails and says why.
    std::string relative = root.filename().generic_string();
    if (keep(relative)) items.push_back({root.string(), std::move(relative)});
  }
}

}  // namespace

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

std::vector<std::string> read_list(const std::string& name) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (name != "-") {
    file.open(name);
    if (!file) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the list of inputs",
                            asdfcore::ErrorContext{.file = name});
    }
    in = &file;
  }
  std::vector<std::string> paths;
  std::string line;
  while (std::getline(*in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) paths.push_back(line);
  }
  return paths;
}

std::vector<Item> list_items(const std::vector<std::string>& roots, const fs::path& outdir,
                             const std::optional<Shard>& shard) {
  std::vector<Item> items;
  // The shard is kept while listing, so that only its items are ever held.
  for (const auto& root : roots) collect(root, outdir, shard, items);
  // Directions and outputs, in list order: of two inputs with the same output the first wins.
  std::unordered_map<std::string, std::size_t> claimed;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& item = items[i];
    item.asdf_input = is_asdf(item.input);
    std::error_code ec;
    const auto size = fs::file_size(item.input, ec);
    item.size = ec ? 0 : size;
    item.output = (outdir / (item.asdf_input ? default_fits_name(item.relative)
                                             : default_asdf_name(item.relative)))
                      .lexically_normal()
                      .string();
    const auto [at, fresh] = claimed.emplace(item.output, i);
    if (!fresh) {
      item.clash = "its output " + item.output + " is the output of " + items[at->second].input +
                   " already; convert it on its own";
    }
  }
  return items;
}

}  // namespace fitsasdf::cli::batch
