// `fitsasdf batch` stopped the hard way and the soft way: killed with SIGKILL at ten seeded
// moments and re-run each time (every output in the end complete and verified, no temporary
// left, each input once in the report), and interrupted with SIGINT/SIGTERM (exit 130, a line
// saying how to resume, no temporary left, the re-run finishing the job).
#include <sys/stat.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/batch_support.h"
#include "support/catch.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using namespace fitsasdf::test::batch;

namespace {

/// An archive of `small` small files (multi-extension and one-image FITS) in nested folders,
/// `large` images of about 3 MB among them, and an ASDF file. Returns the relative paths.
std::vector<std::string> make_archive(const fs::path& root, int small, int large) {
  std::vector<std::string> files;
  for (int i = 0; i < small; ++i) {
    const std::string rel = "run" + std::to_string(i % 4) + "/ccd" + std::to_string(i % 3) + "/f" +
                            std::to_string(i) + ".fits";
    write_file(root / rel, i % 2 ? fits_builder::sample() : image_fits(200 + 37 * i, i));
    files.push_back(rel);
  }
  for (int i = 0; i < large; ++i) {
    const std::string rel =
        "run" + std::to_string(i % 4) + "/ccd1/large" + std::to_string(i) + ".fits";
    write_file(root / rel, image_fits(1500000 + 1000 * i, i));
    files.push_back(rel);
  }
  for (const char* name : {"compressed.asdf"}) {
    fs::create_directories(root / "asdf");
    fs::copy_file(samples_dir() / name, root / "asdf" / name);
    files.push_back(std::string("asdf/") + name);
  }
  return files;
}

/// The inode of `path`, 0 when it does not exist.
ino_t inode_of(const fs::path& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::string output_of(const std::string& rel) {
  if (rel.ends_with(".asdf")) return rel.substr(0, rel.size() - 5) + ".fits";
  return rel.substr(0, rel.size() - 5) + ".asdf";
}

/// The checks after a batch has finished: every output there and verified, no temporary, the
/// report with each input once.
void check_finished(const fs::path& archive, const fs::path& out, const fs::path& report,
                    const std::vector<std::string>& files) {
  CHECK(temporaries_under(out).empty());
  CHECK(temporaries_under(report.parent_path()).empty());
  std::set<std::string> outputs;
  for (const auto& rel : files) outputs.insert(output_of(rel));
  CHECK(files_under(out) == outputs);
  for (const auto& rel : files) {
    INFO(rel);
    const fs::path in = archive / rel;
    const fs::path made = out / output_of(rel);
    // FITS input: the ASDF output converted back gives the input; ASDF input: the FITS output
    // is what the input converts to.
    const RunResult v = rel.ends_with(".asdf")
                            ? run_cli({"verify", made.string(), in.string(), "-q"})
                            : run_cli({"verify", in.string(), made.string(), "-q"});
    CHECK(v.status == 0);
  }
  const Report r = read_report(report);
  CHECK(r.summaries == 1);
  CHECK(r.line_count == files.size());  // each input exactly once
  CHECK(r.lines.size() == files.size());
  for (const auto& rel : files) {
    INFO(rel);
    REQUIRE(r.lines.count((archive / rel).string()) == 1);
    const std::string status = r.lines.at((archive / rel).string())["status"];
    CHECK((status == "ok" || status == "skipped"));
  }
  CHECK(r.summary["not_done"] == 0);
  CHECK(r.summary["failed"] == 0);
  CHECK(r.summary["stopped"].is_null());
}

}  // namespace

TEST_CASE("batch survives SIGKILL at ten seeded moments and resumes to a complete archive",
          "[cli][batch][batch_fault]") {
  TempDir tmp;
  const fs::path archive = tmp / "archive";
  const fs::path out = tmp / "out";
  const fs::path report = tmp / "reports" / "report.jsonl";
  const std::vector<std::string> files = make_archive(archive, 100, 8);
  const std::vector<std::string> command{
      "batch", archive.string(), "-o", out.string(), "-j", "2", "--report", report.string()};
  std::mt19937 random(20261122);
  int killed = 0;
  int temporaries_seen = 0;
  std::string rounds;
  for (int round = 0; round < 10; ++round) {
    INFO("round " << round);
    // Kill once the report has a few lines beyond what the run must write for the inputs it
    // finds complete (one line each), then after a random 0-5 ms: mostly inside a conversion.
    const std::size_t before = read_report(report).lines.size();
    std::size_t complete = 0;
    if (fs::exists(out)) complete = files_under(out).size();
    const std::size_t target =
        before + complete + std::uniform_int_distribution<std::size_t>(0, 3)(random);
    const auto delay =
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 5000)(random));
    // The run first replaces the report by its consolidated version (a new inode); count from
    // then on.
    const ino_t old_inode = inode_of(report);
    Child child(command, tmp / "err.txt");
    int status = 0;
    bool ended = false;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!(ended = child.ended(status)) &&
           (inode_of(report) == old_inode || line_count(report) < target) &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (!ended) {
      std::this_thread::sleep_for(delay);
      child.signal(SIGKILL);
      status = child.wait();
    }
    if (status == 128 + SIGKILL) ++killed;
    rounds += "round " + std::to_string(round) + ": killed at " + std::to_string(target) +
              " report lines, status " + std::to_string(status) + ", " +
              std::to_string(files_under(out).size()) + " outputs\n";
    temporaries_seen += static_cast<int>(fs::exists(out) ? temporaries_under(out).size() : 0);
    INFO(child.err());
    CHECK((status == 128 + SIGKILL || status == 0));
  }
  // Most kills landed in the middle of the run.
  INFO(rounds);
  CHECK(killed >= 8);
  // A temporary that is ours (named after an output) is removed; one that is not is left alone.
  write_file(out / "run1/ccd1/.f1.asdf.tmp-AbC123", "partial");
  write_file(out / "run1/ccd1/.notes.txt.tmp-AbC123", "someone else's");
  const RunResult last = run_cli(command);
  INFO(last.err);
  CHECK(last.status == 0);
  CHECK(fs::exists(out / "run1/ccd1/.notes.txt.tmp-AbC123"));
  fs::remove(out / "run1/ccd1/.notes.txt.tmp-AbC123");
  INFO("kills: " << killed << ", temporaries left by them: " << temporaries_seen);
  check_finished(archive, out, report, files);
}

