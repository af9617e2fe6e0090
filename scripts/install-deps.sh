#!/usr/bin/env bash
# Install every system package fitsasdf needs to build, test and benchmark, from Debian 12's
# archive. Idempotent: packages already present are left alone and apt is not touched at all
# when nothing is missing. Works as root or through sudo.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git clang
  # libraries
  libcfitsio-dev libcfitsio-bin libyaml-dev zlib1g-dev libisal-dev libdeflate-dev libbz2-dev
  liblz4-dev libssl-dev libboost-program-options-dev libpcre2-dev nlohmann-json3-dev catch2
  libpng-dev
  # fuzzing runtime for clang
  libclang-rt-14-dev
  # reference tools (the oracles the interop tests run)
  time
  python3 python3-numpy python3-asdf python3-asdf-astropy python3-astropy python3-lz4
  python3-gwcs python3-asdf-standard astropy-utils fitsverify
  # the official JSON Schema test suite (draft4 tests, remotes/) for the schema engine
  json-schema-test-suite
  # test inputs: .Z (LZW) FITS files; a fixed clock for fpack's fuzz seeds (tests/fuzz)
  ncompress faketime
  # the Python module (python/: pybind11 for /usr/bin/python3, numpy) and its pytest suite
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  # the API reference and its test (scripts/docs.sh, docs:api-reference)
  doxygen
  # cfitsio.pc names -lcurl for static linking: `pkg-config --static --libs fitsasdf` needs it
  # (install:pkg-config-static); the curl flavour libcfitsio10 itself uses
  libcurl4-gnutls-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
