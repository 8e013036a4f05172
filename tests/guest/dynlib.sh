#!/bin/sh
# Text that the dynamic loader read()s before mapping it: run a
# dynamically linked bigtext through ld.so, all of them on the XFS disk,
# under several policies, and print how the text of ld.so (loaded by the
# kernel), of the program and of libc.so.6 (both read() then mmap()ed by
# ld.so) is backed, as "# folio-dist" lines.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_order
fail=0
. /tests/bin/lib.sh

for pol in never 64K auto; do
	echo "$pol" > $knob
	p=$(cold_spawn $dir/lib/ld-linux-x86-64.so.2 --library-path $dir/lib \
		$dir/bigtext-dyn --stop) || fail=1
	$ctl report --pid $p > /tmp/report || fail=1
	grep -q libc.so.6 /tmp/report || fail=1
	for m in ld-linux-x86-64.so.2 bigtext-dyn libc.so.6; do
		echo "# folio-dist $m@$pol:$(report_dist $m < /tmp/report)"
	done
	kill -9 $p
done
echo arch > $knob
exit $fail
