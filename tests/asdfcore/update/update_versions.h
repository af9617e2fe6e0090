#pragma once
// The versions of a file that update_stress commits one after another, by kind of change, and
// the check that a file is exactly one of them (used by the kill test after every kill).
//
// Every version i holds /meta/counter = i; what else it holds depends on the kind:
//   small      nothing else changes (the tree is rewritten in place)
//   grow       /meta/note is (i % 3) * 2500 characters: in place, then a rewrite, then in place
//   add        /extra/<j> for j = 1..i, each values(j) in a new block (blocks appended)
//   replace    /data is values(i), in a new zlib block (the old one left unreferenced)
//   history    history.entries holds "step 1" .. "step i"
//   blockless  like grow, in a file without blocks (the tree runs to the end of the file)
//   move       /meta/note is i * 400 characters, in a file written without room after its tree
//              and a 1 MiB last block: small leading blocks are moved to make room, then
//              (past a quarter of the file) the file is rewritten
#include <cstdint>
#include <string>
#include <vector>

#include "asdfcore/asdfcore.h"
#include "asdfcore/update.h"

namespace fitsasdf::test {

inline const std::vector<std::string>& update_kinds() {
  static const std::vector<std::string> kinds{"small", "grow",      "add", "replace",
                                              "history", "blockless", "move"};
  return kinds;
}

/// The 1000 floats of version `i`.
inline std::vector<float> version_values(int i) {
  std::vector<float> v(1000);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(i * 1000 + static_cast<int>(k));
  return v;
}

/// The note of version `i` (empty but for grow, blockless and move).
inline std::string version_note(const std::string& kind, int i) {
  const std::size_t length = kind == "move"                         ? static_cast<std::size_t>(i) * 400
                             : kind == "grow" || kind == "blockless" ? static_cast<std::size_t>(i % 3) * 2500
                                                                     : 0;
  return std::string(length, static_cast<char>('a' + i % 26));
}

/// The 1 MiB array of the move kind.
inline std::vector<float> big_values() {
  std::vector<float> v(262144);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(k % 1000) - 0.5f;
  return v;
}

/// Write version 0 of a file of `kind` at `path`.
inline void write_version0(const std::string& path, const std::string& kind) {
  asdfcore::Tree tree;
  tree["meta"]["counter"] = 0;
  tree["meta"]["note"] = "";
  if (kind != "blockless") {
    tree["data"] = asdfcore::Array::take(version_values(0), {1000}).compression("zlib");
    tree["mask"] = asdfcore::Array::take(std::vector<std::uint8_t>(4096, 1), {64, 64});
    tree["extra"]["0"] = asdfcore::Array::take(version_values(0), {10, 100});
  }
  if (kind == "move") tree["big"] = asdfcore::Array::take(big_values(), {512, 512});
  asdfcore::WriteOptions options;
  if (kind == "move") options.tree_padding = 0;  // as python asdf writes by default
  options.checksum = asdfcore::format::ChecksumConvention::kDecodedData;  // what python checks
  asdfcore::write(path, tree, options);
}

/// Change `update` (of version i-1) into version i.
inline void apply_version(asdfcore::Update& update, const std::string& kind, int i) {
  namespace t = asdfcore::tree;
  update.set("/meta/counter", t::Node::make_int(i));
  if (kind == "grow" || kind == "blockless" || kind == "move") {
    update.set("/meta/note", t::Node::make_string(version_note(kind, i)));
  } else if (kind == "add") {
    update.add_array("/extra/" + std::to_string(i), asdfcore::Array::take(version_values(i), {1000}));
  } else if (kind == "replace") {
    update.replace_array("/data", asdfcore::Array::take(version_values(i), {1000}));
  } else if (kind == "history") {
    update.add_history("step " + std::to_string(i));
  }
}

/// Check that `path` is exactly some version of `kind` and set `version` to it; return "" when
/// it is, else what is wrong.
inline std::string check_version(const std::string& path, const std::string& kind, int& version) {
  try {
    const asdfcore::File f = asdfcore::File::open(path);
    f.verify_checksums();
    const int i = static_cast<int>(f.get<std::int64_t>("/meta/counter"));
    version = i;
    const std::string note = f.get<std::string>("/meta/note");
    if (note != version_note(kind, i)) return "the note is not version " + std::to_string(i) + "'s";
    if (kind == "move" && f.array<float>("/big").to_vector() != big_values()) return "/big changed";
    if (kind == "blockless") {
      if (!f.raw().container().blocks().empty()) return "blocks appeared";
      return "";
    }
    auto same = [](const asdfcore::ArrayView<float>& a, const std::vector<float>& b) {
      return a.to_vector() == b;
    };
    if (!same(f.array<float>("/data"), version_values(kind == "replace" ? i : 0))) {
      return "/data is not version " + std::to_string(i) + "'s";
    }
    if (f.array<std::uint8_t>("/mask").to_vector() != std::vector<std::uint8_t>(4096, 1)) {
      return "/mask changed";
    }
    const int extras = static_cast<int>(f.at("/extra").size());
    if (extras != (kind == "add" ? i + 1 : 1)) {
      return std::to_string(extras) + " arrays under /extra in version " + std::to_string(i);
    }
    if (!same(f.array<float>("/extra/0"), version_values(0))) return "/extra/0 changed";
    for (int j = 1; kind == "add" && j <= i; ++j) {
      if (!same(f.array<float>("/extra/" + std::to_string(j)), version_values(j))) {
        return "/extra/" + std::to_string(j) + " is wrong";
      }
    }
    if (kind == "history") {
      const bool has = f.contains("/history/entries");
      const std::size_t n = has ? f.at("/history/entries").size() : 0;
      if (n != static_cast<std::size_t>(i)) return std::to_string(n) + " history entries";
      if (i > 0 && f.get<std::string>("/history/entries/" + std::to_string(i - 1) +
                                      "/description") != "step " + std::to_string(i)) {
        return "the last history entry is wrong";
      }
    }
    return "";
  } catch (const std::exception& e) {
    return std::string("cannot be read: ") + e.what();
  }
}

}  // namespace fitsasdf::test
