#include "support/fault_injection.h"

#include <cstdlib>
#include <fstream>

#include "support/paths.h"

namespace fitsasdf::test {

std::filesystem::path fault_shim_path() { return FITSASDF_FAULT_SHIM_PATH; }

std::vector<std::string> fault_environment(const Fault& fault) {
  std::string preload = fault_shim_path().string();
  const std::string asan_runtime = FITSASDF_ASAN_RUNTIME;
  if (!asan_runtime.empty()) preload = asan_runtime + " " + preload;
  if (const char* ours = std::getenv("LD_PRELOAD"); ours != nullptr && *ours != '\0') {
    preload += std::string(" ") + ours;
  }
  std::vector<std::string> env{
      "LD_PRELOAD=" + preload,
      "FITSASDF_FAULT_ERRNO=" + fault.error,
      "FITSASDF_FAULT_PATH_SUBSTR=" + fault.path_substr,
      "FITSASDF_FAULT_AFTER_BYTES=" + std::to_string(fault.after_bytes),
      "FITSASDF_FAULT_OPS=" + fault.ops,
      "FITSASDF_FAULT_LOG=" + fault.log.string(),
  };
  if (fault.log.empty()) env.pop_back();
  return env;
}

RunResult run_cli_with_fault(const Fault& fault, std::vector<std::string> args) {
  args.insert(args.begin(), cli_path().string());
  return run(args, "", fault_environment(fault));
}

std::vector<std::string> injected_failures(const Fault& fault) {
  std::vector<std::string> lines;
  if (fault.log.empty()) return lines;
  std::ifstream in(fault.log);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace fitsasdf::test
