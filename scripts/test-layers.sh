#!/usr/bin/env bash
# Print which environment-dependent test layers ran and which could not, and why: a real full
# disk (a tmpfs mounted in a private mount namespace: unshare -Urm, or unshare -m as root), a
# non-root user (as root, setpriv to nobody), the injected I/O faults (an LD_PRELOAD shim, in
# every environment). The tests record each layer in BUILD/tests/layers.txt (tests/support/
# layers.h); a missing layer does not fail a run unless CI or FITSASDF_REQUIRE_LAYERS=1 is set.
# scripts/test.sh and scripts/sanitize.sh call this at the end.
#
# Usage: bash scripts/test-layers.sh [BUILD_DIR...]   (default: build/ and build-asan/ where
# they hold a record). Always exits 0: it reports, the tests decide.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  dirs=("${FITSASDF_BUILD_DIR:-$root/build}" "${FITSASDF_ASAN_BUILD_DIR:-$root/build-asan}")
fi

echo "Environment-dependent test layers:"
shown=0
for dir in "${dirs[@]}"; do
  file=$dir/tests/layers.txt
  if [ ! -s "$file" ]; then
    [ $# -gt 0 ] && echo "  $dir: no layer recorded (were the cli_tests run there?)"
    continue
  fi
  shown=1
  echo "  in $dir:"
  # One row per layer, its latest record: test.sh and sanitize.sh empty the file before their
  # ctest run, so that is this run's (a ctest run by hand adds to what is there).
  awk -F'\t' '
    !($1 in seen) { seen[$1] = 1; order[++n] = $1 }
    { status[$1] = $2; detail[$1] = $3 }
    END {
      for (i = 1; i <= n; ++i) {
        l = order[i]
        if (status[l] == "skipped") { printf "    %-40s SKIPPED  %s\n", l, detail[l]; skips = 1 }
        else printf "    %-40s ran      %s\n", l, detail[l]
      }
      if (skips) print "    (a skipped layer is not a failure here; FITSASDF_REQUIRE_LAYERS=1 or CI makes it one)"
    }' "$file"
done
[ $shown -eq 0 ] && echo "  none recorded (run the tests first: bash scripts/test.sh)"
exit 0
