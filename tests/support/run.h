#pragma once
// Run a command (the CLI, the reference Python tools) and capture its output and exit status.
#include <string>
#include <vector>

namespace fitsasdf::test {

struct RunResult {
  int status = -1;      ///< Exit status, or 128 + signal number when killed by a signal.
  std::string out;      ///< Standard output.
  std::string err;      ///< Standard error.
};

/// Run `argv` (no shell) with an optional standard input and wait for it. `env` holds
/// "NAME=VALUE" entries set in the child's environment on top of ours (replacing ours of the
/// same NAME).
RunResult run(const std::vector<std::string>& argv, const std::string& input = "",
              const std::vector<std::string>& env = {});

/// Run the built `fitsasdf` executable with `args` (no shell) and wait for it.
RunResult run_cli(std::vector<std::string> args);

/// Quote `s` for a message.
std::string join(const std::vector<std::string>& argv);

}  // namespace fitsasdf::test
