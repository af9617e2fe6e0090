#!/usr/bin/env bash
# cli:tree-to-fits-bounded-memory: ASDF -> FITS of a tree without a fits list (images as IMAGE
# extensions, the tree in an ASDF extension) in memory that does not grow with its arrays. Python
# asdf writes two trees whose arrays differ 4x in size (a little-endian float32 image, a
# big-endian int16 image, a uint16 image, a small table), each uncompressed and with zlib blocks;
# each converts to FITS, the peak RSS (GNU time's %M) stays under the bound and does not grow
# with the arrays, and astropy reads every image back equal to what python asdf reads.
# Usage: tree_memory_test.sh FITSASDF [MAX_RSS_KB] [MAX_GROWTH_KB]
set -euo pipefail
fitsasdf=$1
max_rss_kb=${2:-65536}
max_growth_kb=${3:-8192}
fail() { echo "cli:tree-to-fits-bounded-memory: FAILED: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || fail "GNU time (/usr/bin/time) is missing: scripts/install-deps.sh test installs it"
work=$(mktemp -d "${TMPDIR:-/tmp}/fitsasdf-tree-memory-XXXXXX")
trap 'rm -rf "$work"' EXIT

# tree ROWS NAME [COMPRESSION]: a tree whose images have ROWS rows of 4096, written by python asdf.
tree() {
  /usr/bin/python3 - "$1" "$work/$2.asdf" "${3:-}" <<'PY'
import sys
import asdf
import numpy as np
from astropy.table import Table
rows, path, compression = int(sys.argv[1]), sys.argv[2], sys.argv[3] or None
ramp = np.arange(rows * 4096, dtype=np.int64).reshape(rows, 4096)
tree = {
    "sci": (ramp % 9973).astype("<f4") / 7,
    "dq": (ramp % 251).astype(">i2"),
    "counts": (ramp % 60000).astype("<u2"),
    "meta": {"exptime": 10.5, "object": "ramp"},
    "catalog": Table({"id": np.arange(100), "flux": np.linspace(0, 1, 100)}),
}
asdf.AsdfFile(tree).write_to(path, all_array_compression=compression)
PY
}

# peak_kb NAME: convert NAME.asdf to NAME.fits; print the peak RSS in KiB.
peak_kb() {
  local status=0
  /usr/bin/time -f '%M' -o "$work/$1.time" "$fitsasdf" convert "$work/$1.asdf" \
    -o "$work/$1.fits" -q --no-fsync || status=$?
  [ $status -eq 0 ] || fail "converting $1.asdf to FITS exited with $status"
  tail -n 1 "$work/$1.time"
}

# same_images NAME: astropy's images of NAME.fits are python asdf's arrays of NAME.asdf.
same_images() {
  /usr/bin/python3 - "$work/$1.asdf" "$work/$1.fits" <<'PY' || fail "the images of $1.fits differ"
import sys
import asdf
import numpy as np
from astropy.io import fits
with asdf.open(sys.argv[1]) as af, fits.open(sys.argv[2]) as hdul:
    for key in ("sci", "dq", "counts"):
        ours, theirs = hdul[key.upper()].data, np.asarray(af.tree[key])
        assert ours.dtype == theirs.dtype.newbyteorder(">") or ours.dtype == theirs.dtype, key
        assert np.array_equal(ours, theirs), key
PY
}

results=""
for compression in none zlib; do
  suffix=${compression/none/}
  tree 1024 "small$suffix" "${compression/none/}"
  tree 4096 "large$suffix" "${compression/none/}"
  for size in small large; do
    name=$size$suffix
    kb=$(peak_kb "$name")
    results+=" $name: $kb KiB;"
    [ "$kb" -le "$max_rss_kb" ] || fail "converting $name peaked at $kb KiB (bound $max_rss_kb KiB)"
    same_images "$name"
    eval "rss_$size=$kb"
  done
  [ $((rss_large - rss_small)) -le "$max_growth_kb" ] ||
    fail "4x the arrays ($compression) grew the peak RSS by $((rss_large - rss_small)) KiB"
  rm -f "$work"/*.asdf "$work"/*.fits
done
echo "peak RSS:$results"
echo "cli:tree-to-fits-bounded-memory: ok (bound $max_rss_kb KiB, growth at most $max_growth_kb KiB)"
