#!/bin/sh
# punchedge.sh: a hole punched in a large folio must not read as zeroes
# outside it (busybox sh, a guest with 2 CPUs: readers spin while the
# punch runs).  tests/progs/punch_edge: on XFS, which truncates the page
# cache over the hole rounded out to pages, stock 6.12 reads zeroes
# below the hole in about 1 round in 7 ("mm/truncate: zero a large
# folio's whole pages only if it stays whole"); on tmpfs with
# huge=always (shmem_undo_range(), exact byte range), which the patch
# also changes, the hole and the data around it must read right.
#
# PUNCH_EDGE_CPUS (2): the CPUs the guest must have.  The x86_64 debug
# guest sees 1 (its kernel has no ACPI, and QEMU's MP table lists one
# CPU): it runs the test for KASAN and lockdep over the changed path,
# not to detect the race.
. /tests/bin/lib.sh
secs=${PUNCH_EDGE_SECS:-15}
want=${PUNCH_EDGE_CPUS:-2}
cpus=$(grep -c '^processor' /proc/cpuinfo)
if [ "$cpus" -ge "$want" ]; then
	ok "punchedge: the guest has $want CPUs or more"
else
	nok "punchedge: the guest has $want CPUs or more ($cpus)"
fi
# pe DIR NAME: punch_edge in DIR, one result named after NAME.
pe() {
	/tests/bin/punch_edge -t $secs "$1" > /tmp/pe.log 2>&1
	rc=$?
	sed 's/^/# /; s/^# # /# /' /tmp/pe.log
	what="punchedge: $2: no zeroes read outside a hole punched in a large folio, the hole reads as zeroes"
	case $rc in
	0) ok "$what" ;;
	1) nok "$what" ;;
	3) nok "$what (fewer than 10 rounds had a large folio)" ;;
	*) nok "$what (punch_edge exited $rc)" ;;
	esac
	rm -f "$1/punch_edge"
}
mkdir -p /mnt/punchedge
pe /mnt/punchedge xfs
rmdir /mnt/punchedge
mkdir -p /tmp/punchedge
if mount -t tmpfs -o huge=always,size=16M none /tmp/punchedge; then
	pe /tmp/punchedge tmpfs-huge
	umount /tmp/punchedge
else
	nok "punchedge: tmpfs-huge: mount -t tmpfs -o huge=always"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
