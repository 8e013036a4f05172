#!/bin/bash
# field-closure.sh [--arch x86_64|arm64] [--run ARGS] [--with PATH]... [--thpmaps TREE]
#                  OUTDIR [PROG...]
#
# Real programs for tests/guest/field.sh: copy each PROG with its whole
# library closure (ld.so, every library, through the same symlinks ld.so
# follows: /lib64/ld-linux-x86-64.so.2, /lib/x86_64-linux-gnu/...) into
# OUTDIR as a chroot tree, so that "chroot OUTDIR /usr/bin/PROG" in the
# guest maps exactly what Debian maps.  Put OUTDIR in the guest's bin
# directory (e.g. build/guest-x86_64/field): the guest's init copies it
# onto the XFS disk, where the programs' files must be.  OUTDIR also gets
# field.sh, lib.sh, field_probe (built here, static) and field.list, the
# programs and how to run them; in the guest:
#
#     sh /tests/bin/field/field.sh        (the tree: /mnt/exec-folio/field)
#
# x86_64 (the default): PROG is a program of this machine (closure from
# ldd), by default /usr/bin/python3.11 (non-PIE, 2.7 MiB of text),
# /usr/bin/cmake (PIE, 7.2 MiB) and /usr/bin/perl (PIE, 1.6 MiB), plus
# perl-embed (tests/progs/perl_embed.c: Debian's libperl.so.5.36, 3.5 MiB
# of library text; /usr/bin/perl has the interpreter linked in).
#
# arm64: Debian's arm64 packages (perl-base, libperl5.36, libc6,
# libcrypt1, and those in $FIELD_ARM64_PKGS, space-separated, for the
# libraries of other programs), fetched with "apt-get download" (cached in
# build/field-cache/arm64, fetched again when missing) and unpacked with
# dpkg-deb -x into a merged-/usr tree; the closure comes from the NEEDED
# entries (readelf).  Default programs: /usr/bin/perl, perl-embed, and
# bigtext-pie, cross-built here: a dynamically linked PIE with 6 MiB of
# text (exec_folio_bigtext.c, aarch64's default 64K max-page-size, so
# p_align 0x10000), which holds at least two whole 2M blocks.
#
# --thpmaps TREE (x86_64): also the kernel tree TREE's tools/mm/thpmaps,
# tests/lib/compare-thpmaps.py (at /usr/local/bin), Debian's numpy for
# python3.11 (python3-numpy, without its tests) and the standard library
# modules they import, and tests/guest/thpmaps.sh beside field.sh: the
# guest compares exec_folio_ctl report with thpmaps there.
#
# --with PATH: also copy PATH, a file of this machine or a directory
# and everything under it, into OUTDIR at its own absolute path (the
# input files of a program: "chroot OUTDIR PROG /abs/input" finds it).
#
# A PROG with a slash is a file: on x86_64 a program of this machine,
# copied at its own path; on arm64 a path in the Debian arm64 tree, or an
# aarch64 file of this machine, copied to /usr/local/bin.  Without a
# slash it names one of the programs built here (perl-embed,
# bigtext-pie).  python3.X, cmake, perl, perl-embed and bigtext-pie are
# known: field.sh checks their output and keeps them alive its own way
# (python3.X gets the standard library modules it imports to start, on
# x86_64).  Any other program, and the last PROG if --run is given, is
# run with ARGS (one string of shell words, as a shell would split and
# unquote it; none without --run), is not checked, and only has to start
# and settle (sleep, or stop) to be measured.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
arch=x86_64 run_args= run_set= thpmaps_tree=
withs=()
usage() { echo "usage: field-closure.sh [--arch x86_64|arm64] [--run ARGS] [--with PATH]... [--thpmaps TREE] OUTDIR [PROG...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
	--run) [ $# -ge 2 ] || usage; run_args=$2 run_set=1; shift 2 ;;
	--thpmaps) [ $# -ge 2 ] || usage; thpmaps_tree=$2; shift 2 ;;
	--with) [ $# -ge 2 ] || usage; withs+=("$2"); shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
out=$1
shift
case "$arch" in
x86_64) cc=gcc triplet=x86_64-linux-gnu
	[ $# -gt 0 ] || set -- /usr/bin/python3.11 /usr/bin/cmake /usr/bin/perl perl-embed ;;
arm64) cc=aarch64-linux-gnu-gcc triplet=aarch64-linux-gnu
	[ $# -gt 0 ] || set -- /usr/bin/perl perl-embed bigtext-pie ;;
*) usage ;;
esac
say() { echo "field-closure: $*" >&2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The tree the programs come from: / on x86_64, Debian's arm64 packages
# unpacked on arm64.
root=/
if [ "$arch" = arm64 ]; then
	cache=$repo/build/field-cache/arm64
	mkdir -p "$cache"
	root=$tmp/root
	mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib"
	# Debian 12 is merged-/usr: /lib is usr/lib, and so on.
	for d in bin sbin lib; do ln -s "usr/$d" "$root/$d"; done
	for pkg in perl-base libperl5.36 libc6 libcrypt1 ${FIELD_ARM64_PKGS:-}; do
		deb=$(ls "$cache/${pkg}_"*_arm64.deb 2>/dev/null | tail -1 || true)
		if [ -z "$deb" ]; then
			say "fetching $pkg:arm64"
			# apt downloads as _apt, into a directory it can write.
			dl=$(mktemp -d)
			chown _apt "$dl" 2>/dev/null || true
			(cd "$dl" && { apt-get download -q "$pkg:arm64" >&2 ||
				{ apt-get update -q >&2 && apt-get download -q "$pkg:arm64" >&2; }; }) ||
				{ rm -rf "$dl"; say "cannot download $pkg:arm64 (tests/lib/deps.sh --arm64 adds the arm64 architecture to dpkg)"; exit 1; }
			mv "$dl/${pkg}_"*_arm64.deb "$cache/"
			rm -rf "$dl"
			deb=$(ls "$cache/${pkg}_"*_arm64.deb | tail -1)
		fi
		rm -rf "$tmp/x"
		dpkg-deb -x "$deb" "$tmp/x"
		for d in "$tmp/x"/*; do
			case "${d##*/}" in
			bin|sbin|lib) cp -a "$d/." "$root/usr/${d##*/}/" ;;
			usr) cp -a "$d/." "$root/usr/" ;;
			*) cp -a "$d" "$root/" ;;
			esac
		done
	done
