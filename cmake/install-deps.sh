#!/bin/sh
# Installs the Debian packages the build and the tests need. Idempotent and quiet:
# does nothing when every package is already installed.
set -eu
packages="cmake g++ clang-14 libclang-rt-14-dev pkg-config libcli11-dev libgtest-dev googletest libbenchmark-dev llvm-14-dev libdwarf-dev"
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
