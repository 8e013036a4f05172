#!/bin/sh
# stress.sh exec|file|ovl [quick]: the stress tests of exec folios, in the
# test guest (busybox sh).  Each stops by itself (a count and a time cap)
# and prints what it did as "# " lines.
#
#   exec  exec_stress: 3 processes exec'ing checktext (text that checks
#         itself) from XFS in a loop, 2 that flip their prctl and
#         fork/exec children, one writing every accepted value to
#         exec_folio_size, caches dropped every second: 10000 execs and 1000
#         policy changes within 240 s (about 175 s on the debug kernel).
#         First, a copy of checktext with a flipped bit in its text must
#         be caught.
#   file  fault_around_split (fault-around racing with folio splits),
#         then file_stress on XFS under exec_folio_size 2M, 64K, auto and never:
#         PROT_EXEC mappings read and checked while the files are written,
#         truncated, re-extended, hole-punched and dropped from the cache;
#         then the same focused on end of file (file_stress -E), where
#         faults race with truncation.  First, a run whose model lies
#         about punches and truncations must fail.  The races must have
#         run (floors below): a run that saw no wrong page but had no
#         large folio to race on, or no fault during a change, fails.
#   ovl   both on overlayfs (lower and upper directories on XFS): binaries
#         in the lower layer, copied up and created in the upper layer
#         (a third of the execs and policy changes: 3333 and 333); file
#         stress under 2M and auto.
#
# "quick" (for the slow TCG arm64 guests) runs fewer: 1500 execs, 150
# policy changes, file stress under 2M and never only.
. /tests/bin/stress-lib.sh
mode=${1:-}
quick=${2:-}
orig=$(knob_active)
execs=10000 writes=1000 ecap=240
fops=300 fchecks=20000 fcap=45 fpols="2M 64K auto never"
# Floors below which a race was not run (tests/progs: fault_around_split
# -R -F -O, file_stress -L), about a fifth of what the x86_64 debug
# kernel did under TCG on 2026-12-07: in 60 s, 574 of 732 rounds split a
# whole 1M folio, 32918 faults, 19309 of them during a split; per -E run,
# 4539-5438 reads that a change of end of file overlapped and 240-274
# large folios below it.
fas_rounds=100 fas_faults=6000 fas_overlaps=3000 eof_min=50
if [ "$quick" = quick ]; then
	execs=1500 writes=150 ecap=300
	fops=150 fchecks=5000 fcap=60 fpols="2M never" fas_secs=20
	fas_rounds=$((fas_rounds / 3)) fas_faults=$((fas_faults / 3)) fas_overlaps=$((fas_overlaps / 3))
fi

# exec_run NAME BINARY...: exec stress on those checktext binaries.
exec_run() {
	name=$1
	shift
	t0=$(date +%s)
	vm_snap /tmp/vm0
	$bin/exec_stress -n $execs -p $writes -t $ecap -w 3 -f 2 -d 1000 "$@"
	rc=$?
	vm_snap /tmp/vm1
	vm_diff /tmp/vm0 /tmp/vm1 "$name"
	echo "# $name: $(elapsed $t0) s"
	tap $rc "$name"
}

# file_run NAME DIR: file stress in DIR under each policy of $fpols.
file_run() {
	for pol in $fpols; do
		t0=$(date +%s)
		echo $pol > $knob || { tap 1 "$1-$pol (cannot set exec_folio_size)"; continue; }
		vm_snap /tmp/vm0
		$bin/file_stress -T "[$1 $pol]" -n $fops -c $fchecks -t $fcap "$2"
		rc=$?
		vm_snap /tmp/vm1
		vm_diff /tmp/vm0 /tmp/vm1 "$1 $pol"
		echo "# $1 $pol: $(elapsed $t0) s"
		tap $rc "$1-$pol"
		# Around end of file: faults racing with truncation.  Before
		# "mm/filemap: read i_size under each folio's lock", a read past
		# end of file returned zeros instead of SIGBUS in about one run
		# in eight under 64K and auto (the race on purpose is
		# eofrace.sh).  -L: the run must have had reads that a change
		# of end of file overlapped, and large folios below it.
		t0=$(date +%s)
		$bin/file_stress -E -L $eof_min -T "[$1 $pol eof]" -n $((fops * 2)) -c $fchecks -t $fcap "$2"
		rc=$?
		echo "# $1 $pol eof: $(elapsed $t0) s"
		tap $rc "$1-$pol-eof"
	done
	echo "$orig" > $knob
}

