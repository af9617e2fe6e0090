#!/usr/bin/env bash
# The fixture of the install tests: install the libraries to WORK/prefix-KIND and check what is
# there.
#   prefix.sh static WORK BUILD LIBDIR SOVERSION
#     Install the build in BUILD (static libraries, the normal build) with everything it has.
#   prefix.sh shared WORK BUILD LIBDIR SOVERSION SOURCE [CMAKE_ARGS...]
#     Configure SOURCE in WORK/shared-build with -DBUILD_SHARED_LIBS=ON and CMAKE_ARGS, build
#     only the two library targets (kept between runs, so a rerun only rebuilds what changed),
#     and install component `library`. BUILD is unused.
# LIBDIR is CMAKE_INSTALL_LIBDIR (relative to the prefix); SOVERSION the libraries' ABI version.
set -euo pipefail
kind=$1 work=$2 build=$3 libdir=$4 soversion=$5
shift 5
fail() { echo "install:prefix-$kind: FAILED: $*" >&2; exit 1; }
case $libdir in /*) fail "CMAKE_INSTALL_LIBDIR ($libdir) must be relative to install into a test prefix" ;; esac
prefix=$work/prefix-$kind
start=$SECONDS
mkdir -p "$work"
rm -rf "$prefix"
case $kind in
  static)
    cmake --install "$build" --prefix "$prefix" >/dev/null
    ;;
  shared)
    source=$1
    shift
    cmake -S "$source" -B "$work/shared-build" -DBUILD_SHARED_LIBS=ON -DFITSASDF_BUILD_TESTS=OFF \
      -DFITSASDF_BUILD_PYTHON=OFF -DFITSASDF_BUILD_SAMPLES=OFF -DCMAKE_INSTALL_LIBDIR="$libdir" "$@" >"$work/shared-configure.log" || { cat "$work/shared-configure.log"; fail "configure"; }
    cmake --build "$work/shared-build" --target asdfcore converters \
      --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >"$work/shared-build.log" ||
      { tail -50 "$work/shared-build.log"; fail "build of the shared libraries"; }
    cmake --install "$work/shared-build" --prefix "$prefix" --component library >/dev/null
    ;;
  *) fail "KIND must be static or shared" ;;
esac

lib=$prefix/$libdir
for f in include/asdfcore/asdf_file.h include/asdfcore/version.h include/fitsasdf/convert.h \
         "$libdir/cmake/fitsasdf/fitsasdfConfig.cmake" "$libdir/pkgconfig/asdfcore.pc" \
         "$libdir/pkgconfig/fitsasdf.pc"; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
if [ "$kind" = static ]; then
  for name in asdfcore fitsasdf; do
    [ -f "$lib/lib$name.a" ] || fail "lib$name.a is not installed"
    ! compgen -G "$lib/lib$name.so*" >/dev/null || fail "a static build installed lib$name.so"
  done
else
  version=$(sed -n 's/^Version: //p' "$lib/pkgconfig/asdfcore.pc")
  for name in asdfcore fitsasdf; do
    # lib.so -> lib.so.SOVERSION -> lib.so.VERSION, the one real file, whose SONAME is the middle.
    real=$lib/lib$name.so.$version
    [ -f "$real" ] && [ ! -L "$real" ] || fail "lib$name.so.$version is not installed"
    [ "$(readlink "$lib/lib$name.so.$soversion")" = "lib$name.so.$version" ] ||
      fail "lib$name.so.$soversion does not link to lib$name.so.$version"
    [ "$(readlink "$lib/lib$name.so")" = "lib$name.so.$soversion" ] ||
      fail "lib$name.so does not link to lib$name.so.$soversion"
    soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "lib$name.so.$soversion" ] || fail "lib$name.so.$version has SONAME '$soname'"
    [ ! -e "$lib/lib$name.a" ] || fail "a shared build installed lib$name.a"
    echo "install:prefix-shared: lib$name.so.$version, SONAME $soname"
  done
  readelf -d "$lib/libfitsasdf.so.$version" | grep "(NEEDED).*\[libasdfcore.so.$soversion\]" >/dev/null ||
    fail "libfitsasdf.so does not need libasdfcore.so.$soversion"
  [ ! -e "$prefix/bin/fitsasdf" ] || fail "component library installed the command"
fi
# The Python package (when the build has it) lands in the prefix's site-packages and works
# from there.
if [ "$kind" = static ] && [ -d "$build/python/fitsasdf" ]; then
  site=$prefix/lib/python3/dist-packages
  [ -f "$site/fitsasdf/__init__.py" ] && compgen -G "$site/fitsasdf/_fitsasdf*.so" >/dev/null ||
    fail "the Python package fitsasdf is not installed in $site"
  PYTHONPATH=$site /usr/bin/python3 - "$site" "$work/python-install.asdf" <<'PY' ||
import sys
import numpy as np
import fitsasdf
assert fitsasdf.__file__.startswith(sys.argv[1]), fitsasdf.__file__
fitsasdf.write(sys.argv[2], {"x": np.arange(5)})
with fitsasdf.open(sys.argv[2]) as f:
    assert f.tree["x"].tolist() == [0, 1, 2, 3, 4]
PY
    fail "the installed Python package does not work"
fi
echo "install:prefix-$kind: ok, $prefix in $((SECONDS - start)) s"
