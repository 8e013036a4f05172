#!/bin/bash
# bench/run.sh: the figures the issues ask for, measured on this machine,
# written to bench/results.md (and printed).
#
#  - kernel build time: cold (empty ccache, empty object dir) and with a
#    warm ccache (empty object dir), for the patched x86_64 kernel;
#  - guest boot + test time;
#  - the folio size table of the test binaries' text, per policy, with
#    stock 6.12 and "never" side by side (tests/run.sh --with-stock), and
#    on arm64 with 4K, 16K and 64K pages (--arm64 4k,16k,64k);
#  - real Debian programs per mapped file and policy (tests/guest/field.sh
#    in the guests): bench/field-<arch>.md and bench/field-<arch>-<prog>.png,
#    from the guest logs of the same run;
#  - text placement and ASLR (tests/guest/place.sh, tests/host/relink.sh):
#    bench/placement.md.
#
# --cold empties ccache first (slow: two cold kernel builds).
# --from-run CLONE LOG writes the same files from a finished run of
# tests/run.sh (a CI run, .ci/run, in the clone CLONE, whose output is
# LOG) instead of running the tests again: no build times, and only the
# boots that run had (tests/run.sh's default sizes: no stock, no 16K).
# Every file written says when, from which commit and from which run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
out=$repo/bench/results.md
from_run=
case "${1:-}" in
--from-run)
	if [ $# -ne 3 ] || [ ! -d "$2/build/logs" ] || [ ! -f "$3" ]; then
		echo "usage: bench/run.sh --from-run CLONE LOG (CLONE/build/logs and LOG must exist)" >&2
		exit 2
	fi
	from_run=$(cd "$2" && pwd)
	build=$from_run/build
	runlog=$3
	if ! grep -qE '^[0-9]+ passed, 0 failed' "$runlog"; then
		echo "bench/run.sh: $runlog is not a run whose tests all passed: no figures written" >&2
		exit 1
	fi ;;
--cold | '') ;;
*)
	echo "usage: bench/run.sh [--cold | --from-run CLONE LOG]" >&2
	exit 2 ;;
esac
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/exec-folio-ccache}
if [ -z "$from_run" ]; then
	"$repo/tests/lib/deps.sh" --arm64
	"$repo/series/make-tree.sh" "$build/src"
fi

build_time() {	# OBJDIR -> seconds for a build from an empty object dir
	rm -rf "$1"
	local t0=$(date +%s)
	"$repo/tests/lib/build-kernel.sh" "$build/src" "$1" "$repo/tests/config/x86_64.config" >&2
	echo $(( $(date +%s) - t0 ))
}
cold="not measured (bench/run.sh --cold)"
if [ -n "$from_run" ]; then
	commit=$(git -C "$from_run" rev-parse --short HEAD)
	cold="not measured (a CI run: bench/ci-budget.md)"
	warm=$cold
	cp "$runlog" "$build/bench-tests.log"
	total=$(grep -o '^# [0-9:]* \[[0-9]*s\]' "$runlog" | tail -1 | sed 's/.*\[\([0-9]*\)s\]/\1/')
	what="the run of tests/run.sh (default sizes) at $commit"
else
	commit=$(git -C "$repo" rev-parse --short HEAD)
	if [ "${1:-}" = --cold ]; then
		ccache -C >/dev/null
		cold="$(build_time "$build/obj-x86_64")s"
	fi
	warm="$(build_time "$build/obj-x86_64")s"

	t0=$(date +%s)
	# Figures only from a run whose tests all passed: a failed test, or a
	# guest that could not drop its page cache (the guest scripts say
	# GUEST-ERROR, the selftest fails the measurement), writes nothing.
	if ! PLACE_ASLR_RUNS=1000 "$repo/tests/run.sh" --with-stock --arm64 4k,16k,64k > "$build/bench-tests.log" 2>&1; then
		echo "bench/run.sh: the test run failed ($(tail -1 "$build/bench-tests.log")); see $build/bench-tests.log." >&2
		grep '^not ok' "$build/bench-tests.log" | head -20 >&2
		echo "bench/run.sh: no figures written; bench/ is unchanged." >&2
		exit 1
	fi
	total=$(( $(date +%s) - t0 ))
	what="bench/run.sh at $commit (tests/run.sh --with-stock --arm64 4k,16k,64k)"
