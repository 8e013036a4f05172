#!/bin/sh
# memcg.sh [ROUNDS [MAX]]: large-text programs in a memory cgroup (v2)
# with a tight memory.max, under exec_folio_size never, 2M and auto, in the
# small (256M) test guest (busybox sh).
#
# Per policy, a new cgroup with memory.max MAX (default 24M) runs ROUNDS
# (default 2) rounds of three hugetext copies at once (10M of text each,
# every page of it called; 30M of text in all, so the cgroup must reclaim
# text that is in use).  Each program must exit 0 or be OOM-killed;
# memory.events counts the OOM kills.  Fails if a program ends any other
# way, if the cgroup never reached its limit (no pressure, no test), or
# if 2M or auto get more OOM kills than never (or never's programs were
# all killed, which would make that vacuous).  Prints the
# cgroup's events and peak, and the exec_folio_* counters of /proc/vmstat
# (allocations, fallbacks, step-downs) before and after, per policy.
. /tests/bin/stress-lib.sh
. /tests/bin/lib.sh
rounds=${1:-2}
max=${2:-24M}
cg=/sys/fs/cgroup
orig=$(knob_active)
# Below 512M of RAM the kernel turns THP's "enabled" to never at boot (a
# small machine's default), and "auto" then gives no PMD-size text folio.
# The guest is small for speed only: give it what a server has, the
# configured default (madvise), and put it back at the end.
thp=/sys/kernel/mm/transparent_hugepage/enabled
thp_orig=$(sed 's/.*\[\(.*\)\].*/\1/' $thp)
echo madvise > $thp
echo "# memcg: THP enabled was $thp_orig at boot, madvise for the test"

grep -q cgroup2 /proc/filesystems || { tap 1 "cgroup2 (not in this kernel)"; exit 1; }
mount -t cgroup2 none $cg && echo +memory > $cg/cgroup.subtree_control
tap $? cgroup2-memory-controller
mkdir -p /mnt/memcg
for i in 1 2 3; do cp $bin/hugetext /mnt/memcg/hugetext.$i; done
sync
echo "# memcg: $(grep MemTotal /proc/meminfo | tr -s ' '), memory.max $max, $rounds rounds of 3 x hugetext (10M text)"

