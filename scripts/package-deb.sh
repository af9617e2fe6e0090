#!/usr/bin/env bash
# Build the Debian package of fitsasdf (fitsasdf_VERSION-1_ARCH.deb) with CPack and check it
# with lintian: the command with its man pages and bash completion, the shared libraries and
# the development files, its Depends computed from the libraries' dependencies (dpkg-shlibdeps).
# Usage: bash scripts/package-deb.sh [BUILD_DIR [CMAKE_ARGS...]]
#   BUILD_DIR   where to configure and build (default: build-deb/): shared libraries, no tests,
#               no Python module, installed under /usr
# Needs what `scripts/install-deps.sh test` installs (help2man, dpkg-dev, lintian). Prints
# lintian's findings (no error may be among them) and, last, the package's path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-deb}
shift || true
for tool in help2man dpkg-shlibdeps lintian; do
  command -v "$tool" >/dev/null ||
    { echo "package-deb.sh: $tool is missing (bash scripts/install-deps.sh test)" >&2; exit 4; }
done
mkdir -p "$build"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && generator=()  # an existing build keeps its generator
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBUILD_SHARED_LIBS=ON -DFITSASDF_BUILD_TESTS=OFF -DFITSASDF_BUILD_PYTHON=OFF \
  -DFITSASDF_BUILD_SAMPLES=OFF -DFITSASDF_BUILD_MAN=ON -DFITSASDF_PACKAGE=ON \
  -DCMAKE_INSTALL_PREFIX=/usr "$@" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; echo "package-deb.sh: the configuration failed" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 ||
  { tail -40 "$build/build.log" >&2; echo "package-deb.sh: the build failed" >&2; exit 1; }
rm -rf "$build/package"
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log" >&2; exit 1; }
deb=$(ls "$build"/package/fitsasdf_*.deb)
# lintian (Debian 12's) says what it finds; an error fails the package.
lintian --fail-on error --tag-display-limit 0 "$deb" >&2 || {
  echo "package-deb.sh: lintian reports errors in $deb" >&2
  exit 1
}
echo "$deb"
