#!/bin/bash
# export.sh TREE
#
# The reverse of make-tree.sh, for developers: take the commits on top of
# the "base" tag in the kernel git tree TREE and write them back into this
# repository as series/NNNN-slug/{message,upstream.diff,files} plus the new
# files at their kernel paths.  A new file must be added whole by exactly
# one commit; a later commit that edits it is refused, so each file in the
# repository is the version its patch adds.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?usage: export.sh TREE}
g() { git -C "$tree" "$@"; }

declare -A owner=()
rm -rf "$repo"/series/[0-9][0-9][0-9][0-9]-*
: > "$repo/series/MANIFEST.new"
echo "# Patches in order, one directory each; make-tree.sh applies them." >> "$repo/series/MANIFEST.new"
n=0
for c in $(g rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subj=$(g log -1 --format=%s "$c")
	# lower case, words joined by '-', cut at a word boundary
	slug=$(python3 -c 'import re,sys
w = re.findall("[a-z0-9]+", sys.argv[1].lower()); s = ""
for x in w:
    if len(s) + len(x) + 1 > 52: break
    s = (s + "-" + x) if s else x
print(s)' "$subj")
	d=$(printf '%04d-%s' "$n" "$slug")
	mkdir -p "$repo/series/$d"
	g log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$repo/series/$d/message"
	added=$(g diff-tree -r --no-commit-id --diff-filter=A --name-only "$c")
	changed=$(g diff-tree -r --no-commit-id --diff-filter=MDR --name-only "$c")
	for f in $changed; do
		if [ -n "${owner[$f]:-}" ]; then
			echo "export: $d edits $f, added by ${owner[$f]}: fold the change into that patch" >&2
			exit 1
		fi
	done
	if [ -n "$changed" ]; then
		g diff --no-color --full-index "$c^" "$c" -- $changed > "$repo/series/$d/upstream.diff"
	fi
	if [ -n "$added" ]; then
		for f in $added; do
			owner[$f]=$d
			mkdir -p "$repo/$(dirname "$f")"
			g show "$c:$f" > "$repo/$f"
			echo "$f"
		done > "$repo/series/$d/files"
	fi
	echo "$d" >> "$repo/series/MANIFEST.new"
done
mv "$repo/series/MANIFEST.new" "$repo/series/MANIFEST"
# The tree now matches the repository: make-tree.sh may reuse it.
git -C "$tree" rev-parse HEAD > "$tree/.git/exec-folio-head"
echo "export: $n patches" >&2
