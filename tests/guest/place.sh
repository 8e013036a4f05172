#!/bin/sh
# place.sh POLICY...: where the kernel places text for the exec folio
# policy.  A PIE (bigtext-pie, 6M of text, linked with the default
# max-page-size) runs through its PT_INTERP in a chroot on the XFS disk
# that holds the loader and libc at their usual paths, so the kernel loads
# the program and ld.so, and ld.so maps libc, as on a real system.  For
# each policy: whether the text VMAs of the program, ld.so and libc are
# congruent with their file offsets modulo 64K and 2M, how their text is
# backed ("# folio-dist"), and the share reached of what the placement
# makes possible ("# place" lines: whole aligned blocks of the target
# size in the VMA).  Then ASLR: aslr_probe run many times, the distinct
# load addresses and the bits of randomness left ("# aslr" lines), and
# that ADDR_NO_RANDOMIZE (setarch -R) still fixes them.
ctl=/tests/bin/exec_folio_ctl
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
root=/mnt/exec-folio/pieroot
. /tests/bin/lib.sh

# The base page size (busybox has no getconf): smaps gives it in kB.
page=$(($(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps) * 1024))
case $(uname -m) in
x86_64) ld=ld-linux-x86-64.so.2 never_grain_below=65536 ;;
*) ld=ld-linux-aarch64.so.1 never_grain_below=$((2 << 20)) ;;
esac
aslr_runs=${PLACE_ASLR_RUNS:-200}

# at_least A B: A >= B, as decimals.
at_least() { awk "BEGIN{exit !($1 >= $2)}"; }

# vma PID NAME: "start end offset" (decimal) of the executable mapping of NAME.
vma() {
	awk -v n="$2" '$2 ~ /x/ && index($6, n) { split($1, a, "-"); print a[1], a[2], $3; exit }' \
		/proc/$1/maps | { read s e o; [ -n "$s" ] && echo $((0x$s)) $((0x$e)) $((0x$o)); }
}

# congruent START OFFSET SIZE: START = OFFSET modulo SIZE.
congruent() { [ $((($1 - $2) % $3)) -eq 0 ]; }

# possible START END SIZE: the share (percent) of [START, END) that whole
# naturally aligned blocks of SIZE cover.
possible() {
	_f=$(( ($1 + $3 - 1) / $3 * $3 )) _l=$(( $2 / $3 * $3 ))
	[ $_l -gt $_f ] || { echo 0; return; }
	awk "BEGIN{printf \"%.1f\", ($_l - $_f) * 100 / ($2 - $1)}"
}

# check_placed POL NAME SIZE DIST FIELD: NAME's text VMA is congruent
# modulo SIZE and its FIELD share (from DIST) reaches >= 90% of what
# whole aligned SIZE blocks make possible.  One exec: without the
# placement it is congruent by chance (1 in 16 for 64K and a 4K grain),
# so a negative control sets PLACE_ONE_EXEC=0 to skip these and relies
# on the grain over all the ASLR execs (aslr_check).
check_placed() {
	[ "${PLACE_ONE_EXEC:-1}" = 1 ] || return 0
	set -- "$@" $(vma $p $2)
	if [ -z "${6:-}" ]; then
		nok "$1: $2 is mapped"
		return
	fi
	# Text that starts at file offset 0 (aarch64's -z noseparate-code)
	# shares its first block with the ELF headers: that block counts as
	# possible too (execve() drops the small folios its header reads
	# left there when it places the text for PMD folios).
	_pos=$(possible $6 $7 $3)
	_got=n/a
	[ "$5" = - ] || _got=$(field $5 "$4")
	echo "# place $(uname -m)/$2@$1 size=$3 start=$(printf %x $6) offset=$(printf %x $8) possible=$_pos% reached=${_got}%"
	if congruent $6 $8 $3; then
		ok "$1: $2 text placed congruent modulo $(($3 / 1024))K"
	else
		echo "# place: $1 $2 $(( ($6 - $8) % $3 / 1024 ))K off modulo $(($3 / 1024))K"
		nok "$1: $2 text placed congruent modulo $(($3 / 1024))K"
	fi
	[ "$5" = - ] && return
	if at_least "$_got" "$(awk "BEGIN{print $_pos * 0.9}")" && [ "$_pos" != 0 ]; then
		ok "$1: $2 text in $5 reaches $_got% of the possible $_pos%"
	else
		nok "$1: $2 text in $5 reaches $_got% of the possible $_pos%"
	fi
}