# The checks can fail: a corrupted text and a lying model are caught.
selfcheck_exec() {
	$bin/exec_stress -K -f 0 -d 0 -n 300 -t 60 $bin/checktext-bad > /tmp/bad.log 2>&1
	rc=$?
	bad=$(grep -c 'ERROR' /tmp/bad.log)
	echo "# exec-selfcheck: exec_stress on checktext-bad: exit $rc, $bad errors reported"
	[ $rc -eq 1 ] && [ "$bad" -gt 0 ]
	tap $? exec-stress-catches-corrupt-text
}

selfcheck_file() {
	$bin/file_stress -B -n 60 -c 3000 -t 30 "$1" > /tmp/bad.log 2>&1
	rc=$?
	bad=$(grep -c 'ERROR' /tmp/bad.log)
	echo "# file-selfcheck: file_stress -B (model lies): exit $rc, $bad errors reported"
	grep -m 3 'ERROR' /tmp/bad.log | sed 's/^/#   /'
	[ $rc -eq 1 ] && [ "$bad" -gt 0 ]
	tap $? file-stress-catches-stale-data
}

echo "# kernel: $(cat /proc/version)"
case "$mode" in
exec)
	selfcheck_exec
	exec_run exec-xfs $bin/checktext $bin/checktext-2m
	;;
file)
	mkdir -p /mnt/fstress
	selfcheck_file /mnt/fstress
	# Fault-around starting inside a large folio that is being split
	# (truncate_inode_partial_folio()) must not map its tails below its
	# start: on stock 6.12 this put a page of one file into the VMA
	# below and stopped the debug kernel at VM_BUG_ON_FOLIO(folio_mapped())
	# within about 30 s ("mm/filemap: do not let fault-around step below
	# its start").
	# Floors: rounds whose folio was really the whole 1M (kpageflags),
	# faults, and faults that began while a split was in flight.
	$bin/fault_around_split -R $fas_rounds -F $fas_faults -O $fas_overlaps \
		/mnt/fstress ${fas_secs:-60}
	tap $? fault-around-split
	file_run file-xfs /mnt/fstress
	rm -rf /mnt/fstress
	;;
ovl)
	o=/mnt/ovl
	mkdir -p $o/lower $o/upper $o/work $o/merged
	cp $bin/checktext $bin/checktext-2m $o/lower/
	# Files of the file stress that exist in the lower layer: opening
	# them for write copies them up.
	dd if=/dev/urandom of=$o/lower/file_stress.0 bs=64k count=20 2>/dev/null
	dd if=/dev/urandom of=$o/lower/file_stress.1 bs=64k count=20 2>/dev/null
	sync
	if ! mount -t overlay overlay \
		-o lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work $o/merged; then
		tap 1 "ovl-mount"
		exit 1
	fi
	tap 0 "ovl-mount"
	# checktext copied up (chmod copies the data up), checktext-2m in the
	# lower layer only, checktext-2m-up created in the upper layer.
	chmod 0755 $o/merged/checktext
	cp $o/merged/checktext-2m $o/merged/checktext-2m-up
	[ -f $o/upper/checktext ] && [ -f $o/upper/checktext-2m-up ] &&
		[ ! -e $o/upper/checktext-2m ]
	tap $? ovl-layers-as-intended
	# A third of the execs of the XFS run: the same code below overlayfs.
	execs=$((execs / 3)) writes=$((writes / 3))
	exec_run exec-ovl $o/merged/checktext $o/merged/checktext-2m \
		$o/merged/checktext-2m-up
	fpols=${quick:+2M}
	fpols=${fpols:-"2M auto"}
	file_run file-ovl $o/merged
	[ -f $o/upper/file_stress.0 ]
	tap $? ovl-file-copied-up
	umount $o/merged
	tap $? ovl-umount
	rm -rf $o
	;;
*)
	echo "usage: stress.sh exec|file|ovl [quick]" >&2
	exit 2 ;;
esac
echo "$orig" > $knob
[ $tap_failed -eq 0 ]
