#!/bin/bash
# checkpatch-series.sh TREE OUTDIR
#
# Write the series as "git format-patch" files into OUTDIR and run the
# tree's scripts/checkpatch.pl --strict on each: a patch passes only with
# 0 errors, 0 warnings and 0 checks (but for lib/test_xarray.c's
# XA_BUG_ON(), which checkpatch takes for BUG_ON()).  Then write them again as they are
# posted, one directory per series of series/SERIES (OUTDIR/fixes,
# OUTDIR/exec-folio), each numbered from 1 with its subject prefix and a
# cover letter from series/covers/NAME ("%figures FILE" lines replaced
# by FILE's headings, "Measured" paragraphs and tables).  One check is left out: the commit
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
	full=$(cd "$tree" && perl scripts/checkpatch.pl --strict --show-types --ignore UNKNOWN_COMMIT_ID "$p" 2>&1)
	res=$(echo "$full" | grep -E '^total: ')
	# lib/test_xarray.c asserts with XA_BUG_ON(), which checkpatch
	# takes for a BUG_ON() (AVOID_BUG): those warnings, and only those,
	# are allowed there.
	xa=$(echo "$full" | grep -A1 '^WARNING:AVOID_BUG:' | grep -c ': FILE: lib/test_xarray.c:')
	if echo "$res" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		echo "ok - checkpatch --strict $(basename "$p")"
		pass=$((pass + 1))
	elif [ "$xa" -gt 0 ] && echo "$res" | grep -q "^total: 0 errors, $xa warnings, 0 checks"; then
		echo "ok - checkpatch --strict $(basename "$p") (but $xa XA_BUG_ON() in lib/test_xarray.c, its own assertion)"
		pass=$((pass + 1))
	else
		echo "not ok - checkpatch --strict $(basename "$p"): $res"
		echo "$full" | grep -E '^(ERROR|WARNING|CHECK|#[0-9]+:)' | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
done

# The series as posted.
repo=$(cd "$(dirname "$0")/../.." && pwd)
base=$(git -C "$tree" rev-parse base)
# shellcheck disable=SC2207
commits=($(git -C "$tree" rev-list --reverse base..HEAD))
total=${#commits[@]}
covered=0
while read -r name first last prefix; do
	case "$name" in ''|'#'*) continue ;; esac
	dir=$out/$name
	from=$base
	[ "$first" -gt 1 ] && from=${commits[first - 2]}
	to=${commits[last - 1]:-}
	cover=$repo/series/covers/$name
	if [ -z "$to" ] || [ ! -f "$cover" ] ||
	   ! git -C "$tree" -c user.name="exec-folio developers" \
		-c user.email="exec-folio@users.noreply.example" \
		format-patch -q --cover-letter --subject-prefix="$prefix" \
		-o "$dir" "$from..$to" > /dev/null 2>&1 ||
	   ! python3 - "$dir/0000-cover-letter.patch" "$cover" "$repo" <<'PY'
import os, re, sys
letter, cover, repo = sys.argv[1:]
subject, _, body = open(cover).read().partition('\n\n')
def figures(path):
    # The headings, "Measured" paragraphs and tables of a bench/ file.
    text = open(os.path.join(repo, path)).read()
    paras = re.split(r'\n\s*\n', text)
    keep = [p for p in paras
            if p.startswith('Measured') or p.startswith('#') or p.lstrip().startswith('|')]
    return '\n\n'.join([f'From {path}:'] + keep)
body = re.sub(r'^%figures (\S+)$', lambda m: figures(m.group(1)), body, flags=re.M)
s = open(letter).read()
if '*** SUBJECT HERE ***' not in s or '*** BLURB HERE ***' not in s:
    sys.exit(1)
s = s.replace('*** SUBJECT HERE ***', subject.strip()).replace('*** BLURB HERE ***', body.rstrip())
open(letter, 'w').write(s)
PY
	then
		echo "not ok - series $name ($first-$last) written with its cover letter"
		fail=$((fail + 1))
		continue
	fi
	n=$(ls "$dir" | grep -vc '^0000-cover-letter')
	if [ "$n" = $((last - first + 1)) ] && ! grep -q '\*\*\*' "$dir/0000-cover-letter.patch"; then
		echo "ok - series $name: $n patches and a cover letter in $dir"
		pass=$((pass + 1))
	else
		echo "not ok - series $name: $n patches (want $((last - first + 1))), cover letter filled in"
		fail=$((fail + 1))
	fi
	covered=$((covered + n))
done < "$repo/series/SERIES"
[ "$covered" = "$total" ] && { echo "ok - series/SERIES covers all $total patches"; pass=$((pass + 1)); } ||
	{ echo "not ok - series/SERIES covers $covered of $total patches"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
