#pragma once
// What the `fitsasdf batch` tests share: generated FITS files and archives, the report read
// back, the files under a folder, and the batch run as a child process that can be killed.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/fits_builder.h"
#include "support/paths.h"

namespace fitsasdf::test::batch {

namespace fs = std::filesystem;
using nlohmann::json;

/// Write `bytes` to `path`, making its folders.
inline void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

/// A primary 16-bit image of `n` pixels valued `seed` + i.
inline std::string image_fits(int n, int seed) {
  using fits_builder::card;
  using fits_builder::num;
  std::string data;
  data.reserve(static_cast<std::size_t>(n) * 2);
  for (int i = 0; i < n; ++i) {
    data += fits_builder::big_endian<std::int16_t>(static_cast<std::int16_t>(seed + i));
  }
  return fits_builder::hdu(
      {card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 1), num("NAXIS1", n)}, data);
}

/// A report read back: its input lines (by input path, each input at most once) and summary.
struct Report {
  std::map<std::string, json> lines;
  std::size_t line_count = 0;  ///< Input lines in the file (duplicates included).
  std::size_t summaries = 0;
  json summary;  ///< The last summary line.
};

/// Read the report `path`; a line that does not parse counts as neither.
inline Report read_report(const fs::path& path) {
  Report report;
  std::ifstream in(path);
  std::string text;
  while (std::getline(in, text)) {
    const json line = json::parse(text, nullptr, false);
    if (line.is_discarded()) continue;
    if (line.contains("summary")) {
      ++report.summaries;
      report.summary = line;
      continue;
    }
    ++report.line_count;
    report.lines[line["input"].get<std::string>()] = line;
  }
  return report;
}

/// The regular files under `dir`, relative, '/'-separated.
inline std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) names.insert(e.path().lexically_relative(dir).generic_string());
  }
  return names;
}

/// The temporaries (".NAME.tmp-XXXXXX") under `dir`.
inline std::vector<fs::path> temporaries_under(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 11 && name[0] == '.' && name.find(".tmp-") == name.size() - 11) {
      found.push_back(e.path());
    }
  }
  return found;
}

/// Start `fitsasdf args...` with stdin and stdout on /dev/null and stderr opened from
/// `stderr_path` with `stderr_flags` (a file, a pseudo-terminal). The child gets the default
/// signal dispositions and an empty signal mask, whatever ours are. Returns its pid.
inline pid_t spawn_cli(const std::vector<std::string>& args, const std::string& stderr_path,
                       int stderr_flags) {
  std::vector<std::string> argv{cli_path().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (auto& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, stderr_path.c_str(), stderr_flags, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, pointers[0], &fa, &attr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  return pid;
}

/// `fitsasdf args...` running as a child process, its stdout and stderr going to files.
class Child {
 public:
  Child(const std::vector<std::string>& args, const fs::path& err_file)
      : pid_(spawn_cli(args, err_file.string(), O_WRONLY | O_CREAT | O_TRUNC)),
        err_file_(err_file) {}
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  /// Return true (and the exit status, 128 + signal when killed) when the child has ended.
  bool ended(int& status) {
    if (pid_ <= 0) {
      status = status_;
      return true;
    }
    int raw = 0;
    if (waitpid(pid_, &raw, WNOHANG) != pid_) return false;
    pid_ = -1;
    status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    status = status_;
    return true;
  }
  /// Send `signal` (when still running).
  void signal(int signal) {
    if (pid_ > 0) kill(pid_, signal);
  }
  /// Wait for the end; return the exit status (128 + signal when killed).
  int wait() {
    int status = 0;
    while (!ended(status)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return status;
  }
  /// Return what the child wrote on stderr so far.
  std::string err() const {
    std::ifstream in(err_file_);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  fs::path err_file_;
};

/// Return the number of complete lines in `path` (0 when it does not exist).
inline std::size_t line_count(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  std::string text;
  while (std::getline(in, text)) ++n;
  return n;
}

}  // namespace fitsasdf::test::batch
