#!/bin/bash
# run-guest.sh KERNEL INITRAMFS LOG [CMDLINE]
#
# Boot the test guest under QEMU (TCG: these machines have no KVM) with a
# fresh XFS disk, and write its console to LOG.  The guest powers itself
# off; one that hangs is killed after $GUEST_TIMEOUT seconds (default
# 180) and the run reported as timed out.  $GUEST_MEM sets its memory
# (default 1G).  Exit status: 0 when QEMU
# exited by itself, 124 on timeout, else QEMU's.
set -uo pipefail
kernel=$1 initrd=$2 log=$3 cmdline=${4:-}
arch=${GUEST_ARCH:-x86_64}
timeout=${GUEST_TIMEOUT:-180}
# Guest memory (QEMU -m): 1G; the memory-pressure test boots with 256M.
mem=${GUEST_MEM:-1G}
disk=$(mktemp --suffix=.xfs.img)
trap 'rm -f "$disk"' EXIT
truncate -s 512M "$disk"
mkfs.xfs -q -f "$disk" || exit 1

case "$arch" in
x86_64)
	# Two CPUs (multi-threaded TCG) for kernels that can see them: the
	# x86_64 debug kernel of tests/config has no ACPI, and QEMU's MP
	# table lists one CPU, so it runs on one (found 2026-12-07; its
	# stress tests race by preemption).  Debian's kernel sees two.
	qemu=(qemu-system-x86_64 -M pc -cpu max -m "$mem" -smp "${GUEST_SMP:-2}"
	      -drive "file=$disk,if=virtio,format=raw")
	console=ttyS0 ;;
arm64)
	# pauth-impdef: TCG's architected pointer authentication is slow.
	# The disk is virtio-mmio, so the kernel needs no PCI.
	qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -m "$mem"
	      -smp "${GUEST_SMP:-1}" -drive "file=$disk,if=none,id=disk,format=raw"
	      -device virtio-blk-device,drive=disk)
	console=ttyAMA0 ;;
*)
	echo "run-guest: unknown GUEST_ARCH $arch" >&2
	exit 2 ;;
esac
start=$(date +%s)
timeout --kill-after=10 "$timeout" "${qemu[@]}" -accel tcg \
	-nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=$console panic=-1 oops=panic panic_on_warn=1 $cmdline" \
	< /dev/null > "$log" 2>&1
rc=$?
echo "run-guest: $(basename "$log"): QEMU exited with $rc after $(( $(date +%s) - start ))s" >&2
exit $rc