fi
stamp="Measured $(date -u +%Y-%m-%d) by $what."
boot=$(grep -h 'QEMU exited' "$build/logs/boot-times.log" |
	sed -n 's/.*guest-\(.*\)\.log: QEMU exited with [0-9]* after \(.*\)/\1 \2/p' | paste -sd, - | sed 's/,/, /g')

# Real Debian programs per mapped file (tests/guest/field.sh, in the
# guests that run it): bench/field-<arch>.md and a PNG per program.
# A run without 16K leaves the 16K tables as they were (they say when).
[ -n "$from_run" ] || rm -f "$repo"/bench/field-*.md "$repo"/bench/field-*.png
field=
if python3 "$repo/tests/lib/field-table.py" --out "$repo/bench" --png \
	"$build"/logs/guest-*.log > "$build/bench-field.log"; then
	field=$(grep -h '\.md$' "$build/bench-field.log" | sed "s|^$repo/||" | tr '\n' ' ')
	for f in $field; do
		sed -i "2a\\
$stamp\\
" "$repo/$f"
	done
fi

# Text placement and ASLR (tests/guest/place.sh in the guests, and
# tests/host/relink.sh): bench/placement.md.
{
	echo "# Where text is placed, and the ASLR bits it costs"
	echo
	echo "$stamp (tests/lib/place-table.py)"
	echo
	python3 "$repo/tests/lib/place-table.py" "$build"/logs/guest-*.log "$build"/logs/host-relink.log
} > "$repo/bench/placement.md.new" && mv "$repo/bench/placement.md.new" "$repo/bench/placement.md"

{
	echo "# exec-folio benchmark results"
	echo
	echo "$stamp"
	echo "On $(nproc) cores, $(uname -m), QEMU TCG (no KVM)."
	echo "Base: Debian linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)."
	echo
	echo "| what | time |"
	echo "| --- | --- |"
	echo "| x86_64 kernel build, cold (empty ccache) | ${cold} |"
	echo "| x86_64 kernel build, warm ccache, empty object dir | ${warm} |"
	echo "| guest boots (boot + tests, each) | $boot |"
	echo "| the test run ($what), x86_64 kernel already built unless a CI run | ${total}s |"
	echo "| arm64 kernel builds in that run, in order (the first of a page size cold if its object dir was empty; the controls' rebuilds incremental) | $(grep -h 'arm64/boot/Image built in' "$build/logs/checks.log" |
		sed 's|.*obj-arm64-\([0-9a-z-]*\)/.* built in \(.*\)|\1 \2|' | paste -sd, - | sed 's/,/, /g') |"
	echo
	echo "Folio sizes of the test binaries' text, % of resident text"
	echo "(rows: <boot>/<measurement>; bigtext: 3 MiB text at 0x401000 (x86_64) or"
	echo "0x410000 (arm64), bigtext-2m: the same 2M-aligned, hugetext: 10 MiB 2M-aligned;"
	echo "explicit sizes measured on bigtext-2m; arm64-4k etc.: the arm64 guests by page"
	echo "size, where 4K means one base page, and cont: in contpte-size blocks):"
	echo
	echo '```'
	python3 "$repo/tests/lib/folio-table.py" "$build/folio-dist.txt"
	echo '```'
	echo
	echo "Result line of the test run: $(tail -1 "$build/bench-tests.log")"
	echo
	if [ -n "$field" ]; then
		echo "Real Debian programs (python3.11, cmake, perl, and libperl through perl-embed;"
		echo "arm64: perl, perl-embed, a 6 MiB PIE) in a chroot on the guest's XFS disk, per"
		echo "mapped file and policy, from the same run: $field(plots: bench/field-*.png)."
	else
		echo "Real Debian programs: no \"# field\" lines in the guest logs of this run."
	fi
	echo
	echo "Where text is placed (PIE, ld.so, libc), the share of the possible reached, and"
	echo "the ASLR bits left, per architecture and policy: bench/placement.md."
	echo
	echo "The suite's time from scratch (the CI budget): bench/ci-budget.md."
} > "$out"
cat "$out"
