#!/bin/bash
# demo/run.sh: the main job.  On a fresh Debian 12 machine, as root:
# install what is needed, build Debian's linux-source-6.12 with the
# exec-folio series, boot it under QEMU with an XFS disk, and show the
# policies at work on a program with 3 MiB of text, measured with
# exec_folio_ctl report (pagemap + kpageflags).
#
# demo/run.sh --arm64 4k|16k|64k does the same on arm64 with that base
# page size (cross-built, qemu-system-aarch64 -M virt).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
mkdir -p "$build/logs"
say() { echo "== $*"; }
case "${1:-}" in
"") arch=x86_64 ;;
--arm64)
	case "${2:-}" in 4k|16k|64k) ;; *) echo "usage: demo/run.sh [--arm64 4k|16k|64k]" >&2; exit 2 ;; esac
	arch=arm64 ps=$2 ;;
*) echo "usage: demo/run.sh [--arm64 4k|16k|64k]" >&2; exit 2 ;;
esac

say "installing what is needed (apt, only what is missing)"
"$repo/tests/lib/deps.sh" ${ps:+--arm64}
say "kernel tree: Debian linux-source-6.12 + $(grep -vc '^#' "$repo/series/MANIFEST") patches"
"$repo/series/make-tree.sh" "$build/src"
if [ "$arch" = x86_64 ]; then
	say "building the kernel (x86_64, tinyconfig + tests/config/x86_64.config, ccache)"
	"$repo/tests/lib/build-kernel.sh" "$build/src" "$build/obj-x86_64" "$repo/tests/config/x86_64.config"
	kernel=$build/obj-x86_64/arch/x86/boot/bzImage progs=$build/guest-x86_64
	say "building the guest programs"
	"$repo/tests/lib/build-guest-progs.sh" "$build/src" "$progs"
else
	say "building the kernel (arm64, $ps pages, tinyconfig + tests/config/arm64{,-$ps}.config, ccache)"
	KARCH=arm64 "$repo/tests/lib/build-kernel.sh" "$build/src" "$build/obj-arm64-$ps" \
		"$repo/tests/config/arm64.config" "$repo/tests/config/arm64-$ps.config"
	kernel=$build/obj-arm64-$ps/arch/arm64/boot/Image progs=$build/guest-arm64
	export GUEST_ARCH=arm64 BUSYBOX=$build/arm64/busybox
	say "building the guest programs"
	CROSS_COMPILE=aarch64-linux-gnu- "$repo/tests/lib/build-guest-progs.sh" "$build/src" "$progs"
fi
install -m 0755 "$repo/demo/guest-demo.sh" "$progs/guest-demo.sh"
echo "demo sh /tests/bin/guest-demo.sh" > "$build/plan-demo"
"$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-demo.cpio.gz" "$build/plan-demo" "$progs"
say "booting under QEMU (TCG), text on an XFS disk"
"$repo/tests/lib/run-guest.sh" "$kernel" "$build/initramfs-demo.cpio.gz" "$build/logs/demo.log" "loglevel=4"
sed -n '/^GUEST-BEGIN demo/,/^GUEST-END demo/p' "$build/logs/demo.log" |
	sed '1d;$d' | sed 's/^\[ *[0-9.]*\] //'
grep -q '^GUEST-END demo rc=0' "$build/logs/demo.log"
