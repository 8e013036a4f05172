#!/bin/bash
# build-guest-progs.sh TREE OUTDIR
#
# Build, statically, the programs the guest runs: the kselftest from the
# kernel TREE (it uses the harness headers there and the folio walk of
# tools/exec_folio_ctl), and its helpers bigtext, bigtext-2m, tinytext.
set -euo pipefail
tree=$1 out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
cc=${CROSS_COMPILE:-}gcc
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$here/progs/gen-text.py" 2560 > "$tmp/text.S"
$cc -O2 -static -o "$out/bigtext" "$here/progs/bigtext.c" "$tmp/text.S"
# Text 2M aligned in the file and in memory: can be PMD-mapped.
$cc -O2 -static -Wl,-z,max-page-size=0x200000 \
	-o "$out/bigtext-2m" "$here/progs/bigtext.c" "$tmp/text.S"
$cc -O2 -static -nostdlib -fno-stack-protector -o "$out/tinytext" \
	"$here/progs/tinytext.c"
$cc -O2 -static -Wall -o "$out/exec_folio_test" \
	"$tree/tools/testing/selftests/mm/exec_folio_test.c" \
	"$tree/tools/exec_folio_ctl/folio_walk.c" \
	"$tree/tools/exec_folio_ctl/policy.c" \
	"$tree/tools/exec_folio_ctl/proc_smaps.c"
# A dynamically linked bigtext with the loader and libc it needs, so the
# guest can measure text that the dynamic loader read()s (tests/guest/dynlib.sh).
if [ -z "${CROSS_COMPILE:-}" ]; then
	$cc -O2 -o "$out/bigtext-dyn" "$here/progs/bigtext.c" "$tmp/text.S"
	mkdir -p "$out/lib"
	cp -L /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6 "$out/lib/"
	install -m 0755 "$here/guest/dynlib.sh" "$out/dynlib.sh"
fi

# The utility, static (the guest has busybox and no libc), and its test.
make -s -C "$here/../tools/exec_folio_ctl" exec_folio_ctl.static CC="$cc"
cp "$here/../tools/exec_folio_ctl/exec_folio_ctl.static" "$out/exec_folio_ctl"
install -m 0755 "$here/guest/utility.sh" "$here/guest/lib.sh" "$out/"