# aslr POL RUNS [--no-randomize]: run aslr_probe RUNS times; print the
# distinct load biases of the program, ld.so and libc, their grain (the
# largest power of two dividing all of them) and the bits of randomness
# left (log2 of the spread over the grain); sets $grain_exe, $distinct_exe.
aslr() {
	_pol=$1 _n=$2
	shift 2
	: > /tmp/aslr
	for _i in $(seq $_n); do
		chroot $root /bin/aslr_probe "$@" >> /tmp/aslr || { nok "$_pol: aslr_probe runs"; return; }
	done
	for _w in exe ld libc; do
		awk -v w=$_w '$1 == w { print $2 }' /tmp/aslr | sort -u > /tmp/aslr.$_w
		_d=$(wc -l < /tmp/aslr.$_w)
		_g=$((1 << 30)) _min= _max=
		while read _a; do
			_a=$((_a))
			while [ $((_a % _g)) -ne 0 ]; do _g=$((_g / 2)); done
			[ -z "$_min" ] || [ $_a -lt $_min ] && _min=$_a
			[ -z "$_max" ] || [ $_a -gt $_max ] && _max=$_a
		done < /tmp/aslr.$_w
		_bits=$(awk "BEGIN{ s = ($_max - $_min) / $_g + 1; b = 0; while (s > 1) { s /= 2; b++ } print b }")
		echo "# aslr $(uname -m) page=$((page / 1024))K policy=$_pol${1:+ $1} $_w: runs=$_n distinct=$_d grain=$((_g / 1024))K bits=$_bits"
		eval "grain_$_w=$_g distinct_$_w=$_d bits_$_w=$_bits"
	done
}

# aslr_want ARCH PAGE POL OBJECT: "BITS GRAIN" (GRAIN in K) that the
# README and bench/placement.md give for a randomized exec: the bits of
# the load address left (measured over 1000 execs, 250 under never) and
# the grain the placement puts it on.  Empty where none is claimed.
aslr_want() {
	case "$1-$2-$3-$4" in
	x86_64-4K-never-*) echo 28 4 ;;
	x86_64-4K-64K-*) echo 24 64 ;;
	x86_64-4K-auto-exe | x86_64-4K-2M-exe) echo 19 2048 ;;
	x86_64-4K-auto-*) echo 24 64 ;;
	x86_64-4K-2M-ld) echo 23 128 ;;
	x86_64-4K-2M-libc) echo 20 1024 ;;
	aarch64-4K-never-ld) echo 18 4 ;;
	aarch64-4K-never-*) echo 14 64 ;;
	aarch64-4K-arch-*) echo 14 64 ;;
	aarch64-4K-auto-exe) echo 10 2048 ;;
	aarch64-4K-auto-*) echo 14 64 ;;
	aarch64-64K-never-*) echo 18 64 ;;
	aarch64-64K-arch-exe | aarch64-64K-auto-exe) echo 13 2048 ;;
	aarch64-64K-arch-ld | aarch64-64K-auto-ld) echo 16 256 ;;
	aarch64-64K-arch-libc | aarch64-64K-auto-libc) echo 14 1024 ;;
	esac
}

