#!/usr/bin/env bash
# README command (2): set up this machine (Debian packages), build, and run the whole test suite,
# including the interop tests against the reference tools (python3-asdf, astropy). Then build
# everything again with AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer in
# build-asan/ and run the whole suite once more there (scripts/sanitize.sh). Last, build the
# libFuzzer targets with clang in build-fuzz/ and fuzz each for about a minute, a bounded run
# with a fixed seed (scripts/fuzz.sh --smoke).
# A developer can skip the last two stages locally with FITSASDF_SKIP_SANITIZERS=1; CI (CI set)
# always runs them. Extra arguments go to both ctest runs.
# At the end, pass or fail, it prints which environment-dependent test layers ran and which
# could not, and why (scripts/test-layers.sh: a real full disk, a non-root user, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh" test

# Stage 1: the normal build and the whole suite.
start=$SECONDS
# Everything (a build folder left by README command (1) has these turned off).
bash "$root/scripts/build.sh" -DFITSASDF_BUILD_TESTS=ON -DFITSASDF_BUILD_PYTHON=ON \
  -DFITSASDF_BUILD_SAMPLES=ON
build=${FITSASDF_BUILD_DIR:-$root/build}
layer_builds=("$build")
trap 'bash "$root/scripts/test-layers.sh" "${layer_builds[@]}"' EXIT
rm -f "$build/tests/layers.txt"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
echo "test.sh: normal build and tests passed in $((SECONDS - start)) s"

# Stages 2 and 3: the same suite under ASan + UBSan + leak checking (all but the install:* tests,
# whose separately built program would need the sanitizer runtime too), then
# smoke fuzzing of every fuzz target (its known reproducers replayed first).
if [ -n "${FITSASDF_SKIP_SANITIZERS:-}" ] && [ "${FITSASDF_SKIP_SANITIZERS}" != 0 ] && [ -z "${CI:-}" ]; then
  echo "test.sh: sanitizer and fuzzing stages SKIPPED (FITSASDF_SKIP_SANITIZERS is set; CI always runs them)"
  exit 0
fi
start=$SECONDS
layer_builds+=("${FITSASDF_ASAN_BUILD_DIR:-$root/build-asan}")
FITSASDF_NO_LAYER_TABLE=1 bash "$root/scripts/sanitize.sh" "$@"
echo "test.sh: sanitizer build and tests (ASan+UBSan+LSan, every test but the install:* tests) passed in $((SECONDS - start)) s"
start=$SECONDS
FITSASDF_CLI="$build/cli/fitsasdf" bash "$root/scripts/fuzz.sh" --smoke
echo "test.sh: smoke fuzzing (a fixed run of about a minute per target) passed in $((SECONDS - start)) s"
