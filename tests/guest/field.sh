#!/bin/sh
# field.sh [DIR]: real programs, as Debian ships them, under each exec
# folio policy, measured per mapped file (busybox sh, in the guest).
#
# DIR is a chroot tree written by tests/lib/field-closure.sh: the
# programs with their dynamic loader and libraries, on the XFS disk
# (default: /mnt/exec-folio/<the name of this script's directory>, where
# the guest's init copied /tests/bin/<that name>).  The tree's field.list
# says how to run each program.  For each policy in $FIELD_POLICIES
# (default "never arch auto 64K 2M"; sizes this kernel refuses are left
# out; "stock" only, if the kernel has no exec_folio_size knob) and each
# program: drop the page cache, start the program in the chroot, let it
# settle (asleep or stopped, or at its exit: a program whose CHECK is
# "none" runs held by field_probe exitstop, so one that runs to
# completion is measured as it was when it finished), stop it, and
# measure each file it has mapped executable (the program, ld.so, each
# library):
#
#   exec_folio_ctl report --json  (the folio walk: how the text is
#                                  backed), before and after reading
#                                  the rest of the text in through
#                                  /proc/PID/mem (field_probe touch)
#   field_probe cached            the file's pages in the page cache
#   field_probe stat              the process's faults
#   folio_oracle (tests/kmod)     the kernel's own view of the same
#                                 mappings, which report must match
#
# Output, for tests/lib/field-table.py:
#
#   # field <arch>/<prog>@<policy> <file> key=value ...      one per file
#   # field <arch>/<prog>@<policy> - kind=process key=value ...
#
# (sizes in kB; <arch> is x86_64 or arm64-<page size>; the keys are
# described in field-table.py).  TAP checks: each program runs correctly
# in the chroot (exit status and output) under each policy; ld.so, libc
# and all its text are mapped from the chroot's files on XFS; under never
# (and on a stock kernel) the policy allocates no text folio
# (exec_folio_stats/alloc) and no text folio is larger than the
# read-around window (read_ahead_kb).  Not "no 64K folio": the ordinary
# read-around grows its folios by 4x at each asynchronous readahead, so
# real programs get 32K to 128K folios without the policy too.  The
# placement of the text is only measured, not judged.
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/mnt/exec-folio/${here##*/}}
ctl=${FIELD_CTL:-/tests/bin/exec_folio_ctl}
probe=$here/field_probe
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
# Seconds a program may take to settle.
settle_s=${FIELD_SETTLE:-120}
. "$here/lib.sh"

[ -f "$dir/field.list" ] || { nok "field: $dir/field.list exists"; echo "$pass passed, $fail failed"; exit 1; }
# The base page size, in kB.
pk=$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps)
case $(uname -m) in
aarch64) arch=arm64-${pk}k ;;
*) arch=$(uname -m) ;;
esac
if [ -e $knob ]; then
	# The policy to restore at the end: the word in brackets.
	saved=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
	accepted=" $(tr -d '[]' < $knob) "
	policies=
	for p in ${FIELD_POLICIES:-never arch auto 64K 2M}; do
		case "$accepted" in
		*" $p "*) policies="$policies $p" ;;
		*) echo "# field: $p is not accepted by this kernel ($(cat $knob)): left out" ;;
		esac
	done
else
	echo "# field: no $knob: a kernel without the feature, measured as \"stock\""
	policies=stock
fi

# The chroot's /proc and /dev (perl opens /dev/null, cmake reads /proc).
mount -t proc proc "$dir/proc" && mount -t devtmpfs devtmpfs "$dir/dev" ||
	nok "$arch field: mount /proc and /dev in the chroot"
