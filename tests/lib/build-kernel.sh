#!/bin/bash
# [KARCH=arm64] build-kernel.sh SRC OBJ FRAGMENT...
#
# Build a small kernel out of tree: "make tinyconfig" plus the config
# fragments, then the boot image (x86_64 bzImage, or with KARCH=arm64 an
# arm64 Image cross-compiled with Debian's gcc-aarch64-linux-gnu), with
# ccache.  Incremental: an existing
# OBJ is reused and only rebuilt where sources or config changed.  Fails
# if an option a fragment asks for did not make it into the config
# (a missing dependency), unless the tree does not have that option at
# all (the stock kernel has no CONFIG_EXEC_FOLIO_*).
set -euo pipefail
mkdir -p "$2"
src=$(cd "$1" && pwd) obj=$(cd "$2" && pwd)
shift 2
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/exec-folio-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Builds keep no host-specific paths, so the cache is shared between trees.
export CCACHE_BASEDIR=$(cd "$src/.." && pwd) CCACHE_NOHASHDIR=1
arch=${KARCH:-x86_64}
case "$arch" in
x86_64) cross="" image=arch/x86/boot/bzImage ;;
arm64) cross=aarch64-linux-gnu- image=arch/arm64/boot/Image ;;
*) echo "build-kernel: unknown KARCH $arch" >&2; exit 2 ;;
esac
cc="${cross}gcc" hostcc=gcc
command -v ccache >/dev/null && cc="ccache $cc" hostcc="ccache gcc"
kmake() {
	make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="$cc" HOSTCC="$hostcc" "$@"
}

# Regenerate the config only when a fragment changed, keeping mtimes stable.
want=$(cat "$@" | sha1sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ]; then
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" >/dev/null
	kmake olddefconfig >/dev/null
	echo "$want" > "$obj/.fragments"
fi

missing=0
for opt in $(cat "$@" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' | sort -u); do
	# A later fragment may turn it off again (tests/config/no-policy.config).
	last=$(cat "$@" | grep -E "^($opt=|# $opt is not set)" | tail -1)
	[ "$last" = "$opt=y" ] || continue
	grep -qx "$opt=y" "$obj/.config" && continue
	if grep -rqx "config ${opt#CONFIG_}" --include='Kconfig*' "$src"; then
		echo "build-kernel: $opt=y was asked for but is not set" >&2
		missing=1
	fi
done
[ "$missing" = 0 ] || exit 1

start=$(date +%s)
targets=$(basename "$image")
# With modules enabled, also Module.symvers, to build test modules against.
grep -qx 'CONFIG_MODULES=y' "$obj/.config" && targets="$targets modules"
kmake -j"$(nproc)" $targets
echo "build-kernel: $obj/$image built in $(( $(date +%s) - start ))s" >&2
