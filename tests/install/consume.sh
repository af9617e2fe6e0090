#!/usr/bin/env bash
# The install tests proper: build tests/install/consumer.cc against the libraries installed in
# PREFIX (by prefix.sh) the way a pipeline's build would, run it on SAMPLE, and check how it is
# linked.
#   consume.sh find_package|pkg-config static|shared PREFIX LIBDIR SOVERSION SAMPLE.fits WORK
# find_package: configure and build tests/install/CMakeLists.txt with CMAKE_PREFIX_PATH=PREFIX.
# pkg-config:   one compiler command, `c++ -std=c++20 consumer.cc $(pkg-config --cflags --libs
#               fitsasdf)` (--static for static libraries; an rpath into PREFIX for shared ones).
# The README's example (samples/cpp/readme_example.cc, asdfcore only) is built the same way and
# run on samples/jwst_like.asdf; with pkg-config, two C programs of samples/c are built with
# `cc -std=c11 ... $(pkg-config --cflags --libs fitsasdf)` and run too.
# static: the program needs neither library at run time. shared: it needs both by their SONAMEs
# (lib*.so.SOVERSION) and the loader finds them in PREFIX.
set -euo pipefail
method=$1 kind=$2 prefix=$3 libdir=$4 soversion=$5 sample=$6 work=$7
name=install:$method-$kind
fail() { echo "$name: FAILED: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../../samples" && pwd)
example=$samples/cpp/readme_example.cc
lib=$prefix/$libdir
[ -d "$lib" ] || fail "no install in $prefix (the install:prefix-$kind fixture did not run)"
out=$work/consumer-$method-$kind
rm -rf "$out"
mkdir -p "$out"
start=$SECONDS
case $method in
  find_package)
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$here" -B "$out" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" || { cat "$out/configure.log"; fail "configure"; }
    found=$(sed -n 's/^fitsasdf_DIR:PATH=//p' "$out/CMakeCache.txt")
    [ "$found" = "$lib/cmake/fitsasdf" ] || fail "find_package(fitsasdf) found '$found', not $lib/cmake/fitsasdf"
    cmake --build "$out" >"$out/build.log" || { cat "$out/build.log"; fail "build"; }
    ;;
  pkg-config)
    export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    pcdir=$(pkg-config --variable=pcfiledir fitsasdf) || fail "pkg-config does not find fitsasdf"
    [ "$pcdir" = "$lib/pkgconfig" ] || fail "pkg-config found fitsasdf.pc in $pcdir, not $lib/pkgconfig"
    pc_static=()
    link_extra=()
    if [ "$kind" = static ]; then pc_static=(--static); else link_extra=("-Wl,-rpath,$lib"); fi
    cflags=$(pkg-config --cflags fitsasdf) || fail "pkg-config --cflags fitsasdf"
    libs=$(pkg-config "${pc_static[@]}" --libs fitsasdf) || fail "pkg-config ${pc_static[*]} --libs fitsasdf"
    # shellcheck disable=SC2086  # the flags are words
    command=(${CXX:-c++} -std=c++20 -O1 "$here/consumer.cc" -o "$out/consumer" $cflags $libs "${link_extra[@]}")
    echo "$name: ${command[*]}"
    "${command[@]}" || fail "compile and link"
    # The README's example, through asdfcore.pc alone.
    cflags=$(pkg-config --cflags asdfcore) || fail "pkg-config --cflags asdfcore"
    libs=$(pkg-config "${pc_static[@]}" --libs asdfcore) || fail "pkg-config ${pc_static[*]} --libs asdfcore"
    # shellcheck disable=SC2086  # the flags are words
    command=(${CXX:-c++} -std=c++20 -O1 "$example" -o "$out/readme_example" $cflags $libs "${link_extra[@]}")
    echo "$name: ${command[*]}"
    "${command[@]}" || fail "compile and link the README example"
    # C programs written for libasdf's C API (and fitsasdf_convert), built with the plain
    # `pkg-config --cflags --libs fitsasdf` a C user would write, static libraries or not.
    cflags=$(pkg-config --cflags fitsasdf)
    libs=$(pkg-config --libs fitsasdf) || fail "pkg-config --libs fitsasdf"
    for program in list_arrays convert; do
      # shellcheck disable=SC2086  # the flags are words
      command=(${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror -O1 "$samples/c/$program.c"
               -o "$out/c_$program" $cflags $libs "${link_extra[@]}")
      echo "$name: ${command[*]}"
      "${command[@]}" || fail "compile and link samples/c/$program.c"
    done
    listed=$("$out/c_list_arrays" "$samples/jwst_like.asdf") || fail "samples/c/list_arrays.c failed"
    grep -q '^/data float32 \[64,64\] n=4096 ' <<<"$listed" || fail "samples/c/list_arrays.c printed: $listed"
    converted=$("$out/c_convert" "$sample" "$out/c_convert.asdf") || fail "samples/c/convert.c failed"
    grep -q '^verified: equivalent$' <<<"$converted" || fail "samples/c/convert.c printed: $converted"
    ;;
  *) fail "METHOD must be find_package or pkg-config" ;;
esac
build_seconds=$((SECONDS - start))

needed=$(readelf -d "$out/consumer" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [ "$kind" = static ]; then
  ! grep -q 'libasdfcore\|libfitsasdf' <<<"$needed" ||
    fail "a program linked with the static libraries needs: $(grep 'libasdfcore\|libfitsasdf' <<<"$needed")"
else
  example_needed=$(readelf -d "$out/readme_example" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  grep -qx "libasdfcore.so.$soversion" <<<"$example_needed" ||
    fail "the README example does not need libasdfcore.so.$soversion (NEEDED: $(echo $example_needed))"
  for l in asdfcore fitsasdf; do
    grep -qx "lib$l.so.$soversion" <<<"$needed" ||
      fail "the program does not need lib$l.so.$soversion (NEEDED: $(echo $needed))"
    where=$(ldd "$out/consumer" | sed -n "s/^[[:space:]]*lib$l.so.$soversion => \([^ ]*\).*/\1/p")
    [ "$where" = "$lib/lib$l.so.$soversion" ] ||
      fail "lib$l.so.$soversion is loaded from '$where', not from $lib"
  done
fi

report=$("$out/consumer" "$sample" "$out/out.asdf") || fail "the consumer failed on $sample"
grep -Eq '^[0-9]+ HDUs, [0-9]+ blocks$' <<<"$report" || fail "unexpected output: $report"
# The README's example reads the JWST-like sample and writes a file the ASDF library reads back.
example_out=$("$out/readme_example" "$samples/jwst_like.asdf" "$out/example.asdf") ||
  fail "the README example failed on $samples/jwst_like.asdf"
[ "$example_out" = "NIRCAM 1374.3 s, data 64x64, data[32,32] = 5000, dq[0,0] = 1" ] ||
  fail "the README example printed: $example_out"
[ -s "$out/example.asdf" ] || fail "the README example wrote no file"
echo "$name: ok: $report (built in $build_seconds s, NEEDED: $(echo $needed))"
