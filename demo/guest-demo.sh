#!/bin/sh
# Runs inside the demo guest: the exec folio policies at work.
. /tests/bin/lib.sh
ctl=/tests/bin/exec_folio_ctl
big=/mnt/exec-folio/bigtext
big2m=/mnt/exec-folio/bigtext-2m
# A size every page size offers (64K is a single page with 64K pages).
size=64K
$ctl status | grep -q '^page size: *64K' && size=512K

# Run $1 cold (page cache dropped) under "exec_folio_ctl exec" options
# $2..., stopped after it faulted all its text; print its report.
show() {
	bin=$1
	shift
	p=$(cold_spawn $ctl exec "$@" -- "$bin" --stop)
	# one text mapping (a static binary): its counters, not the rollup
	$ctl report --pid $p | sed '/rollup/,$d'
	grep ExecFolioSize /proc/$p/status
	grep FilePmdMapped /proc/$p/smaps_rollup
	kill -9 $p
}

echo
echo "### exec_folio_ctl status"
$ctl status
for mode in never arch $size auto 2M; do
	$ctl set $mode
	echo
	echo "### global exec_folio_size=$mode: $(basename $big) (3 MiB of text)"
	show $big --mode inherit
done
$ctl set auto
echo
echo "### global exec_folio_size=auto: $(basename $big2m) (text 2M-aligned in file and memory)"
show $big2m --mode inherit
$ctl set arch
echo
echo "### global arch (none on x86_64), one service opts in: exec_folio_ctl exec --size $size"
show $big --size $size
$ctl set never
echo
echo "### global never overrides the service's choice"
show $big --size $size
$ctl set arch
