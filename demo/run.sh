#!/bin/bash
# demo/run.sh: the main job.  On a fresh Debian 12 machine, as root:
# install what is needed, build Debian's linux-source-6.12 with the
# exec-folio series, boot it under QEMU with an XFS disk, and show the
# policies at work on a program with 3 MiB of text, measured with
# exec_folio_ctl report (pagemap + kpageflags).
#
# demo/run.sh --arm64 4k|16k|64k does the same on arm64 with that base
# page size (cross-built, qemu-system-aarch64 -M virt).
#
# demo/run.sh [--arm64 SIZE] [--with PATH]... --program PATH [ARGS...]
# tries your own program instead: see usage below.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
say() { echo "== $*"; }
die() { echo "demo: $*" >&2; exit 1; }
usage() {
	cat <<'EOF'
usage: demo/run.sh [-n] [--arm64 4k|16k|64k] [--with PATH]... [--program PATH [ARGS...]]

Build the kernel with the exec-folio series, boot it under QEMU (TCG) on
an XFS disk and show the exec folio policies at work: by default on a
test program with 3 MiB of text.

  --arm64 SIZE   arm64 with SIZE base pages (cross-built), instead of x86_64
  --program PATH [ARGS...]
                 your own program: PATH (an executable ELF file for the
                 guest's architecture: x86_64, or aarch64 with --arm64)
                 is copied with its whole library closure (ld.so and every
                 library, as ldd resolves them; for aarch64 from Debian's
                 arm64 libc6, add packages with FIELD_ARM64_PKGS) into a
                 chroot on the guest's XFS disk, and run as
                 "chroot DIR PATH ARGS..." (in the chroot's /) once under
                 each policy (never, arch, auto, 64K, 2M) with a cold page
                 cache.  It is measured when it has settled: at its exit,
                 if it runs to completion (a compiler, a batch job: held
                 there by ptrace, PTRACE_O_TRACEEXIT, before its memory is
                 torn down; its run time and exit status are shown per
                 policy), or asleep, or stopped by itself (a server).  It
                 is stopped, the rest of its text is read in, and each
                 mapped file (the program, ld.so, each library) gets a
                 table row per policy: where its text is placed, how much
                 is in aligned folios of the policy's size, PMD-mapped,
                 text RSS, page cache and read amplification against never
                 (tests/lib/field-table.py defines each figure).  ARGS are
                 passed as given (the guest shell splits nothing), except
                 that an ARG naming a regular file of this machine (whole,
                 or after "=" as in --opt=FILE) is copied into the chroot
                 at its absolute path and passed as that path.
                 PATH is copied at its own path (x86_64) or to
                 /usr/local/bin (aarch64).  The program's output goes
                 nowhere; a program that exits with a status other than 0
                 fails the run (its last lines are in the log).
  --with PATH    also copy PATH (a file, or a directory and all under it)
                 into the chroot at its absolute path: input the program
                 finds without being told (include directories, data)
  -n, --dry-run  check PATH and ARGS, say what would be copied into the
                 chroot and how the program would be run, and stop (before
                 installing or building anything)
  -h, --help     this help

Logs: build/logs/demo.log (or demo-program.log).
EOF
}

arch=x86_64 ps= program= dry=
prog_args=() withs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--arm64)
		case "${2:-}" in 4k|16k|64k) ;; *) usage >&2; exit 2 ;; esac
		arch=arm64 ps=$2
		shift 2 ;;
	--with)
		[ $# -ge 2 ] && [ -n "$2" ] || die "--with needs a PATH (demo/run.sh --help)"
		[ -e "$2" ] || die "--with $2: no such file or directory"
		withs+=("$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")")
		shift 2 ;;
	--program)
		[ $# -ge 2 ] && [ -n "$2" ] || die "--program needs a PATH (demo/run.sh --help)"
		program=$2
		shift 2
		prog_args=("$@")
		break ;;
	-n|--dry-run) dry=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

# --program: check PATH before installing or building anything.
if [ -n "$program" ]; then
	[ -e "$program" ] || die "$program: no such file"
	[ -f "$program" ] || die "$program: not a regular file"
	[ -r "$program" ] || die "$program: cannot be read"
	[ "$(head -c 4 "$program" | od -An -c | tr -d ' ')" = '177ELF' ] ||
		die "$program: not an ELF file"
	[ -x "$program" ] || die "$program: not executable"
	# e_machine, little-endian, at offset 18: 62 x86_64, 183 aarch64.
	machine=$(od -An -tu2 -j18 -N2 "$program" | tr -d ' ')
	want=$([ "$arch" = arm64 ] && echo 183 || echo 62)
	if [ "$machine" != "$want" ]; then
		case "$machine" in
		62) die "$program: an x86_64 program; the arm64 guest runs aarch64 programs (drop --arm64)" ;;
		183) die "$program: an aarch64 program; use --arm64 4k|16k|64k to run it in an arm64 guest" ;;
		*) die "$program: an ELF file for machine $machine, not for the $arch guest" ;;
		esac
	fi
	# The arguments as one string of shell words for the guest's shell;
	# a file of this machine named by an argument (whole, or after "=")
	# is copied into the chroot and named by its absolute path (the
	# program runs in the chroot's /); directories only with --with.
	run=
	for a in ${prog_args[@]+"${prog_args[@]}"}; do
		f=$a pre=
		case "$a" in
		-*=*|[!/.]*=*) f=${a#*=} pre=${a%%=*}= ;;
		esac
		if [ -n "$f" ] && [ -f "$f" ]; then
			abs=$(cd "$(dirname "$f")" && pwd -P)/$(basename "$f")
			case " ${withs[*]+"${withs[*]}"} " in
			*" $abs "*) ;;
			*) withs+=("$abs") ;;
			esac
			a=$pre$abs
		fi
		run+=" '${a//\'/\'\\\'\'}'"
	done
