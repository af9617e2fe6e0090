#!/usr/bin/env bash
# install:deb: build the Debian package (scripts/package-deb.sh: lintian must report no error),
# check what it holds and what it depends on, then install it with apt the way a user would
# (`apt-get install ./fitsasdf_*.deb`) on a fresh Debian 12 root made here with debootstrap,
# and there run `fitsasdf --version`, convert the sample, show it, and read
# `man fitsasdf-convert`. Where no root can be made (not root, no debootstrap, no mirror), the
# package is installed on this machine instead and purged afterwards; which one ran is
# recorded as a test layer (scripts/test-layers.sh).
# Usage: deb.sh SOURCE PACKAGE_BUILD BUILD CMAKE_ARGS...
#   PACKAGE_BUILD  the package's build folder (the root is made beside it); BUILD the main build
#                  folder (its tests/layers.txt gets the record)
set -euo pipefail
src=$1 package_build=$2 build=$3
shift 3
work=$(dirname "$package_build")
fail() { echo "install:deb: FAILED: $*" >&2; exit 1; }
mkdir -p "$work"
start=$SECONDS
deb=$(bash "$src/scripts/package-deb.sh" "$package_build" "$@" | tail -1)
echo "install:deb: built $(basename "$deb") in $((SECONDS - start)) s; lintian reports no error"

# What it holds.
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for want in ./usr/bin/fitsasdf ./usr/include/asdfcore/asdf_file.h ./usr/include/fitsasdf/convert.h \
            ./usr/share/man/man1/fitsasdf.1.gz ./usr/share/man/man1/fitsasdf-convert.1.gz \
            ./usr/share/bash-completion/completions/fitsasdf ./usr/share/doc/fitsasdf/copyright \
            ./usr/share/doc/fitsasdf/changelog.Debian.gz; do
  grep -qxF "$want" <<<"$contents" || fail "the package lacks $want"
done
for want in 'libasdfcore\.so\.[0-9.]*$' 'libfitsasdf\.so\.[0-9.]*$' 'pkgconfig/fitsasdf\.pc$' \
            'cmake/fitsasdf/fitsasdfConfig\.cmake$'; do
  grep -qE "$want" <<<"$contents" || fail "the package lacks a file matching $want"
done
! grep -qE 'python|\.a$' <<<"$contents" || fail "the package holds a static library or Python files"
# Every man page a command has.
commands=$("$package_build/cli/fitsasdf" --help 2>/dev/null | awk '/^Commands:/{l=1;next} l&&/^  [a-z]/{print $1} l&&/^$/{exit}')
[ "$(wc -w <<<"$commands")" -ge 10 ] || fail "fitsasdf --help lists too few commands: $commands"
for command in $commands; do
  grep -qxF "./usr/share/man/man1/fitsasdf-$command.1.gz" <<<"$contents" || fail "no man page for $command"
done
depends=$(dpkg-deb --field "$deb" Depends)
for lib in libcfitsio libyaml libboost-program-options liblz4 libbz2 libssl zlib1g libpng libc6; do
  grep -q "$lib" <<<"$depends" || fail "Depends ($depends) does not name $lib"
done
! grep -qE 'python|-dev' <<<"$depends" || fail "Depends ($depends) names a Python or -dev package"
echo "install:deb: Depends: $depends"

# Install it on a fresh root, as a user would.
target=$work/deb-root
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  [ -d "$target" ] && rm -rf --one-file-system "$target"
}
trap cleanup EXIT
rm -rf --one-file-system "$target"
how=
if [ "$(id -u)" -ne 0 ]; then
  how="this machine (not root: no debootstrap root)"
elif ! out=$(bash "$src/scripts/make-debian-root.sh" "$target" 2>&1); then
  how="this machine (debootstrap could not make a root: $(tail -1 <<<"$out"))"
  rm -rf --one-file-system "$target"
fi
# (run as bash -c "$check_installed" _ FOLDER, FOLDER holding test0.fits)
check_installed='set -e
fitsasdf --version
fitsasdf convert "$1/test0.fits" -o "$1/test0.asdf"
fitsasdf info "$1/test0.asdf" >/dev/null
LC_ALL=C MANPAGER=cat man fitsasdf-convert 2>/dev/null | col -b | grep -- "--overwrite" >/dev/null
LC_ALL=C MANPAGER=cat man fitsasdf 2>/dev/null | col -b | grep "fitsasdf-edit(1)" >/dev/null
[ -f /usr/share/bash-completion/completions/fitsasdf ]
echo installed-package-ok'
if [ -z "$how" ]; then
  how="a fresh Debian 12 root (debootstrap minbase)"
  for d in proc dev dev/pts; do
    mount --bind "/$d" "$target/$d"
    mounted+=("$target/$d")
  done
  cp "$deb" "$target/tmp/"
  cp "$src/samples/test0.fits" "$target/tmp/"
  chroot "$target" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive bash -c "set -e; apt-get update -qq;
      apt-get install -y -qq --no-install-recommends ./tmp/$(basename "$deb") man-db >/dev/null" ||
    fail "apt-get install ./$(basename "$deb") in the fresh root"
  result=$(chroot "$target" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    bash -c "$check_installed" _ /tmp) || fail "the installed package in the fresh root: $result"
  packages=$(chroot "$target" dpkg-query -W -f='${db:Status-Abbrev}\n' | grep -c '^ii')
  echo "install:deb: installed in a fresh root ($packages packages there in all)"
else
  if dpkg-query -W -f='${Status}' fitsasdf 2>/dev/null | grep 'install ok installed' >/dev/null; then
    fail "a fitsasdf package is already installed on this machine; remove it first"
  fi
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo -n)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$deb" man-db >/dev/null ||
    fail "apt-get install $deb on this machine"
  scratch=$(mktemp -d)
  cp "$src/samples/test0.fits" "$scratch/"
  status=0
  result=$(PATH=/usr/bin:/bin bash -c "$check_installed" _ "$scratch") || status=$?
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get purge -y -qq fitsasdf >/dev/null
  rm -rf "$scratch"
  [ $status -eq 0 ] || fail "the installed package on this machine: $result"
fi
grep -q installed-package-ok <<<"$result" || fail "the checks did not finish: $result"
printf 'Debian package installed with apt\tran\t%s\n' "$how" >>"$build/tests/layers.txt"
echo "install:deb: the package installs on $how, converts the sample, and man fitsasdf-convert works"