for pol in never 2M auto; do
	g=$cg/exec-folio-$pol
	mkdir $g && echo $max > $g/memory.max || { tap 1 "memcg-$pol (cgroup setup)"; continue; }
	echo $pol > $knob
	sync
	drop_caches
	vm_snap /tmp/vm0
	t0=$(date +%s)
	# The shell joins the cgroup, so everything it starts is in it; each
	# program's exit status is written as soon as it is known.
	sh -c "echo \$\$ > $g/cgroup.procs
		for r in \$(seq $rounds); do
			/mnt/memcg/hugetext.1 & p1=\$!
			/mnt/memcg/hugetext.2 & p2=\$!
			/mnt/memcg/hugetext.3 & p3=\$!
			for p in \$p1 \$p2 \$p3; do wait \$p; echo \$?; done
		done" > /tmp/memcg-$pol 2>&1
	secs=$(elapsed $t0)
	vm_snap /tmp/vm1
	runs=$((rounds * 3))
	okn=$(grep -c '^0$' /tmp/memcg-$pol)
	killed=$(grep -c '^137$' /tmp/memcg-$pol)
	other=$((runs - okn - killed))
	ev=$(tr '\n' ' ' < $g/memory.events)
	peak=$(cat $g/memory.peak 2>/dev/null || echo '?')
	oomk=$(sed -n 's/^oom_kill //p' $g/memory.events)
	eval oom_$(echo $pol | tr -d 0-9)=$oomk
	echo "# memcg $pol: $runs runs: $okn exited 0, $killed killed, $other other; $secs s"
	echo "# memcg $pol: memory.events: $ev; memory.peak $peak"
	vm_diff /tmp/vm0 /tmp/vm1 "memcg $pol"
	[ $other -eq 0 ]
	tap $? "memcg-$pol-programs-exit-0-or-oom-killed"
	[ "$(sed -n 's/^max //p' $g/memory.events)" -gt 0 ]
	tap $? "memcg-$pol-limit-reached"
	# At the cgroup's limit, 2M and auto still allocate large text
	# folios (the charge reclaims the group's own cache); never
	# allocates none of its own.
	alloc=$(awk 'NR == FNR { b[$1] = $2; next }
		$1 ~ /exec_folio.*alloc$/ { print $2 - b[$1] }' /tmp/vm0 /tmp/vm1)
	if [ $pol = never ]; then
		[ "${alloc:-1}" -eq 0 ]
		tap $? "memcg-never-no-exec-folio-allocations"
	else
		[ "${alloc:-0}" -gt 0 ]
		tap $? "memcg-$pol-large-text-folios-at-the-cgroup-limit"
	fi
	summary="$summary; $pol: $oomk OOM kills, $(awk '
		NR == FNR { b[$1] = $2; next }
		$1 ~ /exec_folio.*(alloc|fallback)$/ { n = $1; sub(/.*[_\/]/, "", n); printf "%s%s +%d", sep, n, $2 - b[$1]; sep = ", " }
		' /tmp/vm0 /tmp/vm1)"
	rmdir $g
done
echo "$orig" > $knob
echo "# memcg: OOM kills and exec folio allocations/fallbacks per policy${summary}"
# The comparisons below mean something only if never's programs ran:
# with all of them killed, nothing could be killed beyond never.
[ -n "$oom_never" ] && [ "$oom_never" -lt $((rounds * 3)) ]
tap $? "memcg-never-not-every-program-oom-killed ($oom_never OOM kills in $((rounds * 3)) runs)"
[ -n "$oom_never" ] && [ "${oom_M:-99}" -le "$oom_never" ]
tap $? "memcg-2M-no-oom-kill-beyond-never"
[ -n "$oom_never" ] && [ "${oom_auto:-99}" -le "$oom_never" ]
tap $? "memcg-auto-no-oom-kill-beyond-never"

# The steady state of a running machine, under auto.
#
# In a memory cgroup at its limit full of clean page cache of its own:
# the normal state of a container, not a shortage.  hugetext's whole 2M
# blocks must be PMD-mapped (FilePmdMapped, the kernel's own count):
# the charge reclaims the group's cache to take each 2M folio.
#
# Just after a file larger than memory was read (free pages where
# kswapd leaves them): measured and printed, not asserted.  Free memory
# is then below the compaction gap, where the page allocator refuses a
# costly __GFP_NORETRY allocation at once (COMPACT_SKIPPED), as it does
# for anonymous THP faults, so the first text read there gets what the
# allocator gives; the fallbacks are counted.
pmd_of() { awk '/^FilePmdMapped:/ { s += $2 } END { print s + 0 }' /proc/$1/smaps; }
stopped() {
	for _i in $(seq 200); do
		grep -q '^State:.*T (stopped)' /proc/$1/status 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
high_kb() { awk '$1 == "high" { s += $2 } END { print s * 4 }' /proc/zoneinfo; }
echo auto > $knob
dd if=/dev/zero of=/mnt/memcg/fill bs=1M count=200 2>/dev/null
sync
drop_caches
cat /mnt/memcg/fill > /dev/null
free_kb=$(sed -n 's/^MemFree: *\([0-9]*\).*/\1/p' /proc/meminfo)
cached_kb=$(sed -n 's/^Cached: *\([0-9]*\).*/\1/p' /proc/meminfo)
total_kb=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)
echo "# steady: page cache full: Cached $cached_kb kB of $total_kb kB, MemFree $free_kb kB, high watermarks $(high_kb) kB"
[ "$cached_kb" -ge $((total_kb * 6 / 10)) ]
tap $? "steady-full-cache-reached"
vm_snap /tmp/vm0
/mnt/memcg/hugetext.1 --stop & p=$!
stopped $p
tap $? "steady-full-cache-hugetext-stops"
pmd=$(pmd_of $p)
kill -CONT $p; wait $p
vm_snap /tmp/vm1
echo "# steady: page cache full: hugetext under auto: FilePmdMapped $pmd kB"
vm_diff /tmp/vm0 /tmp/vm1 "steady full cache"

g=$cg/exec-folio-steady
if mkdir $g && echo 64M > $g/memory.max; then
	drop_caches
	vm_snap /tmp/vm0
	sh -c "echo \$\$ > $g/cgroup.procs
		cat /mnt/memcg/fill > /dev/null
		cat $g/memory.current > /tmp/steady-current
		exec /mnt/memcg/hugetext.2 --stop" & p=$!
	stopped $p
	tap $? "steady-memcg-hugetext-stops"
	pmd=$(pmd_of $p)
	kill -CONT $p; wait $p
	vm_snap /tmp/vm1
	cur=$(cat /tmp/steady-current)
	oomk=$(sed -n 's/^oom_kill //p' $g/memory.events)
	echo "# steady: memcg 64M: memory.current $cur before the exec; hugetext under auto: FilePmdMapped $pmd kB; $oomk OOM kills"
	vm_diff /tmp/vm0 /tmp/vm1 "steady memcg"
	# The group was at its limit (within an eighth of it) when the
	# program started: full of the file's clean cache.
	[ "$cur" -ge $((56 * 1024 * 1024)) ]
	tap $? "steady-memcg-at-its-limit"
	[ "$pmd" -ge 4096 ]
	tap $? "steady-memcg-auto-text-pmd-mapped"
	[ "$oomk" -eq 0 ]
	tap $? "steady-memcg-no-oom-kill"
	rmdir $g
else
	tap 1 "steady-memcg (cgroup setup)"
fi
echo "$orig" > $knob
echo "$thp_orig" > $thp
rm -rf /mnt/memcg
[ $tap_failed -eq 0 ]
