#!/usr/bin/env bash
# The benchmark, in one command: set up this machine (Debian packages), build fitsasdf (Release,
# into build-bench/ or $FITSASDF_BENCH_BUILD_DIR), write the inputs into bench/out/, run cp,
# fitscopy, fitsasdf and python side by side, print the table and write bench/RESULTS.md.
#
#   bash bench/run.sh            full: 1 GiB float32 image, 3 alternating runs per contestant
#   bash bench/run.sh --quick    128 MiB float32 image, 1 run per contestant
#   bash bench/run.sh --jobs table5m    only the named jobs (slugs or input names, comma-separated);
#                                       their table goes to bench/out/RESULTS.selected.md
#   bash bench/run.sh --jobs curves     only the cost curves (curve_hdus, curve_cards,
#                                       curve_arrays, curve_rows: one axis)
#   options: --runs N, --warm (keep the page cache), FITSASDF_BIN=path (skip the build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FITSASDF_BENCH_BUILD_DIR:-$root/build-bench}
build_type=Release

original="$*"
args=()
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) args+=(--quick); runs=1 ;;
    --warm) args+=(--warm) ;;
    --runs) runs=$2; shift ;;
    --runs=*) runs=${1#--runs=} ;;
    --jobs) args+=(--jobs "$2"); shift ;;
    --jobs=*) args+=(--jobs "${1#--jobs=}") ;;
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown option $1 (try --help)" >&2; exit 4 ;;
  esac
  shift
done
command_line="bash bench/run.sh${original:+ $original}"

bash "$root/scripts/install-deps.sh" test

# The bench's reader (bench/read_arrays.cc) is always built here; fitsasdf too unless given.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=$build_type \
    -DFITSASDF_BUILD_TESTS=OFF -DFITSASDF_BUILD_BENCH=ON >/dev/null
elif ! grep -q '^FITSASDF_BUILD_BENCH:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -DFITSASDF_BUILD_BENCH=ON >/dev/null
fi
targets=(fitsasdf_bench_read fitsasdf_bench_yaml_floor fitsasdf_python)
[ -z "${FITSASDF_BIN:-}" ] && targets+=(fitsasdf)
echo "bench/run.sh: building ${targets[*]} in $build"
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)" >/dev/null
if [ -n "${FITSASDF_BIN:-}" ]; then
  fitsasdf=$FITSASDF_BIN
  build_type="prebuilt ($FITSASDF_BIN)"
else
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
  fitsasdf=$build/cli/fitsasdf
fi

exec /usr/bin/python3 "$root/bench/bench.py" --fitsasdf "$fitsasdf" --build-dir "$build" \
  --reader "$build/bench/fitsasdf_bench_read" --python-path "$build/python" \
  --build-type "$build_type" --runs "$runs" --command "$command_line" "${args[@]}"
