#!/bin/sh
# exec_folio_ctl against the patched kernel, in the test guest (busybox sh):
# set/status round trip of every value, rejected values change nothing,
# exec changes the child's folio sizes (measured by report), exec exit
# codes, status --pid, apply of a good and of a bad config.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
active() { $ctl status | sed -n 's/^exec_folio_size: //p'; }

. /tests/bin/lib.sh

# The explicit size the tests use, as the selftest's test_order(): 64K
# with 4K pages; above what read-around makes with larger pages (128K with
# 16K pages, 512K with 64K pages).
case $($ctl status | sed -n 's/^page size: *//p') in
4K) order=4 kb=64 ;;
16K) order=3 kb=128 ;;
*) order=3 kb=512 ;;
esac
size=${kb}K
# Text with enough whole blocks of $size for 90% of it to be in them.
prog=bigtext
[ $kb -gt 256 ] && prog=hugetext

# Run $prog cold under "exec_folio_ctl exec $*", stopped; echo its pid.
spawn() {
	cold_spawn $ctl exec "$@" -- $dir/$prog --stop
}

# Percent of the text in aligned folios of $size, from report.
pct_size() {
	$ctl report --pid "$1" | report_dist $prog | sed -n "s/.* $size=\([0-9]*\).*/\1/p"
}

$ctl status > /tmp/status && ok "status runs" || nok "status runs"
words=$(sed -n 's/^accepted: *//p' /tmp/status)
missing=
for w in never arch auto $size 2M; do
	case " $words " in *" $w "*) ;; *) missing="$missing $w" ;; esac
done
[ -z "$missing" ] && ok "status lists modes and sizes: $words" ||
	nok "status lists modes and sizes: $words (missing:$missing)"
for w in $words; do
	$ctl set "$w" && [ "$(active)" = "$w" ] && grep -q "\[$w\]" $knob &&
		ok "set $w round-trips" || nok "set $w round-trips"
done
$ctl set $((kb * 1024)) && [ "$(active)" = $size ] && ok "set $((kb * 1024)) means $size" ||
	nok "set $((kb * 1024)) means $size"
$ctl set 2MiB && [ "$(active)" = 2M ] && ok "set 2MiB means 2M" || nok "set 2MiB means 2M"
$ctl set auto
for bad in 4M 48K 8K foo inherit ''; do
	$ctl set "$bad" 2> /tmp/err
	rc=$?
	[ $rc -eq 1 ] && [ "$(active)" = auto ] && grep -q '^exec_folio_ctl: ' /tmp/err &&
		ok "set '$bad' rejected, policy kept" || nok "set '$bad' rejected (rc=$rc)"
done

# Under the smallest size the kernel accepts: only the child's own size
# can give its text $size folios (arm64's arch would give 64K with 4K
# pages by itself, and never is a hard off, which no process overrides).
least=$(echo "$words" | tr ' ' '\n' | grep -E '^[0-9]+K$' | head -1)
$ctl set "$least" && [ "$(active)" = "$least" ] && [ "$least" != $size ] ||
	nok "set the smallest size the kernel accepts ($least), not $size"
p=$(spawn --size $size)
v=$(pct_size "$p")
$ctl status --pid "$p" | grep -q "pid $p: *$size" && ok "status --pid shows the child's $size" ||
	nok "status --pid shows the child's $size"
kill -9 "$p"
[ "${v:-0}" -ge 90 ] && ok "exec --size $size: ${v}% of text in $size folios" ||
	nok "exec --size $size: ${v:-?}% of text in $size folios"
p=$(spawn --order $order); v=$(pct_size "$p"); kill -9 "$p"
[ "${v:-0}" -ge 90 ] && ok "exec --order $order: ${v}% in $size folios" ||
	nok "exec --order $order: ${v:-?}%"
# never over a global policy of $size: only the child's own mode can
# keep its text out of $size folios.
$ctl set $size && [ "$(active)" = $size ] || nok "set $size before exec --mode never"
p=$(spawn --mode never); v=$($ctl report --pid "$p" | report_dist $prog); kill -9 "$p"
n=$(echo "$v" | sed -n "s/.* $size=\([0-9]*\).*/\1/p")
[ -n "$v" ] && [ "${n:-0}" -lt 5 ] && ok "exec --mode never: ${n:-0}% in $size folios" ||
	nok "exec --mode never: ${n:-?}% in $size folios (report:${v:- none})"
$ctl set arch

$ctl exec --size $size -- /nonexistent/cmd 2>/dev/null
[ $? -eq 127 ] && ok "exec of a missing command exits 127" || nok "exec missing: 127"
$ctl exec --size $size -- /tests/plan 2>/dev/null
[ $? -eq 126 ] && ok "exec of a non-executable exits 126" || nok "exec non-executable: 126"
$ctl exec --strict --size 4M -- true 2>/dev/null
[ $? -eq 1 ] && ok "exec --strict with a size the kernel refuses exits 1" || nok "exec --strict --size 4M: 1"
# Without --strict an optional tuning never keeps a command from running.
out=$($ctl exec --size 4M -- echo ran 2>/tmp/err)
rc=$?
[ $rc -eq 0 ] && [ "$out" = ran ] && grep -q '^exec_folio_ctl: warning: the kernel refused 4M' /tmp/err &&
	ok "exec with a size the kernel refuses warns and runs the command" ||
	nok "exec --size 4M: rc=$rc out=$out err=$(cat /tmp/err)"

