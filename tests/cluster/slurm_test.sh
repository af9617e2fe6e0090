#!/usr/bin/env bash
# cluster:slurm-array: the Slurm job-array script we ship (scripts/cluster/fits2asdf.sbatch),
# submitted as it is to a real one-node cluster (slurmctld, slurmd, munged on loopback, started
# here by scripts/cluster/local-slurm.sh and stopped at the end):
#   1. an archive of a few hundred FITS files in nested folders, a few of them broken, converted
#      by a 4-task array; the shards' reports merged: every input exactly once, each ok input's
#      output there and readable, the broken ones failed, each task's exit status 1 where its
#      shard holds a broken file and 0 elsewhere, the merge's 1;
#   2. an archive of 2400 files, so that a task runs for a few seconds; task 0 cancelled once it
#      has converted a few (scancel: SIGTERM, as at a time limit), so batch stops cleanly (exit
#      130, its report says "interrupted"), then the same array submitted again: the merged
#      report has every input exactly once, all ok, and no temporary is left.
# The arrays are waited for by polling squeue (sbatch --wait polls every few seconds and would
# double the time); the tasks' exit statuses come from scontrol (no accounting database).
# Skipped (exit 77) only where Slurm or munge is not installed or we are not root; recorded as a
# test layer either way (scripts/test-layers.sh), and a skip fails when CI or
# FITSASDF_REQUIRE_LAYERS=1 is set.
# Usage: slurm_test.sh BUILD_DIR SOURCE_DIR [FITSASDF]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fitsasdf=$(cd "$(dirname "${3:-$build/cli/fitsasdf}")" && pwd)/$(basename "${3:-fitsasdf}")
name=cluster:slurm-array
layer="Slurm job array on a real slurmctld/slurmd"
layers=$build/tests/layers.txt
PATH=$PATH:/usr/sbin:/sbin
export PATH

fail() { echo "$name: FAILED: $*" >&2; exit 1; }
skip() {
  mkdir -p "$(dirname "$layers")"
  printf '%s\tskipped\t%s\n' "$layer" "$1" >>"$layers"
  if [ -n "${CI:-}" ] || { [ -n "${FITSASDF_REQUIRE_LAYERS:-}" ] && [ "$FITSASDF_REQUIRE_LAYERS" != 0 ]; }; then
    fail "$1 (CI or FITSASDF_REQUIRE_LAYERS is set: this layer must run; scripts/install-deps.sh test installs slurm-wlm and munge)"
  fi
  echo "$name: skipped: $1 (scripts/install-deps.sh test installs slurm-wlm and munge)"
  exit 77
}
missing=()
for cmd in munged munge slurmctld slurmd sbatch srun scancel squeue scontrol sinfo; do
  command -v "$cmd" >/dev/null || missing+=("$cmd")
