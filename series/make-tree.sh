#!/bin/bash
# make-tree.sh OUTDIR [--stock]
#
# Turn this repository into a kernel git tree: Debian's linux-source-6.12
# is the base commit, then every patch listed in series/MANIFEST becomes
# one commit (its message, its edits to upstream files, the new files it
# owns copied from their kernel paths in this repository).
#
# The tree is reused when it exists: the base is only extracted once and
# re-applying the series touches only the files the series changes, so
# an incremental kernel build stays incremental.  --stock leaves the tree
# at the unpatched base (for the comparison kernel).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: make-tree.sh OUTDIR [--stock]}
stock=${2:-}
tarball=/usr/src/linux-source-6.12.tar.xz
ident=(-c user.name="exec-folio developers" -c user.email="exec-folio@users.noreply.example"
       -c commit.gpgsign=false -c core.autocrlf=false)

if [ ! -f "$tarball" ]; then
	echo "make-tree: installing linux-source-6.12" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.12 >&2
fi
version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
echo "make-tree: base is Debian linux-source-6.12 $version" >&2

# Stamp of everything that decides the tree's content.
stamp=$( {
	echo "$version $stock"
	cd "$repo"
	find series -type f | sort | xargs sha1sum
	for d in $(grep -v '^#' series/MANIFEST); do
		[ -f "series/$d/files" ] && sed 's/#.*//' "series/$d/files" | xargs -r sha1sum
	done
	} | sha1sum | cut -d' ' -f1)
# A negative control of tests/run.sh that was cut short can leave the
# tree with a patch reverted in its work tree (it marks the tree while it
# does): put it back (only the files that differ are rewritten).  Any
# other change is a developer's, kept by the check below.
if [ -f "$out/.git/exec-folio-control" ]; then
	echo "make-tree: $out has a negative control's revert left in it; undoing it" >&2
	git -C "$out" revert --quit 2>/dev/null || true
	git -C "$out" reset -q --hard HEAD
	rm -f "$out/.git/exec-folio-control"
fi
if [ -f "$out/.git/exec-folio-stamp" ] && [ "$(cat "$out/.git/exec-folio-stamp")" = "$stamp" ]; then
	echo "make-tree: $out is up to date" >&2
	exit 0
fi

git_out() { git -C "$out" "${ident[@]}" "$@"; }

if [ ! -d "$out/.git" ] || ! git -C "$out" rev-parse -q --verify refs/tags/base >/dev/null; then
	rm -rf "$out"
	mkdir -p "$out"
	echo "make-tree: extracting $tarball" >&2
	tar -C "$out" --strip-components=1 -xf "$tarball"
	git -C "$out" init -q -b base-branch
	git_out add -A -f
	# Fixed dates: the same series always gives the same commit ids.
	GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
		git_out commit -q -m "Linux 6.12 (Debian linux-source-6.12 $version)"
	git_out tag base
fi

# Never throw away a developer's work: commits or edits made in the tree
# since it was last made or exported must be exported first.
if [ -f "$out/.git/exec-folio-head" ]; then
	if [ "$(git -C "$out" rev-parse HEAD)" != "$(cat "$out/.git/exec-folio-head")" ] ||
	   [ -n "$(git -C "$out" status --porcelain --untracked-files=no)" ]; then
		echo "make-tree: $out has changes not in the series; run series/export.sh $out first" >&2
		exit 1
	fi
fi

# Remember the files the old series touched: those it leaves as they were
# get their old mtimes back below, so make does not rebuild them.
keep=$(mktemp)
trap 'rm -f "$keep"' EXIT
(cd "$out" && git diff --name-only base HEAD -- | while read -r f; do
	[ -f "$f" ] && echo "$(sha1sum < "$f" | cut -c1-40) $(stat -c %Y "$f") $f"
done) > "$keep"

git_out checkout -q -f --detach base
git_out clean -fdxq
git_out checkout -q -B exec-folio base

if [ "$stock" != "--stock" ]; then
	n=0
	for d in $(grep -v '^#' "$repo/series/MANIFEST"); do
		n=$((n + 1))
		p="$repo/series/$d"
		[ -f "$p/message" ] || { echo "make-tree: $d has no message" >&2; exit 1; }
		if [ -s "$p/upstream.diff" ]; then
			git_out apply --index --whitespace=error-all "$p/upstream.diff" ||
				{ echo "make-tree: $d: upstream.diff does not apply" >&2; exit 1; }
		fi
		if [ -f "$p/files" ]; then
			for f in $(sed 's/#.*//' "$p/files"); do
				mkdir -p "$out/$(dirname "$f")"
				cp "$repo/$f" "$out/$f"
				git_out add -f "$f"
			done
		fi
		# A port of someone else's patch says "From: Name <mail>" on the
		# line after its subject, as "git format-patch" would: its author.
		author=$(sed -n '3s/^From: \(.* <.*@.*>\)$/\1/p' "$p/message")
		GIT_AUTHOR_DATE="2025-01-01T00:00:$(printf %02d $n)Z" \
		GIT_COMMITTER_DATE="2025-01-01T00:00:$(printf %02d $n)Z" \
			git_out commit -q ${author:+--author="$author"} -F "$p/message"
	done
	echo "make-tree: applied $n patches" >&2
fi
while read -r sum mtime f; do
	[ -f "$out/$f" ] && [ "$(sha1sum < "$out/$f" | cut -c1-40)" = "$sum" ] &&
		touch -d "@$mtime" "$out/$f"
done < "$keep"
echo "$stamp" > "$out/.git/exec-folio-stamp"
git -C "$out" rev-parse HEAD > "$out/.git/exec-folio-head"