# aslr_check POL: after "aslr POL N", each object's bits (one below the
# claim allowed: fewer execs see a little less of the spread) and grain
# (exactly the claim) against aslr_want.  The result names the claim;
# what was measured is on the "# aslr" line above it.
aslr_check() {
	for _w in exe ld libc; do
		_want=$(aslr_want $(uname -m) $((page / 1024))K $1 $_w)
		if [ -z "$_want" ]; then
			echo "# aslr: no claim for $(uname -m) $((page / 1024))K $1 $_w"
			continue
		fi
		_wbits=${_want% *} _wgrain=${_want#* }
		eval "_b=\$bits_$_w _g=\$grain_$_w"
		_name="$1: $_w keeps the claimed $_wbits bits of ASLR on a grain of ${_wgrain}K"
		if [ $_b -ge $((_wbits - 1)) ] && [ $((_g / 1024)) = $_wgrain ]; then
			ok "$_name"
		else
			echo "# aslr: $1 $_w keeps $_b bits on a grain of $((_g / 1024))K"
			nok "$_name"
		fi
	done
}

for pol in "$@"; do
	echo "$pol" > $knob 2>/dev/null || { echo "# place: $pol not accepted here"; continue; }
	p=$(cold_spawn chroot $root /bin/bigtext-pie --stop) || nok "$pol: bigtext-pie stops in the chroot"
	$ctl report --pid $p > /tmp/report || nok "$pol: report"
	for m in bigtext-pie $ld libc.so.6; do
		d=$(report_dist $m < /tmp/report)
		echo "# folio-dist $(uname -m)-place/$m@$pol:$d"
		eval "d_${m%%[.-]*}=\"\$d\""
	done
	set -- $(vma $p bigtext-pie)
	case "$pol:$(uname -m):$page" in
	never:*)
		echo "# place $(uname -m)/bigtext-pie@never start=$(printf %x $1) offset=$(printf %x $3)"
		;;
	auto:*:4096)
		check_placed $pol bigtext-pie $((2 << 20)) "$d_bigtext" pmd
		check_placed $pol $ld 65536 "$d_ld" 64K
		check_placed $pol libc.so.6 65536 "$d_libc" 64K
		;;
	2M:*:4096)
		# Smaller text gets the largest folios whose aligned block it
		# holds, and is placed for them: not only 64K folios.
		check_placed $pol bigtext-pie $((2 << 20)) "$d_bigtext" pmd
		check_placed $pol $ld 65536 "$d_ld" -
		check_placed $pol libc.so.6 65536 "$d_libc" -
		;;
	64K:*:4096 | arch:aarch64:4096)
		check_placed $pol bigtext-pie 65536 "$d_bigtext" 64K
		check_placed $pol $ld 65536 "$d_ld" 64K
		check_placed $pol libc.so.6 65536 "$d_libc" 64K
		;;
	arch:aarch64:* | auto:aarch64:*)
		# 16K and 64K pages: the arch's 2M folios, one contpte block.
		check_placed $pol bigtext-pie $((2 << 20)) "$d_bigtext" cont
		;;
	esac
	kill -9 $p
	wait $p 2> /dev/null

	[ $pol = never ] || { aslr $pol $aslr_runs; aslr_check $pol; }
	if [ $pol = never ]; then
		# Where a task that is not randomized loads: as on a kernel
		# without the policy, which every policy must keep.
		aslr never 5 --no-randomize
		for _w in exe ld libc; do cp /tmp/aslr.$_w /tmp/norandom-never.$_w; done
		[ $distinct_exe = 1 ] && [ $distinct_ld = 1 ] &&
			ok "never: ADDR_NO_RANDOMIZE (setarch -R) gives one load address" ||
			nok "never: ADDR_NO_RANDOMIZE (setarch -R) gives one load address ($distinct_exe, $distinct_ld)"
		aslr never $((aslr_runs / 4))
		aslr_check never
		# The grain p_align gives: a page on x86_64, 64K on arm64.
		[ $grain_exe -lt $never_grain_below ] &&
			ok "never: PIE load addresses keep the grain p_align gives (below $((never_grain_below / 1024))K)" ||
			nok "never: PIE load addresses keep the grain p_align gives (below $((never_grain_below / 1024))K)"
	else
		[ $grain_exe -ge 65536 ] && ok "$pol: PIE load addresses on a grain of 64K or more" ||
			nok "$pol: PIE load addresses on a grain of 64K or more"
		[ $distinct_exe -ge $((aslr_runs / 4)) ] &&
			ok "$pol: PIE load address still random ($distinct_exe distinct in $aslr_runs)" ||
			nok "$pol: PIE load address still random ($distinct_exe distinct in $aslr_runs)"
		aslr $pol 5 --no-randomize
		[ $distinct_exe = 1 ] && [ $distinct_ld = 1 ] &&
			ok "$pol: ADDR_NO_RANDOMIZE (setarch -R) gives one load address" ||
			nok "$pol: ADDR_NO_RANDOMIZE (setarch -R) gives one load address ($distinct_exe, $distinct_ld)"
		# Not moved by the policy: rr, gdb and fixed-address scripts
		# see what they see under "never" (a kernel without it).
		_same=1
		for _w in exe ld libc; do
			echo "# norandom $(uname -m) page=$((page / 1024))K policy=$pol $_w: $(cat /tmp/aslr.$_w) never: $(cat /tmp/norandom-never.$_w 2>/dev/null)"
			cmp -s /tmp/aslr.$_w /tmp/norandom-never.$_w || _same=0
		done
		[ $_same = 1 ] &&
			ok "$pol: ADDR_NO_RANDOMIZE (setarch -R) loads program, ld.so and libc where never does" ||
			nok "$pol: ADDR_NO_RANDOMIZE (setarch -R) loads program, ld.so and libc where never does"
	fi
done
echo arch > $knob
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