TEST_CASE("batch stops cleanly on SIGINT and SIGTERM, and the same command resumes",
          "[cli][batch][batch_fault]") {
  TempDir tmp;
  const fs::path archive = tmp / "archive";
  const fs::path out = tmp / "out";
  const fs::path report = tmp / "report.jsonl";
  const std::vector<std::string> files = make_archive(archive, 40, 4);
  const std::vector<std::string> command{
      "batch", archive.string(), "-o", out.string(), "-j", "2", "--report", report.string()};
  for (const int sig : {SIGINT, SIGTERM}) {
    INFO("signal " << sig);
    fs::remove_all(out);
    fs::remove(report);
    Child child(command, tmp / "err.txt");
    int status = 0;
    bool ended = false;
    while (!(ended = child.ended(status)) && line_count(report) < 3) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE_FALSE(ended);
    child.signal(sig);
    status = child.wait();
    const std::string err = child.err();
    INFO(err);
    CHECK(status == 130);
    CHECK(err.find(sig == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)") !=
          std::string::npos);
    CHECK(err.find("run the same command again to resume") != std::string::npos);
    CHECK(temporaries_under(out).empty());
    // The report is consolidated: what was done, each once, and a summary saying it stopped.
    const Report partial = read_report(report);
    CHECK(partial.summaries == 1);
    CHECK(partial.summary["stopped"] == "interrupted");
    CHECK(partial.line_count == partial.lines.size());
    CHECK(partial.summary["not_done"].get<std::size_t>() + partial.lines.size() == files.size());
    CHECK(partial.summary["not_done"].get<std::size_t>() > 0);
    CHECK(files_under(out).size() == partial.lines.size());

    const RunResult again = run_cli(command);
    INFO(again.err);
    CHECK(again.status == 0);
    check_finished(archive, out, report, files);
    // The lines of the interrupted run are kept: those inputs are ok, not skipped.
    const Report whole = read_report(report);
    for (const auto& [input, line] : partial.lines) {
      CHECK(whole.lines.at(input) == line);
    }
  }
}
