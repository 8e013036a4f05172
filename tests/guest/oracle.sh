#!/bin/sh
# oracle.sh: is what "exec_folio_ctl report" says about a process's text
# what the kernel holds?  report infers folios from pagemap and
# kpageflags; the folio_oracle module (tests/kmod) reads the page tables,
# the folios and the file's page cache (busybox sh, x86_64 and arm64
# guests).  For each policy the kernel accepts of "never 64K auto 2M
# arch", the test executables (bigtext: a few 64K blocks; hugetext: whole
# 2M blocks; on x86_64 bigtext-dyn through ld.so with libc) are started
# on a cold page cache and stopped, and each of their text mappings is
# compared: resident, base pages, whole folios of each size (aligned or
# not), partial folios, PMD-mapped pages, and the pages in aligned
# blocks of one folio that report counts as contpte; on arm64, that the
# kernel mapped those blocks with the contiguous bit.  Both of report's
# walks are checked: PAGEMAP_SCAN and, as before 6.7, pagemap read()
# page by page.  Sizes the policy makes are not judged here (the
# selftest and the guest scripts do that); whether report measures them
# right is.
#
# Controls: exec_folio_ctl-NAME is the utility with a deliberate error in
# its walk (tests/controls/report-NAME.patch); the same comparison must
# tell each from the kernel in at least one of the processes above whose
# text has what the error is about (partially mapped folios, PMD
# mappings); where none has, the control is said not to be judged.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
. /tests/bin/lib.sh

if oracle_load; then
	ok "oracle: folio_oracle loads"
else
	nok "oracle: folio_oracle loads"
	echo "$pass passed, $fail failed"
	exit 1
fi
mutants=
for m in $ctl-*; do
	[ -x "$m" ] || continue
	m=${m#$ctl-}
	mutants="$mutants $m"
	eval "caught_$(echo "$m" | tr - _)=0 can_$(echo "$m" | tr - _)=0"
done
# need NAME: the oracle's figure that must be non-zero in a process for
# the error of exec_folio_ctl-NAME to show there.
need() {
	case $1 in
	past-run) echo past ;;		# a folio mapped from its start, not to its end
	pmd-twice) echo pmd ;;		# PMD-mapped text (none with 64K pages)
	*) echo resident ;;
	esac
}
saved=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
accepted=" $(tr -d '[]' < $knob) "
for pol in never 64K auto 2M arch; do
	case "$accepted" in
	*" $pol "*) ;;
	*) echo "# oracle: $pol is not accepted here ($(cat $knob))"; continue ;;
	esac
	echo $pol > $knob
	for prog in bigtext hugetext bigtext-dyn; do
		set -- $dir/$prog --stop
		if [ $prog = bigtext-dyn ]; then
			[ -e $dir/lib/ld-linux-x86-64.so.2 ] || continue
			set -- $dir/lib/ld-linux-x86-64.so.2 --library-path $dir/lib "$@"
		fi
		p=$(cold_spawn "$@") || nok "oracle: $prog stops itself under $pol"
		oracle_check "$p" "$prog@$pol" $ctl
		# On arm64, report's contpte blocks of these programs are
		# mapped with the contiguous bit: not so in general (the
		# kernel folds a block only when it maps it at once), but
		# here, on text the policy read, the whole-folio mapping
		# does it.
		if [ "$(uname -m)" = aarch64 ]; then
			if [ "$_n" -gt 0 ] && [ "$_nobit" = 0 ]; then
				ok "oracle: the kernel set the contiguous bit on all of $prog@$pol's aligned blocks"
			else
				cat /tmp/oracle-nobit
				nok "oracle: the kernel set the contiguous bit on all of $prog@$pol's aligned blocks ($_nobit of $_n mappings not)"
			fi
		fi
		export EXEC_FOLIO_CTL_NO_PAGEMAP_SCAN=1
		oracle_check "$p" "$prog@$pol (pagemap read)" $ctl
		unset EXEC_FOLIO_CTL_NO_PAGEMAP_SCAN
		cp /tmp/oracle-kernel /tmp/oracle-kernel-real
		for m in $mutants; do
			v=$(echo "$m" | tr - _)
			# Only where the kernel has what the error is about
			# can it show (and each comparison costs under TCG).
			grep -q " $(need $m)=[1-9]" /tmp/oracle-kernel-real || continue
			eval "can_$v=\$((can_$v + 1))"
			oracle_compare "$p" "$prog@$pol control $m" $ctl-$m > /tmp/oracle-control
			echo "# oracle control $m: $prog@$pol: $_bad of $_n mappings differ"
			[ "$_bad" -gt 0 ] && eval "caught_$v=\$((caught_$v + 1))"
		done
		kill -9 "$p"
		wait "$p" 2>/dev/null
	done
done
echo "$saved" > $knob
for m in $mutants; do
	eval "c=\$caught_$(echo "$m" | tr - _) a=\$can_$(echo "$m" | tr - _)"
	if [ "$a" = 0 ]; then
		echo "# oracle control: exec_folio_ctl-$m not judged: no process here has $(need $m) text"
	elif [ "$c" -gt 0 ]; then
		ok "oracle control: exec_folio_ctl-$m differs from the kernel (in $c of $a processes with $(need $m) text)"
	else
		nok "oracle control: exec_folio_ctl-$m differs from the kernel (in none of $a processes with $(need $m) text)"
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
