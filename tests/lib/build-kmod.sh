#!/bin/bash
# build-kmod.sh KOBJ OUTDIR
#
# Build the test-only modules of tests/kmod (folio_oracle, fault_delay)
# against the kernel built in KOBJ (tests/lib/build-kernel.sh; arm64 when
# KARCH=arm64, as there), out of the repository, and put their .ko files
# in OUTDIR.  fault_delay needs CONFIG_KPROBES to load, not to build.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kobj=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here"/kmod/Kbuild "$here"/kmod/*.c "$tmp/"
karch=${KARCH:-x86_64}
if [ "$karch" = arm64 ]; then
	cross=aarch64-linux-gnu-
	set -- ARCH=arm64 CROSS_COMPILE=$cross
else
	cross=
	set -- ARCH=x86_64
fi
cc=${cross}gcc
command -v ccache > /dev/null && cc="ccache $cc"
make -s -C "$kobj" M="$tmp" "$@" CC="$cc" W=1 modules
cp "$tmp"/*.ko "$out/"
