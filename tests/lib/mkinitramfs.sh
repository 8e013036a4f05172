#!/bin/bash
# mkinitramfs.sh OUT PLAN BINDIR
#
# A gzip'd cpio initramfs for the test guest: static busybox, tests/guest/init
# as /init, the plan (one "name command" a line) as /tests/plan, and every
# file of BINDIR in /tests/bin (copied onto the XFS disk by /init).
# $MODULES, if set, is a directory of kernel modules with a file "order"
# naming them in load order; /init loads them before it mounts the disk.
set -euo pipefail
out=$1 plan=$2 bindir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
busybox=${BUSYBOX:-/bin/busybox}
if [ ! -x "$busybox" ] || readelf -lW "$busybox" | grep INTERP > /dev/null; then
	echo "mkinitramfs: $busybox is not a static busybox (install busybox-static)" >&2
	exit 1
fi
root=$(mktemp -d)
# mktemp makes it 0700: the guest's unprivileged tests must get past "/".
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/tests/bin" "$root/dev"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$here/guest/init" "$root/init"
cp "$plan" "$root/tests/plan"
cp -a "$bindir"/. "$root/tests/bin/"
if [ -n "${MODULES:-}" ]; then
	mkdir -p "$root/tests/modules"
	cp -a "$MODULES"/. "$root/tests/modules/"
fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$out"
