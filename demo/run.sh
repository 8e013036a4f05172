#!/bin/bash
# demo/run.sh: the main job.  On a fresh Debian 12 machine, as root:
# install what is needed, build Debian's linux-source-6.12 with the
# exec-folio series, boot it under QEMU with an XFS disk, and show the
# policies at work on a program with 3 MiB of text, measured with
# exec_folio_ctl report (pagemap + kpageflags).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
mkdir -p "$build/logs"
say() { echo "== $*"; }

say "installing what is needed (apt, only what is missing)"
"$repo/tests/lib/deps.sh"
say "kernel tree: Debian linux-source-6.12 + $(grep -vc '^#' "$repo/series/MANIFEST") patches"
"$repo/series/make-tree.sh" "$build/src"
say "building the kernel (x86_64, tinyconfig + tests/config/x86_64.config, ccache)"
"$repo/tests/lib/build-kernel.sh" "$build/src" "$build/obj-x86_64" "$repo/tests/config/x86_64.config"
say "building the guest programs"
"$repo/tests/lib/build-guest-progs.sh" "$build/src" "$build/guest-x86_64"
install -m 0755 "$repo/demo/guest-demo.sh" "$build/guest-x86_64/guest-demo.sh"
echo "demo sh /tests/bin/guest-demo.sh" > "$build/plan-demo"
"$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-demo.cpio.gz" "$build/plan-demo" \
	"$build/guest-x86_64"
say "booting under QEMU (TCG), text on an XFS disk"
"$repo/tests/lib/run-guest.sh" "$build/obj-x86_64/arch/x86/boot/bzImage" \
	"$build/initramfs-demo.cpio.gz" "$build/logs/demo.log" "loglevel=4"
sed -n '/^GUEST-BEGIN demo/,/^GUEST-END demo/p' "$build/logs/demo.log" |
	sed '1d;$d' | sed 's/^\[ *[0-9.]*\] //'
grep -q '^GUEST-END demo rc=0' "$build/logs/demo.log"