cleanup() {
	[ -n "${holder:-}" ] && kill -9 "$holder" 2>/dev/null
	[ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null
	umount "$dir/proc" "$dir/dev" 2>/dev/null
	[ -n "${saved:-}" ] && echo "$saved" > $knob
}
trap cleanup EXIT

# stat_of PID KEY: KEY from "field_probe stat PID".
stat_of() { $probe stat "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# The read-ahead window of the XFS disk under $dir (read_ahead_kb).
ra_window() {
	_mi=$(awk -v d="$dir" 'index(d "/", $5 "/") == 1 && length($5) >= n { n = length($5); m = $3 }
		END { print m }' /proc/self/mountinfo)
	cat /sys/dev/block/$_mi/queue/read_ahead_kb /sys/dev/block/$_mi/../queue/read_ahead_kb \
		2>/dev/null | head -1
}
ra_kb=$(ra_window)
ra_kb=${ra_kb:-128}
stats=/sys/kernel/mm/transparent_hugepage/exec_folio_stats
# stat_count NAME: an exec_folio_stats counter, 0 without them.
stat_count() { cat $stats/$1 2>/dev/null || echo 0; }

# settle PID: wait until PID is stopped (if it runs held, once its
# holder says it is held: at its exit, or stopped by itself), or asleep
# without using CPU over 3 polls (0.6 s); 1 if it exits (unheld), 2 if
# it is still busy after $settle_s s.
settle() {
	_last= _same=0 _i=0
	while [ $_i -lt $((settle_s * 5)) ]; do
		_s=$($probe stat "$1" 2>/dev/null) || return 1
		_st=$(echo "$_s" | sed -n 's/^state=\(.\).*/\1/p')
		_cpu=$(echo "$_s" | sed -n 's/.* cpu=//p')
		case "$_st" in
		T|t)
			# Held by field_probe exitstop: settled once it says
			# so (it also stops at each exec()).
			[ -z "$holder" ] || grep -q '^exited=\|^stopped=' $held || _st=
			[ -n "$_st" ] && return 0 ;;
		Z|X) return 1 ;;
		S) if [ "$_cpu" = "$_last" ]; then _same=$((_same + 1)); else _same=0; fi
		   [ $_same -ge 3 ] && return 0 ;;
		*) _same=0 ;;
		esac
		_last=$_cpu
		sleep 0.2
		_i=$((_i + 1))
	done
	return 2
}

