#!/bin/bash
# checkpatch-series.sh TREE OUTDIR
#
# Write the series as "git format-patch" files into OUTDIR and run the
# tree's scripts/checkpatch.pl --strict on each: a patch passes only with
# 0 errors, 0 warnings and 0 checks.  One check is left out: the commit
# ids of the upstream commits that patches backport are unknown to this
# tree, which holds Debian's source and not mainline's history
# (UNKNOWN_COMMIT_ID); their form is still checked.
set -uo pipefail
# checkpatch runs scripts/spdxcheck.py with python3 from PATH: Debian's,
# which has python3-ply.
export PATH=/usr/bin:$PATH
tree=$1
rm -rf "$2"
mkdir -p "$2"
out=$(cd "$2" && pwd)
git -C "$tree" format-patch -q -o "$out" base..HEAD || { echo "0 passed, 1 failed"; exit 1; }
pass=0 fail=0
for p in "$out"/*.patch; do
	full=$(cd "$tree" && perl scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID "$p" 2>&1)
	res=$(echo "$full" | grep -E '^total: ')
	if echo "$res" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		echo "ok - checkpatch --strict $(basename "$p")"
		pass=$((pass + 1))
	else
		echo "not ok - checkpatch --strict $(basename "$p"): $res"
		echo "$full" | grep -E '^(ERROR|WARNING|CHECK|#[0-9]+:)' | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