# status --json and report --json (busybox has no JSON parser: the fields).
$ctl status --json --pid $$ > /tmp/st.json
grep -q '^{"schema": "exec-folio-status", "version": 1, "exec_folio_size": "arch"' /tmp/st.json &&
	grep -q "\"processes\": \[{\"pid\": $$, \"name\": \"[^\"]*\", \"exec_folio_size\": \"inherit\"}\]" /tmp/st.json &&
	ok "status --json" || nok "status --json: $(cat /tmp/st.json)"
# report on real large folios: where $size is a contpte block (arm64 4K),
# fewer translations than base pages; where it is not, as many.
p=$(spawn --size $size)
$ctl report --pid "$p" > /tmp/rep
$ctl report --pid "$p" --json > /tmp/rep.json
kill -9 "$p"
set -- $(sed -n "/$prog\$/,/translations/s/^  translations: *\([0-9]*\) (\([0-9]*\) in base pages)/\1 \2/p" /tmp/rep)
# (arm64's contpte block is 64K with 4K pages, 2M with 16K and 64K pages)
if [ "$(uname -m)" = aarch64 ] && [ $kb = 64 ]; then
	[ -n "${1:-}" ] && [ "$1" -lt "$2" ] && ok "report translations of $size text: $1, fewer than its $2 base pages" ||
		nok "report translations of $size text: '${1:-}', fewer than its '${2:-}' base pages"
else
	[ -n "${1:-}" ] && [ "$1" = "$2" ] && ok "report translations of $size text: $1, as many as its $2 base pages" ||
		nok "report translations of $size text: '${1:-}', as many as its '${2:-}' base pages"
fi
set --
# report --json of that process: its schema, the process, the text
# mapping of $prog with resident text, one process reported.
grep -q '^{"schema": "exec-folio-report", "version": 1, ' /tmp/rep.json &&
	grep -q "{\"pid\": $p, \"name\": \"$prog\", \"mappings\": \[" /tmp/rep.json &&
	grep -q "\"perms\": \"r-xp\", \"offset\": \"0x[0-9a-f]*\", \"path\": \"$dir/$prog\", \"text\": {\"resident_kb\": [1-9]" /tmp/rep.json &&
	grep -q '"processes_reported": 1,' /tmp/rep.json &&
	ok "report --json" || nok "report --json: $(head -c 600 /tmp/rep.json)"
# 2M-aligned text in 2M folios: PMD-mapped (a contpte block with 16K and 64K
# pages), so far fewer translations than base pages.
p=$(cold_spawn $ctl exec --size 2M -- $dir/bigtext-2m --stop)
$ctl report --pid "$p" > /tmp/rep2m
kill -9 "$p"
set -- $(sed -n '/bigtext-2m$/,/translations/s/^  translations: *\([0-9]*\) (\([0-9]*\) in base pages)/\1 \2/p' /tmp/rep2m)
[ -n "${1:-}" ] && [ "$1" -lt $((${2:-0} / 2)) ] &&
	ok "report translations of 2M text: $1 for $2 base pages" ||
	nok "report translations of 2M text: '${1:-}' '${2:-}'"
set --
# report --cgroup of a cgroup made here, in cgroup2.
mkdir -p /sys/fs/cgroup 2>/dev/null
if ! grep -qw cgroup2 /proc/filesystems; then
	# The arm64 test kernels are built without cgroups.
	echo "ok - report --cgroup --rollup and --unit find the process # SKIP no cgroup2 in this kernel"
elif mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null || [ -e /sys/fs/cgroup/cgroup.procs ]; then
	mkdir -p /sys/fs/cgroup/efc.service
	p=$(spawn --size $size)
	echo "$p" > /sys/fs/cgroup/efc.service/cgroup.procs
	$ctl report --cgroup /efc.service --rollup > /tmp/cg
	n1=$(grep -c "$prog" /tmp/cg)
	$ctl report --unit efc --json > /tmp/cg.json
	kill -9 "$p"
	sleep 0.2
	rmdir /sys/fs/cgroup/efc.service
	grep -q "^all 1 process: rollup" /tmp/cg && [ "$n1" -eq 0 ] &&
		grep -q "\"pid\": $p, \"name\": \"$prog\"" /tmp/cg.json &&
		ok "report --cgroup --rollup and --unit find the process" ||
		nok "report --cgroup/--unit: $(head -3 /tmp/cg) $(head -c 200 /tmp/cg.json)"
else
	nok "report --cgroup: cannot mount cgroup2"
fi

printf '# boot\nexec_folio_size = 2M\n' > /tmp/good.conf
$ctl apply /tmp/good.conf && [ "$(active)" = 2M ] && ok "apply sets exec_folio_size" || nok "apply sets exec_folio_size"
printf 'exec_folio_size = never\nexec_folio_size = 4M\n' > /tmp/bad.conf
$ctl apply /tmp/bad.conf 2> /tmp/err
rc=$?
[ $rc -eq 1 ] && [ "$(active)" = 2M ] && grep -q 'bad.conf:2' /tmp/err &&
	ok "apply with a bad line applies nothing" || nok "apply with a bad line (rc=$rc)"
printf 'exec_folio_size = 4M\n' > /tmp/unaccepted.conf
$ctl apply /tmp/unaccepted.conf 2> /tmp/err
[ $? -eq 1 ] && [ "$(active)" = 2M ] && grep -q 'not accepted by this kernel' /tmp/err &&
	ok "apply of a size the kernel lacks applies nothing" || nok "apply of an unaccepted size"
$ctl set arch
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
