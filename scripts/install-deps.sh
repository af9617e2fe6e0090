#!/usr/bin/env bash
# Install the Debian 12 packages fitsasdf needs, for one purpose:
#   install-deps.sh build   what building and running the `fitsasdf` command and its libraries
#                           need: a compiler, CMake, Ninja and the libraries' -dev packages
#                           (README command (1); no Python, no test oracle)
#   install-deps.sh test    all of `build`, and what the test suite, the sanitizer and fuzzing
#                           stages, the Python module, the API reference, the Debian package and
#                           the benchmarks need: the reference tools (python3-asdf, astropy,
#                           fitsverify, ...), clang's fuzzing runtime, Catch2, pybind11, doxygen,
#                           help2man, lintian, debootstrap (README command (2))
#   install-deps.sh --list PURPOSE   print the packages of PURPOSE, one per line, and exit
# Idempotent: packages already present are left alone and apt is not touched at all when
# nothing is missing. Works as root or through sudo. Prints what it installed and how long it
# took.
set -euo pipefail

build_packages=(
  # compiler and build tools
  build-essential cmake ninja-build pkg-config
  # the libraries fitsasdf links (their -dev packages bring the runtime libraries)
  libcfitsio-dev libyaml-dev zlib1g-dev libisal-dev libdeflate-dev libbz2-dev liblz4-dev
  libssl-dev libboost-program-options-dev libpcre2-dev nlohmann-json3-dev libpng-dev
)

test_packages=(
  git clang catch2
  # fuzzing runtime for clang
  libclang-rt-14-dev
  # fpack/funpack (tile-compressed test inputs); GNU time (peak RSS in tests and bench)
  libcfitsio-bin time
  # reference tools (the oracles the interop tests run)
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
  # the Debian package (scripts/package-deb.sh, install:deb): man pages from --help, lintian,
  # a fresh root to install it on, man to read the pages there and here
  help2man lintian debootstrap man-db
  # the batch report's HTML page opened in a browser (tests/cli/html_report_test.cc)
  chromium
  # a one-node Slurm cluster on loopback for the job-array script (scripts/cluster/local-slurm.sh,
  # cluster:slurm-array): slurmctld, slurmd, sbatch and srun, and munge for their authentication
  slurm-wlm slurm-client munge
  # cfitsio.pc names -lcurl for static linking: `pkg-config --static --libs fitsasdf` needs it
  # (install:pkg-config-static); the curl flavour libcfitsio10 itself uses
  libcurl4-gnutls-dev
)

usage() { sed -n '2,14s/^# \{0,1\}//p' "$0"; }

list_only=0
if [ "${1:-}" = --list ]; then
  list_only=1
  shift
fi
purpose=${1:-}
case "$purpose" in
  build) packages=("${build_packages[@]}") ;;
  test) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  -h|--help) usage; exit 0 ;;
  *) echo "install-deps: say what for: build or test (try --help)" >&2; exit 4 ;;
esac
if [ $list_only = 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps ($purpose): all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

start=$SECONDS
echo "install-deps ($purpose): installing ${missing[*]}"
before=$(dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' | grep -c '^ii' || true)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
after=$(dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' | grep -c '^ii' || true)
echo "install-deps ($purpose): ${#missing[@]} packages asked for, $((after - before)) installed" \
  "with their dependencies, in $((SECONDS - start)) s"