# fstype DEV: the filesystem type of the mount of DEV ("fe:00", as in
# /proc/PID/maps).
fstype() {
	_d=$((0x${1%%:*})):$((0x${1##*:}))
	awk -v d="$_d" '$3 == d { for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 1); exit } }' \
		/proc/self/mountinfo
}

# mapped_on_xfs PID CHECK: every executable file mapping of PID is a
# file of the chroot on XFS, and (unless CHECK is "none": a program of
# the demo, maybe static) ld.so and libc are among them.  Prints what is
# wrong.
mapped_on_xfs() {
	_bad=
	awk '$2 ~ /x/ && $6 ~ /^\// { print $4, $6 }' /proc/$1/maps | sort -u > /tmp/field-xmaps
	while read -r _dev _f; do
		case "$_f" in "$dir"/*) ;; *) _bad="$_bad $_f(not in the chroot)" ;; esac
		_t=$(fstype "$_dev")
		[ "$_t" = xfs ] || _bad="$_bad $_f($_t)"
	done < /tmp/field-xmaps
	if [ "$2" != none ]; then
		grep -q '/ld-linux[^/]*$' /tmp/field-xmaps || _bad="$_bad no-ld.so"
		grep -q '/libc\.so\.6$' /tmp/field-xmaps || _bad="$_bad no-libc"
	fi
	echo "$_bad"
}

# The per-file figures, from the two reports (before and after the
# touch) and the two page cache counts.  One "# field" line per file.
per_file='
function hex(s,   n, i, c) {
	n = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		if (c < 0) break
		n = n * 16 + c
	}
	return n
}
function str(s, key,   r) {
	if (!match(s, "\"" key "\": \"[^\"]*\"")) return ""
	r = substr(s, RSTART, RLENGTH); sub(/^"[^"]*": "/, "", r); sub(/"$/, "", r)
	return r
}
function num(s, key,   r) {
	if (!match(s, "\"" key "\": [0-9.]+")) return 0
	r = substr(s, RSTART, RLENGTH); sub(/.*: /, "", r)
	return r + 0
}
function fl(x) { return x < 0 ? -int(-x) - (int(x) != x) : int(x) }
function cl(x) { return -fl(-x) }
# Whole blocks of B bytes in [a, b), in bytes.
function whole(a, b, B,   n) { n = fl(b / B) - cl(a / B); return n > 0 ? n * B : 0 }
function label(b) {
	b += 0
	if (b >= 1048576) return (b / 1048576) "M"
	return (b / 1024) "K"
}
# Hexadecimal of a number above 2^31 (busybox printf %x stops there).
function tohex(n,   s) {
	s = ""
	do { s = substr("0123456789abcdef", n % 16 + 1, 1) s; n = fl(n / 16) } while (n > 0)
	return "0x" s
}
function mod(a, b) { return a - fl(a / b) * b }
# The folio size the policy aims at for a text VMA, 0 for none (the rule
# of mm/exec_folio.c and the admin guide).
function target(start, end, off,   len, cap, s) {
	len = end - start
	cap = pmd < 2097152 ? pmd : 2097152
	if (pol == "never" || pol == "stock") return 0
	if (pol == "arch") s = archsz
	else if (pol == "auto") {
		if (pmd <= cap && mod(start, pmd) == mod(off, pmd) && whole(start, end, pmd) > 0)
			return pmd
		s = archsz ? archsz : (65536 > page ? 65536 : 0)
		while (s && s > len) s /= 2
	} else s = (pol ~ /M$/ ? pol * 1048576 : pol * 1024)
	if (s > cap) s = cap
	return s >= 4 * page ? s : 0
}
# Split a report into its mappings: M[file, i] = the i-th mapping text.
function maps(json, tag,   i, j, k, chunk, n) {
	n = 0
	while ((i = index(json, "{\"start\": ")) > 0) {
		json = substr(json, i + 1)
		j = index(json, "{\"start\": ")
		chunk = j ? substr(json, 1, j - 1) : json
		k = index(chunk, "\"rollup\"")
		if (k) chunk = substr(chunk, 1, k - 1)
		M[tag, ++n] = chunk
	}
	M[tag] = n
}
# The folios of one mapping, by size: F[size] += kb, A[size] += aligned kb.
function folios(chunk,   i, e, one, sz) {
	while ((i = index(chunk, "{\"size\": ")) > 0) {
		chunk = substr(chunk, i + 1)
		e = index(chunk, "}")
		one = substr(chunk, 1, e)
		sz = num(one, "size")
		F[sz] += num(one, "kb")
		A[sz] += num(one, "aligned_kb") + num(one, "pmd_mapped_kb")
		SIZES[sz] = 1
	}
}
FNR == 1 { nfile++ }
nfile <= 2 { J[nfile] = J[nfile] $0; next }
nfile == 3 { CR[$1] = $3; sub(/^cached_kb=/, "", CR[$1]); next }
nfile == 4 { CF[$1] = $3; sub(/^cached_kb=/, "", CF[$1]); FK[$1] = $2; sub(/^size_kb=/, "", FK[$1]); next }
END {
	page = num(J[2], "page_size"); pmd = num(J[2], "pmd_size")
	archsz = arch ~ /^arm64/ ? num(J[2], "cont_size") : 0
	maps(J[1], "run"); maps(J[2], "full")
	for (i = 1; i <= M["run"]; i++) {
		c = M["run", i]; RR[str(c, "path")] += num(c, "resident_kb")
	}
	for (i = 1; i <= M["full"]; i++) {
		c = M["full", i]; p = str(c, "path")
		if (!(p in SEEN)) { SEEN[p] = 1; ORDER[++np] = p }
		s = hex(str(c, "start")); e = hex(str(c, "end")); o = hex(str(c, "offset"))
		if (!(p in START)) { START[p] = s; OFF[p] = o }
		T[p] += (e - s) / 1024
		t = target(s, e, o)
		if (t) { TG[p] = t; POS[p] += whole(s, e, t) / 1024 * (mod(s, t) == mod(o, t))
			 IDEAL[p] += whole(o, o + e - s, t) / 1024 }
		SPAN[p] += whole(s, e, pmd) / 1024 * (mod(s, pmd) == mod(o, pmd))
		PIDEAL[p] += whole(o, o + e - s, pmd) / 1024
		RSS[p] += num(c, "resident_kb"); SMALL[p] += num(c, "base_pages_kb")
		PART[p] += num(c, "partial_kb"); PMDK[p] += num(c, "pmd_mapped_kb")
		CONT[p] += num(c, "cont_kb")
		delete F; delete A
		folios(c)
		for (sz in F) { FF[p, sz] += F[sz]; AA[p, sz] += A[sz] }
	}
	for (n = 1; n <= np; n++) {
		p = ORDER[n]; rel = substr(p, length(dir) + 1)
		kind = p == exe ? "exe" : p ~ /\/ld-[^\/]*\.so[^\/]*$/ || p ~ /\/ld-linux[^\/]*$/ ? "ld.so" : "lib"
		s = START[p]; o = OFF[p]; t = TG[p] + 0
		line = sprintf("# field %s %s kind=%s text_kb=%d start=%s off=%s", run, rel, kind,
			       T[p], tohex(s), tohex(o))
		line = line sprintf(" va_mod64K=%s off_mod64K=%s cong64K=%d", tohex(mod(s, 65536)),
				    tohex(mod(o, 65536)), mod(s, 65536) == mod(o, 65536))
		line = line sprintf(" va_mod2M=%s off_mod2M=%s cong2M=%d", tohex(mod(s, 2097152)),
				    tohex(mod(o, 2097152)), mod(s, 2097152) == mod(o, 2097152))
		line = line sprintf(" target=%s tgt_possible_kb=%d tgt_ideal_kb=%d tgt_kb=%d",
				    t ? label(t) : "none", POS[p], IDEAL[p], t ? AA[p, t] : 0)
		line = line sprintf(" pmd_size=%s pmd_span_kb=%d pmd_ideal_kb=%d pmd_kb=%d cont_kb=%d",
				    label(pmd), SPAN[p], PIDEAL[p], PMDK[p], CONT[p])
		line = line sprintf(" rss_run_kb=%d rss_kb=%d cache_run_kb=%d cache_kb=%d file_kb=%d",
				    RR[p], RSS[p], CR[p], CF[p], FK[p])
		line = line sprintf(" small_kb=%d partial_kb=%d", SMALL[p], PART[p])
		for (sz in SIZES)
			if (FF[p, sz]) line = line sprintf(" f%s=%d a%s=%d", label(sz), FF[p, sz],
							   label(sz), AA[p, sz])
		print line
	}
}'

# The record of field_probe exitstop.
held=/tmp/field-held
holder=

# end_run: kill the program (and release it from its holder).
end_run() {
	kill -9 $pid 2>/dev/null
	if [ -n "$holder" ]; then
		# PTRACE_O_EXITKILL: the holder's end kills and releases it.
		kill -9 $holder 2>/dev/null
		wait $holder 2>/dev/null
		_i=0
		while [ $_i -lt 100 ] && _st=$(stat_of $pid state) &&
		      [ -n "$_st" ] && [ "$_st" != Z ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
	else
		wait $pid 2>/dev/null
	fi
	pid= holder=
}

# measure NAME PATH RUN-ARGS POLICY CHECK: start, settle, stop, measure,
# kill; sets $bad (mapped_on_xfs) and $alloc (large text folios the
# policy allocated meanwhile: exec_folio_stats/alloc).  A program with
# CHECK "none" (the demo's, or one that runs to completion) runs held
# by field_probe exitstop: if it exits, it is measured as it was at its
# exit, and its exit status and run time are printed.
measure() {
	run=$arch/$1@$4
	sync
	drop_caches
	alloc0=$(stat_count alloc)
	t0=$(date +%s)
	if [ "$5" = none ]; then
		rm -f $held
		eval "exec \$probe exitstop \$held chroot \"\$dir\" \"\$2\" $3" \
			< /dev/null > /tmp/field-out 2>&1 &
		holder=$!
		_i=0
		while [ $_i -lt 100 ] && ! grep -q '^pid=' $held 2>/dev/null; do
			sleep 0.1
			_i=$((_i + 1))
		done
		pid=$(sed -n 's/^pid=//p' $held 2>/dev/null)
		[ -n "$pid" ] || pid=$holder
	else
		# exec: $! is the program itself (busybox chroot execs it).
		eval "exec chroot \"\$dir\" \"\$2\" $3" < /dev/null > /tmp/field-out 2>&1 &
		pid=$!
	fi
	settle $pid
	case $? in
	0) ;;
	2) echo "# field: $run still busy after $settle_s s: measured while it runs" ;;
	*)
		nok "$run starts and settles (asleep, stopped or at its exit) in the chroot"
		tail -5 /tmp/field-out | sed 's/^/#   /'
		end_run
		return 1 ;;
	esac
	ready=$(($(date +%s) - t0))
	ended=
	if [ -n "$holder" ] && grep -q '^exited=' $held; then
		ended=$(sed -n 's/^exited=1 //p' $held)
		_st=$(echo "$ended" | sed -n 's/^exit_status=\([0-9]*\).*/\1/p')
		_ms=$(echo "$ended" | sed -n 's/.*run_ms=//p')
		if [ "$_st" = 0 ]; then
			ok "$run runs to completion in the chroot (exit 0), measured at its exit"
			echo "# field: $run ran for $_ms ms"
		else
			nok "$run runs to completion in the chroot (exit $_st, want 0), measured at its exit"
			tail -5 /tmp/field-out | sed 's/^/#   /'
		fi
	fi
	kill -STOP $pid
	exe=$(readlink /proc/$pid/exe)
	faults=$($probe stat $pid | cut -d' ' -f2-3)
	$ctl report --json --pid $pid > /tmp/field-run.json || nok "$run: report"
	files=$(grep -o '"path": "[^"]*"' /tmp/field-run.json | sed 's/.*: "//; s/"$//' | sort -u)
	$probe cached $files > /tmp/field-cache-run
	touched=$($probe touch $pid | sed 's/minflt/touch_minflt/; s/majflt/touch_majflt/')
	$ctl report --json --pid $pid > /tmp/field-full.json || nok "$run: report"
	$probe cached $files > /tmp/field-cache-full
	[ -z "$use_oracle" ] || oracle_check $pid "$run" $ctl
	alloc=$(($(stat_count alloc) - alloc0))
	echo "# field $run - kind=process $faults $touched ready_s=$ready alloc=$alloc${ended:+ $ended}"
	awk -v run="$run" -v dir="$dir" -v exe="$exe" -v arch="$arch" -v pol="$4" "$per_file" \
		/tmp/field-run.json /tmp/field-full.json /tmp/field-cache-run /tmp/field-cache-full
	bad=$(mapped_on_xfs $pid $5)
	end_run
}

# The kernel's view of each text mapping (tests/kmod/folio_oracle), where
# the guest has the module: report must agree with it.
use_oracle=
if oracle_load; then
	use_oracle=1
else
	echo "# field: no folio_oracle module: report is not compared with the kernel"
fi
t_start=$(date +%s)
first=1
for pol in $policies; do
	[ "$pol" = stock ] || echo "$pol" > $knob || { nok "$arch field: set $pol"; continue; }
	while IFS= read -r line; do
		eval "set -- $line"
		name=$1 path=$2 check=$3 expect=$4 cargs=$5 rargs=$6
		run=$arch/$name@$pol
		if [ "$check" != none ]; then
			out=$(eval "chroot \"\$dir\" \"\$path\" $cargs" < /dev/null 2> /tmp/field-err)
			rc=$?
			if [ $rc -eq 0 ] && { [ "$check" = status ] || [ "$out" = "$expect" ]; }; then
				ok "$run runs in the chroot (exit 0${expect:+, printed $expect})"
			else
				nok "$run runs in the chroot (exit $rc, printed '$out', want '$expect')"
				tail -3 /tmp/field-err | sed 's/^/#   /'
			fi
		fi
		measure "$name" "$path" "$rargs" "$pol" "$check" > /tmp/field-lines || { cat /tmp/field-lines; continue; }
		cat /tmp/field-lines
		if [ -n "$first" ]; then
			what="text mapped from the chroot's files on XFS"
			[ "$check" = none ] || what="ld.so, libc and all $what"
			[ -z "$bad" ] && ok "$arch/$name: $what" || nok "$arch/$name: $what:$bad"
		fi
		if [ "$pol" = never ] || [ "$pol" = stock ]; then
			# Without the policy, text is read by the ordinary
			# read-around, whose folios grow (by 4x at each
			# asynchronous readahead) up to the read-ahead window
			# but never beyond it; and the policy allocates
			# nothing.
			big=$(awk '$4 != "-" { for (i = 5; i <= NF; i++)
				if ($i ~ /^f[0-9]+[KM]=/) { k = $i; sub(/^f/, "", k); sub(/=.*/, "", k)
					kb = k ~ /M$/ ? k * 1024 : k + 0
					if (kb > max) max = kb } } END { print max + 0 }' /tmp/field-lines)
			[ "$big" -le "$ra_kb" ] &&
				ok "$run: no text folio larger than the read-around window ($ra_kb K; largest $big K)" ||
				nok "$run: no text folio larger than the read-around window ($ra_kb K; largest $big K)"
			if [ -e $stats/alloc ]; then
				[ "$alloc" = 0 ] && ok "$run: the policy allocated no text folio (alloc +0)" ||
					nok "$run: the policy allocated no text folio (alloc +$alloc)"
			fi
		fi
	done < "$dir/field.list"
	first=
done
echo "# field: $(($(date +%s) - t_start)) s for$policies"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
