#include "support/layers.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

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

}  // namespace fitsasdf::test
