#pragma once
// The corpus oracle (../shared/corpus/oracle.json, format in ../shared/corpus/README.md) and the
// comparison of `fitsasdf info --json` array summaries with its `raw` records, shared by the
// tests that check what we read (cli/corpus_tree_test.cc) and what survives a round trip
// (interop/asdf_corpus_roundtrip_test.cc).
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "support/catch.h"
#include "support/paths.h"

namespace fitsasdf::test {

/// Return the parsed oracle of the shared corpus (REQUIREs that it can be read).
inline nlohmann::json load_corpus_oracle() {
  std::ifstream in(corpus_dir() / "oracle.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

/// What `compare_array` checks besides the path, shape, md5, dtype, alias and mask.
struct ArrayChecks {
  bool source = true;  ///< Compare `source` (block number, file name, "inline", "fits:...").
};

/// CHECK that the array summary `got` (an entry of `fitsasdf info --json`'s `arrays`) matches
/// `want` (an oracle `raw.arrays` entry, or another `info --json` entry): path, shape, md5
/// (little-endian normalised), dtype (numpy's `dtype.str`; not for structured dtypes, which the
/// oracle spells "|V<n>" with a descr list), alias_of, and mask_md5/n_masked for masked arrays.
/// An entry with `error` only needs an error on our side too.
inline void compare_array(const nlohmann::json& want, const nlohmann::json& got,
                          const std::string& where, ArrayChecks checks = {}) {
  INFO(where << "\n  want: " << want.dump().substr(0, 600)
             << "\n  got:  " << got.dump().substr(0, 600));
  CHECK(got["path"] == want["path"]);
  if (want.contains("error")) {
    CHECK(got.contains("error"));
    return;
  }
  REQUIRE_FALSE(got.contains("error"));
  CHECK(got["shape"] == want["shape"]);
  CHECK(got["md5"] == want["md5"]);
  if (checks.source) CHECK(got["source"] == want["source"]);
  if (!want.contains("dtype_descr")) CHECK(got["dtype"] == want["dtype"]);
  CHECK(got.value("alias_of", nlohmann::json()) == want.value("alias_of", nlohmann::json()));
  if (want.contains("masked") || want.contains("mask_md5")) {
    CHECK(got.value("mask_md5", nlohmann::json()) == want["mask_md5"]);
    CHECK(got.value("n_masked", nlohmann::json()) == want["n_masked"]);
  }
}

/// Return the tag map `tags` ({JSON Pointer: tag}) without the entries at or below any of
/// `subtrees` (e.g. "/asdf_library", "/history", which every writer replaces with its own).
inline nlohmann::json tags_without(const nlohmann::json& tags,
                                   std::initializer_list<std::string_view> subtrees) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [pointer, tag] : tags.items()) {
    bool inside = false;
    for (std::string_view s : subtrees) {
      inside = inside || pointer == s ||
               (pointer.size() > s.size() && pointer.compare(0, s.size(), s) == 0 &&
                pointer[s.size()] == '/');
    }
    if (!inside) out[pointer] = tag;
  }
  return out;
}

}  // namespace fitsasdf::test
