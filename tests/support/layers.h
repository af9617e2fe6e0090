#pragma once
// Environment-dependent test layers: a test that needs something the machine may not offer
// (user namespaces, mounting a tmpfs, a second user to drop root to) records whether its layer
// ran, and why not, in build/tests/layers.txt; scripts/test-layers.sh prints the table at the
// end of scripts/test.sh and scripts/sanitize.sh. A missing layer is not a failure, except
// where it must run: CI set, or FITSASDF_REQUIRE_LAYERS=1.
#include <optional>
#include <string>
#include <vector>

#include "support/catch.h"

namespace fitsasdf::test {

/// The layers (names as scripts/test-layers.sh prints them).
inline constexpr const char* kLayerInjectedFaults = "I/O faults injected (LD_PRELOAD shim)";
inline constexpr const char* kLayerRealDiskFull = "disk full: a real tmpfs";
inline constexpr const char* kLayerNonRoot = "permissions: a non-root user";
inline constexpr const char* kLayerChromium = "HTML report in headless Chromium";

/// Record that the layer `layer` ran, and how (e.g. "unshare -Urm").
void layer_ran(const std::string& layer, const std::string& how);

/// Record that the layer `layer` could not run and `why`. Return true when a missing layer must
/// fail the test (CI is set, or FITSASDF_REQUIRE_LAYERS=1).
bool layer_skipped(const std::string& layer, const std::string& why);

/// Return the words that run a command as a user other than root: none when we are not root;
/// as root, `setpriv` to nobody (65534). Return nothing, and say `why` in `why`, when root
/// cannot drop to another user here (no setpriv, no CAP_SETUID).
std::optional<std::vector<std::string>> as_non_root(std::string& why);

}  // namespace fitsasdf::test

/// In a test case: record that `layer` could not run and why, then fail the test when layers
/// are required (CI, FITSASDF_REQUIRE_LAYERS=1), else warn and leave the test case.
#define FITSASDF_SKIP_LAYER(layer, why)                                             \
  do {                                                                              \
    const std::string fitsasdf_why_ = (why);                                        \
    if (::fitsasdf::test::layer_skipped((layer), fitsasdf_why_)) {                  \
      FAIL("test layer '" << (layer) << "' cannot run here (" << fitsasdf_why_      \
                          << "), and CI or FITSASDF_REQUIRE_LAYERS=1 requires it"); \
    }                                                                               \
    WARN("test layer '" << (layer) << "' skipped: " << fitsasdf_why_);              \
    return;                                                                         \
  } while (false)
