#!/bin/bash
# kernel-deb.sh SRC OBJ OUTDIR
#
# Debian packages of the kernel with the series: "make bindeb-pkg" in the
# configured and built object directory OBJ (tests/lib/build-kernel.sh
# made it), with ccache.  The .deb files (linux-image, linux-headers,
# linux-libc-dev) land in OBJ's parent directory by kbuild's convention;
# they are moved to OUTDIR.  "make deb" runs it with the small test
# configuration.  To package the series with Debian's own configuration
# instead (README.md explains; the config comes from linux-config-6.12):
#
#   apt-get install linux-config-6.12 dwarves
#   make tree
#   mkdir -p build/obj-deb
#   xzcat /usr/src/linux-config-6.12/config.amd64_none_amd64.xz > build/obj-deb/.config
#   make -C build/src O=$PWD/build/obj-deb olddefconfig
#   tests/lib/kernel-deb.sh build/src build/obj-deb build/deb
#
# A config from /boot/config-* that names Debian's certificates needs
#   build/src/scripts/config --file build/obj-deb/.config \
#       --set-str SYSTEM_TRUSTED_KEYS '' --set-str SYSTEM_REVOCATION_KEYS ''
# before olddefconfig.
set -euo pipefail
src=$(cd "$1" && pwd) obj=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/exec-folio-ccache}
export CCACHE_BASEDIR=$(cd "$src/.." && pwd) CCACHE_NOHASHDIR=1
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"
[ -f "$obj/.config" ] || { echo "kernel-deb: $obj has no .config" >&2; exit 1; }
parent=$(dirname "$obj")
rm -f "$parent"/linux-*.deb "$parent"/linux-upstream_*
make -s -C "$src" O="$obj" CC="$cc" HOSTCC="$cc" -j"$(nproc)" \
	KDEB_PKGVERSION="$(make -s -C "$src" kernelversion)-exec-folio-1" bindeb-pkg
mv "$parent"/linux-*.deb "$out/"
rm -f "$parent"/linux-upstream_*
ls "$out"/linux-image-*.deb
