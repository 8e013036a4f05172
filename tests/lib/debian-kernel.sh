#!/bin/bash
# debian-kernel.sh OUTDIR
#
# Debian's own x86_64 kernel of the same version as the linux-source-6.12
# the series applies to (the cloud-amd64 flavour, 34 MB), for the stock
# comparison: it is 6.12 without this series, built the way users get
# it.  Writes OUTDIR/vmlinuz and OUTDIR/modules/ (the modules the test
# guest needs to mount its XFS disk and overlayfs, decompressed for
# busybox insmod, with "order" naming them in load order).  The package
# is downloaded with apt-get (no cache of ours is needed); a version
# mismatch or a missing module fails.
set -euo pipefail
out=${1:?usage: debian-kernel.sh OUTDIR}
version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
# Already there for this version: no need of the archive (which keeps
# only the current point release).
if [ -f "$out/stamp" ] && [ "$(cut -d' ' -f2 "$out/stamp")" = "$version" ] &&
   [ -f "$out/vmlinuz" ] && [ -f "$out/modules/order" ]; then
	echo "debian-kernel: $out has $(cat "$out/stamp")" >&2
	exit 0
fi
# The flavour's image package of exactly that version.
pkg=
for p in $(apt-cache search --names-only '^linux-image-6\.12\..*-cloud-amd64-unsigned$' | cut -d' ' -f1); do
	# No grep -q: under pipefail, apt-cache killed by SIGPIPE would fail it.
	if apt-cache show "$p" 2> /dev/null | grep -x "Version: $version" > /dev/null; then
		pkg=$p
		break
	fi
done
if [ -z "$pkg" ]; then
	echo "debian-kernel: no linux-image-*-cloud-amd64-unsigned of version $version in the archive" >&2
	exit 1
fi
stamp="$pkg $version"
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ]; then
	echo "debian-kernel: $out has $stamp" >&2
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/deb" "$out/modules"
(cd "$out/deb" && apt-get download -q "$pkg=$version" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
deb=$(ls "$out"/deb/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "debian-kernel: download of $pkg failed" >&2; exit 1; }
dpkg-deb -x "$deb" "$out/x"
cp "$out"/x/boot/vmlinuz-* "$out/vmlinuz"
# xfs needs libcrc32c; virtio_blk's virtio core and overlayfs's
# dependencies are built in (checked with modinfo below).
for m in lib/libcrc32c drivers/block/virtio_blk fs/xfs/xfs fs/overlayfs/overlay; do
	f=$(ls "$out"/x/lib/modules/*/kernel/$m.ko.xz)
	name=$(basename "$m").ko
	deps=$(modinfo -F depends "$f")
	case "$name:$deps" in
	libcrc32c.ko:|virtio_blk.ko:|xfs.ko:libcrc32c|overlay.ko:) ;;
	*) echo "debian-kernel: $name depends on '$deps', not handled" >&2; exit 1 ;;
	esac
	xz -dc "$f" > "$out/modules/$name"
	echo "$name" >> "$out/modules/order"
done
rm -rf "$out/x" "$out/deb"
echo "$stamp" > "$out/stamp"
echo "debian-kernel: $stamp in $out" >&2
