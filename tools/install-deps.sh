#!/bin/sh
# Installs what tessel needs to build and test on Debian 12 (run as root).
# Everything comes from Debian's archive; CUDA (ptxas) is optional and used
# when /usr/local/cuda is present.
set -eu
packages="cmake ninja-build ccache python3 git \
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools \
  libfmt-dev libgtest-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "tessel: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends $missing
fi
