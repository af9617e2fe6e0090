#!/usr/bin/env bash
# Run README command (2) as a new user would, on a fresh Debian 12 root: debootstrap a minbase
# bookworm root (from this machine's own apt mirror), copy this checkout and the shared corpus
# into it, and run `bash scripts/test.sh` there under chroot, as root. The chroot has no user
# namespaces to give (the disk-full layer then uses unshare -m as root, or is skipped and says
# so) and only what install-deps.sh installs: a missing install step shows here.
#
# Usage (as root): bash scripts/fresh-root-test.sh [ROOT_DIR] [test.sh arguments...]
#   ROOT_DIR     where to make the root (default: /var/tmp/fitsasdf-fresh-root); an existing
#                root made by an earlier run is reused (delete it to start afresh)
#   FITSASDF_FRESH_ROOT_CPUS   run the test on these CPUs only (taskset list, e.g. 0 for one
#                core: nproc, and so every build's -j, follows); default: all
#   FITSASDF_FRESH_ROOT_STAGE  "deps" to stop after install-deps.sh (measure the set-up only)
#   FITSASDF_FRESH_ROOT_COMMAND  "sample" to run README command (1) (scripts/run-sample.sh)
#                instead of (2): what a first-time user installs and waits for
#   CI, FITSASDF_REQUIRE_LAYERS  passed into the root (CI=true: every test layer required)
#   FITSASDF_FRESH_ROOT_CCACHE a ccache folder of this machine to compile through (bind-mounted;
#                ccache installed in the root): a quicker re-run, not a fresh user's timing
# Prints how long each step took. Needs debootstrap (apt-get install debootstrap).
set -euo pipefail
root_src=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-/var/tmp/fitsasdf-fresh-root}
shift || true
if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-root-test.sh: run as root (debootstrap and chroot need it)" >&2
  exit 4
fi
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind() SRC DEST: mount SRC on DEST inside the root, undone at exit
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounted+=("$2")
}

start=$SECONDS
bash "$root_src/scripts/make-debian-root.sh" "$target"
echo "fresh-root-test.sh: root ready in $((SECONDS - start)) s"

# The checkout as a fresh clone would have it (committed files only, no build folders), and the
# shared corpus beside it, as the README asks.
start=$SECONDS
rm -rf "$target/work"
mkdir -p "$target/work/fitsasdf" "$target/work/shared"
git -C "$root_src" archive --format=tar HEAD | tar -x -C "$target/work/fitsasdf"
if [ -d "$root_src/../shared/corpus" ]; then
  cp -a "$root_src/../shared/corpus" "$target/work/shared/corpus"
else
  echo "fresh-root-test.sh: no ../shared/corpus beside the checkout: the corpus tests will fail" >&2
fi
cp /etc/resolv.conf "$target/etc/resolv.conf" 2>/dev/null || true
echo "fresh-root-test.sh: checkout copied in $((SECONDS - start)) s"

# The root a mount point of its own (as arch-chroot makes it), so that unshare -m works inside:
# the real disk-full layer then mounts its tmpfs in a private mount namespace (a chroot gets no
# user namespace). What a chroot on a real machine has: /proc, /sys, /dev (the tests need
# /dev/null, /dev/ptmx for the terminal test, /proc for the sanitizers), a /tmp of its own.
bind "$target" "$target"
bind /proc "$target/proc"
bind /sys "$target/sys"
bind /dev "$target/dev"
bind /dev/pts "$target/dev/pts"
chmod 1777 "$target/tmp"

cpus=()
[ -n "${FITSASDF_FRESH_ROOT_CPUS:-}" ] && cpus=(taskset -c "$FITSASDF_FRESH_ROOT_CPUS")
env_vars=(HOME=/root TERM=dumb LANG=C.UTF-8
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
# CI=true runs it as CI would (every test layer required, warnings as errors).
[ -n "${CI:-}" ] && env_vars+=(CI="$CI")
[ -n "${FITSASDF_REQUIRE_LAYERS:-}" ] && env_vars+=(FITSASDF_REQUIRE_LAYERS="$FITSASDF_REQUIRE_LAYERS")
in_root() {
  "${cpus[@]}" chroot "$target" /usr/bin/env -i "${env_vars[@]}" "$@"
}
if [ -n "${FITSASDF_FRESH_ROOT_CCACHE:-}" ]; then
  bind "$FITSASDF_FRESH_ROOT_CCACHE" "$target/ccache"
  in_root bash -c 'command -v ccache >/dev/null || { apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ccache; }'
  # CMake (3.17+) takes the launchers from the environment.
  env_vars+=(CCACHE_DIR=/ccache CCACHE_BASEDIR=/work CMAKE_CXX_COMPILER_LAUNCHER=ccache
    CMAKE_C_COMPILER_LAUNCHER=ccache)
fi

if [ "${FITSASDF_FRESH_ROOT_COMMAND:-test}" = sample ]; then
  start=$SECONDS
  status=0
  in_root bash -c 'cd /work/fitsasdf && bash scripts/run-sample.sh' || status=$?
  echo "fresh-root-test.sh: README command (1) exited $status after $((SECONDS - start)) s;" \
    "$(in_root dpkg-query -W -f='${db:Status-Abbrev}\n' | grep -c '^ii') packages in the root"
  exit $status
fi

start=$SECONDS
in_root bash /work/fitsasdf/scripts/install-deps.sh test
echo "fresh-root-test.sh: install-deps.sh in $((SECONDS - start)) s"
# No Qt or Poco on the build machine (issue 22: valijson's Debian package would bring both).
heavy=$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' | grep -E '^ii +(libqt5|qt5|libpoco)' || true)
if [ -n "$heavy" ]; then
  echo "fresh-root-test.sh: install-deps.sh installed Qt or Poco packages:" $heavy >&2
  exit 1
fi
echo "fresh-root-test.sh: no Qt or Poco package installed"
[ "${FITSASDF_FRESH_ROOT_STAGE:-}" = deps ] && exit 0

start=$SECONDS
status=0
in_root bash -c 'cd /work/fitsasdf && bash scripts/test.sh "$@"' test.sh "$@" || status=$?
echo "fresh-root-test.sh: README command (2) exited $status after $((SECONDS - start)) s"
exit $status
