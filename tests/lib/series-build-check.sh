#!/bin/bash
# series-build-check.sh TREE WORKDIR
#
# Each patch of the series builds on its own, and the whole series builds
# with the feature off.  For x86_64, in a worktree of the kernel git tree
# TREE (the series as commits on top of the "base" tag), with ccache:
#
#  - every prefix of the series compiles the objects its last patch adds
#    or changes (warnings are errors), with the feature on;
#  - the whole series compiles the objects the series touches with
#    CONFIG_EXEC_FOLIO_POLICY=n, and with CONFIG_TRANSPARENT_HUGEPAGE=n
#    (which also turns the policy off).  Compiling is enough: every hook
#    outside the policy's own files has a stub, and a missing one fails
#    to compile.
#
# The configuration is tinyconfig plus tests/config/build-check.config
# (no debug options: this checks that code compiles, not how it runs).
# Prints "ok - ..." lines and "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=$(cd "$1" && pwd)
mkdir -p "$2"
work=$(cd "$2" && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/exec-folio-ccache}
export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); tail -15 "$2" | sed 's/^/#   /'; }

src=$work/src
# A worktree of another tree (or of an older one) is made again.
if [ -e "$src/.git" ] && ! git -C "$src" cat-file -e "$(git -C "$tree" rev-parse HEAD)^{commit}" 2> /dev/null; then
	rm -rf "$src"
fi
if [ ! -e "$src/.git" ]; then
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$src" base || exit 1
fi
g() { git -C "$src" "$@"; }
kmake() { make -s -C "$src" O="$1" ARCH=x86_64 CC="$cc" HOSTCC="$cc" "${@:2}"; }

# configure OBJ EXTRA-LINES: tinyconfig + the fragment + EXTRA-LINES.
configure() {
	local obj=$1 frag
	frag=$(mktemp)
	cat "$repo/tests/config/build-check.config" > "$frag"
	printf '%s\n' "${@:2}" >> "$frag"
	mkdir -p "$obj"
	kmake "$obj" tinyconfig > /dev/null &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" > /dev/null &&
		kmake "$obj" olddefconfig > /dev/null
	local rc=$?
	rm -f "$frag"
	return $rc
}

# The C files a range of commits adds or changes, as objects (not the
# utility, the selftest or the KUnit files, which are #included).
objects() {
	git -C "$tree" diff --name-only --diff-filter=AM "$@" -- '*.c' |
		grep -v -e '^tools/' -e '_kunit\.c$' | sed 's/\.c$/.o/'
}

# built OBJDIR OBJ...: the objects that OBJDIR's configuration builds
# (an object listed as obj-$(CONFIG_FOO) in its Makefile with FOO off is
# left out: compiling it by hand would test nothing real).
built() {
	local obj=$1 o dir base line sym
	shift
	for o in "$@"; do
		dir=$(dirname "$o") base=$(basename "$o")
		line=$(grep -hE "(^|[[:space:]])$base([[:space:]]|\\|\$)" "$src/$dir/Makefile" 2>/dev/null | head -1)
		sym=$(echo "$line" | sed -n 's/.*obj-\$(\(CONFIG_[A-Z0-9_]*\)).*/\1/p')
		if [ -n "$sym" ] && ! grep -q "^$sym=y" "$obj/.config"; then
			continue
		fi
		echo "$o"
	done
}

# A compiler warning in a build log (not Kconfig's override notes).
warned() { grep -qE '\.[chS]:[0-9]+(:[0-9]+)?: warning:' "$1"; }

# Each prefix, with the feature on.
obj=$work/obj-on
commits=$(git -C "$tree" rev-list --reverse base..HEAD)
n=0
for c in $commits; do
	n=$((n + 1))
	subj=$(git -C "$tree" log -1 --format=%s "$c")
	objs=$(objects "$c^" "$c")
	[ -n "$objs" ] || { ok "patch $n compiles (no C files: $subj)"; continue; }
	g checkout -q --detach "$c" || { nok "patch $n: checkout" /dev/null; continue; }
	log=$work/patch-$n.log
	if configure "$obj" > "$log.config" 2>&1 &&
	   kmake "$obj" -j"$(nproc)" $objs > "$log" 2>&1 && ! warned "$log"; then
		ok "patch $n compiles on its own ($(echo $objs | wc -w) objects: $subj)"
	else
		nok "patch $n compiles on its own ($subj)" "$log"
	fi
done

# The whole series with the feature off: compile what it touches, but
# the policy's own files, which are not built then.
all=$(objects base HEAD | grep -v '^mm/exec_folio')
g checkout -q --detach "$(git -C "$tree" rev-parse HEAD)"
for off in "CONFIG_EXEC_FOLIO_POLICY=n" "CONFIG_TRANSPARENT_HUGEPAGE=n"; do
	name=${off#CONFIG_}
	name=${name%=n}
	obj=$work/obj-${name,,}
	log=$work/${name,,}.log
	if configure "$obj" "# ${off%=n} is not set" > "$log.config" 2>&1 &&
	   ! grep -q "^${off%=n}=y" "$obj/.config" &&
	   objs=$(built "$obj" $all) &&
	   kmake "$obj" -j"$(nproc)" $objs > "$log" 2>&1 && ! warned "$log"; then
		ok "the series compiles with ${off} ($(echo $objs | wc -w) objects)"
	else
		nok "the series compiles with ${off}" "$log"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
