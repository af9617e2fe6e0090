#include "support/layers.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "support/run.h"

namespace fitsasdf::test {
namespace {

/// Append "layer<TAB>status<TAB>detail" to the layers file in one write (O_APPEND: test
/// processes running side by side do not mix their lines).
void record(const std::string& layer, const char* status, std::string detail) {
  for (char& ch : detail) {
    if (ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';
  }
  const std::string line = layer + "\t" + status + "\t" + detail + "\n";
  const int fd = open(FITSASDF_TEST_LAYERS_FILE, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, line.data(), line.size());
  close(fd);
}

}  // namespace

void layer_ran(const std::string& layer, const std::string& how) { record(layer, "ran", how); }

bool layer_skipped(const std::string& layer, const std::string& why) {
  record(layer, "skipped", why);
  const char* ci = std::getenv("CI");
  const char* require = std::getenv("FITSASDF_REQUIRE_LAYERS");
  return (ci != nullptr && *ci != '\0') ||
         (require != nullptr && std::strcmp(require, "0") != 0 && *require != '\0');
}

std::optional<std::vector<std::string>> as_non_root(std::string& why) {
  if (geteuid() != 0) return std::vector<std::string>{};
  const std::vector<std::string> prefix{"setpriv", "--reuid=65534", "--regid=65534",
                                        "--clear-groups"};
  std::vector<std::string> probe = prefix;
  probe.push_back("true");
  RunResult r;
  try {
    r = run(probe);
  } catch (const std::exception&) {
    why = "running as root, and setpriv (util-linux) is not installed";
    return std::nullopt;
  }
  if (r.status != 0) {
    std::string err = r.err.substr(0, r.err.find('\n'));
    why = "running as root, and setpriv cannot drop to nobody here" +
          (err.empty() ? std::string() : ": " + err);
    return std::nullopt;
  }
  return prefix;
}

}  // namespace fitsasdf::test
