#!/usr/bin/env bash
# Generate the API reference (HTML) from the public headers of asdfcore and converters with
# doxygen (docs/Doxyfile). A public declaration without a `///` comment, or any other doxygen
# warning, fails the run.
#   docs.sh [OUT]   OUT: the output folder (default: build/docs); the HTML is in OUT/html.
# The generated asdfcore/version.h is documented too: it is taken from $FITSASDF_BUILD_DIR (or
# build/) when configured there, and otherwise made here from its template.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FITSASDF_BUILD_DIR:-$root/build}
out=${1:-$build/docs}
command -v doxygen >/dev/null || { echo "docs.sh: doxygen not found (Debian: apt-get install doxygen)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
generated="$build/asdfcore/include"
if [ ! -f "$generated/asdfcore/version.h" ]; then
  generated="$out/generated"
  mkdir -p "$generated/asdfcore"
  version=$(sed -n 's/^project(fitsasdf VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
  sed "s/@PROJECT_VERSION@/$version/" "$root/asdfcore/include/asdfcore/version.h.in" \
    >"$generated/asdfcore/version.h"
fi
rm -rf "$out/html"
cd "$root"
# Settings given after the Doxyfile's win; the generated header joins the input.
{
  cat docs/Doxyfile
  echo "OUTPUT_DIRECTORY = \"$out\""
  echo "INPUT += \"$generated/asdfcore/version.h\""
  echo "STRIP_FROM_PATH += \"$generated\""
  echo "STRIP_FROM_INC_PATH += \"$generated\""
} | doxygen -
echo "docs.sh: API reference in $out/html/index.html"
