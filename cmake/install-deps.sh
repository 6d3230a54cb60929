#!/bin/sh
# Installs the Debian packages the build and the tests need. Idempotent and quiet:
# does nothing when every package is already installed.
set -eu
# LLVM: the verify oracle is built against llvm-22-dev (the newest Debian offers for
# bookworm, from bookworm-security) and, in a second small build, llvm-14-dev; the
# corpus compiles with clang-19/-22 and llc-19/-22 and reads their output with
# llvm-dwarfdump-19/-22. python3-dev and pybind11-dev: `import ptxdwarf` (python/).
packages="cmake g++ clang-14 libclang-rt-14-dev pkg-config libcli11-dev libgtest-dev googletest libbenchmark-dev
libdwarf-dev llvm-14-dev llvm-22-dev llvm-19 clang-19 llvm-22 clang-22 python3-dev pybind11-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
