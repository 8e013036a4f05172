#!/bin/bash
# build-guest-progs.sh TREE OUTDIR
#
# Build, statically, the programs the guest runs: the kselftest from the
# kernel TREE (it uses the harness headers there and the folio walk of
# tools/exec_folio_ctl), and its helpers bigtext, bigtext-2m, hugetext,
# tinytext; the stress programs (checktext, exec_stress, file_stress,
# fault_around_split, eof_race, punch_edge).
# With CROSS_COMPILE=aarch64-linux-gnu- they are built for the arm64
# guests.
set -euo pipefail
tree=$1 out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
cc=${CROSS_COMPILE:-}gcc
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -z separate-code: the ELF headers in a segment of their own, not in the
# first block of the text (the x86_64 default; arm64's is the other way).
# The loader reads the headers before any fault, so a text block that
# holds them can never become one large folio.
ld_text=-Wl,-z,separate-code
# The selftest's helpers, from its sources in the kernel tree (the same
# rules as in tools/testing/selftests/mm/Makefile).
st=$tree/tools/testing/selftests/mm
$cc -O2 -static $ld_text -DTEXT_KIB=2560 -o "$out/bigtext" \
	"$st/exec_folio_bigtext.c" "$st/exec_folio_text.S"
# Text 2M aligned in the file and in memory: can be PMD-mapped.
$cc -O2 -static $ld_text -Wl,-z,max-page-size=0x200000 -DTEXT_KIB=2560 \
	-o "$out/bigtext-2m" "$st/exec_folio_bigtext.c" "$st/exec_folio_text.S"
# 10M of text: a text VMA of several whole 2M blocks, for the 2M folios
# (one contpte block) that arm64 prefers with 16K and 64K pages.
$cc -O2 -static $ld_text -Wl,-z,max-page-size=0x200000 -DTEXT_KIB=10240 \
	-o "$out/hugetext" "$st/exec_folio_bigtext.c" "$st/exec_folio_text.S"
# The ELF headers in the first text block (-z noseparate-code, the
# aarch64 default): execve()'s reads must not leave it in small folios.
$cc -O2 -static -Wl,-z,noseparate-code -DTEXT_KIB=2560 -o "$out/bigtext-nosep" \
	"$st/exec_folio_bigtext.c" "$st/exec_folio_text.S"
$cc -O2 -static -nostdlib -fno-stack-protector -o "$out/tinytext" \
	"$st/exec_folio_tinytext.c"
$cc -O2 -static -Wall -o "$out/exec_folio_test" \
	"$tree/tools/testing/selftests/mm/exec_folio_test.c" \
	"$tree/tools/exec_folio_ctl/folio_walk.c" \
	"$tree/tools/exec_folio_ctl/policy.c" \
	"$tree/tools/exec_folio_ctl/proc_smaps.c"
# The stress tests (tests/guest/stress.sh, memcg.sh, faultinject.sh):
# checktext checks its own text when exec'd (2.5M of text; 4M 2M-aligned
# for PMD mappings), checktext-bad has one flipped bit in every page of
# its pattern (the exec stress must catch it), and the drivers.
python3 "$here/progs/gen-checktext.py" 2560 "$tmp/ct.S" "$tmp/ct.bin"
ct_cflags="-O2 -static -nostdlib -fno-stack-protector -fno-builtin -Wall $ld_text"
$cc $ct_cflags -o "$out/checktext" "$here/progs/checktext.c" "$tmp/ct.S"
python3 "$here/progs/gen-checktext.py" 4096 "$tmp/ct2m.S" "$tmp/ct2m.bin"
$cc $ct_cflags -Wl,-z,max-page-size=0x200000 \
	-o "$out/checktext-2m" "$here/progs/checktext.c" "$tmp/ct2m.S"
