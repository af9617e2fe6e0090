#pragma once
// Run the CLI with the fault-injection shim (support/fault_shim.c) preloaded, so that its writes,
// flushes or file creation fail as on a full disk, an exhausted quota, a failing device, a folder
// without permission or a read-only file system. Needs no privileges, mounts or namespaces.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "support/run.h"

namespace fitsasdf::test {

/// A fault for the shim to inject (the shim's FITSASDF_FAULT_* variables).
struct Fault {
  std::string error;              ///< "ENOSPC", "EDQUOT", "EIO", "EACCES", "EROFS" or "EPERM".
  std::string path_substr;        ///< Only paths containing this fail; "" for every path.
  std::uint64_t after_bytes = 0;  ///< Bytes written to matching files before writes fail.
  std::string ops;            ///< "write", "sync", "create" (comma-separated); "" for the default.
  std::filesystem::path log;  ///< A file that gets one line per failed call; empty for none.
};

/// Return the built shim.
std::filesystem::path fault_shim_path();

/// Return the "NAME=VALUE" environment entries that preload the shim with `fault` (after the
/// ASan runtime in a GCC AddressSanitizer build, which must come first).
std::vector<std::string> fault_environment(const Fault& fault);

/// Run the built `fitsasdf` executable with `args` under `fault` and wait for it.
RunResult run_cli_with_fault(const Fault& fault, std::vector<std::string> args);

/// Return the lines of `fault.log` (the calls the shim made fail); empty when there is none.
std::vector<std::string> injected_failures(const Fault& fault);

}  // namespace fitsasdf::test
