#!/bin/bash
# mkinitramfs.sh OUT PLAN BINDIR
#
# A gzip'd cpio initramfs for the test guest: static busybox, tests/guest/init
# as /init, the plan (one "name command" a line) as /tests/plan, and every
# file of BINDIR in /tests/bin (copied onto the XFS disk by /init).
set -euo pipefail
out=$1 plan=$2 bindir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
busybox=${BUSYBOX:-/bin/busybox}
if [ ! -x "$busybox" ] || readelf -lW "$busybox" | grep -q INTERP; then
	echo "mkinitramfs: $busybox is not a static busybox (install busybox-static)" >&2
	exit 1
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/tests/bin" "$root/dev"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$here/guest/init" "$root/init"
cp "$plan" "$root/tests/plan"
cp -a "$bindir"/. "$root/tests/bin/"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$out"
