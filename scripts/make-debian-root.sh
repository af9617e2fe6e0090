#!/usr/bin/env bash
# Make a fresh Debian 12 root: `debootstrap --variant=minbase bookworm ROOT` from this machine's
# own apt mirror (Debian's when none is configured), with the updates and security suites in
# its sources.list, as an installed machine has. A ROOT that already has apt-get is left as it
# is. Needs root and debootstrap (installed here when missing).
# Usage: make-debian-root.sh ROOT
set -euo pipefail
target=$1
if [ "$(id -u)" -ne 0 ]; then
  echo "make-debian-root.sh: run as root (debootstrap needs it)" >&2
  exit 4
fi
[ -x "$target/usr/bin/apt-get" ] && exit 0
if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# This machine's mirror (deb822 or one-line sources), else Debian's.
mirror=$(grep -h -m1 -E '^URIs: .*/debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null |
  awk '{print $2}' || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -h -m1 -E '^deb .*/debian/? bookworm' /etc/apt/sources.list 2>/dev/null |
    awk '{print $2}' || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

echo "make-debian-root.sh: debootstrap --variant=minbase bookworm $target $mirror"
debootstrap --variant=minbase bookworm "$target" "$mirror" >"$target.debootstrap.log" 2>&1 || {
  tail -20 "$target.debootstrap.log" >&2
  exit 1
}
rm -f "$target.debootstrap.log"
security=${mirror%/debian}/debian-security
cat >"$target/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SOURCES
cp /etc/resolv.conf "$target/etc/resolv.conf" 2>/dev/null || true
