#!/usr/bin/env bash
# cli:tile-bounded-memory: a tile-compressed image converts to ASDF and back in memory that does
# not grow with the image. Two int16 images with BZERO 32768 (64 MiB and 256 MiB, noise on a
# ramp) are compressed by fpack (RICE_1, a tile a row) and converted on one thread and on two,
# then converted back to FITS on one thread and on two; the peak RSS (GNU time's %M) of each run
# stays under the bound and does not grow with the image, the outputs of one and two threads are
# the same bytes, `fitsasdf verify` finds the ASDF file holds the FITS file's pixels, and the
# FITS file made back is fpack's file byte for byte.
# Usage: tile_memory_test.sh FITSASDF [MAX_RSS_KB] [MAX_GROWTH_KB]
set -euo pipefail
fitsasdf=$1
max_rss_kb=${2:-65536}
max_growth_kb=${3:-8192}
fail() { echo "cli:tile-bounded-memory: FAILED: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || fail "GNU time (/usr/bin/time) is missing: scripts/install-deps.sh test installs it"
command -v fpack >/dev/null || fail "fpack is missing: scripts/install-deps.sh test installs libcfitsio-bin"
work=$(mktemp -d "${TMPDIR:-/tmp}/fitsasdf-tile-memory-XXXXXX")
trap 'rm -rf "$work"' EXIT

# image ROWS NAME: a 8192-wide int16 image of ROWS rows with BZERO 32768, written by numpy.
image() {
  /usr/bin/python3 - "$1" "$work/$2.fits" <<'PY'
import sys
import numpy as np
rows, path = int(sys.argv[1]), sys.argv[2]
cards = ["SIMPLE  =                    T", "BITPIX  =                   16",
         "NAXIS   =                    2", "NAXIS1  =                 8192",
         f"NAXIS2  = {rows:20d}", "BZERO   =                32768", "END"]
header = "".join(c.ljust(80) for c in cards).ljust(2880).encode()
rng = np.random.default_rng(rows)
with open(path, "wb") as out:
    out.write(header)
    for start in range(0, rows, 512):
        n = min(512, rows - start)
        ramp = (np.arange(8192)[None, :] + np.arange(start, start + n)[:, None]).astype(np.int64)
        values = ramp * 3 % 40000 + rng.integers(0, 64, size=(n, 8192))
        out.write((values - 32768).astype(">i2").tobytes())
    out.write(b"\0" * (-out.tell() % 2880))
PY
  fpack -r -O "$work/$2.fits.fz" "$work/$2.fits"
  rm "$work/$2.fits"
}

# peak_kb IN OUT THREADS: convert IN to OUT (files of the work folder) on THREADS threads; print
# the peak RSS in KiB.
peak_kb() {
  local status=0
  /usr/bin/time -f '%M' -o "$work/$2.time" "$fitsasdf" convert "$work/$1" -o "$work/$2" \
    --threads "$3" -q --no-fsync || status=$?
  [ $status -eq 0 ] || fail "converting $1 to $2 on $3 threads exited with $status"
  tail -n 1 "$work/$2.time"
}

image 2048 small
image 8192 large
results=""
for name in small large; do
  for threads in 1 2; do
    kb=$(peak_kb "$name.fits.fz" "$name-$threads.asdf" "$threads")
    back_kb=$(peak_kb "$name-$threads.asdf" "$name-$threads-back.fits" "$threads")
    results+=" $name/$threads: $kb KiB, back $back_kb KiB;"
    [ "$kb" -le "$max_rss_kb" ] ||
      fail "converting $name on $threads threads peaked at $kb KiB (bound $max_rss_kb KiB)"
    [ "$back_kb" -le "$max_rss_kb" ] ||
      fail "converting $name back on $threads threads peaked at $back_kb KiB (bound $max_rss_kb KiB)"
    eval "rss_${name}_${threads}=$kb back_${name}_${threads}=$back_kb"
    cmp -s "$work/$name.fits.fz" "$work/$name-$threads-back.fits" ||
      fail "the $name image made back on $threads threads is not fpack's file"
  done
  cmp -s "$work/$name-1.asdf" "$work/$name-2.asdf" ||
    fail "the $name image's outputs of one and two threads differ"
  "$fitsasdf" verify "$work/$name.fits.fz" "$work/$name-2.asdf" >"$work/verify-$name" 2>&1 ||
    fail "fitsasdf verify: $(cat "$work/verify-$name")"
done
echo "peak RSS:$results"
for way in rss back; do
  for threads in 1 2; do
    small_kb=$(eval echo "\$${way}_small_$threads")
    large_kb=$(eval echo "\$${way}_large_$threads")
    [ $((large_kb - small_kb)) -le "$max_growth_kb" ] ||
      fail "4x the image grew the peak RSS ($way) on $threads threads by $((large_kb - small_kb)) KiB"
  done
done
echo "cli:tile-bounded-memory: ok (bound $max_rss_kb KiB, growth at most $max_growth_kb KiB)"
