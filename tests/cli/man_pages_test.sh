#!/usr/bin/env bash
# cli:man-pages: a man page for fitsasdf and for every command it lists, each rendering (man -l)
# with every long option of that command's --help, the summary of --help's command table in
# its NAME line, and the other pages under SEE ALSO.
# Usage: man_pages_test.sh FITSASDF MAN_DIR
set -euo pipefail
fitsasdf=$1 dir=$2
fail() { echo "cli:man-pages: FAILED: $*" >&2; exit 1; }
command -v man >/dev/null || fail "man is not installed (scripts/install-deps.sh test installs man-db)"
render() { LC_ALL=C MANWIDTH=200 MANPAGER=cat man -l "$1" 2>/dev/null | col -b; }
page=$(render "$dir/fitsasdf.1.gz")
grep -q "fitsasdf - convert astronomical data between FITS and ASDF" <<<"$page" ||
  fail "fitsasdf.1 has no NAME line"
count=0
while IFS=$'\t' read -r name summary; do
  file=$dir/fitsasdf-$name.1.gz
  [ -f "$file" ] || fail "no man page for $name"
  page=$(render "$file")
  grep -qF "fitsasdf-$name - $summary" <<<"$page" || fail "fitsasdf-$name.1: NAME is not '$summary'"
  # (in the page's source: a rendered line may break at the name's hyphen)
  zcat "$dir/fitsasdf.1.gz" | grep -F "fitsasdf\-$name(1)" >/dev/null || fail "fitsasdf.1 does not point at fitsasdf-$name(1)"
  for o in $("$fitsasdf" "$name" --help | grep -oE -- '--[A-Za-z0-9][A-Za-z0-9-]*' | sort -u); do
    grep -qF -- "$o" <<<"$page" || fail "fitsasdf-$name.1 does not mention $o"
  done
  count=$((count + 1))
done < <("$fitsasdf" --help | awk '/^Commands:/ { l = 1; next }
  l && /^  [a-z]/ { n = $1; sub(/^  [^ ]+ +/, ""); print n "\t" $0 } l && /^$/ { exit }')
[ $count -ge 10 ] || fail "only $count commands"
echo "cli:man-pages: ok ($count command pages and fitsasdf.1)"
