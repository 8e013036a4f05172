#!/bin/sh
# faultinject.sh [EXECS]: allocation failures injected into the exec
# readahead path while text is faulted, in the test guest (busybox sh).
#
# fail_page_alloc and failslab (CONFIG_FAULT_INJECTION_DEBUG_FS) with
# task-filter on: only processes with /proc/<pid>/make-it-fail (the test
# programs and their children) see failures, and only allocations made
# with a return address inside [require-start, require-end) on the stack
# (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER; the range of a function from
# /proc/kallsyms).  fail_page_alloc has min-order 1: only large folios
# fail, and the kernel must fall back to small ones (setup's 7th argument
# raises it: min-order 9 fails only PMD-size folios, which must step down
# one order).  Phases:
#
#  1. every large allocation of the exec readahead (ra_order_folios(),
#     page_cache_ra_order_exact() if it was inlined; not below
#     read_pages()) fails (probability 100), exec_folio_size 2M: bigtext-2m
#     must get no large folio at all, and exec_stress (checktext, which
#     checks its text) must be right;
#  2. a third of them fail, exec_folio_size 64K;
#  3. failslab: a tenth of its slab allocations (page cache xarray
#     nodes) fail, auto.
#
# Each phase must inject failures (the "times" budget goes down) and
# every exec must give the right result: no SIGBUS, no kill, no wrong
# text; where large folios failed, exec_folio_stats/fallback must count
# the step-downs.  Exit status 0 if so.
. /tests/bin/stress-lib.sh
. /tests/bin/lib.sh
execs=${1:-800}
dbg=/sys/kernel/debug
orig=$(knob_active)
ctl=$bin/exec_folio_ctl

grep -q " $dbg debugfs " /proc/mounts || mount -t debugfs none $dbg
if [ ! -d $dbg/fail_page_alloc ] || [ ! -d $dbg/failslab ]; then
	tap 1 "fault injection in debugfs (not in this kernel)"
	exit 1
fi
if [ ! -r /proc/kallsyms ] || ! grep -q ' filemap_fault$' /proc/kallsyms; then
	tap 1 "/proc/kallsyms with filemap_fault (CONFIG_KALLSYMS)"
	exit 1
fi
sort /proc/kallsyms > /tmp/kallsyms.sorted

# addr SYMBOL: the addresses (hex, no 0x) of the text symbols of that name.
addr() {
	awk -v sym="$1" '($2 == "t" || $2 == "T") && $3 == sym { print $1 }' /tmp/kallsyms.sorted
}

# range ADDR: "0xSTART 0xEND" of the symbol at ADDR (END: the next
# higher address in kallsyms).
range() {
	awk -v a="$1" 'found && $1 != a { print "0x" a, "0x" $1; exit } $1 == a { found = 1 }' \
		/tmp/kallsyms.sorted
}

# setup ATTR-DIR PROBABILITY START END REJECT-START REJECT-END:
# task-filtered, stack-filtered (a caller in [START, END), none in the
# rejected range),
# quiet, a large "times" budget (the failures injected are counted by
# how much it went down).
setup() {
	d=$dbg/$1
	echo 0 > $d/probability
	echo 1 > $d/interval
	echo 1000000 > $d/times
	echo 0 > $d/space
	echo 0 > $d/verbose
	echo Y > $d/task-filter
	echo N > $d/ignore-gfp-wait
	[ -e $d/ignore-gfp-highmem ] && echo N > $d/ignore-gfp-highmem
	[ -e $d/min-order ] && echo ${7:-1} > $d/min-order
	echo 32 > $d/stacktrace-depth
	echo $3 > $d/require-start
	echo $4 > $d/require-end
	echo $5 > $d/reject-start
	echo $6 > $d/reject-end
	echo $2 > $d/probability
}

# off ATTR-DIR: no more failures; prints how many were injected.
off() {
	d=$dbg/$1
	echo 0 > $d/probability
	echo $((1000000 - $(cat $d/times)))
	echo N > $d/task-filter
	echo 0 > $d/require-start
	echo 18446744073709551615 > $d/require-end
	echo 0 > $d/reject-start
	echo 0 > $d/reject-end
}

# stress NAME: exec_stress with make-it-fail; the TAP line for it.
stress() {
	t0=$(date +%s)
	sh -c "echo 1 > /proc/self/make-it-fail && exec $bin/exec_stress -K -w 2 -f 1 -d 300 \
		-n $execs -t 150 $bin/checktext $bin/checktext-2m"
	rc=$?
	echo "# $1: exec_stress exit $rc, $(elapsed $t0) s"
	tap $rc "$1-execs-correct"
}

