#!/usr/bin/env bash
# The install:consumer test: install the build in BUILD to a scratch prefix, configure and build
# tests/install (find_package(fitsasdf)) against it, and convert SAMPLE with the result.
#   run.sh BUILD SAMPLE.fits
set -euo pipefail
build=$1
sample=$2
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fitsasdf-install.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here" -B "$scratch/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer" "$sample" "$scratch/out.asdf"
