#!/bin/bash
# bench/before-after.sh [OLD-COMMIT]
#
# The figures of the fault-path rework (issue 10): the series as it was
# before it (OLD-COMMIT of this repository, default 6764eb3, the last
# commit before 9e68bcb "Series reworked for the fault-path review")
# against the series now, both built for arm64 with 4K pages (the test
# configuration) and booted with today's selftest (the same test binary
# and helpers for both).  Writes bench/before-after.md: text folio sizes,
# faults and resident text per measurement, the Rss one fault maps, and
# the tests that fail on the old series.  Needs tests/run.sh to have run
# once (the arm64 guest programs and busybox).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
old=${1:-6764eb3}
out=$repo/bench/before-after.md
wt=$build/before-after-wt
[ -x "$build/guest-arm64-4k/exec_folio_test" ] ||
	{ echo "before-after: run tests/run.sh first (arm64 guest programs)" >&2; exit 1; }
rm -rf "$wt"
git -C "$repo" worktree prune
git -C "$repo" worktree add -q --detach "$wt" "$old"
trap 'git -C "$repo" worktree remove --force "$wt"' EXIT
(cd "$wt" && bash series/make-tree.sh "$build/old-src")
"$repo/series/make-tree.sh" "$build/src"
# "new" is tests/run.sh's arm64 4K kernel, rebuilt if the series changed.
for t in old-arm64-4k:old-src arm64-4k:src; do
	env KARCH=arm64 "$repo/tests/lib/build-kernel.sh" "$build/${t#*:}" "$build/obj-${t%%:*}" \
		"$repo/tests/config/arm64.config" "$repo/tests/config/arm64-4k.config"
done
echo "selftest EXEC_FOLIO_DIR=/mnt/exec-folio EXEC_FOLIO_REQUIRE=1 /tests/bin/exec_folio_test" > "$build/plan-before-after"
BUSYBOX=$build/arm64/busybox "$repo/tests/lib/mkinitramfs.sh" "$build/initramfs-before-after.cpio.gz" \
	"$build/plan-before-after" "$build/guest-arm64-4k"
rm -f "$build/before-after-dist.txt"
for k in old new; do
	img=$build/obj-old-arm64-4k/arch/arm64/boot/Image
	[ $k = new ] && img=$build/obj-arm64-4k/arch/arm64/boot/Image
	GUEST_ARCH=arm64 GUEST_TIMEOUT=300 "$repo/tests/lib/run-guest.sh" "$img" \
		"$build/initramfs-before-after.cpio.gz" "$build/logs/guest-before-after-$k.log"
	python3 "$repo/tests/lib/parse-console.py" --prefix "$k" --dist "$build/before-after-dist.txt" \
		"$build/logs/guest-before-after-$k.log" > "$build/logs/result-before-after-$k.log" || true
	grep -q '^GUEST-DONE' "$build/logs/guest-before-after-$k.log" ||
		{ echo "before-after: the $k guest did not finish; nothing written" >&2; exit 1; }
done
python3 - "$build" "$old" > "$out" <<'EOF'
import re, sys
build, old = sys.argv[1], sys.argv[2]
rows = {}
for l in open(f'{build}/before-after-dist.txt'):
    run, label, rest = re.match(r'(\S+) (\S+): (.*)', l.strip()).groups()
    rows.setdefault(label, {})[run] = dict(x.split('=') for x in rest.split())
print('# Before and after the fault-path rework (issue 10)\n')
print(f'arm64, 4K pages, QEMU TCG, text on XFS.  Before: the series at {old}; after: the')
print('series now.  Same test binary and helpers (today\'s selftest) on both kernels;')
print('written by `bench/before-after.sh`.  Folio sizes in % of the resident text;')
print('faults of the stopped process; every page of the text faulted in.\n')
print('| measurement | kernel | folio sizes | contpte | resident | minor / major faults |')
print('| --- | --- | --- | --- | --- | --- |')
skip = ('resident', 'minflt', 'majflt', 'unaligned', 'partial', 'cont')
for label in rows:
    for run in ('old', 'new'):
        kv = rows[label].get(run)
        if not kv:
            continue
        sizes = ' '.join(f'{a} {b}' for a, b in kv.items() if a not in skip and float(b) >= 0.05)
        print(f"| {label} | {'before' if run == 'old' else 'after'} | {sizes} | {kv['cont']} | "
              f"{kv['resident']} | {kv['minflt']} / {kv['majflt']} |")
print()
for run in ('old', 'new'):
    log = open(f'{build}/logs/guest-before-after-{run}.log', errors='replace').read()
    name = 'before' if run == 'old' else 'after'
    for m in re.finditer(r'(file cached in pages|memfd): one fault maps (\d+) kB under never, (\d+) kB under 2M', log):
        print(f'- {name}: {m.group(1)}: one exec fault maps {m.group(2)} kB under `never`, {m.group(3)} kB under `2M`.')
    fails = re.findall(r'^not ok \d+ (\S+)', log, re.M)
    print(f"- {name}: selftest failures: {', '.join(fails) if fails else 'none'}.")
EOF
cat "$out"
