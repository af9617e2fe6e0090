#pragma once
// One function per subcommand. Each receives the arguments after the subcommand's name and
// returns the exit status; errors propagate as exceptions to main().
#include <string>
#include <vector>

namespace fitsasdf::cli {

/// A subcommand: its name, a one-line summary, and its entry point.
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

/// `fitsasdf info FILE [--blocks] [--json]`.
int run_info(const std::vector<std::string>& args);

}  // namespace fitsasdf::cli
