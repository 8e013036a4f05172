#!/bin/sh
# Shared by the stress, memcg and fault injection guest scripts (busybox
# sh); source it.  TAP lines "ok N name" / "not ok N name", which the
# console parser reports under the plan step, and the counters of the
# exec folio series (printed when the kernel has them).
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
bin=/mnt/exec-folio
tap_n=0
tap_failed=0

# tap RC NAME: "ok" if RC is 0.
tap() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n $2"
	else
		echo "not ok $tap_n $2"
		tap_failed=$((tap_failed + 1))
	fi
}

# The active word of the exec_folio_size knob.
knob_active() { sed 's/.*\[\(.*\)\].*/\1/' $knob; }

# vm_snap FILE: the counters worth reporting, "name value" a line: the
# exec folio counters (exec_folio_stats/ in the THP sysfs directory, or
# exec_folio_* in /proc/vmstat) and some of /proc/vmstat.
vm_snap() {
	{
		grep -E '^(exec_folio_[a-z_]+|thp_file_alloc|thp_file_fallback|thp_file_mapped|oom_kill|pgmajfault|allocstall_[a-z]+|pgscan_direct|workingset_refault_file) ' /proc/vmstat
		for f in /sys/kernel/mm/transparent_hugepage/exec_folio_stats/*; do
			[ -r "$f" ] && echo "exec_folio_stats/${f##*/} $(cat "$f")"
		done
	} > "$1"
}

# vm_diff BEFORE AFTER WHAT: "# WHAT: name +delta ..." on one line; the
# exec_folio_* counters always, the others when they moved.
vm_diff() {
	awk -v what="$3" '
		NR == FNR { before[$1] = $2; next }
		{ d = $2 - before[$1]
		  if ($1 ~ /^exec_folio_/ || d != 0) line = line " " $1 " +" d }
		END { if (line == "") line = " (no exec folio counters in this kernel)"
		      else if (line !~ /exec_folio_/) line = line " (no exec folio counters in this kernel)"
		      print "# " what ":" line }' "$1" "$2"
}

# elapsed T0: seconds since T0 (date +%s).
elapsed() { echo $(( $(date +%s) - $1 )); }
