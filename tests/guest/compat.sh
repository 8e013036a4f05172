#!/bin/sh
# compat.sh (x86_64 with IA32_EMULATION): 32-bit programs are left as
# they are.  Under 64K, and under auto, a 64-bit PIE's text is always
# placed congruent with its file offset modulo 64K; a 32-bit PIE with the
# same text (compat-pie, no libc) only by chance, 1 in 16 per run, as
# under never: its address keeps all its randomness.  The policy still
# reads its text (placement is what is skipped), which "exec_folio_ctl
# report" shows.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
. /tests/bin/lib.sh
runs=8

# congruent_runs PROG: in how many of $runs cold runs PROG's text VMA
# start is congruent with its file offset modulo 64K; the last run's
# report in /tmp/compat-report.
congruent_runs() {
	_n=0
	for _i in $(seq $runs); do
		_p=$(cold_spawn $dir/$1 --stop) || { echo "GUEST-ERROR $1 did not stop" >&2; }
		set -- "$1" $(awk -v n="/$1" '$2 ~ /x/ && substr($6, length($6) - length(n) + 1) == n {
			split($1, a, "-"); print a[1], $3; exit }' /proc/$_p/maps)
		[ -n "${2:-}" ] && [ $(( (0x$2 - 0x$3) % 65536 )) -eq 0 ] && _n=$((_n + 1))
		$ctl report --pid $_p > /tmp/compat-report 2> /dev/null
		kill -9 $_p 2> /dev/null
		wait $_p 2> /dev/null
	done
	echo $_n
}

for pol in 64K auto; do
	echo $pol > $knob
	n64=$(congruent_runs nolibc-pie)
	n32=$(congruent_runs compat-pie)
	d=$(report_dist compat-pie < /tmp/compat-report)
	echo "# folio-dist compat-pie@$pol:$d"
	[ "$n64" = $runs ] && ok "$pol: a 64-bit PIE is placed congruent modulo 64K ($n64 of $runs runs)" ||
		nok "$pol: a 64-bit PIE is placed congruent modulo 64K ($n64 of $runs runs)"
	[ "$n32" -lt $runs ] && ok "$pol: a 32-bit PIE is not placed ($n32 of $runs runs congruent, by chance)" ||
		nok "$pol: a 32-bit PIE is not placed ($n32 of $runs runs congruent)"
done
echo arch > $knob
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
