#!/usr/bin/env bash
# install:lean-build-deps: what README command (1) installs (scripts/install-deps.sh build),
# with everything its packages depend on (apt's view: Depends and Pre-Depends, recursively, no
# Recommends, as install-deps.sh installs), holds no Python, no test oracle, no Qt and no Poco,
# and every package of it is also in the test set.
# Usage: lean_deps.sh SOURCE_DIR
set -euo pipefail
src=$1
mapfile -t build < <(bash "$src/scripts/install-deps.sh" --list build)
mapfile -t test < <(bash "$src/scripts/install-deps.sh" --list test)
[ ${#build[@]} -gt 5 ] || { echo "lean_deps: the build list is empty or short: ${build[*]}" >&2; exit 1; }
# A set, not `printf | grep -q`: under pipefail grep's early exit can kill printf with SIGPIPE
# and fail the check on a package that is there.
declare -A in_test=()
for p in "${test[@]}"; do in_test[$p]=1; done
for p in "${build[@]}"; do
  [ -n "${in_test[$p]:-}" ] || { echo "lean_deps: $p is in build but not in test" >&2; exit 1; }
done
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances "${build[@]}" | grep -v '^ ' | sort -u)
count=$(wc -l <<<"$closure")
# apt-cache lists the packages themselves; a closure this small means it knew none of them.
[ "$count" -gt ${#build[@]} ] || { echo "lean_deps: apt-cache found no dependencies (apt-get update?)" >&2; exit 1; }
heavy=$(grep -E '^(python3|libpython3|libqt5|qt5|libpoco|catch2|clang|doxygen|fitsverify|json-schema-test-suite)' <<<"$closure" || true)
if [ -n "$heavy" ]; then
  echo "lean_deps: README command (1) would install:" $heavy >&2
  exit 1
fi
echo "lean_deps: ${#build[@]} packages asked for, $count with their dependencies; none of them Python, Qt, Poco or a test tool"
