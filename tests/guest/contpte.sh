#!/bin/sh
# arm64 test guests (busybox sh): under the default "arch" policy, is the
# text of the test executable mapped with the contiguous bit, and does
# "exec_folio_ctl report" see the same?  report infers contpte blocks from
# pagemap and kpageflags (aligned blocks of one folio, fully mapped); the
# folio_oracle module (tests/kmod) reads the bit from the page tables.
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio

. /tests/bin/lib.sh

kb_page=$($ctl status | sed -n 's/^page size: *\([0-9]*\)K$/\1/p')
# The helper with several whole contpte blocks: 64K blocks with 4K pages,
# 2M blocks with 16K and 64K pages.
name=bigtext
[ "$kb_page" -gt 4 ] && name=hugetext

if oracle_load; then
	ok "folio_oracle loads"
else
	nok "folio_oracle loads"
	echo "$pass passed, $fail failed"
	exit 1
fi

$ctl set arch
p=$(cold_spawn $dir/$name --stop) || nok "$name stops itself"
$ctl report --pid "$p" > /tmp/report
# The text mapping's header line: "PID: START-END r-xp OFFSET PATH".
range=$(sed -n "s|^$p: \([0-9a-f]*\)-\([0-9a-f]*\) r-xp .*/$name\$|\1 \2|p" /tmp/report)
set -- $range
echo "$p 0x$1 0x$2" > $oracle
read -r probe < $oracle
kill -9 "$p"
echo "# $name text $1-$2, probe: $probe"

# report_kb KEY: the kB of report's counter KEY for the text mapping.
report_kb() {
	awk -v want="/$name" -v key="$1" '
		/^[0-9]+: / { on = substr($0, length($0) - length(want) + 1) == want; next }
		on && index($1, key) == 1 { print $2; exit }' /tmp/report
}
cont_kb=$(report_kb file-cont-pte-aligned-)
rss_kb=$(report_kb file-resident:)
# The oracle's figures are in kB; resident counts PTE- and PMD-mapped
# pages.
probe_kb=$(field resident "$probe")
kernel_kb=$(field cont "$probe")
[ -n "$rss_kb" ] && [ "$rss_kb" -gt 0 ] && [ "$probe_kb" -eq "$rss_kb" ] &&
	ok "probe and report see the same resident text: $rss_kb kB" ||
	nok "probe and report see the same resident text: probe $probe_kb kB, report ${rss_kb:-?} kB"
[ "${cont_kb:-x}" = "$kernel_kb" ] &&
	ok "report's contpte share is the kernel's: $kernel_kb kB of $rss_kb kB" ||
	nok "report's contpte share is the kernel's: report ${cont_kb:-?} kB, kernel $kernel_kb kB"
pct=$(( kernel_kb * 100 / ${rss_kb:-1} ))
# For the host's folio table: report's view, and the contiguous bit as
# the kernel set it (the probe), in percent of the resident text.
echo "# folio-dist $name@arch-report:$(report_dist $name < /tmp/report)"
echo "# folio-dist $name@arch-contpte-bit: cont=$(awk -v k="$kernel_kb" -v r="${rss_kb:-1}" \
	'BEGIN { printf "%.1f", 100 * k / r }')"
[ "$pct" -ge 90 ] && ok "arch: ${pct}% of the text is contpte-mapped" ||
	nok "arch: ${pct}% of the text is contpte-mapped (want 90)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
