#!/bin/bash
# deps.sh [--arm64]: install what building and testing exec-folio needs
# (Debian 12, as root).  Installs only what is missing, so a second run
# costs a dpkg query.
set -euo pipefail
pkgs=(linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev
      cpio gzip xz-utils kmod perl git python3 python3-numpy ccache
      python3-ply qemu-system-x86 busybox-static xfsprogs valgrind man-db groff-base
      gcc-aarch64-linux-gnu)
[ "${1:-}" = --arm64 ] && pkgs+=(qemu-system-arm libc6-dev-arm64-cross)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