fi
[ ${#withs[@]} -eq 0 ] || [ -n "$program" ] || die "--with needs --program"
if [ -n "$dry" ]; then
	if [ -n "$program" ]; then
		echo "program: $program ($arch guest)"
		for w in ${withs[@]+"${withs[@]}"}; do echo "copied into the chroot: $w"; done
		echo "run as: chroot DIR $program${run}"
	else
		echo "the demo program ($arch guest)"
	fi
	exit 0
fi

mkdir -p "$build/logs"
say "installing what is needed (apt, only what is missing)"
"$repo/tests/lib/deps.sh" ${ps:+--arm64}
say "kernel tree: Debian linux-source-6.12 + $(grep -vc '^#' "$repo/series/MANIFEST") patches"
"$repo/series/make-tree.sh" "$build/src"
if [ "$arch" = x86_64 ]; then
	say "building the kernel (x86_64, tinyconfig + tests/config/x86_64.config, ccache)"
	"$repo/tests/lib/build-kernel.sh" "$build/src" "$build/obj-x86_64" "$repo/tests/config/x86_64.config"
	kernel=$build/obj-x86_64/arch/x86/boot/bzImage progs=$build/guest-x86_64
	say "building the guest programs"
	"$repo/tests/lib/build-guest-progs.sh" "$build/src" "$progs"
else
	say "building the kernel (arm64, $ps pages, tinyconfig + tests/config/arm64{,-$ps}.config, ccache)"
	KARCH=arm64 "$repo/tests/lib/build-kernel.sh" "$build/src" "$build/obj-arm64-$ps" \
		"$repo/tests/config/arm64.config" "$repo/tests/config/arm64-$ps.config"
	kernel=$build/obj-arm64-$ps/arch/arm64/boot/Image progs=$build/guest-arm64
	export GUEST_ARCH=arm64 BUSYBOX=$build/arm64/busybox
	say "building the guest programs"
	CROSS_COMPILE=aarch64-linux-gnu- "$repo/tests/lib/build-guest-progs.sh" "$build/src" "$progs"
fi

if [ -n "$program" ]; then
	# The guest gets the utility and the chroot tree only.
	bin=$build/demo-program
	rm -rf "$bin"
	mkdir -p "$bin"
	cp "$progs/exec_folio_ctl" "$bin/"
	say "copying $program and its libraries into a chroot tree"
	# Without ARGS a program field-closure.sh knows (python3.X, cmake,
	# perl) is checked and kept alive its own way.
	with=()
	for w in ${withs[@]+"${withs[@]}"}; do
		echo "   and $w"
		with+=(--with "$w")
	done
	"$repo/tests/lib/field-closure.sh" --arch "$arch" ${run:+--run "${run# }"} \
		${with[@]+"${with[@]}"} "$bin/field" "$program"
	echo "field sh /tests/bin/field/field.sh" > "$build/plan-demo-program"
	"$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-demo-program.cpio.gz" \
		"$build/plan-demo-program" "$bin"
	log=$build/logs/demo-program.log
	say "booting under QEMU (TCG), the program on an XFS disk, once per policy"
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-1200} "$repo/tests/lib/run-guest.sh" "$kernel" \
		"$build/initramfs-demo-program.cpio.gz" "$log" "loglevel=4"
	sed 's/^\[ *[0-9.]*\] //' "$log" | grep -E '^(not )?ok |^# field: |^#   ' || true
	echo
	if ! python3 "$repo/tests/lib/field-table.py" --all-files "$log"; then
		grep -q 'starts and settles' "$log" &&
			die "$program could not be measured in the guest: it did not start, or ended before it could be held (see $log)"
		die "no figures: $program did not run in the guest (see $log)"
	fi
	grep -q 'runs to completion in the chroot (exit [1-9]' "$log" &&
		die "$program exited with a status other than 0 in the guest: see its last lines in $log"
	grep -q '^GUEST-END field rc=0' "$log"
	exit
fi

install -m 0755 "$repo/demo/guest-demo.sh" "$progs/guest-demo.sh"
echo "demo sh /tests/bin/guest-demo.sh" > "$build/plan-demo"
"$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-demo.cpio.gz" "$build/plan-demo" "$progs"
say "booting under QEMU (TCG), text on an XFS disk"
"$repo/tests/lib/run-guest.sh" "$kernel" "$build/initramfs-demo.cpio.gz" "$build/logs/demo.log" "loglevel=4"
sed -n '/^GUEST-BEGIN demo/,/^GUEST-END demo/p' "$build/logs/demo.log" |
	sed '1d;$d' | sed 's/^\[ *[0-9.]*\] //'
grep -q '^GUEST-END demo rc=0' "$build/logs/demo.log"
