#!/usr/bin/env bash
# README command (2): set up this machine (Debian packages), build, and run the whole test suite,
# including the interop tests against the reference tools (python3-asdf, astropy).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build=${FITSASDF_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
