// The malformed-input suite: every damaged file that make_cases.py writes is run through the
// built `fitsasdf` as manifest.json says, and must give the expected exit status without a
// signal, within a time limit, under a cap on address space, with exactly one line on stderr
// naming the file and the error category, and with no output or temporary file left behind.
// The cases are generated at test time by the `malformed:generate` CTest fixture.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/paths.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

/// Seconds a single run may take (the slowest case takes well under one).
constexpr int kTimeoutSeconds = 20;
/// Address space the CLI may use: a forged size that reaches an allocation fails it.
constexpr rlim_t kAddressSpace = rlim_t{2} << 30;

struct Outcome {
  bool signaled = false;
  int signal = 0;
  bool timed_out = false;
  int status = -1;
  double seconds = 0;
  std::string out;
  std::string err;
};

/// Run `argv` with no input, a time limit and (unless sanitized) an address-space cap.
Outcome run_limited(const std::vector<std::string>& argv) {
  int out[2], err[2];
  REQUIRE(pipe2(out, O_CLOEXEC) == 0);
  REQUIRE(pipe2(err, O_CLOEXEC) == 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (!kSanitized) {
      const rlimit as{kAddressSpace, kAddressSpace};
      setrlimit(RLIMIT_AS, &as);
    }
    const rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  Outcome o;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_reads = 2;
  char buf[65536];
  const auto deadline = start + std::chrono::seconds(kTimeoutSeconds);
  while (open_reads > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      o.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) <= 0) continue;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t n = read(fds[k].fd, buf, sizeof buf);
        if (n > 0) {
          (k == 0 ? o.out : o.err).append(buf, static_cast<std::size_t>(n));
        } else {
          close(fds[k].fd);
          fds[k].fd = -1;
          --open_reads;
        }
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.signaled = WIFSIGNALED(status) && !o.timed_out;
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  if (WIFEXITED(status)) o.status = WEXITSTATUS(status);
  return o;
}

fs::path cases_dir() { return FITSASDF_MALFORMED_DIR; }

json manifest() {
  std::ifstream in(cases_dir() / "manifest.json");
  REQUIRE(in.good());  // written by the malformed:generate fixture
  return json::parse(in);
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    names.insert(fs::relative(entry.path(), dir).string());
  }
  return names;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

/// Run every case of `group` and check each run against the manifest.
void run_group(const std::string& group) {
  const json cases = manifest();
  int runs = 0;
  for (const auto& c : cases) {
    if (c["group"] != group) continue;
    const std::string name = c["name"];
    const fs::path folder = cases_dir() / "cases" / name;
    const fs::path input = folder / c["input"].get<std::string>();
    const std::set<std::string> before = listing(folder);
    int k = 0;
    for (const auto& r : c["runs"]) {
      const fs::path out =
          cases_dir() / ("out." + std::to_string(getpid())) / (name + "." + std::to_string(k++));
      fs::remove_all(out);
      fs::create_directories(out);
      std::vector<std::string> argv{fitsasdf::test::cli_path().string()};
      std::string named;  // the file the error must name
      for (const auto& a : r["args"]) {
        std::string arg = replace_all(a.get<std::string>(), "{in}", input.string());
        arg = replace_all(arg, "{out}", out.string());
        arg = replace_all(arg, "{dir}", folder.string());
        if (named.empty() && argv.size() == 2) named = arg;  // the first operand
        argv.push_back(arg);
      }
      if (r.contains("names")) named = (folder / r["names"].get<std::string>()).string();
      const int expected = r["exit"];
      std::string command;
      for (std::size_t i = 1; i < argv.size(); ++i) command += " " + argv[i];
      const Outcome o = run_limited(argv);
      INFO("case " << name << " (" << c["note"].get<std::string>() << "):" << command
                   << "\nstderr: " << o.err << "seconds: " << o.seconds);
      CHECK_FALSE(o.timed_out);
      CHECK_FALSE(o.signaled);
      if (o.signaled) WARN("signal " << o.signal);
      CHECK(o.status == expected);
      const std::set<std::string> left = listing(out);
      if (expected == 0) {
        // Success: the output (for convert) and nothing else; stderr holds no error.
        if (r["args"][0] == "convert") CHECK(left == std::set<std::string>{"out"});
        if (r["args"][0] != "convert") CHECK(left.empty());
        CHECK(o.err.find("error") == std::string::npos);
      } else {
        CHECK(left.empty());
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK((!o.err.empty() && o.err.back() == '\n'));
        const std::string prefix =
            r["category"].is_null()
                ? std::string("fitsasdf: error [")
                : "fitsasdf: error [" + r["category"].get<std::string>() + "]: ";
        CHECK(o.err.starts_with(prefix));
        CHECK(o.err.find(named) != std::string::npos);
      }
      CHECK(listing(folder) == before);  // nothing written next to the input
      fs::remove_all(out);
      ++runs;
    }
  }
  CHECK(runs > 0);
  fs::remove_all(cases_dir() / ("out." + std::to_string(getpid())));
}

}  // namespace

TEST_CASE("malformed ASDF: truncation and bad magic", "[malformed]") { run_group("asdf-layout"); }
TEST_CASE("malformed ASDF: block sizes and codecs", "[malformed]") { run_group("asdf-blocks"); }
TEST_CASE("malformed ASDF: trees", "[malformed]") { run_group("asdf-tree"); }
TEST_CASE("malformed ASDF: arrays", "[malformed]") { run_group("asdf-array"); }
TEST_CASE("malformed ASDF: references", "[malformed]") { run_group("asdf-reference"); }
TEST_CASE("malformed FITS: headers", "[malformed]") { run_group("fits-header"); }
TEST_CASE("malformed FITS: tables and compression", "[malformed]") { run_group("fits-table"); }
TEST_CASE("malformed input: files that cannot be read", "[malformed]") { run_group("io"); }
TEST_CASE("malformed ASDF: pre-1.0 layouts and encodings", "[malformed]") {
  run_group("asdf-legacy");
}

TEST_CASE("malformed suite: at least 50 kinds, every group run, README in step", "[malformed]") {
  const json cases = manifest();
  CHECK(cases.size() >= 50);
  std::set<std::string> groups;
  for (const auto& c : cases) groups.insert(c["group"].get<std::string>());
  CHECK(groups == std::set<std::string>{"asdf-layout", "asdf-blocks", "asdf-tree", "asdf-array",
                                        "asdf-reference", "asdf-legacy", "fits-header",
                                        "fits-table", "io"});
  // The README's table is the one the generator prints.
  std::ifstream table_in(cases_dir() / "readme_table.md");
  std::stringstream table;
  table << table_in.rdbuf();
  std::ifstream readme_in(fs::path(FITSASDF_MALFORMED_SOURCE_DIR) / "README.md");
  std::stringstream readme;
  readme << readme_in.rdbuf();
  INFO("tests/malformed/README.md must hold the table of `make_cases.py --readme`");
  CHECK(!table.str().empty());
  CHECK(readme.str().find(table.str()) != std::string::npos);
}
