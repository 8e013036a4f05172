#!/bin/bash
# build-kmod.sh KOBJ OUTDIR
#
# Build the test-only contpte_probe module (tests/kmod) against the arm64
# kernel built in KOBJ (tests/lib/build-kernel.sh with KARCH=arm64), out
# of the repository, and put contpte_probe.ko in OUTDIR.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kobj=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here"/kmod/Kbuild "$here"/kmod/*.c "$tmp/"
cc=aarch64-linux-gnu-gcc
command -v ccache > /dev/null && cc="ccache $cc"
make -s -C "$kobj" M="$tmp" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	CC="$cc" W=1 modules
cp "$tmp/contpte_probe.ko" "$out/"
