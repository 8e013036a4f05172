#!/bin/sh
# eofrace.sh: the i_size race of "mm/filemap: read i_size under each
# folio's lock in filemap_map_pages()", run on purpose (busybox sh, a
# guest with 2 CPUs or more): tests/kmod/fault_delay.ko holds a
# fault-around between its reading of i_size and its lock of the folio,
# and tests/progs/eof_race truncates the file meanwhile, 20 rounds.  No
# page past the new end of file may be mapped; without that patch most
# rounds map some (tests/expect/control-eof-race.txt).
. /tests/bin/lib.sh
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -e /sys/kernel/debug/fault_delay ] || insmod /tests/bin/fault_delay.ko; then
	ok "eofrace: fault_delay loads"
else
	nok "eofrace: fault_delay loads"
	echo "$pass passed, $fail failed"
	exit 1
fi
cpus=$(grep -c '^processor' /proc/cpuinfo)
if [ "$cpus" -ge 2 ]; then
	ok "eofrace: the guest has 2 CPUs or more"
else
	nok "eofrace: the guest has 2 CPUs or more ($cpus)"
fi
d=/mnt/exec-folio/eofrace
mkdir -p $d
/tests/bin/eof_race -n 20 -R 15 $d
rc=$?
case $rc in
0) ok "eofrace: no page past end of file mapped by a fault held over its truncation" ;;
1) nok "eofrace: no page past end of file mapped by a fault held over its truncation" ;;
3) nok "eofrace: no page past end of file mapped by a fault held over its truncation (the race did not run)" ;;
*) nok "eofrace: no page past end of file mapped by a fault held over its truncation (eof_race exited $rc)" ;;
esac
rm -rf $d
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
