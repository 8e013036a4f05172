#!/bin/bash
# tests/run.sh [--with-stock] [--arm64 SIZES]
#
# Every test of exec-folio, from a fresh Debian 12 machine, as root:
# installs what it needs, builds the kernel tree from Debian's
# linux-source-6.12 plus the series, checks the series with checkpatch,
# builds the kernel, boots it under QEMU on an XFS disk, runs KUnit and
# the guest tests, and judges everything from the console.  The same for
# arm64 (cross-compiled, qemu-system-aarch64 -M virt) with each base page
# size in SIZES: a comma-separated list of 4k, 16k and 64k, default
# "4k,64k", "none" for none.  Page sizes not booted are still
# cross-compiled (the objects the series touches).
#
# Every run boots Debian's own 6.12 kernel (the same version, without the
# series) for the stock comparison.  --with-stock also builds the
# unpatched tree with the test configuration and compares that too
# (slower; the benchmark uses it).
#
# Ends with "N passed, N failed, N skipped"; exit status 0 if none failed.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
logs=$build/logs
with_stock=0
arm64_sizes="4k 64k"
usage() { echo "usage: tests/run.sh [--with-stock] [--arm64 4k,16k,64k|none]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--with-stock) with_stock=1 ;;
	--arm64)
		[ $# -ge 2 ] || usage
		arm64_sizes=$(echo "$2" | tr , ' ')
		[ "$arm64_sizes" = none ] && arm64_sizes=
		for ps in $arm64_sizes; do
			case "$ps" in 4k|16k|64k) ;; *) echo "tests/run.sh: --arm64: unknown page size '$ps'" >&2; usage ;; esac
		done
		shift ;;
	*) usage ;;
	esac
	shift
done
arm64_check=
for ps in 4k 16k 64k; do
	case " $arm64_sizes " in *" $ps "*) ;; *) arm64_check="$arm64_check $ps" ;; esac
