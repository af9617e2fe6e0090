#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan + UBSan) in build-fuzz/ and run them.
#
#   bash scripts/fuzz.sh [--smoke [--seed S]] [--seconds N] [TARGET...]
#
# TARGET: asdf_file yaml_tree block_index fits_to_asdf asdf_to_fits (default: all, one after
# another). --seconds N fuzzes each for N seconds, from build-fuzz/work/<target>/ (what earlier
# runs learnt, kept and reused) and the seeds, with a random seed. --smoke (CI) is a bounded run
# of about a minute a target: libFuzzer's seed is fixed (1, or S), it starts from the seeds
# alone (an empty folder of its own) and stops after a set number of inputs (smoke_runs below).
# Two checkouts do not retrace each other exactly (seed files of equal size are taken in folder
# order, and compared strings hold the scratch folder's pid), so CI can still meet a fault the
# committer's run missed; before committing a change to a converter, run a few other seeds
# (--smoke --seed 2, 3, ...) to shake out what a fresh start finds. Finding new inputs is the
# long runs' job. Before fuzzing, every reproducer in tests/fuzz/regressions/<target>/ is
# replayed. Seeds are made from ../shared/corpus (or $FITSASDF_CORPUS_DIR), tests/data and
# samples into build-fuzz/corpus/<target>/; crashes, leaks and timeouts go to
# build-fuzz/artifacts/<target>/. Exits non-zero when any target fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FITSASDF_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=600
smoke=0
smoke_seed=1
all_targets=(asdf_file yaml_tree block_index fits_to_asdf asdf_to_fits)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1; seconds=120 ;;
    --seconds) seconds=$2; shift ;;
    --seed) smoke_seed=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 4 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t" >&2; exit 4; }
done

# Inputs a --smoke run tries per target: about a minute each on one core of the 2-core CI
# machine (replay of the seeds included); --seconds' cap of 120 s bounds a slower machine.
smoke_runs() {
  case "$1" in
    asdf_file) echo 30000 ;;
    yaml_tree) echo 60000 ;;
    block_index) echo 900000 ;;
    fits_to_asdf) echo 30000 ;;
    asdf_to_fits) echo 20000 ;;
  esac
}

max_len() {
  case "$1" in
    block_index) echo 4096 ;;
    fits_to_asdf) echo 131072 ;;
    *) echo 65536 ;;
  esac
}

# Configure (once) and build the targets.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  CXX=clang++ CC=clang cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFITSASDF_FUZZ=ON -DFITSASDF_BUILD_TESTS=OFF \
    -DFITSASDF_BUILD_PYTHON=OFF >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("${t}_fuzzer"); done
nice -n 19 cmake --build "$build" -j2 --target "${build_targets[@]}"

# Seeds (idempotent: files are named by their hash).
sources=("$root/tests/data" "$root/samples")
corpus_dir=${FITSASDF_CORPUS_DIR:-$root/../shared/corpus}
[ -d "$corpus_dir" ] && sources+=("$corpus_dir")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
# The regular build's CLI (build/, or $FITSASDF_CLI) converts the seeds both ways for deeper ones.
cli=${FITSASDF_CLI:-$root/build/cli/fitsasdf}
cli_args=()
[ -x "$cli" ] && cli_args=(--cli "$cli")
if [ ! -f "$build/corpus/.done" ]; then
  nice -n 19 "$py" "$root/tests/fuzz/make_corpus.py" "$build/corpus" "${cli_args[@]}" "${sources[@]}"
  touch "$build/corpus/.done"
fi

# malloc/calloc of an impossible size return NULL, as they do outside ASan (CFITSIO checks for
# that); C++ new of such a size, and any allocation above -malloc_limit_mb, still fail the run.
# malloc_context_size=0: no stack is recorded at each malloc and free, which makes the runs
# about 1.35x faster (asdf_file, 45 s each way). Every error is still caught; a report then
# lacks the allocation and free stacks, so replay its artifact without it for those:
#   ASAN_OPTIONS=allocator_may_return_null=1 build-fuzz/tests/fuzz/TARGET_fuzzer ARTIFACT
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:malloc_context_size=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
status=0
summary=()
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/${t}_fuzzer"
  mkdir -p "$build/work/$t" "$build/artifacts/$t" "$build/corpus/$t"
  opts=(-max_len="$(max_len "$t")" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10
        -artifact_prefix="$build/artifacts/$t/")
  dict="$root/tests/fuzz/$t.dict"
  [ -f "$dict" ] && opts+=(-dict="$dict")
  # Replay the known reproducers: each must now run clean.
  regressions=("$root/tests/fuzz/regressions/$t"/*)
  if [ -e "${regressions[0]}" ]; then
    if ! nice -n 19 "$bin" "${opts[@]}" "${regressions[@]}" >"$build/artifacts/$t/replay.log" 2>&1; then
      echo "fuzz.sh: $t: a regression reproducer fails again; see $build/artifacts/$t/replay.log" >&2
      status=1
      summary+=("$t: REGRESSION")
      continue
    fi
  fi
  log="$build/artifacts/$t/run.log"
  start=$(date +%s)
  rc=0
  if [ $smoke -eq 1 ]; then
    rm -rf "$build/smoke/$t"
    mkdir -p "$build/smoke/$t"
    run=(-seed="$smoke_seed" -runs="$(smoke_runs "$t")" "$build/smoke/$t")
  else
    run=("$build/work/$t")
  fi
  nice -n 19 "$bin" "${opts[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    "${run[@]}" "$build/corpus/$t" >"$log" 2>&1 || rc=$?
  elapsed=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=${execs:-0}
  line="$t: $execs executions in ${elapsed} s ($(( execs / (elapsed > 0 ? elapsed : 1) )) exec/s)"
  if [ $rc -ne 0 ]; then
    status=1
    line+=", FAILED (exit $rc): $(grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" || true)"
    echo "fuzz.sh: $t failed; log $log, artifact in $build/artifacts/$t/" >&2
    tail -40 "$log" >&2
  fi
  summary+=("$line")
  # Scratch folders of target processes that died (a crash skips their clean-up).
  for d in /dev/shm/fitsasdf-fuzz-*; do
    [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null && rm -rf "$d"
  done
done
printf '%s\n' "${summary[@]}"
exit $status