# fell_back NAME: the TAP line for "exec_folio_stats/fallback counted
# the step-downs" (between /tmp/vm0 and /tmp/vm1).
fell_back() {
	_n=$(awk 'NR == FNR { b[$1] = $2; next }
		$1 == "exec_folio_stats/fallback" { print $2 - b[$1] }' /tmp/vm0 /tmp/vm1)
	echo "# $1: exec_folio_stats/fallback +${_n:-?}"
	[ "${_n:-0}" -gt 0 ]
	tap $? "$1-fallback-counted"
}

# injected NAME COUNT: the TAP line for "failures were injected".
injected() {
	echo "# $1: $2 allocation failures injected"
	[ "$2" -gt 0 ]
	tap $? "$1-failures-injected"
}

# The exec readahead: ra_order_folios() (page_cache_ra_order_exact() if
# it was inlined) allocates the large folios; read_pages(), which it
# calls to submit the reads, is rejected: the block layer's allocations
# below it are not the target.
ra=$(addr ra_order_folios | head -1)
[ -n "$ra" ] || ra=$(addr page_cache_ra_order_exact | head -1)
rp=$(addr read_pages | head -1)
ra_range=$(range "$ra")
rp_range=$(range "$rp")
echo "# faultinject: exec readahead at ${ra_range:-?}, read_pages (rejected) at ${rp_range:-?}"
[ -n "$ra_range" ] && [ -n "$rp_range" ]
tap $? faultinject-ranges-from-kallsyms

# 1. Every large folio in a fault fails: the text must end up all small.
vm_snap /tmp/vm0
echo 2M > $knob
set -- $ra_range $rp_range
setup fail_page_alloc 100 $1 $2 $3 $4
p=$(cold_spawn sh -c "echo 1 > /proc/self/make-it-fail && exec $bin/bigtext-2m --stop")
dist=$($ctl report --pid "$p" | report_dist bigtext-2m)
kill -9 "$p"
echo "# faultinject page-alloc-all: bigtext-2m text:$dist"
case " $dist " in
*" small="*) ;;
*) dist=" broken-report" ;;
esac
large=$(echo "$dist" | tr ' ' '\n' | grep -vE '^(small|partial)=|^$' | grep -vE '=0(\.0)?$')
[ -z "$large" ] && [ "${dist#* broken-report}" = "$dist" ]
tap $? page-alloc-all-text-falls-back-to-small-folios
stress page-alloc-all
injected page-alloc-all "$(off fail_page_alloc)"
vm_snap /tmp/vm1
vm_diff /tmp/vm0 /tmp/vm1 "faultinject page-alloc-all"
fell_back page-alloc-all

# 2. A third of the exec readahead's large folios fail.
# Only PMD-size allocations fail (min-order 9, 2M with 4K pages): the
# read steps down one order, to 1M folios where the 2M ones would have
# been, not to small folios.
vm_snap /tmp/vm0
echo 2M > $knob
set -- $ra_range $rp_range
setup fail_page_alloc 100 $1 $2 $3 $4 9
p=$(cold_spawn sh -c "echo 1 > /proc/self/make-it-fail && exec $bin/bigtext-2m --stop")
dist=$($ctl report --pid "$p" | report_dist bigtext-2m)
kill -9 "$p"
echo "# faultinject page-alloc-pmd: bigtext-2m text:$dist"
m1=$(echo "$dist" | tr ' ' '\n' | sed -n 's/^1024K=\([0-9]*\).*/\1/p')
m2=$(echo "$dist" | tr ' ' '\n' | sed -n 's/^\(2048K\|pmd\)=\([0-9]*\).*/\2/p' | sort -n | tail -1)
[ "${m1:-0}" -ge 60 ] && [ "${m2:-0}" -eq 0 ]
tap $? page-alloc-pmd-text-steps-down-one-order-to-1M
injected page-alloc-pmd "$(off fail_page_alloc)"
vm_snap /tmp/vm1
vm_diff /tmp/vm0 /tmp/vm1 "faultinject page-alloc-pmd"
fell_back page-alloc-pmd

vm_snap /tmp/vm0
echo 64K > $knob
set -- $ra_range $rp_range
setup fail_page_alloc 33 $1 $2 $3 $4
stress page-alloc-ra
injected page-alloc-ra "$(off fail_page_alloc)"
vm_snap /tmp/vm1
vm_diff /tmp/vm0 /tmp/vm1 "faultinject page-alloc-ra"
fell_back page-alloc-ra

# 3. A tenth of the exec readahead's slab allocations fail.
vm_snap /tmp/vm0
echo auto > $knob
set -- $ra_range $rp_range
setup failslab 10 $1 $2 $3 $4
stress slab-ra
injected slab-ra "$(off failslab)"
vm_snap /tmp/vm1
vm_diff /tmp/vm0 /tmp/vm1 "faultinject slab-ra"

echo "$orig" > $knob
[ $tap_failed -eq 0 ]
