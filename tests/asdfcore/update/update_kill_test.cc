// The kill test of in-place updates: a helper process (update_stress) commits changes of every
// kind while it is killed with SIGKILL, at every crash point of a commit in turn (between each
// write and sync, FITSASDF_TEST_CRASH_AT) and at seeded random instants of a run of commits.
// After each kill the file must open, be exactly one version (tree and arrays, checksums
// verified), and take a new commit. python asdf then reads the final files with validation and
// checksums on.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"
#include "update_versions.h"

extern char** environ;

namespace fs = std::filesystem;
using fitsasdf::test::check_version;
using fitsasdf::test::TempDir;
using fitsasdf::test::update_kinds;

namespace {

/// Run update_stress on `file` from version `first`, `count` commits, with `env` added.
fitsasdf::test::RunResult stress(const fs::path& file, const std::string& kind, int first,
                                 int count, const std::vector<std::string>& env = {}) {
  return fitsasdf::test::run({UPDATE_STRESS_PATH, file.string(), kind, std::to_string(first),
                              std::to_string(count)},
                             "", env);
}

/// Start update_stress and return its pid (the caller kills and reaps it).
pid_t start_stress(const fs::path& file, const std::string& kind, int first, int count) {
  std::vector<std::string> args{UPDATE_STRESS_PATH, file.string(), kind, std::to_string(first),
                                std::to_string(count)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text{"UPDATE_STRESS_NO_SYNC=1"};
  for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  REQUIRE(posix_spawn(&pid, UPDATE_STRESS_PATH, nullptr, nullptr, argv.data(), envp.data()) == 0);
  return pid;
}

/// No journal of `file` is left in `dir` (after a kill, opening the file rolled it back), and
/// with `after_commit` no temporary file of a rewrite either (the next commit removed it).
bool no_leftovers(const fs::path& dir, const fs::path& file, bool after_commit = false) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "." + file.filename().string() + ".fitsasdf-journal") return false;
    if (after_commit && name.starts_with("." + file.filename().string())) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a commit killed at any of its crash points leaves the old or the new version",
          "[update][kill]") {
  TempDir dir;
  int kills = 0;
  for (const std::string& kind : update_kinds()) {
    // Start from versions 0 to 3: for grow and blockless that is an in-place commit, a
    // rewrite, an in-place commit that shrinks the tree, and an in-place one again.
    for (int start = 0; start < 4; ++start) {
      const fs::path base = dir / (kind + "-base.asdf");
      fitsasdf::test::write_version0(base.string(), kind);
      if (start > 0) REQUIRE(stress(base, kind, 1, start).status == 0);
      bool saw_old = false;
      bool saw_new = false;
      for (int point = 1;; ++point) {
        INFO(kind << " from version " << start << ", crash point " << point);
        REQUIRE(point < 50);
        const fs::path work = dir / (kind + ".asdf");
        fs::copy_file(base, work, fs::copy_options::overwrite_existing);
        const auto r = stress(work, kind, start + 1, 1,
                              {"FITSASDF_TEST_CRASH_AT=" + std::to_string(point)});
        int version = -1;
        const std::string problem = check_version(work.string(), kind, version);
        CHECK(problem == "");
        CHECK(no_leftovers(dir.path(), work));
        if (r.status == 0) {
          CHECK(version == start + 1);
          CHECK(point > 2);  // the journal, the writes, the sync, the commit point
          break;
        }
        REQUIRE(r.status == 128 + SIGKILL);
        ++kills;
        CHECK((version == start || version == start + 1));
        (version == start ? saw_old : saw_new) = true;
        // A new commit succeeds after the kill.
        const auto again = stress(work, kind, version + 1, 1);
        CHECK(again.status == 0);
        CHECK(no_leftovers(dir.path(), work, true));
        int after = -1;
        CHECK(check_version(work.string(), kind, after) == "");
        CHECK(after == version + 1);
      }
      CHECK(saw_old);
      CHECK(saw_new);
    }
  }
  CHECK(kills >= 100);
}

TEST_CASE("SIGKILL at seeded random instants of a run of commits loses nothing",
          "[update][kill]") {
  TempDir dir;
  std::mt19937 random(20261127);
  std::vector<std::string> finals;
  for (const std::string& kind : update_kinds()) {
    const fs::path file = dir / (kind + ".asdf");
    fitsasdf::test::write_version0(file.string(), kind);
    // How long one process takes to start and commit once (much longer in a sanitizer
    // build): the kills are spread over twice that, so that they land before, during and after
    // commits wherever the machine's speed puts them.
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(stress(file, kind, 1, 1).status == 0);
    const auto one = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - t0).count();
    int version = 1;
    for (int round = 0; round < 40; ++round) {
      const int delay_us =
          std::uniform_int_distribution<int>(0, static_cast<int>(std::max<long long>(2 * one, 1000)))(random);
      const pid_t pid = start_stress(file, kind, version + 1, 100000);
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
      INFO(kind << ", round " << round << ", killed after " << delay_us << " us");
      REQUIRE(WIFSIGNALED(status));
      int now = -1;
      const std::string problem = check_version(file.string(), kind, now);
      REQUIRE(problem == "");
      CHECK(now >= version);
      CHECK(no_leftovers(dir.path(), file));
      version = now;
    }
    INFO(kind << ": " << version - 1 << " commits in 40 runs");
    CHECK(version > 1);
    finals.push_back(file.string());
  }
  // The reference library reads every final file: validation and checksums on, no warning.
  std::vector<std::string> argv{"/usr/bin/python3",
                                std::string(FITSASDF_TEST_SCRIPTS_DIR) + "/read_updated.py"};
  argv.insert(argv.end(), finals.begin(), finals.end());
  const auto r = fitsasdf::test::run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (const auto& report : nlohmann::json::parse(r.out)) {
    INFO(report.dump());
    CHECK(report["warnings"].empty());
    CHECK(report.contains("tree"));
  }
}
