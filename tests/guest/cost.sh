#!/bin/sh
# cost.sh POLICY...: what the policy costs where it is not meant to help.
#  - Cold exec: bigtext and hugetext exec'd on an empty page cache, the
#    time until each has faulted all its text (median of 5 and 3 runs):
#    "# cost exec" lines, for bench/cost.md.
#  - A private, read-only, not executable mapping of a 64M data file (as
#    a program maps its input), scanned in order: read-around of private
#    mappings is changed only where its window would leave the mapping,
#    so every policy must read it as "never" does: no more major faults,
#    and minor faults within 10% (as many pages mapped per fault: the
#    readahead ramp reaches the same folio size).
cost=/tests/bin/exec_cost
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
. /tests/bin/lib.sh

arch=$(uname -m)
base=
for pol in "$@"; do
	echo "$pol" > $knob 2> /dev/null || { echo "# cost: $pol not accepted here"; continue; }
	for prog in bigtext:5 hugetext:3; do
		out=$($cost exec ${prog#*:} $dir/${prog%%:*}) ||
			{ nok "$pol: ${prog%%:*} exec'd cold"; continue; }
		echo "$out" | sed "s|^# cost exec [^:]*:|# cost exec $arch ${prog%%:*}@$pol:|"
	done
	out=$($cost scan $dir/scan-data 64) || { nok "$pol: scan of a private data mapping runs"; continue; }
	echo "$out" | sed "s|^# cost scan|# cost scan $arch @$pol|"
	maj=$(echo "$out" | sed -n 's/.*majflt=\([0-9]*\).*/\1/p')
	min=$(echo "$out" | sed -n 's/.*minflt=\([0-9]*\).*/\1/p')
	[ -n "$base" ] || base="$maj $min"
	set -- $base
	# The same readahead as never: as many major faults, and minor
	# faults within 10% (the folios read ahead are as large).
	if [ "$maj" -le "$1" ] && awk "BEGIN{exit !($min <= $2 * 1.1)}"; then
		ok "$pol: a private data mapping scanned in order is read as under never ($maj/$min faults, never $1/$2)"
	else
		nok "$pol: a private data mapping scanned in order is read as under never ($maj/$min faults, never $1/$2)"
	fi
done
echo arch > $knob
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
