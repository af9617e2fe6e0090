#!/usr/bin/env bash
# Make fitsasdf's man pages from the program's own help texts with help2man, so that a page
# never says other than `--help` does: fitsasdf.1 from `fitsasdf --help`, and
# fitsasdf-COMMAND.1 from `fitsasdf COMMAND --help` for every command `fitsasdf --help` lists.
# The pages are written gzipped (gzip -9n, as Debian installs them): `man -l OUTDIR/X.1.gz`.
# Usage: make_man_pages.sh FITSASDF OUTDIR VERSION
set -euo pipefail
program=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
version=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/fitsasdf*.1 "$out"/fitsasdf*.1.gz

# The command table of `fitsasdf --help`: "  NAME   SUMMARY".
"$program" --help | awk '/^Commands:/ { listing = 1; next }
  listing && /^  [a-z]/ { name = $1; sub(/^  [^ ]+ +/, ""); print name "\t" $0 }
  listing && /^$/ { exit }' >"$work/commands"
[ -s "$work/commands" ] || { echo "make_man_pages: no command list in $program --help" >&2; exit 1; }

# (roff source: \- is a hyphen that stays one, in a name that may not be broken there)
see_also="fitsasdf(1)"
while IFS=$'\t' read -r name _; do see_also+=", fitsasdf\\-$name(1)"; done <"$work/commands"
printf '[SEE ALSO]\n%s\n' "$see_also" >"$work/see-also"

common=(--no-info --no-discard-stderr --version-string="$version" --include="$work/see-also")
help2man "${common[@]}" --name="convert astronomical data between FITS and ASDF" \
  --output="$work/fitsasdf.1" "$program"
while IFS=$'\t' read -r name summary; do
  # help2man names a page after the program it runs: a wrapper named fitsasdf-NAME.
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$program" "$name" >"$work/fitsasdf-$name"
  chmod +x "$work/fitsasdf-$name"
  help2man "${common[@]}" --name="$summary" --output="$work/fitsasdf-$name.1" "$work/fitsasdf-$name"
done <"$work/commands"
gzip -9n "$work"/*.1
mv "$work"/*.1.gz "$out/"
