#!/usr/bin/env bash
# cli:batch-bounded-memory: `fitsasdf batch`'s peak memory does not grow with the number of
# inputs. Converts a --from list of 10,000 and one of 100,000 tiny FITS files (symbolic links to
# one file, each with its own name), then resumes the larger one over its report (every input
# skipped, the earlier lines joined back), and compares the peak RSS (GNU time's %M) of the runs.
# Usage: batch_memory_test.sh FITSASDF [MAX_GROWTH_KB]
set -euo pipefail
fitsasdf=$1
max_growth_kb=${2:-4096}
fail() { echo "cli:batch-bounded-memory: FAILED: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || fail "GNU time (/usr/bin/time) is missing: scripts/install-deps.sh test installs it"
work=$(mktemp -d "${TMPDIR:-/tmp}/fitsasdf-batch-memory-XXXXXX")
trap 'rm -rf "$work"' EXIT

# One FITS file: a primary HDU with an 8x8 16-bit image (a 2880-byte header, one data block).
{
  printf '%-80s' 'SIMPLE  =                    T' 'BITPIX  =                   16' \
    'NAXIS   =                    2' 'NAXIS1  =                    8' \
    'NAXIS2  =                    8' 'END'
  printf '%*s' $((2880 - 6 * 80)) ''
  head -c 128 /dev/urandom
  head -c $((2880 - 128)) /dev/zero
} >"$work/tiny.fits"
# The lists: links in folders of 1,000 named d000/f000000.fits ... (made by Python: a process
# per link would take longer than the batch).
make_inputs() {
  /usr/bin/python3 - "$work" "$1" <<'PY'
import os, sys
work, n = sys.argv[1], int(sys.argv[2])
with open(f"{work}/list{n}", "w") as listing:
    for i in range(n):
        folder = f"{work}/in{n}/d{i // 1000:03d}"
        if i % 1000 == 0:
            os.makedirs(folder)
        path = f"{folder}/f{i:06d}.fits"
        os.symlink(f"{work}/tiny.fits", path)
        listing.write(path + "\n")
PY
}
# peak_kb N LABEL: run the batch over list N; print the peak RSS in KiB.
peak_kb() {
  local n=$1 label=$2 status=0
  /usr/bin/time -f '%M' -o "$work/time-$label" "$fitsasdf" batch --from "$work/list$n" \
    -o "$work/out$n" -j 2 --report "$work/report$n.jsonl" -q --no-fsync || status=$?
  [ $status -eq 0 ] || fail "the $label run exited with $status"
  tail -n 1 "$work/time-$label"
}
summary_of() { tail -n 1 "$work/report$1.jsonl"; }

make_inputs 10000
make_inputs 100000
small=$(peak_kb 10000 small)
large=$(peak_kb 100000 large)
resumed=$(peak_kb 100000 resumed)
echo "peak RSS: 10,000 inputs $small KiB; 100,000 inputs $large KiB; 100,000 resumed $resumed KiB"

# Every input done once, and the resumed run reads as if run once (the ok lines kept).
for n in 10000 100000; do
  lines=$(grep -c '"input"' "$work/report$n.jsonl")
  [ "$lines" -eq "$n" ] || fail "report$n.jsonl has $lines input lines, not $n"
  summary_of "$n" | grep "\"inputs\":$n,\"ok\":$n,\"failed\":0,\"skipped\":0" >/dev/null ||
    fail "report$n.jsonl's summary: $(summary_of "$n")"
done
outputs=$(find "$work/out100000" -maxdepth 1 -name 'f*.asdf' | wc -l)
[ "$outputs" -eq 100000 ] || fail "$outputs outputs for 100,000 inputs"
leftovers=$(find "$work/out100000" -maxdepth 1 -name '.*' | wc -l)
[ "$leftovers" -eq 0 ] || fail "$leftovers hidden files (temporaries, work folders) left in OUTDIR"

growth=$((large - small))
growth_resumed=$((resumed - small))
[ "$growth" -le "$max_growth_kb" ] ||
  fail "10x the inputs grew the peak RSS by $growth KiB (more than $max_growth_kb KiB)"
[ "$growth_resumed" -le "$max_growth_kb" ] ||
  fail "resuming 10x the inputs grew the peak RSS by $growth_resumed KiB (more than $max_growth_kb KiB)"
echo "cli:batch-bounded-memory: ok (growth $growth KiB converting, $growth_resumed KiB resuming, bound $max_growth_kb KiB)"
