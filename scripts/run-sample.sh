#!/usr/bin/env bash
# README command (1): set up this machine (Debian packages), build, and run the main job on a
# bundled sample.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" >/dev/null
build=${FITSASDF_BUILD_DIR:-$root/build}
"$build/cli/fitsasdf" info --blocks "$root/samples/compressed.asdf"
