#!/bin/bash
# deps.sh [--arm64]: install what building and testing exec-folio needs
# (Debian 12, as root).  Installs only what is missing, so a second run
# costs a dpkg query.  --arm64 adds QEMU for arm64, the arm64 C library
# for static test programs, and puts Debian's static arm64 busybox in
# build/arm64/busybox for the arm64 guests' initramfs.  cmake and
# python3 (3.11) are also real programs for the guests (field-closure.sh);
# python3-matplotlib draws bench/field-*.png.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
pkgs=(linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev
      cpio gzip xz-utils kmod perl git python3 python3-numpy ccache
      python3-ply qemu-system-x86 busybox-static xfsprogs valgrind man-db groff-base
      gcc-aarch64-linux-gnu clang libclang-rt-14-dev
      strace dpkg-dev debhelper fakeroot lintian rsync
      python3-matplotlib cmake liburcu-dev)
[ "${1:-}" = --arm64 ] && pkgs+=(qemu-system-arm libc6-dev-arm64-cross)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep '^install ok installed$' > /dev/null ||
		missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# busybox-static:arm64 is only downloaded and unpacked, not installed:
# this machine runs it only inside the arm64 guests.
bb=$repo/build/arm64/busybox
if [ "${1:-}" = --arm64 ] && [ ! -x "$bb" ]; then
	echo "deps: fetching busybox-static:arm64" >&2
	if ! dpkg --print-foreign-architectures | grep -x arm64 > /dev/null; then
		dpkg --add-architecture arm64
		apt-get update -q >&2
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	chown _apt "$tmp" 2>/dev/null || true	# apt downloads as _apt
	(cd "$tmp" && apt-get download -q busybox-static:arm64 >&2 ||
		{ apt-get update -q >&2 && apt-get download -q busybox-static:arm64 >&2; })
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/root"
	mkdir -p "$(dirname "$bb")"
	install -m 0755 "$tmp/root/bin/busybox" "$bb"
fi