fi

# The programs built here.
build_prog() {
	case "$1" in
	perl-embed)
		local lib=${root%/}/usr/lib/$triplet
		$cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/perl-embed" \
			"$repo/tests/progs/perl_embed.c" "$(readlink -f "$lib/libperl.so.5.36")" \
			-Wl,-rpath-link,"$lib" ;;
	bigtext-pie)
		local st=$repo/tools/testing/selftests/mm
		$cc -O2 -fPIE -pie -DTEXT_KIB=6144 -o "$tmp/bigtext-pie" \
			"$st/exec_folio_bigtext.c" "$st/exec_folio_text.S" ;;
	*) say "unknown program '$1' (a path needs a slash)"; exit 1 ;;
	esac
	echo "$tmp/$1"
}

# elf_machine FILE: x86_64, aarch64 or something else.
elf_machine() {
	readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p' |
		sed 's/Advanced Micro Devices X86-64/x86_64/; s/AArch64/aarch64/'
}
want=$([ "$arch" = arm64 ] && echo aarch64 || echo x86_64)

# How field.sh runs each program: one line of shell words,
#   NAME PATH CHECK EXPECT CHECK-ARGS RUN-ARGS
# CHECK "output": "PATH CHECK-ARGS" must exit 0 printing EXPECT;
# "status": it must exit 0; "none": no check.  "PATH RUN-ARGS" keeps the
# program alive (or stopped) to be measured.
spec() { printf '%q ' "$@" >> "$out/field.list"; echo >> "$out/field.list"; }
entries=()
: > "$out/field.list"
# stdlib_files PYTHON MODULE...: the standard library files PYTHON loads
# to import the MODULEs (the frozen ones need no file, os.py is the
# prefix landmark), one per line.
stdlib_files() {
	local py=$1
	shift
	local mods
	mods=$(env -i "$py" -c "import sys; $(printf 'import %s; ' "$@") print(' '.join(sys.modules))")
	env -i "$py" - $mods <<'PY'
import importlib.util, os, sys
lib = os.path.dirname(os.__file__) + '/'
files = {os.__file__, lib + 'lib-dynload'}
for name in sys.argv[1:]:
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        continue
    if spec and spec.origin and spec.origin.startswith(lib) and os.path.isfile(spec.origin):
        files.add(spec.origin)
        if spec.cached and os.path.isfile(spec.cached):
            files.add(spec.cached)
print('\n'.join(sorted(files)))
PY
}

