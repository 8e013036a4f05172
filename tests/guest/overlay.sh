#!/bin/sh
# Binaries in containers: a program run from an overlayfs mount whose
# lower layer is on the XFS disk gets the same text folios as the same
# program run from XFS directly, under an explicit size and under auto.
# (The loader's reads go to the real file on overlayfs: a fix that works
# by changing the overlay file's mode would do nothing there.)
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size

. /tests/bin/lib.sh

case $($ctl status | sed -n 's/^page size: *//p') in
4K) size=64K prog=bigtext ;;
16K) size=128K prog=hugetext ;;
*) size=512K prog=hugetext ;;
esac

top=/mnt/ovl
merged=/tmp/ovl-merged
mkdir -p $top/lower $top/upper $top/work $merged
cp $dir/$prog $dir/bigtext-2m $top/lower/
if mount -t overlay overlay \
	-o lowerdir=$top/lower,upperdir=$top/upper,workdir=$top/work $merged; then
	ok "overlayfs mounts with its lower layer on XFS"
else
	nok "overlayfs mounts with its lower layer on XFS"
	echo "$pass passed, $fail failed"
	exit 1
fi


# measure PROG POLICY: the report_dist of PROG run cold from the lower
# layer directly and through the overlay; prints both as folio-dist lines.
measure() {
	echo "$2" > $knob
	for where in $top/lower $merged; do
		p=$(cold_spawn $where/$1 --stop) || { echo "GUEST-ERROR $1 did not stop" >&2; }
		d=$($ctl report --pid $p | report_dist $1)
		kill -9 $p 2> /dev/null
		wait $p 2> /dev/null
		[ $where = $merged ] && label=overlay || label=xfs
		echo "# folio-dist $1@$2-$label:$d"
		eval "dist_$label=\"\$d\""
	done
}

# The same folios, to the last small one: the loader's reads and the
# fault path must treat the real file under the overlay as the file.
same() { [ -n "$dist_xfs" ] && [ "$dist_xfs" = "$dist_overlay" ]; }

measure $prog $size
x=$(field $size "$dist_xfs")
if same && awk "BEGIN{exit !($x > 50)}"; then
	ok "$prog from overlayfs gets the same folios as from XFS ($x% in $size)"
else
	nok "$prog from overlayfs gets the same folios as from XFS:$dist_overlay vs$dist_xfs"
fi

if [ "$size" = 64K ]; then
	measure bigtext-2m auto
	x=$(field pmd "$dist_xfs")
	if same && awk "BEGIN{exit !($x > 50)}"; then
		ok "bigtext-2m from overlayfs is PMD-mapped under auto as from XFS ($x%)"
	else
		nok "bigtext-2m from overlayfs is PMD-mapped under auto as from XFS:$dist_overlay vs$dist_xfs"
	fi
fi

# Libraries in a container: the kernel runs ld.so from the overlay, and
# ld.so maps libc from it.  The mapping is placed through the real file,
# congruent modulo 64K with its offset, so that its 64K folios can be
# mapped whole.  Three runs: an unplaced mapping is congruent by chance,
# 1 in 16.
if [ "$size" = 64K ] && [ -d $dir/pieroot ]; then
	pmerged=/tmp/ovl-pie
	mkdir -p $top/pupper $top/pwork $pmerged
	mount -t overlay overlay \
		-o lowerdir=$dir/pieroot,upperdir=$top/pupper,workdir=$top/pwork $pmerged
	echo 64K > $knob
	placed=0 pie=0
	for i in 1 2 3; do
		p=$(cold_spawn chroot $pmerged /bin/bigtext-pie --stop) ||
			{ nok "bigtext-pie stops in a chroot on overlayfs"; break; }
		set -- $(awk '$2 ~ /x/ && index($6, "libc.so.6") { split($1, a, "-"); print a[1], $3; exit }' \
			/proc/$p/maps)
		[ -n "${1:-}" ] && [ $(( (0x$1 - 0x$2) % 65536 )) -eq 0 ] && placed=$((placed + 1))
		# The program itself, placed by execve() through the real file.
		set -- $(awk '$2 ~ /x/ && index($6, "bigtext-pie") { split($1, a, "-"); print a[1], $3; exit }' \
			/proc/$p/maps)
		[ -n "${1:-}" ] && [ $(( (0x$1 - 0x$2) % 65536 )) -eq 0 ] && pie=$((pie + 1))
		[ $i = 3 ] && $ctl report --pid $p > /tmp/ovl-report
		kill -9 $p 2> /dev/null
		wait $p 2> /dev/null
	done
	[ $placed = 3 ] && ok "libc from overlayfs placed congruent modulo 64K (3 of 3 runs)" ||
		nok "libc from overlayfs placed congruent modulo 64K ($placed of 3 runs)"
	[ $pie = 3 ] && ok "a PIE from overlayfs placed congruent modulo 64K (3 of 3 runs)" ||
		nok "a PIE from overlayfs placed congruent modulo 64K ($pie of 3 runs)"
	d=$(report_dist libc.so.6 < /tmp/ovl-report)
	echo "# folio-dist libc.so.6@64K-overlay:$d"
	x=$(field 64K "$d")
	awk "BEGIN{exit !(${x:-0} > 80)}" &&
		ok "libc from overlayfs: $x% of its text in aligned 64K folios" ||
		nok "libc from overlayfs: ${x:-?}% of its text in aligned 64K folios (want 80)"
	umount $pmerged
fi

echo arch > $knob
umount $merged
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
