#!/usr/bin/env bash
# Configure and build fitsasdf into build/ (or $FITSASDF_BUILD_DIR). Warnings are errors when
# CI is set. Extra arguments are passed to the cmake configure step (scripts/sanitize.sh uses
# them). Assumes the dependencies are installed (scripts/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FITSASDF_BUILD_DIR:-$root/build}
werror=OFF
[ -n "${CI:-}" ] && werror=ON
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# Reuse an existing build folder only when it was made with the same generator.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=${generator[1]:-Unix Makefiles}" "$build/CMakeCache.txt"; then
  rm -rf "$build"
fi
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFITSASDF_WERROR=$werror "$@"
cmake --build "$build" -j "$(nproc)"
