// AtomicFile: nothing under the final name until commit; no temporary file left behind.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "asdfcore/error.h"
#include "asdfcore/io/atomic_file.h"
#include "asdfcore/io/mapped_file.h"
#include "support/catch.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using asdfcore::io::AtomicFile;
using fitsasdf::test::TempDir;

namespace {
std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}
}  // namespace

TEST_CASE("the output appears only on commit, complete", "[io][atomic]") {
  TempDir dir;
  const auto target = dir / "out.asdf";
  {
    AtomicFile f(target.string(), false);
    f.write(bytes_of("hello "));
    f.write_zeros(3);
    const std::string tail = "world";
    const std::string bang = "!";  // a named string: a span of a temporary would dangle
    const std::span<const std::uint8_t> parts[] = {bytes_of(tail), bytes_of(bang)};
    f.write_all(parts);
    CHECK(f.position() == 15);
    CHECK_FALSE(fs::exists(target));
    f.commit();
  }
  REQUIRE(fs::exists(target));
  CHECK(fs::file_size(target) == 15);
  CHECK(entries(dir.path()) == 1);
  const auto mapped = asdfcore::io::map_file(target.string());
  CHECK(std::string(reinterpret_cast<const char*>(mapped.data()), 6) == "hello ");
}

TEST_CASE("an abandoned output leaves nothing behind and keeps the old file", "[io][atomic]") {
  TempDir dir;
  const auto target = dir / "out.asdf";
  std::ofstream(target) << "old";
  {
    AtomicFile f(target.string());
    f.write(bytes_of("new content"));
  }
  CHECK(entries(dir.path()) == 1);
  std::ifstream in(target);
  std::string text;
  in >> text;
  CHECK(text == "old");
}

TEST_CASE("a commit that must not replace keeps a file that appeared meanwhile", "[io][atomic]") {
  TempDir dir;
  const auto target = dir / "out.asdf";
  {
    AtomicFile f(target.string(), false);
    f.write(bytes_of("new content"));
    // Another writer gets there first, after any early check a caller could make.
    std::ofstream(target) << "theirs";
    try {
      f.commit(false);
      FAIL("no error");
    } catch (const asdfcore::Error& e) {
      CHECK(e.code() == asdfcore::ErrorCode::kExists);
      CHECK(e.context().file == target.string());
    }
  }
  CHECK(entries(dir.path()) == 1);  // the temporary file is gone
  std::ifstream in(target);
  std::string text;
  in >> text;
  CHECK(text == "theirs");
  // Where nothing is in the way, the commit goes through.
  const auto fresh = dir / "fresh.asdf";
  {
    AtomicFile f(fresh.string(), false);
    f.write(bytes_of("mine"));
    f.commit(false);
  }
  CHECK(fs::file_size(fresh) == 4);
  CHECK(entries(dir.path()) == 2);
}

TEST_CASE("an unwritable folder is an io error naming the path", "[io][atomic]") {
  TempDir dir;
  const auto sub = dir / "locked";
  fs::create_directory(sub);
  chmod(sub.c_str(), 0500);
  if (access(sub.c_str(), W_OK) == 0) {
    // Running as root: permissions do not stop us, so use a folder that does not exist.
    chmod(sub.c_str(), 0700);
    fs::remove(sub);
  }
  try {
    AtomicFile f((sub / "x.asdf").string());
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    CHECK(e.code() == asdfcore::ErrorCode::kIo);
    CHECK(e.context().file == (sub / "x.asdf").string());
  }
  chmod(sub.c_str(), 0700);
}

TEST_CASE("mapping a directory or a missing file is an io error", "[io][mapped]") {
  TempDir dir;
  CHECK_THROWS_MATCHES(asdfcore::io::map_file(dir.path().string()), asdfcore::Error,
                       Catch::Predicate<asdfcore::Error>([](const asdfcore::Error& e) {
                         return e.code() == asdfcore::ErrorCode::kIo;
                       }));
  CHECK_THROWS_AS(asdfcore::io::map_file((dir / "missing").string()), asdfcore::Error);
  std::ofstream(dir / "empty");
  CHECK(asdfcore::io::map_file((dir / "empty").string()).empty());
}
