#!/bin/bash
# lib/test_xarray.c in userspace: tools/testing/radix-tree's xarray,
# built from the kernel tree's lib/xarray.c and lib/test_xarray.c (the
# series' check_find_after_sibling() of patch 1 included: xas_find()
# stepping back below its start from a sibling entry, which
# filemap_map_pages() must skip), with XA_CHUNK_SHIFT 3 (the harness's
# default) and 6 (the kernel's).  Built in a directory of its own, the
# tree's sources linked, so the tree stays clean.
# Usage: xarray.sh [KERNEL_TREE]
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=$(cd "${1:-$repo/build/src}" 2> /dev/null && pwd)
. "$repo/tests/lib/host-tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$tree" ] || ! grep -q check_find_after_sibling "$tree/lib/test_xarray.c" 2> /dev/null; then
	nok "kernel tree with the series (lib/test_xarray.c's check_find_after_sibling) at ${1:-$repo/build/src}"
	echo "$pass passed, $fail failed, $skip skipped"
	exit 1
fi
mkdir -p "$tmp/tools/testing" "$tmp/lib"
ln -s "$tree/include" "$tmp/"
ln -s "$tree/lib/"* "$tmp/lib/"
ln -s "$tree/tools/include" "$tree/tools/lib" "$tmp/tools/"
ln -s "$tree/tools/testing/shared" "$tmp/tools/testing/"
# run SHIFT: build the harness with XA_CHUNK_SHIFT SHIFT and print its
# result line ("XArray: N of M tests passed").
run() {
	local d=$tmp/tools/testing/radix-tree-$1
	rm -rf "$d"
	cp -r "$tree/tools/testing/radix-tree" "$d"
	# The harness's relative paths (../shared, ../../../lib) from a
	# directory named radix-tree.
	ln -sfn "radix-tree-$1" "$tmp/tools/testing/radix-tree"
	make -s -C "$tmp/tools/testing/radix-tree/" SHIFT="$1" xarray > "$tmp/build-$1.log" 2>&1 ||
		{ echo "build failed: $(tail -1 "$tmp/build-$1.log")"; return; }
	"$d/xarray" 2>&1 | tail -1
}
for shift in 3 6; do
	out=$(run $shift)
	case "$out" in
	"XArray: "*" tests passed")
		set -- $out
		[ "$2" = "$4" ] && ok "lib/test_xarray.c, XA_CHUNK_SHIFT $shift: $2 of $4 checks pass" ||
			nok "lib/test_xarray.c, XA_CHUNK_SHIFT $shift: $out" ;;
	*) nok "lib/test_xarray.c, XA_CHUNK_SHIFT $shift: no result line ('$out')" ;;
	esac
done
# Control: the same check asserting that xas_find() does not step back
# (that the entry it returns is the start's) must fail in this XArray.
rm "$tmp/lib/test_xarray.c"
sed 's/xa_mk_index(1UL << XA_CHUNK_SHIFT));$/xa_mk_index(start));/' \
	"$tree/lib/test_xarray.c" > "$tmp/lib/test_xarray.c"
out=$(run 6)
# The harness's XA_BUG_ON() is an assert().
case "$out" in
*"check_find_after_sibling: Assertion"*)
	ok "control: asserting that xas_find() does not step back fails at test_xarray.c:${out##*test_xarray.c:}" ;;
*) nok "control: asserting that xas_find() does not step back fails (got '$out')" ;;
esac
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
