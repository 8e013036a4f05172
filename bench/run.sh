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
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
out=$repo/bench/results.md
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/exec-folio-ccache}
"$repo/tests/lib/deps.sh" --arm64
"$repo/series/make-tree.sh" "$build/src"

build_time() {	# OBJDIR -> seconds for a build from an empty object dir
	rm -rf "$1"
	local t0=$(date +%s)
	"$repo/tests/lib/build-kernel.sh" "$build/src" "$1" "$repo/tests/config/x86_64.config" >&2
	echo $(( $(date +%s) - t0 ))
}
cold="not measured (bench/run.sh --cold)"
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
boot=$(grep -h 'QEMU exited' "$build/logs/boot-times.log" | sed 's/.*after //' | tr '\n' ' ')

# Real Debian programs per mapped file (tests/guest/field.sh, in the
# guests that run it): bench/field-<arch>.md and a PNG per program.
rm -f "$repo"/bench/field-*.md "$repo"/bench/field-*.png
field=
if python3 "$repo/tests/lib/field-table.py" --out "$repo/bench" --png \
	"$build"/logs/guest-*.log > "$build/bench-field.log"; then
	field=$(grep -h '\.md$' "$build/bench-field.log" | sed "s|^$repo/||" | tr '\n' ' ')
fi

# Text placement and ASLR (tests/guest/place.sh in the guests, and
# tests/host/relink.sh): bench/placement.md.
python3 "$repo/tests/lib/place-table.py" "$build"/logs/guest-*.log "$build"/logs/host-relink.log \
	> "$repo/bench/placement.md.new" && mv "$repo/bench/placement.md.new" "$repo/bench/placement.md"

{
	echo "# exec-folio benchmark results"
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, $(uname -m), QEMU TCG (no KVM)."
	echo "Base: Debian linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)."
	echo
	echo "| what | time |"
	echo "| --- | --- |"
	echo "| x86_64 kernel build, cold (empty ccache) | ${cold} |"
	echo "| x86_64 kernel build, warm ccache, empty object dir | ${warm} |"
	echo "| guest boots (boot + tests each: x86_64, cmdline x2, arm64 4K/16K/64K, stock, never) | $boot |"
	echo "| tests/run.sh --with-stock --arm64 4k,16k,64k, x86_64 kernel already built | ${total}s |"
	grep -h 'arm64/boot/Image built in' "$build/logs/checks.log" |
		sed 's|.*obj-arm64-\([0-9a-z]*\)/.* built in \(.*\)|\| arm64 \1 kernel build in that run (cold if its object dir was empty) \| \2 \||'
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