for p in "$@"; do
	name=${p##*/}
	if [ "$p" = "$name" ]; then
		src=$(build_prog "$p")
		path=/usr/local/bin/$name
		entries+=("$src=$path")
	elif [ "$arch" = x86_64 ]; then
		[ -f "$p" ] || { say "$p: no such file"; exit 1; }
		[ "$(elf_machine "$p")" = "$want" ] || { say "$p: not an $want ELF file"; exit 1; }
		path=$(realpath -s "$p")
		entries+=("$path")
	elif [ -f "$root/$p" ] || [ -L "$root/$p" ]; then
		path=$p
		entries+=("$p")
	else
		[ -f "$p" ] || { say "$p: not in the arm64 packages nor a file here"; exit 1; }
		[ "$(elf_machine "$p")" = "$want" ] || { say "$p: not an $want ELF file"; exit 1; }
		path=/usr/local/bin/$name
		entries+=("$(realpath "$p")=$path")
	fi
	case "$name" in
	python3.*)
		[ "$arch" = x86_64 ] || { say "$p: Python only on x86_64 (its modules are listed by running it)"; exit 1; }
		# The standard library modules Python imports to start.
		while IFS= read -r f; do entries+=("$f"); done < <(stdlib_files "$p" sys time)
		known=python ;;
	*) known=$name ;;
	esac
	# --run ARGS: the last PROG is run with ARGS, and not checked.
	[ -n "$run_set" ] && [ "$p" = "${!#}" ] && known=--run
	case "$known" in
	python)
		spec "$name" "$path" output 42 "-c 'print(6*7)'" "-c 'import time; time.sleep(600)'" ;;
	cmake)
		# cmake -E needs none of cmake's data files (/usr/share/cmake-*).
		spec "$name" "$path" output 42 "-E echo 42" "-E sleep 600" ;;
	perl|perl-embed)
		spec "$name" "$path" output 42 "-e 'print 6*7, qq(\\n)'" "-e 'sleep 600'" ;;
	bigtext-pie)
		# Calls a function in every page of its text, exits 0; with
		# --stop it stops itself after that.
		spec "$name" "$path" status '' '' --stop ;;
	*)
		spec "$name" "$path" none '' '' "$run_args" ;;
	esac
done

if [ -n "$thpmaps_tree" ]; then
	[ "$arch" = x86_64 ] || { say "--thpmaps: x86_64 only"; exit 1; }
	py=/usr/bin/python3.11 np=/usr/lib/python3/dist-packages/numpy
	[ -f "$thpmaps_tree/tools/mm/thpmaps" ] || { say "--thpmaps: no tools/mm/thpmaps in $thpmaps_tree"; exit 1; }
	[ -d "$np" ] && [ -x "$py" ] ||
		{ say "--thpmaps: needs $py and Debian's python3-numpy ($np)"; exit 1; }
	entries+=("$(realpath "$thpmaps_tree/tools/mm/thpmaps")=/usr/local/bin/thpmaps"
		"$repo/tests/lib/compare-thpmaps.py=/usr/local/bin/compare-thpmaps.py")
	while IFS= read -r f; do entries+=("$f"); done < <(
		find "$np" \( -name tests -o -name __pycache__ -o -name distutils -o -name f2py \
			-o -name include -o -name '*.pyi' -o -name '*.h' -o -name '*.c' \) -prune -o \
			\( -type f -o -type l \) -print | sort
		stdlib_files "$py" numpy argparse collections locale math os re resource shutil sys textwrap time)
fi

# --with: each file (a directory: each file and symlink under it) at
# its absolute path; "=" would split an entry.
for w in ${withs[@]+"${withs[@]}"}; do
	[ -e "$w" ] || { say "--with $w: no such file or directory"; exit 1; }
	case "$w" in *=*) say "--with $w: a path with '=' cannot be copied"; exit 1 ;; esac
	abs=$(cd "$(dirname "$w")" && pwd -P)/$(basename "$w")
	if [ -d "$w" ]; then
		while IFS= read -r f; do
			entries+=("$f=$f")
		done < <(find "$(cd "$w" && pwd -P)" \( -type f -o -type l \) -print | sort)
	else
		entries+=("$(realpath "$w")=$abs")
	fi
done

ldd=()
[ "$arch" = x86_64 ] && ldd=(--ldd)
python3 "$repo/tests/lib/elf-closure.py" --root "$root" "${ldd[@]}" "$out" "${entries[@]}" \
	> "$tmp/copied"
# Mount points for /proc and /dev in the chroot, and a /tmp.
mkdir -p "$out/proc" "$out/dev" "$out/tmp"
chmod 1777 "$out/tmp"

# The guest side, next to the tree.
$cc -std=c11 -O2 -static -Wall -Wextra -Werror -o "$out/field_probe" \
	"$repo/tests/progs/field_probe.c"
install -m 0755 "$repo/tests/guest/field.sh" "$out/field.sh"
install -m 0644 "$repo/tests/guest/lib.sh" "$out/lib.sh"
[ -z "$thpmaps_tree" ] || { mkdir -p "$out/sys" && install -m 0755 "$repo/tests/guest/thpmaps.sh" "$out/thpmaps.sh"; }
say "$arch: $(grep -c . "$out/field.list") programs, $(wc -l < "$tmp/copied") paths, $(du -sh "$out" | cut -f1) in $out"
