#!/bin/bash
# Sourced by the host tests (tests/host/*.sh): TAP-style results, counted
# for their closing "N passed, N failed, N skipped" line.
pass=0 fail=0 skip=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }
skip() { echo "ok - $1 # SKIP $2"; skip=$((skip + 1)); }

# expect STATUS PATTERN WHAT -- CMD...: exit status and a stderr/stdout
# pattern (the caller's $tmp holds the output).
expect() {
	local want=$1 pat=$2 what=$3
	shift 4
	"$@" > "$tmp/o" 2> "$tmp/e"
	local rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$tmp/o" "$tmp/e"; then
		ok "$what (exit $rc)"
	else
		nok "$what: exit $rc, want $want matching '$pat'"
		sed 's/^/#   /' "$tmp/o" "$tmp/e" | head -5
	fi
}