done
[ ${#missing[@]} -eq 0 ] || skip "not installed: ${missing[*]}"
[ "$(id -u)" -eq 0 ] || skip "not root (slurmd runs jobs as their users only as root)"
[ -x "$fitsasdf" ] || fail "no fitsasdf command at $fitsasdf"

start=$SECONDS
work=$build/tests/cluster-slurm
cluster=$src/scripts/cluster/local-slurm.sh
# A cluster an earlier run left (killed at its time limit) is stopped before its folder goes.
[ -d "$work/cluster" ] && bash "$cluster" stop "$work/cluster"
rm -rf "$work"
mkdir -p "$work"
script=$src/scripts/cluster/fits2asdf.sbatch
# shellcheck disable=SC2317
stop_cluster() {
  local status=$?
  bash "$cluster" stop "$work/cluster" || status=1
  [ $status -ne 0 ] && [ -d "$work/cluster/log" ] && echo "$name: the daemons' logs are in $work/cluster/log" >&2
  exit $status
}
trap stop_cluster EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
eval "$(bash "$cluster" start "$work/cluster")"
[ -f "${SLURM_CONF:-}" ] || fail "local-slurm.sh start printed no SLURM_CONF"
echo "$name: cluster up in $((SECONDS - start)) s"

# --- the archives --------------------------------------------------------------------------
# Run 1: 300 small FITS files (the sample, 56 KB) in nested folders, and four broken ones.
archive=$work/archive
for i in $(seq 0 299); do
  dir=$archive/night-$((i % 5))/field-$((i % 7))
  mkdir -p "$dir"
  cp "$src/samples/test0.fits" "$dir/exposure-$i.fits"
done
# Their names put them in shards 1 and 3 (the FNV-1a hash of the relative path, modulo 4), so
# that tasks 0 and 2 end with 0 and tasks 1 and 3 with 1.
broken=("$archive/night-0/truncated.fits" "$archive/night-0/not-fits.fits"
        "$archive/night-3/empty.fits" "$archive/night-4/field-6/cut.fits")
head -c 20000 "$src/samples/test0.fits" >"${broken[0]}"
echo "this is not a FITS file" >"${broken[1]}"
: >"${broken[2]}"
head -c 1000 "$src/samples/test0.fits" >"${broken[3]}"
# Run 2: enough files that a task at -j 1 runs for a few seconds (600 a shard, some 3-8 ms each),
# to be cancelled part way; hard links to the sample, so they take no room.
archive2=$work/archive2
/usr/bin/python3 - "$src/samples/test0.fits" "$archive2" <<'EOF'
import os, shutil, sys
sample, root = sys.argv[1], sys.argv[2]
for i in range(2400):
    folder = os.path.join(root, f"night-{i % 4}", f"field-{i % 10}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"exposure-{i}.fits")
    try:
        os.link(sample, path)
    except OSError:
        shutil.copyfile(sample, path)
EOF
echo "$name: archives written in $((SECONDS - start)) s"

# --- helpers -------------------------------------------------------------------------------
# submit RUN ARCHIVE OUT [ARRAY]: submit the shipped script, unchanged, as an array of 4 tasks
# of 1 CPU (the command line overrides its #SBATCH lines); print the job id.
submit() {
  local run=$1 archive=$2 out=$3 array=${4:-0-3}
  mkdir -p "$work/logs"
  sbatch --parsable --array="$array" --cpus-per-task=1 --mem=512M --time=10 \
    --chdir="$work" --output="$work/logs/$run-%a.out" \
    --export="ALL,ARCHIVE=$archive,OUT=$out,SHARDS=4,FITSASDF=$fitsasdf" "$script" ||
    fail "sbatch $script ($run)"
}
# wait_job JOB: wait (up to 150 s) until no task of the array is pending, running or completing.
wait_job() {
  for _ in $(seq 1 750); do
    [ -z "$(squeue -h -j "$1" -t pending,running,completing,configuring,suspended -o %i 2>/dev/null)" ] &&
      return 0
    sleep 0.2
  done
  squeue -j "$1" >&2 || true
  fail "the array $1 has not ended after 150 s"
}
# task_states JOB: print one line per task, "TASK STATE EXIT_STATUS SIGNAL", sorted by task.
task_states() {
  scontrol -o show job "$1" | awk '{
      task = ""; state = ""; code = ""
      for (i = 1; i <= NF; ++i) {
        split($i, kv, "=")
        if (kv[1] == "ArrayTaskId") task = kv[2]
        else if (kv[1] == "JobState") state = kv[2]
        else if (kv[1] == "ExitCode") code = kv[2]
      }
      split(code, c, ":")
      print task, state, c[1], c[2]
    }' | sort -n
}
# merge OUT: merge the shards' reports into OUT/report.jsonl; print the merge's exit status.
merge() {
  local status=0
  "$fitsasdf" batch --merge-reports "$1/report.jsonl" "$1"/reports/shard-*.jsonl \
    >"$1/merge.log" 2>&1 || status=$?
  echo $status
}
# check_report ARCHIVE OUT BROKEN...: every file of ARCHIVE has exactly one line in the merged
# report OUT/report.jsonl, the BROKEN ones failed, every other one ok with its output there,
# and nothing else was written to OUT.
check_report() {
  /usr/bin/python3 - "$@" <<'EOF' || fail "the merged report of $2 (above)"
import json, os, sys
archive, out, broken = sys.argv[1], sys.argv[2], set(sys.argv[3:])
inputs = set()
for folder, _, files in os.walk(archive):
    inputs.update(os.path.join(folder, f) for f in files)
lines, summary = [], None
with open(os.path.join(out, "report.jsonl")) as f:
    for text in f:
        record = json.loads(text)
        if record.get("summary"):
            summary = record
        else:
            lines.append(record)
problems = []
seen = {}
for record in lines:
    seen[record["input"]] = seen.get(record["input"], 0) + 1
problems += [f"{i}: {n} lines" for i, n in seen.items() if n != 1]
problems += [f"{i}: no line" for i in sorted(inputs - seen.keys())]
problems += [f"{i}: a line, but not an input" for i in sorted(seen.keys() - inputs)]
outputs = set()
for record in lines:
    want = "failed" if record["input"] in broken else "ok"
    if record["status"] != want:
        problems.append(f"{record['input']}: {record['status']}, not {want} ({record.get('error')})")
    if record["status"] == "ok":
        if not os.path.isfile(record["output"]):
            problems.append(f"{record['input']}: ok, but no output {record['output']}")
        outputs.add(os.path.realpath(record["output"]))
written = set()
for folder, _, files in os.walk(out):
    if os.path.realpath(folder).startswith(os.path.realpath(os.path.join(out, "reports"))):
        continue
    written.update(os.path.realpath(os.path.join(folder, f)) for f in files
                   if f not in ("report.jsonl", "merge.log"))
problems += [f"{w}: written, but no ok line names it" for w in sorted(written - outputs)]
if summary is None:
    problems.append("no summary line")
else:
    want = {"inputs": len(inputs), "ok": len(inputs) - len(broken), "failed": len(broken),
            "skipped": 0, "reports": 4, "incomplete_reports": []}
    for key, value in want.items():
        if summary.get(key) != value:
            problems.append(f"summary {key}: {summary.get(key)}, want {value}")
for p in problems[:20]:
    print(p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}
# shard_of INPUT REPORTS...: print the task whose shard report holds INPUT's line.
shard_of() {
  local input=$1 report
  shift
  for report in "$@"; do
    grep -qF "\"input\":\"$input\"" "$report" && { basename "$report" .jsonl | sed 's/^shard-//'; return 0; }
  done
  fail "no shard report names $input"
}

# --- run 1: the whole array ------------------------------------------------------------------
out=$work/out
job=$(submit run1 "$archive" "$out")
wait_job "$job"
echo "$name: run 1 (array $job) ended in $((SECONDS - start)) s"
states=$(task_states "$job")
[ "$(wc -l <<<"$states")" -eq 4 ] || fail "run 1: not 4 tasks: $states"
bad_shards=$(for b in "${broken[@]}"; do shard_of "$b" "$out"/reports/shard-*.jsonl; done | sort -u)
[ "$(tr '\n' ' ' <<<"$bad_shards")" = "1 3 " ] ||
  fail "run 1: the broken files are in shards $(tr '\n' ' ' <<<"$bad_shards")not 1 and 3 (has --shard's hash changed?)"
while read -r task state code signal; do
  want=0
  grep -qx "$task" <<<"$bad_shards" && want=1
  if [ "$code" != "$want" ] || [ "$signal" != 0 ]; then
    cat "$work/logs/run1-$task.out" >&2
    fail "run 1: task $task exited $code:$signal ($state), want $want"
  fi
  [ "$want" = 0 ] && [ "$state" != COMPLETED ] && fail "run 1: task $task is $state, not COMPLETED"
  tail -n 1 "$out/reports/shard-$task.jsonl" | grep '"summary":true.*"not_done":0' >/dev/null ||
    fail "run 1: shard $task's report does not end with a finished run's summary"
done <<<"$states"
status=$(merge "$out")
[ "$status" = 1 ] || { cat "$out/merge.log" >&2; fail "run 1: the merge exited $status, not 1 (broken inputs)"; }
check_report "$archive" "$out" "${broken[@]}"
# Spot checks: a few outputs read back and compared with their inputs.
for i in 0 151 299; do
  rel=night-$((i % 5))/field-$((i % 7))/exposure-$i
  "$fitsasdf" verify "$archive/$rel.fits" "$out/$rel.asdf" >/dev/null ||
    fail "run 1: fitsasdf verify $archive/$rel.fits $out/$rel.asdf"
done
echo "$name: run 1 ok: $(wc -l <<<"$states") tasks, exit statuses $(awk '{printf "%s ", $3}' <<<"$states")(broken files in shard(s) $(tr '\n' ' ' <<<"$bad_shards"| sed 's/ $//')), 304 inputs once each"

# --- run 2: a task cancelled part way, then the array submitted again --------------------------
out2=$work/out2
job=$(submit run2 "$archive2" "$out2")
# Cancel task 0 once its report shows a few converted files.
report0=$out2/reports/shard-0.jsonl
for _ in $(seq 1 3000); do
  [ -f "$report0" ] && [ "$(wc -l <"$report0")" -ge 5 ] && break
  sleep 0.02
done
if ! [ -f "$report0" ] || [ "$(wc -l <"$report0")" -lt 5 ]; then
  fail "run 2: task 0 wrote no report lines in 60 s"
fi
scancel "${job}_0" || fail "scancel ${job}_0"
wait_job "$job"
echo "$name: run 2 (array $job, task 0 cancelled) ended in $((SECONDS - start)) s"
state0=$(task_states "$job" | awk '$1 == 0')
grep -q CANCELLED <<<"$state0" || fail "run 2: task 0 is not CANCELLED: $state0"
summary=$(tail -n 1 "$report0")
grep -q '"stopped":"interrupted"' <<<"$summary" ||
  { cat "$work/logs/run2-0.out" >&2; fail "run 2: task 0's report does not end with an interrupted summary: $summary"; }
not_done=$(sed -n 's/.*"not_done":\([0-9]*\).*/\1/p' <<<"$summary")
[ "${not_done:-0}" -gt 0 ] || fail "run 2: task 0 finished before it was cancelled: $summary"
grep -q 'interrupted (SIGTERM)' "$work/logs/run2-0.out" ||
  { cat "$work/logs/run2-0.out" >&2; fail "run 2: batch did not say it was interrupted by SIGTERM"; }
grep -q 'task 0: Exited with exit code 130' "$work/logs/run2-0.out" ||
  { cat "$work/logs/run2-0.out" >&2; fail "run 2: srun did not see batch exit with 130"; }
echo "$name: run 2: task 0 stopped cleanly by SIGTERM with $not_done inputs not done (exit 130):"
grep -E 'interrupted|srun|slurmstepd' "$work/logs/run2-0.out" | sed 's/^/    /'


job=$(submit run2-resumed "$archive2" "$out2")
wait_job "$job"
states=$(task_states "$job")
awk '$2 != "COMPLETED" || $3 != 0' <<<"$states" | grep . >/dev/null &&
  { cat "$work"/logs/run2-resumed-*.out >&2; fail "run 2 resumed: not every task completed with 0: $states"; }
status=$(merge "$out2")
[ "$status" = 0 ] || { cat "$out2/merge.log" >&2; fail "run 2 resumed: the merge exited $status, not 0"; }
check_report "$archive2" "$out2"
temporaries=$(find "$out2" -name '.*.tmp-*')
[ -z "$temporaries" ] || fail "run 2 resumed: temporaries left: $temporaries"
echo "$name: run 2 resumed (array $job): 2400 inputs once each, all ok, no temporary left"

trap - EXIT
bash "$cluster" stop "$work/cluster" || fail "local-slurm.sh stop"
printf '%s\tran\t%s\n' "$layer" "slurm $(sbatch --version | awk '{print $2}'), 1 node, $(nproc) CPUs" >>"$layers"
rm -rf "$work"
echo "$name: ok ($((SECONDS - start)) s)"
