#!/bin/sh
# On a kernel without the series (Debian's own 6.12, booted by
# tests/run.sh): the negative control of the selftest, and the utility
# as a service would run it there (busybox sh).
#   - the selftest SKIPs every policy test and exits 0;
#   - with EXEC_FOLIO_REQUIRE=1 it fails every one of them instead: run
#     on our kernels that way, it cannot pass by skipping;
#   - exec_folio_ctl exec runs the command anyway (a warning, exit 0),
#     --strict refuses (exit 2), status says why (exit 2), and report
#     still measures text in folios, since it needs only pagemap and
#     kpageflags.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
test=/tests/bin/exec_folio_test

. /tests/bin/lib.sh

[ -e /sys/kernel/mm/transparent_hugepage/exec_folio_size ] &&
	nok "this kernel has no exec_folio_size knob (it has: not a stock kernel)" ||
	ok "this kernel has no exec_folio_size knob"

# Lines "ok N policy.x # SKIP ..." / "not ok N policy.x" of kselftest_harness.
EXEC_FOLIO_DIR=$dir $test > /tmp/skip.tap 2>&1
rc=$?
tests=$(grep -cE '^(not )?ok [0-9]+ (policy|interface)\.' /tmp/skip.tap)
skips=$(grep -cE '^ok [0-9]+ (policy|interface)\..*# SKIP' /tmp/skip.tap)
if [ $rc = 0 ] && [ "$tests" -gt 10 ] && [ "$skips" = "$tests" ]; then
	ok "selftest without the feature: exit 0, all $tests policy tests SKIP"
else
	nok "selftest without the feature: exit 0, all policy tests SKIP (rc=$rc, $skips of $tests)"
fi

EXEC_FOLIO_DIR=$dir EXEC_FOLIO_REQUIRE=1 $test > /tmp/req.tap 2>&1
rc=$?
failed=$(grep -cE '^not ok [0-9]+ (policy|interface)\.' /tmp/req.tap)
if [ $rc != 0 ] && [ "$failed" = "$tests" ] &&
   grep -q 'no /sys/kernel/mm/transparent_hugepage/exec_folio_size' /tmp/req.tap; then
	ok "selftest with EXEC_FOLIO_REQUIRE=1 fails all $failed policy tests (exit $rc): no exec_folio_size knob"
else
	nok "selftest with EXEC_FOLIO_REQUIRE=1 fails all policy tests (rc=$rc, $failed of $tests)"
	grep -m3 -i 'knob\|not ok' /tmp/req.tap | sed 's/^/#   /'
fi

out=$($ctl exec --size 2M -- sh -c 'echo ran' 2> /tmp/err)
rc=$?
if [ $rc = 0 ] && [ "$out" = ran ] && grep -q '^exec_folio_ctl: warning: .*no exec folio policy' /tmp/err; then
	ok "exec --size 2M runs the service anyway, with a warning"
else
	nok "exec --size 2M runs the service anyway (rc=$rc, out '$out')"
	sed 's/^/#   /' /tmp/err
fi
$ctl exec --strict --size 2M -- true 2> /tmp/err
rc=$?
[ $rc = 2 ] && ok "exec --strict refuses: exit 2" || nok "exec --strict refuses: exit $rc"
$ctl status > /dev/null 2> /tmp/err
rc=$?
[ $rc = 2 ] && grep -q 'no exec folio policy' /tmp/err &&
	ok "status: exit 2, the kernel has no exec folio policy" || nok "status: exit $rc, $(cat /tmp/err)"

pid=$(cold_spawn $dir/bigtext --stop)
if $ctl report --pid "$pid" > /tmp/report 2> /tmp/err && grep -q 'file-base-page' /tmp/report; then
	ok "report measures text on a stock kernel"
	echo "#  bigtext on stock:$(report_dist bigtext < /tmp/report)"
else
	nok "report measures text on a stock kernel"
	sed 's/^/#   /' /tmp/err
fi
kill -9 "$pid" 2> /dev/null
wait "$pid" 2> /dev/null

echo "$pass passed, $fail failed"
[ $fail = 0 ]
