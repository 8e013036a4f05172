#!/bin/sh
# thpmaps.sh [DIR]: exec_folio_ctl report against the kernel's own
# tools/mm/thpmaps, in the guest, on text in 64K, 256K and 2M folios (busybox
# sh).  On the host the comparison only sees 4K pages and tmpfs's PMD
# folios; here the series' kernel reads text into 64K..1M folios too.
#
# DIR is the field chroot (tests/lib/field-closure.sh --thpmaps), on the
# XFS disk: Debian's python3.11 with numpy, thpmaps from the series'
# tree and tests/lib/compare-thpmaps.py.  For each policy, hugetext (10
# MiB of 2M-aligned text, every page called, on XFS outside the chroot)
# is started cold and stopped; thpmaps and report are run on it
# and compared counter by counter.  Each comparison must also have seen
# the folio size the policy reads (a comparison of only 4K pages proves
# nothing), and the comparison of one policy's thpmaps output against
# the other policy's report must fail: the check can tell them apart.
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/mnt/exec-folio/${here##*/}}
ctl=${FIELD_CTL:-/tests/bin/exec_folio_ctl}
big=/tests/bin/hugetext
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
. "$here/lib.sh"
py="chroot $dir /usr/bin/python3.11"

finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
for f in usr/bin/python3.11 usr/local/bin/thpmaps usr/local/bin/compare-thpmaps.py; do
	[ -e "$dir/$f" ] || { nok "thpmaps: $f in the chroot"; finish; }
done
[ -e $knob ] || { nok "thpmaps: the kernel has $knob"; finish; }
saved=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
mount -t proc proc "$dir/proc" && mount -t sysfs sysfs "$dir/sys" ||
	{ nok "thpmaps: mount /proc and /sys in the chroot"; finish; }
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	umount "$dir/proc" "$dir/sys" 2>/dev/null
	echo "$saved" > $knob
}
trap cleanup EXIT
# The program on XFS, outside the chroot (thpmaps reads any process).
mkdir -p /mnt/exec-folio/thpmaps-bin && cp $big /mnt/exec-folio/thpmaps-bin/ ||
	{ nok "thpmaps: hugetext copied onto XFS"; finish; }
prog=/mnt/exec-folio/thpmaps-bin/hugetext

# policy SIZE KEY: run the comparison under SIZE; KEY is the thpmaps
# counter of the folios SIZE reads, which must be non-zero.
policy() {
	echo "$1" > $knob || { nok "thpmaps: policy $1 set"; return; }
	pid=$(cold_spawn $prog --stop) || { nok "thpmaps: hugetext stops under $1"; pid=; return; }
	$py /usr/local/bin/thpmaps --pid "$pid" --cont 64K --inc-empty > "$dir/tmp/thp.$1" 2> "$dir/tmp/thp-err.$1" ||
		{ nok "thpmaps: thpmaps runs under $1"; sed 's/^/#   /' "$dir/tmp/thp-err.$1" | tail -5; }
	$ctl report --pid "$pid" --cont 64K > "$dir/tmp/ours.$1" 2>&1 ||
		nok "thpmaps: report runs under $1"
	kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
	if $py /usr/local/bin/compare-thpmaps.py "/tmp/thp.$1" "/tmp/ours.$1" > /tmp/thpmaps-cmp 2>&1; then
		ok "x86_64 hugetext@$1: report agrees with thpmaps"
		echo "# thpmaps $1: $(head -1 /tmp/thpmaps-cmp)"
	else
		nok "x86_64 hugetext@$1: report agrees with thpmaps"
		sed 's/^/#   /' /tmp/thpmaps-cmp | head -20
	fi
	kb=$(awk -v k="$2:" '$1 == k { s += $2 } END { print s + 0 }' "$dir/tmp/thp.$1")
	echo "# thpmaps $1: $2 $kb kB"
	[ "$kb" -ge 4096 ] && ok "x86_64 hugetext@$1: thpmaps sees at least 4096 kB in $2" ||
		nok "x86_64 hugetext@$1: thpmaps sees at least 4096 kB in $2 ($kb kB)"
}
policy 64K file-thp-pte-aligned-64kB
policy 256K file-thp-pte-aligned-256kB
policy 2M file-thp-pmd-aligned-2048kB
# The control: one policy's thpmaps output against the other's report.
if [ -s "$dir/tmp/thp.64K" ] && [ -s "$dir/tmp/ours.2M" ]; then
	if $py /usr/local/bin/compare-thpmaps.py /tmp/thp.64K /tmp/ours.2M > /tmp/thpmaps-cmp 2>&1; then
		nok "x86_64: the comparison fails for thpmaps@64K against report@2M"
	elif grep -q 'thpmaps [0-9]* kB, ours [0-9]* kB' /tmp/thpmaps-cmp; then
		ok "x86_64: the comparison fails for thpmaps@64K against report@2M"
		echo "# thpmaps control: $(grep -c 'thpmaps [0-9]* kB, ours' /tmp/thpmaps-cmp) counters differ"
	else
		nok "x86_64: the comparison fails for thpmaps@64K against report@2M (not on a counter)"
		sed 's/^/#   /' /tmp/thpmaps-cmp | head -5
	fi
fi
finish
