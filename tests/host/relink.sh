#!/bin/bash
# What userspace alone can do for a library's text: relink it with a
# larger max-page-size.  A library with 1M of text (smaller than 2M, so that the kernel does not align it for THP) (the selftest's
# exec_folio_text.S) linked three ways (binutils' default, which on
# x86_64 gives p_align 4K, -z max-page-size=0x10000 and =0x200000), loaded
# by this machine's glibc ld.so from a program, 200 times each, on this
# machine's kernel (no exec-folio patches): where ld.so puts the text
# (congruent with its file offset modulo 64K and 2M?), how many distinct
# addresses, and what it costs in file size.  glibc >= 2.35 honours a
# p_align above the page size by reserving an aligned area first.
set -u
. "$(dirname "$0")/../lib/host-tap.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
st=$here/../build/src/tools/testing/selftests/mm
[ -f "$st/exec_folio_text.S" ] || st=$here/../tools/testing/selftests/mm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=${RELINK_RUNS:-200}

cat > "$tmp/main.c" <<'C'
#include <stdio.h>
#include <string.h>
extern void exec_folio_text(void);
int main(int argc, char **argv)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "libbig") && strstr(line, "r-xp"))
			fputs(line, stdout);
	(void)argv;
	if (argc > 5)
		exec_folio_text();
	return 0;
}
C
for v in default 0x10000 0x200000; do
	ld=
	[ $v = default ] || ld="-Wl,-z,max-page-size=$v"
	mkdir -p "$tmp/$v"
	if ! gcc -shared -fPIC -DTEXT_KIB=1024 $ld -o "$tmp/$v/libbig.so" "$st/exec_folio_text.S" ||
	   ! gcc -o "$tmp/$v/main" "$tmp/main.c" -L"$tmp/$v" -lbig -Wl,-rpath,"$tmp/$v"; then
		nok "libbig.so links with max-page-size $v"
		continue
	fi
	align=$(readelf -lW "$tmp/$v/libbig.so" | awk '$1 == "LOAD" && / R E / { print $NF }')
	size=$(stat -c %s "$tmp/$v/libbig.so")
	: > "$tmp/$v/starts"
	for i in $(seq "$runs"); do
		"$tmp/$v/main" >> "$tmp/$v/starts"
	done
	# start - offset, in hex, one per run
	awk '{ split($1, a, "-"); print a[1], $3 }' "$tmp/$v/starts" > "$tmp/$v/so"
	n=$(wc -l < "$tmp/$v/so")
	distinct=$(cut -d' ' -f1 "$tmp/$v/so" | sort -u | wc -l)
	c64=0 c2m=0
	while read -r s o; do
		d=$(( 0x$s - 0x$o ))
		[ $((d % 65536)) -eq 0 ] && c64=$((c64 + 1))
		[ $((d % 2097152)) -eq 0 ] && c2m=$((c2m + 1))
	done < "$tmp/$v/so"
	echo "# relink max-page-size=$v: p_align $align, file $((size / 1024))K, runs $n, distinct $distinct, text congruent mod 64K $c64, mod 2M $c2m"
	[ "$n" -eq "$runs" ] && ok "max-page-size $v: the program ran $runs times" ||
		nok "max-page-size $v: the program ran $n of $runs times"
	case $v in
	0x10000) [ $c64 -eq "$n" ] && ok "p_align 64K: ld.so placed the text 64K-congruent in every run" ||
		nok "p_align 64K: 64K-congruent in $c64 of $n runs" ;;
	0x200000) [ $c2m -eq "$n" ] && ok "p_align 2M: ld.so placed the text 2M-congruent in every run" ||
		nok "p_align 2M: 2M-congruent in $c2m of $n runs" ;;
	default) [ $c64 -lt "$n" ] && ok "default p_align ($align): the text only page-aligned ($c64 of $n runs 64K-congruent)" ||
		nok "default p_align: 64K-congruent in every run ($c64), the control cannot tell" ;;
	esac
	[ "$distinct" -ge $((n / 2)) ] && ok "max-page-size $v: the address stays random ($distinct distinct)" ||
		nok "max-page-size $v: only $distinct distinct addresses"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
