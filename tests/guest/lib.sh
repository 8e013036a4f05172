#!/bin/sh
# Shared by the guest scripts (busybox sh); source it.

# TAP-style results: "ok - what" / "not ok - what", counted in $pass and
# $fail for the closing "N passed, N failed" line.
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }

# field NAME DIST: the value of NAME= in a report_dist line, 0 if absent.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1 | grep . || echo 0; }

# drop_caches: empty the page cache before a measurement.  If that fails,
# say GUEST-ERROR: the run fails, and no figure measured after it is used.
drop_caches() {
	echo 3 > /proc/sys/vm/drop_caches ||
		echo "GUEST-ERROR cannot drop the page cache: measurements are not cold"
}

# cold_spawn CMD [ARG]...: drop the page cache, start CMD in the background
# (its output discarded: callers read ours through $(...)), wait up to 10 s
# for it to stop itself with SIGSTOP, and print its pid.  Returns 1 if it
# did not stop.
cold_spawn() {
	sync
	drop_caches
	"$@" > /dev/null 2>&1 &
	_p=$!
	for _i in $(seq 100); do
		if grep -q '^State:.*T (stopped)' /proc/$_p/status 2>/dev/null; then
			echo $_p
			return 0
		fi
		sleep 0.1
	done
	echo $_p
	return 1
}

# report_dist NAME < report: the counters of the mapping of NAME in
# "exec_folio_ctl report" output, as the fields of a "# folio-dist" line
# (" small=0.3 64K=96.6 ... cont=96.6"), in percent of its text.
report_dist() {
	awk -v want="$1" '
		/^[0-9]+: / { on = index($0, want) > 0 && $0 !~ /rollup/; next }
		on && /file-/ {
			key = $1; sub(":", "", key); pct = $0
			sub(/.*\( */, "", pct); sub(/%.*/, "", pct)
			if (key == "file-base-page") name = "small"
			else if (key ~ /^file-thp-pte-aligned-/) { name = key; sub(/file-thp-pte-aligned-/, "", name); sub(/kB/, "K", name) }
			else if (key ~ /^file-thp-pte-unaligned-/) { unal += pct; next }
			else if (key == "file-thp-pte-partial") name = "partial"
			else if (key ~ /^file-thp-pmd/) name = "pmd"
			else if (key ~ /^file-cont-pte/) name = "cont"
			else next
			printf " %s=%s", name, pct
		}
		END { if (unal) printf " unaligned=%s", unal }'
}
