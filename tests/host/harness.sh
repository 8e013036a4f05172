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

# [why=REGEX] verdict NAME WANT_EXIT (0 accepted, 1 rejected) [PARSER-ARGS...] < log
# A rejection must come with a "not ok" line, an acceptance with none.
verdict() {
	local name=$1 want=$2 nok
	shift 2
	cat > "$tmp/$name.log"
	python3 "$parse" --expect-kunit exec_folio "$@" "$tmp/$name.log" > "$tmp/$name.out" 2>&1
	local rc=$?
	nok=$(grep -c '^not ok - ' "$tmp/$name.out")
	[ "$want" -eq 0 ] && [ "$nok" -gt 0 ] && rc="$rc, with a 'not ok' line"
	[ "$want" -ne 0 ] && [ "$nok" -eq 0 ] && rc="$rc, without a 'not ok' line"
	# why=REGEX: the rejection must be for that reason.
	[ -n "${why:-}" ] && ! grep -qE "^not ok - .*($why)" "$tmp/$name.out" &&
		rc="$rc, no 'not ok - ...$why' line"
	if [ "$rc" = "$want" ] && tail -1 "$tmp/$name.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed'; then
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

# The guest said something went wrong.
why='guest error: cannot mount' verdict guest-error 1 < <(good | sed 's/^GUEST-DONE$/GUEST-ERROR cannot mount the XFS disk\nGUEST-DONE/')
# The plan ran nothing: the guest powered off cleanly, having tested nothing.
why='plan ran at least one step' verdict empty-plan 1 < <(good | sed '/^GUEST-BEGIN/,/^GUEST-END/d')
# A step that printed no TAP result (a test that SKIPped as a whole with
# "1..0", or printed nothing) fails, unless it is allowed to.
silent() { good | sed 's/^GUEST-DONE$/GUEST-BEGIN silent\n1..0 # SKIP knob missing\nGUEST-END silent rc=0\nGUEST-DONE/'; }
why='step silent printed no TAP' verdict step-without-tap 1 < <(silent)
verdict step-without-tap-allowed 0 --no-tap silent < <(silent)
# "ok - name" results (the guest shell scripts) count like "ok N name".
why='selftest status runs' verdict failed-dash-result 1 < <(good | sed 's/^GUEST-END selftest/not ok - status runs\nGUEST-END selftest/')
# A step that began and never ended (the guest died in it).
why='step selftest did not finish' verdict step-did-not-finish 1 < <(good | grep -v 'GUEST-END\|GUEST-DONE')
why='no kernel warnings' verdict kfence-report 1 < <(good
	echo '[    3.000000] BUG: KFENCE: use-after-free read in do_sync_mmap_readahead')
why='no kernel warnings' verdict lockdep-report 1 < <(good
	echo '[    3.000000] WARNING: possible recursive locking detected')
why='no kernel warnings' verdict rcu-stall 1 < <(good
	echo '[   30.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:')
why='no kernel warnings' verdict hung-task 1 < <(good
	echo '[  130.000000] INFO: task exec_stress:97 blocked for more than 122 seconds.')
# Reports the parser once missed: a BUG whose Oops the console lost at
# the panic, SLUB's own report, the OOM killer (unless the boot counts
# its kills itself), an XFS shutdown, kmemleak, a soft lockup.
why='no kernel warnings' verdict kernel-bug-console-cut 1 < <(good
	echo '[    3.000000] kernel BUG at mm/filemap.c:153!')
why='no kernel warnings' verdict slub-report 1 < <(good
	echo '[    3.000000] BUG kmalloc-64 (Not tainted): Poison overwritten')
why='no kernel warnings' verdict slub-report-tainted 1 < <(good
	echo '[    3.000000] BUG kmalloc-64 (Tainted: G    B             ): Object already free')
why='no kernel warnings' verdict oom-kill 1 < <(good
	echo '[    3.000000] Out of memory: Killed process 97 (hugetext) total-vm:12000kB')
verdict oom-kill-allowed 0 --allow-splat 'out of memory: Killed process' < <(good
	echo '[    3.000000] Memory cgroup out of memory: Killed process 97 (hugetext) total-vm:12000kB')
why='no kernel warnings' verdict oom-allowed-but-not-a-warning 1 --allow-splat 'out of memory: Killed process' < <(good
	echo '[    3.000000] Memory cgroup out of memory: Killed process 97 (hugetext)'
	echo '[    3.000001] WARNING: CPU: 0 PID: 97 at mm/page_alloc.c:4000 __alloc_pages')
why='no kernel warnings' verdict xfs-shutdown 1 < <(good
	echo '[    3.000000] XFS (vda): Corruption of in-memory data (0x8) detected at xfs_trans_cancel+0x12f/0x160 (fs/xfs/xfs_trans.c:1097).  Shutting down filesystem.')
why='no kernel warnings' verdict kmemleak 1 < <(good
	echo '[    3.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)')
why='no kernel warnings' verdict soft-lockup 1 < <(good
	echo '[   30.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [exec_stress:97]')
# A GUEST-ERROR that the console put after kernel output on one line.
why='guest error: cannot drop' verdict guest-error-after-kernel-output 1 < <(good | sed 's/^GUEST-DONE$/[    3.000000] random: crng init doneGUEST-ERROR cannot drop the page cache\nGUEST-DONE/')
# The debug kernel's boot banner is no report.
verdict debug-kernel-banner 0 < <(good | sed 's/^GUEST-UP/[    0.708634] rcu: 	RCU lockdep checking is enabled.\n[    0.438936] kasan: KernelAddressSanitizer initialized\nGUEST-UP/')

# The expected-results list (--expect).
cat > "$tmp/expect.txt" <<'EOF'
# the good run: one KUnit suite, two selftest results, one may skip
kunit exec_folio
selftest policy.one
selftest policy.two # SKIP-OK
EOF
verdict expect-allowed-skip-passes 0 --expect "$tmp/expect.txt" < <(good)
why='expected selftest policy.one is missing' verdict expect-missing-test 1 --expect "$tmp/expect.txt" < <(good | grep -v '^ok 1 policy.one$')
why='expected kunit exec_folio is missing' verdict expect-missing-kunit-suite 1 --expect "$tmp/expect.txt" < <(good | grep -v 'ok 1 exec_folio$')
why='selftest policy.three is not in the expected list' verdict expect-extra-test 1 --expect "$tmp/expect.txt" < <(good | sed 's/^GUEST-END selftest/ok 3 policy.three\nGUEST-END selftest/')
why='more more.one is not in the expected list' verdict expect-extra-step 1 --expect "$tmp/expect.txt" < <(good | sed 's/^GUEST-DONE$/GUEST-BEGIN more\nok 1 more.one\nGUEST-END more rc=0\nGUEST-DONE/')
# Kernel output that the console put on a guest line, before its newline
# (CI's run of cec19c1: "GUEST-BEGIN memcg[    8.720758] TSC found
# unstable ..." made every memcg result "missing").
verdict expect-kernel-output-on-guest-lines 0 --expect "$tmp/expect.txt" < <(good |
	sed 's/^GUEST-BEGIN selftest$/GUEST-BEGIN selftest[    8.720758] TSC found unstable after boot/;
	     s/^ok 1 policy.one$/ok 1 policy.one[    9.000000] random: crng init done/;
	     s/^GUEST-END selftest rc=0$/GUEST-END selftest rc=0[    9.100000] clocksource: Switched/')
why='step selftest exited 1' verdict kernel-output-after-a-failed-step 1 --expect "$tmp/expect.txt" < <(good |
	sed 's/^GUEST-END selftest rc=0$/GUEST-END selftest rc=1[    9.100000] clocksource: Switched/')
why='policy.one skipped .knob missing., not allowed' verdict expect-unexpected-skip 1 --expect "$tmp/expect.txt" < <(good | sed 's/^ok 1 policy.one$/ok 1 policy.one # SKIP knob missing/')
{ grep -v SKIP-OK "$tmp/expect.txt"; echo "selftest policy.two"; } > "$tmp/expect-noskip.txt"
why='policy.two skipped .needs root., not allowed' verdict expect-skip-not-marked-ok 1 --expect "$tmp/expect-noskip.txt" < <(good)
why='expected-results list .*No such file' verdict expect-list-unreadable 1 --expect "$tmp/no-such-list.txt" < <(good)
printf 'kunit exec_folio\nselftest policy.one\nselftest policy.two # SKIP-OK\nsilent # NO-TAP\n' > "$tmp/expect-silent.txt"
verdict expect-no-tap-allowed 0 --expect "$tmp/expect-silent.txt" < <(silent)
why='expected step silent .NO-TAP. did not run' verdict expect-no-tap-step-missing 1 --expect "$tmp/expect-silent.txt" < <(good)
# Measurements in names do not make a new name, sizes do; a name listed
# twice must be there twice.
measured() { good | sed "s/^GUEST-DONE$/GUEST-BEGIN utility\nok - exec --size 64K: $1% of text in 64K folios\nok - set 16K round-trips\nok - set 32K round-trips\nok - round 1: $1 ms\nok - round 2: 5 ms\nGUEST-END utility rc=0\nGUEST-DONE/"; }
{ cat "$tmp/expect.txt"; printf 'utility exec --size 64K: 96%% of text in 64K folios\nutility set 16K round-trips\nutility set 32K round-trips\nutility round 1: 3 ms\nutility round 2: 3 ms\n'; } > "$tmp/expect-measured.txt"
verdict expect-measured-name 0 --expect "$tmp/expect-measured.txt" < <(measured 97)
why='expected utility set 32K round-trips is missing' verdict expect-size-is-a-name 1 --expect "$tmp/expect-measured.txt" < <(measured 97 | sed 's/set 32K/set 8K/')
why='expected utility exec --size 64K: 96% of text in 64K folios is missing' verdict expect-size-in-measured-name 1 --expect "$tmp/expect-measured.txt" < <(measured 97 | sed 's/size 64K: /size 2M: /')
why='expected utility round 1: 3 ms is missing .1 of 2.' verdict expect-repeated-name-missing 1 --expect "$tmp/expect-measured.txt" < <(measured 97 | grep -v 'round 2')

# Negative controls: a result marked MUST-FAIL must fail, saying what
# its pattern matches, and its step must exit non-zero; one that passes,
# or fails for another reason (a crash, a failed setup), is a failure of
# the control, and a MUST-FAIL without a pattern is refused.
printf 'kunit exec_folio\nselftest policy.one # MUST-FAIL /kernel 0 kB/\nselftest policy.two # SKIP-OK\n' > "$tmp/expect-control.txt"
control() { good | sed 's/^ok 1 policy.one$/# policy.one: report 10240 kB, kernel 0 kB\nnot ok 1 policy.one/; s/GUEST-END selftest rc=0/GUEST-END selftest rc=1/'; }
verdict control-fails-as-it-must 0 --expect "$tmp/expect-control.txt" < <(control)
why='policy.one must fail here' verdict control-that-passes 1 --expect "$tmp/expect-control.txt" < <(good)
why='step selftest exited 0 .it has results that must fail' verdict control-step-exit-0 1 --expect "$tmp/expect-control.txt" < <(control | sed 's/GUEST-END selftest rc=1/GUEST-END selftest rc=0/')
why='selftest policy.one .* is not in the expected list|policy.one must fail' verdict control-skip-is-no-failure 1 --expect "$tmp/expect-control.txt" < <(good | sed 's/^ok 1 policy.one$/ok 1 policy.one # SKIP no knob/')
why='policy.one failed, but not as it must' verdict control-fails-for-another-reason 1 --expect "$tmp/expect-control.txt" < <(control | sed 's/kernel 0 kB/cannot open the helper/')
printf 'kunit exec_folio\nselftest policy.one # MUST-FAIL\nselftest policy.two # SKIP-OK\n' > "$tmp/expect-nopattern.txt"
why='MUST-FAIL" needs /PATTERN/' verdict control-needs-a-pattern 1 --expect "$tmp/expect-nopattern.txt" < <(control)

# expect-from-log.py: a list from a good log accepts that log (and warns
# about each SKIP it allowed); it refuses to write one from a failed log.
gen=$repo/tests/lib/expect-from-log.py
good > "$tmp/gen.log"
if python3 "$gen" "$tmp/gen.log" --prefix synthetic -o "$tmp/gen.txt" 2> "$tmp/gen.err" &&
   grep -qx 'selftest policy.two # SKIP-OK' "$tmp/gen.txt" &&
   grep -q 'warning: synthetic: selftest policy.two SKIPs' "$tmp/gen.err" &&
   python3 "$parse" --expect "$tmp/gen.txt" "$tmp/gen.log" > "$tmp/gen.out"; then
	echo "ok - expect-from-log: the list of a good log accepts it, SKIPs flagged"
	pass=$((pass + 1))
else
	echo "not ok - expect-from-log: the list of a good log accepts it, SKIPs flagged"
	cat "$tmp/gen.txt" "$tmp/gen.err" "$tmp/gen.out" 2> /dev/null | sed 's/^/#   /'
	fail=$((fail + 1))
fi
good | sed 's/^ok 1 policy.one$/not ok 1 policy.one/' > "$tmp/gen-bad.log"
if ! python3 "$gen" "$tmp/gen-bad.log" -o "$tmp/gen-bad.txt" 2> /dev/null && [ ! -e "$tmp/gen-bad.txt" ]; then
	echo "ok - expect-from-log: refuses a failed log"
	pass=$((pass + 1))
else
	echo "not ok - expect-from-log: refuses a failed log"
	fail=$((fail + 1))
fi

# A guest that never powers off is killed by the time limit and reported.
bz=$repo/build/obj-x86_64/arch/x86/boot/bzImage
if [ -f "$bz" ] && command -v qemu-system-x86_64 > /dev/null; then
	echo "hang sleep 100000" > "$tmp/plan"
	mkdir "$tmp/progs"
	"$repo/tests/lib/mkinitramfs.sh" "$tmp/initrd.gz" "$tmp/plan" "$tmp/progs"
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

# tests/run.sh's boot(): a boot without tests/expect/NAME.txt fails
# unless EXPLORATORY says why it has none.  boot() and tally() run here
# as run.sh has them, over stand-ins for the guest and the parser.
mkdir -p "$tmp/br/tests/lib" "$tmp/br/tests/expect" "$tmp/bb/logs"
printf '#!/bin/sh\nexit 0\n' > "$tmp/br/tests/lib/mkinitramfs.sh"
cp "$tmp/br/tests/lib/mkinitramfs.sh" "$tmp/br/tests/lib/run-guest.sh"
chmod +x "$tmp/br/tests/lib/"*.sh
printf 'print("ok - a result")\nprint("1 passed, 0 failed, 0 skipped")\n' > "$tmp/br/tests/lib/parse-console.py"
touch "$tmp/br/tests/expect/listed.txt"
{
	sed -n '/^tally() {/,/^}/p;/^boot() {/,/^}/p' "$repo/tests/run.sh"
	cat <<EOF
repo=$tmp/br build=$tmp/bb logs=$tmp/bb/logs passed=0 failed=0 skipped=0
boot listed k "" "a b" > /dev/null; echo "listed \$failed"
boot unlisted k "" "a b" > $tmp/unlisted.out; grep -q "^not ok - unlisted: no expected list" $tmp/unlisted.out; echo "unlisted \$failed \$?"
EXPLORATORY=why boot explored k "" "a b" > $tmp/explored.out; grep -q "^# explored: exploratory" $tmp/explored.out; echo "explored \$failed \$?"
EOF
} > "$tmp/boot.sh"
verdict=$(bash "$tmp/boot.sh" 2>&1 | tr '\n' ' ')
if [ "$verdict" = "listed 0 unlisted 1 0 explored 1 0 " ]; then
	echo "ok - run.sh: a boot without an expected list fails, unless marked exploratory"
	pass=$((pass + 1))
else
	echo "not ok - run.sh: a boot without an expected list fails, unless marked exploratory ($verdict)"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, ${skipped:-0} skipped"
[ "$fail" -eq 0 ]
