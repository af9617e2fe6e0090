#!/usr/bin/env bash
# README command (1): set up this machine (Debian packages), build, and run the main job on a
# bundled sample: convert samples/test0.fits to ASDF and show what the ASDF file holds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh" build
# Only the command and its libraries: no tests, no Python module, no example programs.
bash "$root/scripts/build.sh" -DFITSASDF_BUILD_TESTS=OFF -DFITSASDF_BUILD_PYTHON=OFF \
  -DFITSASDF_BUILD_SAMPLES=OFF >/dev/null
build=${FITSASDF_BUILD_DIR:-$root/build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/cli/fitsasdf" convert "$root/samples/test0.fits" -o "$out/test0.asdf"
"$build/cli/fitsasdf" info --blocks --max-lines 40 "$out/test0.asdf"