done
mkdir -p "$logs"
rm -f "$logs"/*.log "$build/folio-dist.txt"
passed=0 failed=0 skipped=0
t0=$(date +%s)

# Add the "N passed, N failed, N skipped" of a sub-run to the totals.
tally() {
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
	if [ -z "$line" ]; then
		echo "not ok - $2 printed no result"
		failed=$((failed + 1))
		return
	fi
	set -- $line
	passed=$((passed + $1)) failed=$((failed + $3)) skipped=$((skipped + ${5:-0}))
}

# One check of our own: "ok - what" or "not ok - what".
check() {
	local what=$1
	shift
	if "$@" >> "$logs/checks.log" 2>&1; then
		echo "ok - $what"
		passed=$((passed + 1))
	else
		echo "not ok - $what (see $logs/checks.log)"
		failed=$((failed + 1))
	fi
}

phase() { echo "# $(date +%T) [$(( $(date +%s) - t0 ))s] $*"; }

finish() {
	phase "done"
	[ -s "$build/folio-dist.txt" ] &&
		python3 "$repo/tests/lib/folio-table.py" "$build/folio-dist.txt" | sed 's/^/# /'
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit $?
}

phase "installing dependencies"
if ! "$repo/tests/lib/deps.sh" ${arm64_sizes:+--arm64} > "$logs/deps.log" 2>&1; then
	check "dependencies install" false
	finish
fi

phase "kernel tree: Debian linux-source-6.12 + series"
check "series applies to Debian's linux-source-6.12" \
	"$repo/series/make-tree.sh" "$build/src"
tree_ok=$?
if [ -d "$build/src/.git" ]; then
	bash "$repo/tests/lib/checkpatch-series.sh" "$build/src" "$build/series" \
		> "$logs/checkpatch.log" 2>&1
	grep -E '^(not )?ok ' "$logs/checkpatch.log"
	tally "$logs/checkpatch.log" checkpatch
fi

phase "building the x86_64 kernel"
if ! check "x86_64 kernel builds" "$repo/tests/lib/build-kernel.sh" \
	"$build/src" "$build/obj-x86_64" "$repo/tests/config/x86_64.config"; then
	tail -20 "$logs/checks.log" | sed 's/^/#   /'
	finish
fi
grep 'built in' "$logs/checks.log" | tail -1 | sed 's/^/# /'

# Every prefix of the series compiles what its last patch touches, and
# the series compiles with CONFIG_EXEC_FOLIO_POLICY=n and with
# CONFIG_TRANSPARENT_HUGEPAGE=n (compile only: x86_64, small config).
phase "each patch builds on its own; the series builds with the feature off"
bash "$repo/tests/lib/series-build-check.sh" "$build/src" "$build/series-check" \
	> "$logs/series-check.log" 2>&1
grep -E '^(not )?ok |^#   ' "$logs/series-check.log"
tally "$logs/series-check.log" "series build check"

# make deb: the kernel with the series as Debian packages (here with the
# test configuration; README.md says how to use Debian's own).
phase "the kernel as Debian packages (bindeb-pkg)"
kdeb() {
	"$repo/tests/lib/kernel-deb.sh" "$build/src" "$build/obj-x86_64" "$build/deb" &&
		dpkg-deb -c "$build"/deb/linux-image-*.deb > "$logs/kernel-deb.list" &&
		grep -q 'boot/vmlinuz-' "$logs/kernel-deb.list"
}
check "the kernel packages with bindeb-pkg (linux-image .deb with a vmlinuz)" kdeb

if [ -n "$arm64_check" ]; then
	phase "arm64: the series' objects compile with${arm64_check} pages"
	bash "$repo/tests/lib/arm64-compile-check.sh" "$build/src" "$build/obj-arm64-check" \
		$arm64_check > "$logs/arm64-compile.log" 2>&1
	grep -E '^(not )?ok |^#   ' "$logs/arm64-compile.log"
	tally "$logs/arm64-compile.log" "arm64 compile check"
fi

phase "building the guest programs"
progs=$build/guest-x86_64
check "guest programs build" "$repo/tests/lib/build-guest-progs.sh" "$build/src" "$progs"
# The kernel's view of a process's folios, for tests/guest/oracle.sh and
# field.sh: report is compared with it (tests/kmod/folio_oracle.c).
check "test module folio_oracle builds (x86_64)" "$repo/tests/lib/build-kmod.sh" \
	"$build/obj-x86_64" "$progs"
# Real Debian programs with their ldd closure (python3.11, cmake, perl),
# for a guest of their own: the closure is 81 MB (tests/guest/field.sh).
# sha256sum runs to completion on two files (one copied with --with):
# field.sh measures it held at its exit (field_probe exitstop).
rm -rf "$build/field-x86_64"
mkdir -p "$build/field-x86_64"
cp "$progs/exec_folio_ctl" "$progs/hugetext" "$progs/folio_oracle.ko" "$build/field-x86_64/"
# With numpy and the tree's tools/mm/thpmaps: report against thpmaps on
# 64K and 2M folios (tests/guest/thpmaps.sh).
check "real programs copied for the x86_64 guest" \
	"$repo/tests/lib/field-closure.sh" --thpmaps "$build/src" \
	--with "$repo/bench/effect-input.cc" --run "/usr/bin/cmake '$repo/bench/effect-input.cc'" \
	"$build/field-x86_64/field" /usr/bin/python3.11 /usr/bin/cmake /usr/bin/perl perl-embed \
	/usr/bin/sha256sum

# boot NAME KERNEL CMDLINE PLAN-LINES... : one guest run, judged.  The
# guest runs the programs in $progs; GUEST_ARCH and BUSYBOX choose arm64.
boot() {
	local name=$1 kernel=$2 cmdline=$3
	shift 3
	printf '%s\n' "$@" > "$build/plan-$name"
	"$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-$name.cpio.gz" \
		"$build/plan-$name" "$progs" || { check "initramfs $name" false; return; }
	"$repo/tests/lib/run-guest.sh" "$kernel" "$build/initramfs-$name.cpio.gz" \
		"$logs/guest-$name.log" "$cmdline" 2>> "$logs/boot-times.log"
	# tests/expect/NAME.txt: the results this boot must give (written by
	# tests/lib/expect-from-log.py); missing, extra and unlisted SKIPs fail.
	# A boot without one fails, unless EXPLORATORY says why it has none:
	# then its results are only judged one by one.
	local expect=()
	if [ -f "$repo/tests/expect/$name.txt" ]; then
		expect=(--expect "$repo/tests/expect/$name.txt")
	elif [ -n "${EXPLORATORY:-}" ]; then
		echo "# $name: exploratory, no expected list ($EXPLORATORY): missing or extra results not checked"
	else
		echo "not ok - $name: no expected list tests/expect/$name.txt (tests/lib/expect-from-log.py writes one; EXPLORATORY=why for a boot that has none)"
		failed=$((failed + 1))
	fi
	python3 "$repo/tests/lib/parse-console.py" --prefix "$name" \
		--dist "$build/folio-dist.txt" $KUNIT_EXPECT "${expect[@]}" \
		${ALLOW_SPLAT:+--allow-splat "$ALLOW_SPLAT"} \
		"$logs/guest-$name.log" > "$logs/result-$name.log"
	grep -E '^(not )?ok |^#   ' "$logs/result-$name.log"
	tally "$logs/result-$name.log" "guest $name"
	tail -1 "$logs/boot-times.log" | sed 's/^/# /'
}

phase "host tests (this machine's kernel)"
for t in "$repo"/tests/host/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	bash "$t" > "$logs/host-$name.log" 2>&1
	grep -E '^(not )?ok ' "$logs/host-$name.log"
	tally "$logs/host-$name.log" "host $name"
done

bz=$build/obj-x86_64/arch/x86/boot/bzImage
# Execs per policy for the ASLR figures of tests/guest/place.sh: 200 is
# enough for the checks (about 0.15 s each under TCG); bench/run.sh asks
# for 1000.
aslr_runs=${PLACE_ASLR_RUNS:-200}
# EXEC_FOLIO_REQUIRE=1: on these kernels a missing feature fails, not skips.
selftest="EXEC_FOLIO_DIR=/mnt/exec-folio EXEC_FOLIO_REQUIRE=1 /tests/bin/exec_folio_test"
# A filesystem without large folios (ext2 in a file on the XFS disk, on a
# loop device), for the selftest's small_folio_fs_exec_reads_like_data.
smallfs="smallfs mkdir -p /mnt/ext2 && truncate -s 64M /mnt/ext2.img &&"
smallfs+=" mke2fs -F /mnt/ext2.img > /dev/null && mount -o loop /mnt/ext2.img /mnt/ext2"
selftest_small="EXEC_FOLIO_SMALL_DIR=/mnt/ext2 $selftest"
phase "booting the patched kernel: KUnit, guest tests, stress and fault injection"
KUNIT_EXPECT="--expect-kunit exec_folio --expect-kunit exec_folio_sysfs"
# The stress tests (tests/guest/stress.sh, faultinject.sh) stop by
# themselves; measured on the debug kernel (2 shared cores): exec 185 s,
# file ~110 s, ovl ~115 s, faultinject ~60 s.
GUEST_TIMEOUT=1500 boot x86_64 "$bz" "" "$smallfs" "selftest $selftest_small" "utility sh /tests/bin/utility.sh" \
	"dynlib sh /tests/bin/dynlib.sh" "place PLACE_ASLR_RUNS=$aslr_runs sh /tests/bin/place.sh never 64K auto 2M" \
	"overlay sh /tests/bin/overlay.sh" "execfd sh /tests/bin/execfd.sh" \
	"compat sh /tests/bin/compat.sh" "oracle sh /tests/bin/oracle.sh" "cost sh /tests/bin/cost.sh never 64K auto 2M" "stress-exec sh /tests/bin/stress.sh exec" "stress-file sh /tests/bin/stress.sh file" \
	"punchedge PUNCH_EDGE_CPUS=1 sh /tests/bin/punchedge.sh" "stress-ovl sh /tests/bin/stress.sh ovl" "faultinject sh /tests/bin/faultinject.sh"

phase "real programs: per mapped file, under each policy"
KUNIT_EXPECT=""
progs=$build/field-x86_64 GUEST_TIMEOUT=600 boot field-x86_64 "$bz" "" \
	"field sh /tests/bin/field/field.sh" "thpmaps sh /tests/bin/field/thpmaps.sh"

phase "booting with transparent_hugepage_exec_folio_size= on the command line"
KUNIT_EXPECT=""
boot cmdline-valid "$bz" "transparent_hugepage_exec_folio_size=2M" \
	"cmdline-2m-active grep -q '\[2M\]' /sys/kernel/mm/transparent_hugepage/exec_folio_size"
boot cmdline-invalid "$bz" "transparent_hugepage_exec_folio_size=64k" \
	"cmdline-bad-keeps-default grep -q '\[arch\]' /sys/kernel/mm/transparent_hugepage/exec_folio_size" \
	"cmdline-bad-warns dmesg | grep -q 'ignoring invalid transparent_hugepage_exec_folio_size=64k'"

# Stock 6.12: Debian's own kernel of the same version (downloaded, no
# build).  "never", and x86_64's default "arch", must give text the
# folio sizes stock gives; the selftest must fail there when the feature
# is required (tests/guest/stock.sh), and the utility must still run a
# service.
phase "stock 6.12 (Debian's kernel): the comparison and the negative control"
KUNIT_EXPECT=""
dist="$selftest -t boot_policy_distribution"
boot never "$bz" "transparent_hugepage_exec_folio_size=never" "never-dist $dist"
if check "Debian's own 6.12 kernel (linux-image-*-cloud-amd64) downloads" \
	"$repo/tests/lib/debian-kernel.sh" "$build/debian-kernel"; then
	MODULES=$build/debian-kernel/modules boot stock-debian "$build/debian-kernel/vmlinuz" "" \
		"stock-dist $dist" "stock sh /tests/bin/stock.sh" "punchedge sh /tests/bin/punchedge.sh"
	check "never gives text the folio sizes of Debian's stock 6.12" python3 \
		"$repo/tests/lib/folio-table.py" --compare stock-debian never "$build/folio-dist.txt"
	check "x86_64's default (arch) gives text the folio sizes of Debian's stock 6.12" python3 \
		"$repo/tests/lib/folio-table.py" --compare stock-debian x86_64 "$build/folio-dist.txt"
fi

# Memory pressure: a 256M guest, large-text programs in a memory cgroup
# with a tight memory.max under never, 2M and auto (tests/guest/memcg.sh;
# about 70 s on the debug kernel).
phase "small guest (256M): text under a memory cgroup limit"
KUNIT_EXPECT=""
# Only what memcg.sh needs: the whole programs directory no longer
# unpacks in 256M beside the debug kernel.
mkdir -p "$build/guest-x86_64-memcg"
cp "$progs/memcg.sh" "$progs/stress-lib.sh" "$progs/lib.sh" "$progs/hugetext" \
	"$build/guest-x86_64-memcg/"
# memcg.sh counts the OOM kills in its groups itself (memory.events).
progs=$build/guest-x86_64-memcg GUEST_MEM=256M GUEST_TIMEOUT=600 \
	ALLOW_SPLAT='out of memory: Killed process' \
	boot x86_64-memcg "$bz" "" "memcg sh /tests/bin/memcg.sh"

# The debug kernel catches what it is there to catch, and the parser
# rejects the run: one boot per failure provoked through LKDTM, which
# the parser must reject for a kernel report, and the console must show
# the report of the detector named.  A boot that provokes nothing passes.
phase "debug kernel: failures provoked through LKDTM are caught"
lkdtm=/sys/kernel/debug/provoke-crash/DIRECT
mkdir -p "$build/lkdtm-progs"
KUNIT_EXPECT=""
progs=$build/lkdtm-progs boot lkdtm-control "$bz" "" \
	"lkdtm-present mount -t debugfs none /sys/kernel/debug && test -w $lkdtm"
# provoked CASE REPORT: the run that does "echo CASE > $lkdtm" is
# rejected ("not ok - ... no kernel warnings or oopses") and its console
# matches REPORT (an extended regex).
provoked() {
	local name=lkdtm-$1
	echo "provoke mount -t debugfs none /sys/kernel/debug; echo $1 > $lkdtm" > "$build/plan-$name"
	"$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-$name.cpio.gz" \
		"$build/plan-$name" "$build/lkdtm-progs" || return 1
	GUEST_TIMEOUT=120 "$repo/tests/lib/run-guest.sh" "$bz" "$build/initramfs-$name.cpio.gz" \
		"$logs/guest-$name.log" "${3:-}" 2>> "$logs/boot-times.log"
	python3 "$repo/tests/lib/parse-console.py" --prefix "$name" \
		"$logs/guest-$name.log" > "$logs/result-$name.log"
	[ $? -eq 1 ] && grep -q "^not ok - $name: no kernel warnings or oopses" \
		"$logs/result-$name.log" && grep -qE "$2" "$logs/guest-$name.log"
}
# lkdtm_case CASE REPORT DETECTOR: one "ok - debug kernel: ..." line.
lkdtm_case() {
	check "debug kernel: parser rejects $3 ($1)" provoked "$1" "$2" "${4:-}"
	tail -1 "$logs/boot-times.log" | sed 's/^/# /'
}
# KFENCE off: a sampled allocation would be caught by KFENCE, not KASAN.
lkdtm_case READ_AFTER_FREE 'BUG: KASAN: slab-use-after-free' "KASAN use-after-free" \
	kfence.sample_interval=0
lkdtm_case KFENCE_READ_AFTER_FREE 'BUG: KFENCE: use-after-free' "KFENCE use-after-free"
lkdtm_case WARNING 'WARNING: CPU: .* lkdtm_WARNING' "WARN_ON"
lkdtm_case BUG 'kernel BUG at .*lkdtm' "BUG()"
lkdtm_case EXCEPTION 'Oops: general protection fault|BUG: kernel NULL pointer' "a bad kernel access (oops)"
lkdtm_case CORRUPT_LIST_ADD 'list_add corruption' "DEBUG_LIST list corruption"
# A spinlock left held: lockdep reports it on the return to user space,
# or DEBUG_ATOMIC_SLEEP first if the task is scheduled out (a race).
lkdtm_case SPINLOCKUP 'WARNING: lock held when returning to user space|BUG: scheduling while atomic' \
	"lockdep or DEBUG_ATOMIC_SLEEP (spinlock held on return to user space)"

# control NAME PS SUBJECTS PLAN-LINES...: a negative control.  The
# series without the patches whose subjects are listed (";" between
# them), reverted in the work tree of $build/src; the arm64 kernel with
# PS pages rebuilt from it (incrementally, in the same object directory),
# booted with the plan, and judged against tests/expect/control-NAME.txt,
# whose "# MUST-FAIL" results are the tests of those patches: they must
# fail, everything else must still pass.  Then the tree is put back and
# the kernel rebuilt.  GUEST_SMP: the guest's CPUs (1).
# control_revert SUBJECTS: revert those commits of $build/src in its
# work tree, newest first; "patch:FILE" applies FILE (of this repository)
# instead, for a revert git cannot do (tests/controls/).
control_revert() {
	local IFS=';' s c n
	for s in $1; do
		if [ "${s#patch:}" != "$s" ]; then
			git -C "$build/src" apply "$repo/${s#patch:}" || return 1
			echo "control: applied ${s#patch:}"
			continue
		fi
		# The commit whose subject is exactly S: --grep would search
		# whole messages, and a later patch's message may quote S.
		c=$(git -C "$build/src" log --format='%h%x09%s' base..HEAD |
			awk -F '\t' -v s="$s" '$2 == s { print $1 }')
		n=$(printf '%s' "$c" | grep -c .)
		[ "$n" = 1 ] || { echo "control: $n commits with the subject '$s'" >&2; return 1; }
		git -C "$build/src" revert --no-commit "$c" || return 1
		echo "control: reverted $c $(git -C "$build/src" log -1 --format=%s "$c")"
	done
}
control() {
	local name=$1 ps=$2 subjects=$3 obj=$build/obj-arm64-$2
	shift 3
	local build_args=(env KARCH=arm64 "$repo/tests/lib/build-kernel.sh" "$build/src" "$obj"
		"$repo/tests/config/arm64.config" "$repo/tests/config/arm64-$ps.config")
	# Never on a tree a developer has edited: the reset below would lose it.
	if ! git -C "$build/src" diff --quiet HEAD; then
		check "control $name: $build/src has no uncommitted edits (export them first)" false
		return
	fi
	# make-tree.sh undoes a revert left by a run cut short here.
	touch "$build/src/.git/exec-folio-control"
	if check "control $name: the series without \"${subjects//;/\", \"}\" (arm64 $ps)" \
		control_revert "$subjects" && check "control $name: its kernel builds" "${build_args[@]}"; then
		progs=$build/guest-arm64-$ps GUEST_ARCH=arm64 GUEST_TIMEOUT=300 GUEST_SMP=${GUEST_SMP:-1} \
			BUSYBOX=$build/arm64/busybox boot "control-$name" "$obj/arch/arm64/boot/Image" "" "$@"
	fi
	git -C "$build/src" revert --quit 2>/dev/null
	git -C "$build/src" reset -q --hard HEAD
	rm -f "$build/src/.git/exec-folio-control"
	check "control $name: the whole series rebuilt (arm64 $ps)" "${build_args[@]}"
}

# arm64, for each page size asked for: the kernel, the folio_oracle
# module built against it, and a guest with the same tests as x86_64 plus
# the contpte check (tests/guest/contpte.sh).
if [ -n "$arm64_sizes" ]; then
	phase "building the arm64 guest programs"
	check "arm64 guest programs build" env CROSS_COMPILE=aarch64-linux-gnu- \
		"$repo/tests/lib/build-guest-progs.sh" "$build/src" "$build/guest-arm64"
	check "real programs copied for the arm64 guests" \
		"$repo/tests/lib/field-closure.sh" --arch arm64 "$build/guest-arm64/field"
fi
for ps in $arm64_sizes; do
	phase "arm64 with $ps pages: building"
	obj=$build/obj-arm64-$ps
	if ! check "arm64 $ps kernel builds" env KARCH=arm64 "$repo/tests/lib/build-kernel.sh" \
		"$build/src" "$obj" "$repo/tests/config/arm64.config" \
		"$repo/tests/config/arm64-$ps.config"; then
		tail -20 "$logs/checks.log" | sed 's/^/#   /'
		continue
	fi
	grep 'built in' "$logs/checks.log" | tail -1 | sed 's/^/# /'
	rm -rf "$build/guest-arm64-$ps"
	cp -a "$build/guest-arm64" "$build/guest-arm64-$ps"
	install -m 0755 "$repo/tests/guest/contpte.sh" "$build/guest-arm64-$ps/"
	check "test modules folio_oracle and fault_delay build for $ps pages" \
		env KARCH=arm64 "$repo/tests/lib/build-kmod.sh" "$obj" "$build/guest-arm64-$ps"
	phase "booting arm64 with $ps pages: KUnit and guest tests"
	explore=
	[ "$ps" = 16k ] && explore="16K pages are not in the default sizes; no list recorded yet"
	KUNIT_EXPECT="--expect-kunit exec_folio --expect-kunit exec_folio_sysfs"
	EXPLORATORY=$explore progs=$build/guest-arm64-$ps GUEST_ARCH=arm64 GUEST_TIMEOUT=600 \
		BUSYBOX=$build/arm64/busybox boot "arm64-$ps" "$obj/arch/arm64/boot/Image" "" \
		"$smallfs" "selftest $selftest_small" "utility sh /tests/bin/utility.sh" \
		"contpte sh /tests/bin/contpte.sh" "oracle sh /tests/bin/oracle.sh" "place PLACE_ASLR_RUNS=$aslr_runs sh /tests/bin/place.sh never arch auto" \
		"field sh /tests/bin/field/field.sh" "cost sh /tests/bin/cost.sh never arch auto" \
		"stress-exec sh /tests/bin/stress.sh exec quick" "stress-file sh /tests/bin/stress.sh file quick"
	# transparent_hugepage_exec_folio_size=64K on the command line: a size with 4K and 16K pages,
	# a single page (refused, default kept) with 64K pages.
	knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
	if [ "$ps" = 64k ]; then
		set -- "cmdline-64k-refused grep -q '\[arch\]' $knob" \
			"cmdline-64k-warns dmesg | grep -q 'ignoring invalid transparent_hugepage_exec_folio_size=64K'"
	else
		set -- "cmdline-64k-active grep -q '\[64K\]' $knob"
	fi
	KUNIT_EXPECT=""
	EXPLORATORY=$explore progs=$build/guest-arm64-$ps GUEST_ARCH=arm64 BUSYBOX=$build/arm64/busybox \
		boot "arm64-$ps-cmdline" "$obj/arch/arm64/boot/Image" "transparent_hugepage_exec_folio_size=64K" "$@"

	# Negative controls: the patches that claim a measured effect, each
	# left out; their tests must fail (about 1 min each).
	phase "arm64 with $ps pages: negative controls"
	case $ps in
	4k)
		control loader 4k "mm: read a binary in its text's folio size while execve() reads it" \
			"selftest $selftest"
		control fill-around 4k "mm/readahead: read exec text around folios that are already cached" \
			"selftest $selftest"
		# The two mmap_miss patches: only the mmap_miss tests (the rest
		# of the selftest runs in the boots above).
		miss_tests="selftest $selftest -t fault_around_hit_refunds_only_its_window"
		miss_tests+=" -t random_exec_data_reads_shrink_past_miss_limit"
		miss_tests+=" -t text_past_miss_limit_in_policy_folios"
		control miss-retry 4k "mm/filemap: do not count a retried fault's fault-around as mmap_miss hits" \
			"$miss_tests"
		control miss-window 4k "mm/filemap: count only the pages fault-around asked for as mmap_miss hits" \
			"$miss_tests"
		# Whole-folio mapping with 4K pages, where fault-around runs
		# (with 64K pages it does not: the 64k control below): a fault
		# on a cached folio maps it whole, and mlock follows.
		control whole-folio-4k 4k "patch:tests/controls/whole-folio.patch" \
			"selftest $selftest -t fault_around_maps_cached_folio_whole -t mlockall_text_is_mlocked"
		# Placement, each patch left out: ld.so (which execve() maps
		# without a fixed address, as ld.so maps libraries) and a PIE's
		# load bias.  One exec is placed right by chance (1 in 16 for
		# ld.so at 64K): these judge the grain over all the ASLR execs.
		place_ctl="place PLACE_ONE_EXEC=0 PLACE_ASLR_RUNS=$aslr_runs sh /tests/bin/place.sh never auto"
		control place-lib 4k "mm: place read-only private file mappings for their exec folios" \
			"$place_ctl"
		control place-pie 4k "binfmt_elf: place a PIE's text for its exec folios" \
			"selftest $selftest -t header_block_in_large_folio -t header_block_pmd_mapped_non_pie" \
			"$place_ctl"
		# The i_size race, run on purpose (tests/guest/eofrace.sh: a
		# kprobe holds a fault-around over a truncation; 2 CPUs), and
		# reads beside a hole being punched (tests/guest/punchedge.sh,
		# readers spinning on the other CPU): with the series, and
		# each without its fix.
		phase "arm64 with 4k pages: the i_size race and the punch race on purpose (2 CPUs)"
		progs=$build/guest-arm64-$ps GUEST_ARCH=arm64 GUEST_TIMEOUT=300 GUEST_SMP=2 \
			BUSYBOX=$build/arm64/busybox boot arm64-4k-eofrace "$obj/arch/arm64/boot/Image" "" \
			"eofrace sh /tests/bin/eofrace.sh" "punchedge sh /tests/bin/punchedge.sh"
		GUEST_SMP=2 control eof-race 4k "mm/filemap: read i_size under each folio's lock in filemap_map_pages()" \
			"eofrace sh /tests/bin/eofrace.sh"
		GUEST_SMP=2 control punch-edge 4k "mm/truncate: zero a large folio's whole pages only if it stays whole" \
			"punchedge sh /tests/bin/punchedge.sh"
		# Without CONFIG_EXEC_FOLIO_POLICY: the stub keeps arm64's 64K
		# on XFS, and must change nothing on ext2 (no large folios).
		phase "arm64 with 4k pages, without CONFIG_EXEC_FOLIO_POLICY"
		nobj=$build/obj-arm64-4k-nopolicy
		if check "arm64 4k kernel without CONFIG_EXEC_FOLIO_POLICY builds" env KARCH=arm64 \
			"$repo/tests/lib/build-kernel.sh" "$build/src" "$nobj" "$repo/tests/config/arm64.config" \
			"$repo/tests/config/arm64-4k.config" "$repo/tests/config/no-policy.config"; then
			progs=$build/guest-arm64-4k GUEST_ARCH=arm64 GUEST_TIMEOUT=300 \
				BUSYBOX=$build/arm64/busybox boot arm64-4k-nopolicy "$nobj/arch/arm64/boot/Image" "" \
				"$smallfs" "selftest EXEC_FOLIO_DIR=/mnt/exec-folio EXEC_FOLIO_SMALL_DIR=/mnt/ext2 /tests/bin/exec_folio_test -t small_folio_fs_exec_reads_like_data -t boot_policy_distribution"
		fi ;;
	64k)
		control whole-folio 64k "patch:tests/controls/whole-folio.patch" \
			"selftest $selftest" "contpte sh /tests/bin/contpte.sh" "oracle sh /tests/bin/oracle.sh" ;;
	esac
done

if [ "$with_stock" = 1 ]; then
	phase "stock 6.12 for comparison"
	check "stock tree" "$repo/series/make-tree.sh" "$build/stock-src" --stock
	check "stock x86_64 kernel builds" "$repo/tests/lib/build-kernel.sh" \
		"$build/stock-src" "$build/obj-stock" "$repo/tests/config/x86_64.config"
	# (the "never" boot is the one above, beside Debian's kernel)
	EXPLORATORY="stock 6.12 from source gives the folio table that the next check compares" \
		boot stock "$build/obj-stock/arch/x86/boot/bzImage" "" "stock-dist $dist"
	check "order 0 (never) matches stock 6.12" python3 \
		"$repo/tests/lib/folio-table.py" --compare stock never "$build/folio-dist.txt"
fi
# Per-file tables and plots of the real programs (bench/run.sh writes
# them into bench/).
python3 "$repo/tests/lib/field-table.py" --out "$build" --png "$logs"/guest-*.log \
	> "$logs/field-tables.md" 2>> "$logs/checks.log" || true
finish
