#!/bin/bash
# The harness must catch what it is there to catch: feed the console
# parser logs with each kind of failure (and one good log) and check its
# verdict, so that a green run means something.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
parse=$repo/tests/lib/parse-console.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

good() {
	cat <<'LOG'
[    0.500000] KTAP version 1
[    0.500001] 1..1
[    0.500002]     KTAP version 1
[    0.500003]     # Subtest: exec_folio
[    0.500004]     ok 1 exec_folio_test_decide
[    0.500005] ok 1 exec_folio
GUEST-UP kernel=6.12.117
GUEST-BEGIN selftest
TAP version 13
1..2
ok 1 policy.one
ok 2 policy.two # SKIP needs root
GUEST-END selftest rc=0
GUEST-DONE
LOG
}

# verdict NAME WANT_EXIT (0 accepted, 1 rejected) < log
verdict() {
	local name=$1 want=$2
	cat > "$tmp/$name.log"
	python3 "$parse" --expect-kunit exec_folio "$tmp/$name.log" > "$tmp/$name.out" 2>&1
	local rc=$?
	if [ "$rc" -eq "$want" ] && tail -1 "$tmp/$name.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed'; then
		echo "ok - parser: $name (exit $rc)"
		pass=$((pass + 1))
	else
		echo "not ok - parser: $name (exit $rc, want $want)"
		sed 's/^/#   /' "$tmp/$name.out"
		fail=$((fail + 1))
	fi
}

verdict good-run 0 < <(good)
verdict failed-guest-test 1 < <(good | sed 's/^ok 1 policy.one$/not ok 1 policy.one/')
verdict failed-kunit-suite 1 < <(good | sed 's/^\[    0.500005\] ok 1 exec_folio$/[    0.500005] not ok 1 exec_folio/')
verdict missing-kunit-suite 1 < <(good | grep -v 'ok 1 exec_folio$')
verdict step-exit-status 1 < <(good | sed 's/rc=0/rc=1/')
verdict hang-or-early-death 1 < <(good | grep -v GUEST-DONE)
verdict kernel-warning 1 < <(good
	echo '[    3.000000] WARNING: CPU: 0 PID: 1 at mm/filemap.c:3200 do_sync_mmap_readahead')
verdict kasan-report 1 < <(good
	echo '[    3.000000] BUG: KASAN: slab-use-after-free in do_sync_mmap_readahead')
verdict oops 1 < <(good
	echo '[    3.000000] Oops: general protection fault, probably for non-canonical address')
verdict empty-console 1 < /dev/null

# A guest that never powers off is killed by the time limit and reported.
bz=$repo/build/obj-x86_64/arch/x86/boot/bzImage
progs=$repo/build/guest-x86_64
if [ -f "$bz" ] && [ -d "$progs" ] && command -v qemu-system-x86_64 > /dev/null; then
	echo "hang sleep 100000" > "$tmp/plan"
	"$repo/tests/lib/mkinitramfs.sh" "$tmp/initrd.gz" "$tmp/plan" "$progs"
	GUEST_TIMEOUT=25 "$repo/tests/lib/run-guest.sh" "$bz" "$tmp/initrd.gz" "$tmp/hang.log" 2> "$tmp/err"
	rc=$?
	python3 "$parse" "$tmp/hang.log" > "$tmp/hang.out"
	prc=$?
	if [ "$rc" -eq 124 ] && [ "$prc" -eq 1 ] &&
	   grep -q '^not ok - guest ran its whole plan' "$tmp/hang.out"; then
		echo "ok - a hung guest is killed after GUEST_TIMEOUT and reported"
		pass=$((pass + 1))
	else
		echo "not ok - a hung guest is killed and reported (run-guest $rc, parser $prc)"
		fail=$((fail + 1))
	fi
else
	echo "ok - a hung guest is killed and reported # SKIP no kernel built yet"
	skipped=1
fi
echo "$pass passed, $fail failed, ${skipped:-0} skipped"
[ "$fail" -eq 0 ]
