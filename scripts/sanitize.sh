#!/usr/bin/env bash
# Build fitsasdf with AddressSanitizer + UndefinedBehaviorSanitizer (GCC, every target: the
# libraries, the CLI and the tests) into build-asan/ (or $FITSASDF_ASAN_BUILD_DIR) and run the
# whole ctest suite there, with leak checking. Any finding fails its test. Extra arguments go to
# ctest. Assumes the dependencies are installed (scripts/install-deps.sh).
#
# Only our binaries are instrumented: the interop tests' /usr/bin/python3 inherits the *_OPTIONS
# variables below but never loads the sanitizer runtime (nothing is put in LD_PRELOAD). The one
# exception is the fault-injection shim (tests/support/fault_shim.c, not instrumented): the
# tests preload it into the CLI after the ASan runtime, which must come first.
# At the end, pass or fail, it prints which environment-dependent test layers ran
# (scripts/test-layers.sh), unless FITSASDF_NO_LAYER_TABLE is set (scripts/test.sh prints one
# table for both builds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FITSASDF_ASAN_BUILD_DIR:-$root/build-asan}
supp=$root/tests/sanitizers

# Runtime options, also used while building (ctest's test discovery runs the test executables).
# abort_on_error gives a core-dump-style SIGABRT that ctest reports as a failure; LeakSanitizer
# runs at exit (detect_leaks=1) with the suppressions for the C libraries' own leaks.
# allocator_may_return_null=1: a huge malloc returns NULL (and new throws std::bad_alloc) as
# without ASan, instead of aborting; CFITSIO's memory driver relies on that for forged sizes.
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:detect_invalid_pointer_pairs=0:print_summary=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:suppressions=$supp/ubsan.supp"

# ASan's red zones make every stack frame several times larger: the test that opens a
# 10,000-level tree with a raised depth limit needs more than the usual 8 MB of stack (the default
# limit of 1,000 levels fits easily). Give the tests 64 MB.
ulimit -S -s 65536 2>/dev/null || echo "sanitize.sh: cannot raise the stack limit to 64 MB" >&2

# -O1 keeps the build and the tests fast enough for CI while giving exact stack traces. The
# Python module is left out: loaded into /usr/bin/python3 it would need the ASan runtime
# preloaded into the interpreter; its tests run in the normal build.
FITSASDF_BUILD_DIR=$build bash "$root/scripts/build.sh" \
  -DFITSASDF_SANITIZE="address;undefined" -DFITSASDF_BUILD_PYTHON=OFF \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG"
if [ -z "${FITSASDF_NO_LAYER_TABLE:-}" ]; then
  trap 'bash "$root/scripts/test-layers.sh" "$build"' EXIT
fi
rm -f "$build/tests/layers.txt"
cd "$build"
ctest --output-on-failure -j 2 "$@"
