#!/bin/bash
# arm64-compile-check.sh TREE OBJDIR [SIZE...]
#
# The series touches arm64 (its exec_folio_order()) and code whose
# constants depend on the page size.  For the page sizes (4k, 16k, 64k;
# default all three) whose arm64 guest a test run does not build and
# boot, at least compile every object the series adds or changes with
# the arm64 cross compiler: a minute each, not the ten a whole kernel
# takes.  Prints "ok - ..." lines and "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=$(cd "$1" && pwd)
mkdir -p "$2"
obj=$(cd "$2" && pwd)
shift 2
sizes=${*:-4k 16k 64k}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/exec-folio-ccache}
export CCACHE_BASEDIR=$(cd "$tree/.." && pwd) CCACHE_NOHASHDIR=1
cross=aarch64-linux-gnu-
cc="${cross}gcc"
command -v ccache > /dev/null && cc="ccache ${cross}gcc"
# Every C file the series adds or changes, as objects.
objs=$(git -C "$tree" diff --name-only base HEAD -- '*.c' |
       grep -v -e '^tools/' -e '_kunit\.c$' | sed 's/\.c$/.o/')
pass=0 fail=0
for ps in $sizes; do
	ps=${ps^^}
	frag=$(mktemp)
	cat "$repo/tests/config/arm64.config" "$repo/tests/config/arm64-${ps,,}.config" > "$frag"
	amake() { make -s -C "$tree" O="$obj/$ps" ARCH=arm64 CROSS_COMPILE="$cross" CC="$cc" "$@"; }
	mkdir -p "$obj/$ps"
	if amake tinyconfig > /dev/null &&
	   "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj/$ps" "$obj/$ps/.config" "$frag" > /dev/null &&
	   amake olddefconfig > /dev/null &&
	   grep -q "^CONFIG_ARM64_${ps}_PAGES=y" "$obj/$ps/.config" &&
	   grep -q '^CONFIG_EXEC_FOLIO_POLICY=y' "$obj/$ps/.config" &&
	   amake -j"$(nproc)" $objs > "$obj/$ps.log" 2>&1 && ! grep -q 'warning:' "$obj/$ps.log"; then
		echo "ok - the series compiles for arm64 with $ps pages ($(echo $objs | wc -w) objects)"
		pass=$((pass + 1))
	else
		echo "not ok - the series compiles for arm64 with $ps pages"
		tail -20 "$obj/$ps.log" 2>/dev/null | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
	rm -f "$frag"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