python3 - "$out/checktext" "$tmp/ct.bin" "$out/checktext-bad" <<'PY'
import sys
data, blob = bytearray(open(sys.argv[1], 'rb').read()), open(sys.argv[2], 'rb').read()
for i in range(len(blob) // 4096):
    pos = data.find(blob[i * 4096 + 1024:i * 4096 + 1056])
    assert pos > 0, i
    data[pos + 5] ^= 0x10
open(sys.argv[3], 'wb').write(data)
PY
chmod 0755 "$out/checktext-bad"
$cc -O2 -static -Wall -o "$out/exec_stress" "$here/progs/exec_stress.c"
$cc -O2 -static -Wall -pthread -o "$out/file_stress" "$here/progs/file_stress.c"
# Fault-around racing with the split of the large folio it starts in.
$cc -O2 -static -Wall -Wextra -pthread -o "$out/fault_around_split" \
	"$here/progs/fault_around_split.c"
# A fault-around that read i_size before a truncation.
$cc -O2 -static -Wall -Wextra -pthread -o "$out/eof_race" "$here/progs/eof_race.c"
# Reads outside a hole being punched in a large folio (tests/guest/punchedge.sh).
$cc -O2 -static -Wall -Wextra -pthread -o "$out/punch_edge" "$here/progs/punch_edge.c"
# The interpreter of tests/guest/execfd.sh's binfmt_misc entry.
$cc -O2 -static -Wall -o "$out/execfd_reader" "$here/progs/execfd_reader.c"
# What the policy costs where it is not meant to help (tests/guest/cost.sh).
$cc -O2 -static -Wall -I"$tree/tools/exec_folio_ctl" -o "$out/exec_cost" \
	"$here/progs/exec_cost.c" "$tree/tools/exec_folio_ctl/folio_walk.c"
install -m 0755 "$here/guest/cost.sh" "$out/"
install -m 0755 "$here/guest/stress.sh" "$here/guest/stress-lib.sh" "$here/guest/memcg.sh" \
	"$here/guest/faultinject.sh" "$here/guest/eofrace.sh" "$here/guest/punchedge.sh" "$out/"

# A dynamically linked bigtext with the loader and libc it needs, so the
# guest can measure text that the dynamic loader read()s (tests/guest/dynlib.sh).
if [ -z "${CROSS_COMPILE:-}" ]; then
	$cc -O2 -DTEXT_KIB=2560 -o "$out/bigtext-dyn" "$st/exec_folio_bigtext.c" \
		"$st/exec_folio_text.S"
	mkdir -p "$out/lib"
	cp -L /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6 "$out/lib/"
	install -m 0755 "$here/guest/dynlib.sh" "$out/dynlib.sh"
	# The same PIE without libc, for x86_64 and as a 32-bit (compat)
	# program: only 64-bit programs are placed (tests/guest/compat.sh).
	for m in 64:nolibc-pie 32:compat-pie; do
		$cc -m${m%%:*} -O2 -nostdlib -fPIE -pie -Wl,--no-dynamic-linker \
			-fno-stack-protector -DTEXT_KIB=512 -o "$out/${m#*:}" \
			"$here/progs/nolibc_pie.c" "$st/exec_folio_text.S"
	done
	install -m 0755 "$here/guest/compat.sh" "$out/"
fi

# PIEs as distributions link them (default max-page-size: p_align 4K on
# x86_64, 64K on arm64), dynamically linked, run in a chroot that holds
# the loader and libc at their usual paths (tests/guest/place.sh): with
# 6M of text, whole 2M blocks the kernel must place the text for.
# aslr_probe prints where the program, ld.so and libc were loaded.
pie=$out/pieroot
rm -rf "$pie"
mkdir -p "$pie/bin"
$cc -O2 -fPIE -pie -DTEXT_KIB=6144 -o "$pie/bin/bigtext-pie" \
	"$st/exec_folio_bigtext.c" "$st/exec_folio_text.S"
$cc -O2 -Wall -Wextra -Werror -fPIE -pie -DTEXT_KIB=6144 -I"$st" \
	-o "$pie/bin/aslr_probe" "$here/progs/aslr_probe.c" "$st/exec_folio_text.S"
if [ -n "${CROSS_COMPILE:-}" ]; then
	sysroot=/usr/${CROSS_COMPILE%-}
	interp=/lib/ld-linux-aarch64.so.1 libdir=/lib/aarch64-linux-gnu
	mkdir -p "$pie/lib" "$pie$libdir"
	cp -L "$sysroot/lib/ld-linux-aarch64.so.1" "$pie$interp"
	cp -L "$sysroot/lib/libc.so.6" "$pie$libdir/"
else
	interp=/lib64/ld-linux-x86-64.so.2 libdir=/lib/x86_64-linux-gnu
	mkdir -p "$pie/lib64" "$pie$libdir"
	cp -L "$interp" "$pie$interp"
	cp -L "$libdir/libc.so.6" "$pie$libdir/"
fi
for f in "$pie/bin/"*; do
	[ "$(readelf -lW "$f" | sed -n 's/.*interpreter: \(.*\)]/\1/p')" = "$interp" ] || {
		echo "build-guest-progs: $f does not use $interp" >&2; exit 1; }
done
install -m 0755 "$here/guest/place.sh" "$out/"

# The utility, static (the guest has busybox and no libc), and its test.
# -B: the last build may have been for the other architecture.
make -B -s -C "$here/../tools/exec_folio_ctl" exec_folio_ctl.static CC="$cc"
cp "$here/../tools/exec_folio_ctl/exec_folio_ctl.static" "$out/exec_folio_ctl"
# The controls of tests/guest/oracle.sh: the utility with a deliberate
# error in its folio walk (tests/controls/report-NAME.patch), installed
# as exec_folio_ctl-NAME; the oracle must tell them from the kernel.
for p in "$here"/controls/report-*.patch; do
	m=${p##*/report-}
	m=${m%.patch}
	rm -rf "$tmp/ctl-$m"
	mkdir -p "$tmp/ctl-$m/tools"
	cp -r "$here/../tools/exec_folio_ctl" "$tmp/ctl-$m/tools/"
	patch -s -d "$tmp/ctl-$m" -p1 < "$p"
	make -B -s -C "$tmp/ctl-$m/tools/exec_folio_ctl" exec_folio_ctl.static CC="$cc"
	cp "$tmp/ctl-$m/tools/exec_folio_ctl/exec_folio_ctl.static" "$out/exec_folio_ctl-$m"
done
install -m 0755 "$here/guest/utility.sh" "$here/guest/lib.sh" "$here/guest/overlay.sh" "$here/guest/oracle.sh" \
	"$here/guest/stock.sh" "$here/guest/execfd.sh" "$out/"
