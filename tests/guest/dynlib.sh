#!/bin/sh
# Text that the dynamic loader read()s before mapping it: run a
# dynamically linked bigtext through ld.so, all of them on the XFS disk,
# under several policies, and print how the text of ld.so (loaded by the
# kernel), of the program and of libc.so.6 (both read() then mmap()ed by
# ld.so) is backed, as "# folio-dist" lines.  Checks: under 64K the
# program's text is in 64K folios (>= 90%) and libc's in large folios,
# aligned or not (>= 90%; the kernel now places libraries congruent, see
# place.sh, which checks the alignment); under never neither is.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
. /tests/bin/lib.sh

# at_least A B: A >= B, as decimals.
at_least() { awk "BEGIN{exit !($1 >= $2)}"; }

for pol in never 64K auto; do
	echo "$pol" > $knob
	p=$(cold_spawn $dir/lib/ld-linux-x86-64.so.2 --library-path $dir/lib \
		$dir/bigtext-dyn --stop) || nok "bigtext-dyn stops under $pol"
	$ctl report --pid $p > /tmp/report || nok "report under $pol"
	for m in ld-linux-x86-64.so.2 bigtext-dyn libc.so.6; do
		d=$(report_dist $m < /tmp/report)
		echo "# folio-dist $m@$pol:$d"
		eval "d_${m%%[.-]*}=\"\$d\""
	done
	kill -9 $p
	wait $p 2> /dev/null
	prog=$(field 64K "$d_bigtext")
	lib=$(awk "BEGIN{print $(field 64K "$d_libc") + $(field unaligned "$d_libc")}")
	if [ $pol = never ]; then
		at_least 5 "$prog" && ok "never: bigtext-dyn text not in 64K folios ($prog%)" ||
			nok "never: bigtext-dyn text not in 64K folios ($prog%)"
	else
		at_least "$prog" 90 && ok "$pol: bigtext-dyn text in 64K folios ($prog%)" ||
			nok "$pol: bigtext-dyn text in 64K folios ($prog%)"
		at_least "$lib" 90 && ok "$pol: libc text in large folios ($lib%, aligned or not)" ||
			nok "$pol: libc text in large folios ($lib%)"
	fi
done
echo arch > $knob
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
