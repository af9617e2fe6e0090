// The batch's on-disk sort (cli/batch/external_sort.h) and its input walker
// (cli/batch/batch_inputs.h): order, stability and bounded runs; the walk's order and shards.
#include "batch/external_sort.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "batch/batch_inputs.h"
#include "support/catch.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fitsasdf::cli::batch;

namespace {

std::vector<std::pair<std::string, std::string>> drain(ExternalSorter& sorter) {
  std::vector<std::pair<std::string, std::string>> out;
  SortedStream stream = sorter.sorted();
  std::string key, value;
  while (stream.next(key, value)) out.emplace_back(key, value);
  return out;
}

std::size_t files_in(const fs::path& folder) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(folder), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("the batch's external sort orders keys bytewise and keeps equal keys in order added",
          "[cli][batch]") {
  fitsasdf::test::TempDir tmp;
  // Budgets from "all in memory" to "a run of a few records each", which makes more runs than
  // one merge takes (kFanIn) and so merges in two levels.
  for (const std::size_t budget : {std::size_t{1} << 24, std::size_t{4096}, std::size_t{300}}) {
    CAPTURE(budget);
    ExternalSorter sorter(tmp.path(), "s", budget);
    std::mt19937 random(7);
    std::vector<std::pair<std::string, std::string>> expected;
    for (int i = 0; i < 5000; ++i) {
      // Keys with NULs, high bytes and shared prefixes; many duplicates.
      std::string key = "k" + std::to_string(random() % 700);
      if (i % 3 == 0) key += std::string(1, '\0') + "\xff";
      const std::string value = std::to_string(i);
      sorter.add(key, value);
      expected.emplace_back(key, value);
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    CHECK(sorter.size() == 5000);
    CHECK(drain(sorter) == expected);
    CHECK(files_in(tmp.path()) == 0);  // runs removed once read
  }
}

TEST_CASE("the batch's external sort handles nothing, and index keys sort as numbers",
          "[cli][batch]") {
  fitsasdf::test::TempDir tmp;
  ExternalSorter empty(tmp.path(), "e", 100);
  CHECK(drain(empty).empty());
  ExternalSorter numbers(tmp.path(), "n", 100);
  for (const std::uint64_t n : {300u, 2u, 65536u, 0u, 256u}) numbers.add(index_key(n), "");
  std::vector<std::uint64_t> got;
  for (const auto& [key, value] : drain(numbers)) got.push_back(key_index(key));
  CHECK(got == std::vector<std::uint64_t>{0, 2, 256, 300, 65536});
}

TEST_CASE("a work file cut inside a record is a malformed error naming it", "[cli][batch]") {
  fitsasdf::test::TempDir tmp;
  const fs::path path = tmp.path() / "records";
  {
    RecordWriter out(path);
    out.write("key", "value");
    out.close();
  }
  fs::resize_file(path, fs::file_size(path) - 2);
  RecordReader in(path);
  std::string key, value;
  try {
    in.next(key, value);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    CHECK(e.code() == asdfcore::ErrorCode::kMalformed);
    CHECK(e.context().file == path.string());
  }
}

TEST_CASE("a work folder another run holds is kept, one a dead run left is removed",
          "[cli][batch]") {
  fitsasdf::test::TempDir tmp;
  {
    const WorkFolder held(tmp.path(), kWorkPrefix);
    CHECK(WorkFolder::remove_abandoned(tmp.path(), kWorkPrefix) == 0);
    CHECK(fs::exists(held.path()));
  }
  // A folder whose lock nobody holds (its run was killed) goes.
  const fs::path left = tmp.path() / (std::string(kWorkPrefix) + "dead01");
  fs::create_directories(left);
  std::ofstream(left / "lock").put('x');
  std::ofstream(left / "items").put('x');
  CHECK(WorkFolder::remove_abandoned(tmp.path(), kWorkPrefix) == 1);
  CHECK_FALSE(fs::exists(left));
}

TEST_CASE("the batch walks folders in sorted relative-path order, and shards split them",
          "[cli][batch]") {
  fitsasdf::test::TempDir tmp;
  const fs::path root = tmp.path() / "in";
  for (const char* f : {"a-b/c.fits", "a/b.fits", "a/z/y.fits", "b.fits", "out/x.fits"}) {
    fs::create_directories((root / f).parent_path());
    std::ofstream(root / f).put('x');
  }
  fs::create_symlink(root / "b.fits", root / "link.fits");
  fs::create_directory_symlink(root / "a", root / "folder-link");
  auto walk = [&](std::optional<Shard> shard) {
    InputWalker walker({root.string()}, {}, root / "out", shard);
    std::vector<std::string> got;
    Item item;
    while (walker.next(item)) got.push_back(item.relative);
    return got;
  };
  // '/' sorts before every other character: "a/..." before "a-b/..."; links to files are
  // inputs, links to folders and the output folder are not.
  const std::vector<std::string> all{"a/b.fits", "a/z/y.fits", "a-b/c.fits", "b.fits",
                                     "link.fits"};
  CHECK(walk(std::nullopt) == all);
  std::vector<std::string> shards;
  for (std::uint64_t k = 0; k < 3; ++k) {
    for (const auto& r : walk(Shard{k, 3})) {
      CHECK(fnv1a(r) % 3 == k);
      shards.push_back(r);
    }
  }
  std::sort(shards.begin(), shards.end());
  std::vector<std::string> sorted_all = all;
  std::sort(sorted_all.begin(), sorted_all.end());
  CHECK(shards == sorted_all);
}

TEST_CASE("a --from list that cannot be read is an io error naming it", "[cli][batch]") {
  fitsasdf::test::TempDir tmp;
  InputWalker walker({}, {(tmp.path() / "missing.txt").string()}, tmp.path() / "out",
                     std::nullopt);
  Item item;
  try {
    walker.next(item);
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    CHECK(e.code() == asdfcore::ErrorCode::kIo);
    CHECK(e.context().file == (tmp.path() / "missing.txt").string());
  }
}
