#!/bin/bash
# Host tests of exec_folio_ctl's fleet and machine-readable features, on
# this machine's kernel: report --json (schema, UTF-8) parsed by python3,
# status --json / set / apply / exec against a stand-in exec_folio_size knob in
# a private mount namespace, report --cgroup and --unit against a cgroup
# made here (or a real transient unit where systemd runs), --rollup, the
# translations count, processes that exit or exec while report reads
# them (--all in a PID namespace, --cgroup), report == thpmaps in both
# directions (maps and smaps modes), and the speed of report --all and
# --cgroup against thpmaps in a PID namespace.
# Usage: utility-report.sh [KERNEL_TREE]  (for thpmaps)
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:-$repo/build/src}
dir=$repo/tools/exec_folio_ctl
ctl=$dir/exec_folio_ctl
py=/usr/bin/python3
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
pids=()
rmdirs=()	# cgroups made here, removed last first
cg=
cleanup() {
	exec 2> /dev/null	# no "Killed" notices from the shell
	# SIGKILL ends stopped processes too; then wait for nothing else.
	[ ${#pids[@]} -gt 0 ] && kill -9 "${pids[@]}" && wait "${pids[@]}"
	umount "$tmp/huge" 2> /dev/null
	[ -n "$cg" ] && [ -d "$cg" ] && rmdir "$cg" 2> /dev/null
	[ -n "${cgc:-}" ] && [ -d "$cgc" ] && rmdir "$cgc" 2> /dev/null
	[ -n "${sp:-}" ] && [ -d "$sp" ] && rmdir "$sp" 2> /dev/null
	for ((i = ${#rmdirs[@]} - 1; i >= 0; i--)); do rmdir "${rmdirs[i]}" 2> /dev/null; done
	[ -n "${cgslice:-}" ] && rmdir "$cgslice" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$repo/tests/lib/host-tap.sh"
check() { local what=$1; shift; if "$@" > "$tmp/chk" 2>&1; then ok "$what"; else nok "$what"; sed 's/^/#   /' "$tmp/chk" | head -10; fi; }
# pyjson FILE 'python expression on d' : evaluate against the parsed JSON.
pyjson() { "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=eval(sys.argv[2]); print(r); sys.exit(0 if r else 1)' "$@"; }

make -s -C "$dir" all || { nok "utility builds"; echo "$pass passed, $fail failed, $skip skipped"; exit 1; }

# A program whose text is a 2M-aligned, 2M-congruent file: on a tmpfs with
# huge=always its text is PMD-mapped.
big=
st=$repo/tools/testing/selftests/mm
if gcc -O2 -static -Wl,-z,separate-code -Wl,-z,max-page-size=0x200000 -DTEXT_KIB=2560 \
	-o "$tmp/bigtext-2m" "$st/exec_folio_bigtext.c" "$st/exec_folio_text.S" 2> "$tmp/cc.err"; then
	mkdir -p "$tmp/huge"
	if mount -t tmpfs -o huge=always,size=64M tmpfs "$tmp/huge" 2> /dev/null; then
		cp "$tmp/bigtext-2m" "$tmp/huge/"
		"$tmp/huge/bigtext-2m" --stop > /dev/null 2>&1 &
		big=$!
		pids+=("$big")
	fi
fi
# A program in a directory whose name is not ASCII, with a quote in its name.
mkdir -p "$tmp/slé dir"
cp /bin/sleep "$tmp/slé dir/sl\"é"
"$tmp/slé dir/sl\"é" 300 > /dev/null 2>&1 &
utf=$!
pids+=("$utf")
sleep 1

# report --json: the schema, parsed by a JSON parser; UTF-8 kept.
"$ctl" report --pid "$utf" --json > "$tmp/r.json" 2> "$tmp/r.err"
check "report --json is valid JSON" pyjson "$tmp/r.json" 'd["schema"] == "exec-folio-report" and d["version"] == 1'
check "report --json keeps a UTF-8 path (slé)" pyjson "$tmp/r.json" \
	'any(m["path"].endswith("/slé dir/sl\"é") for p in d["processes"] for m in p["mappings"])'
check "report --json gives the process name" pyjson "$tmp/r.json" 'd["processes"][0]["name"] == "sl\"é"'
check "report --json has the documented fields" pyjson "$tmp/r.json" \
	'all(k in d for k in ("page_size", "pmd_size", "cont_size", "processes", "rollup", "skipped", "processes_reported")) and all(k in d["rollup"] for k in ("resident_kb", "base_pages_kb", "folios", "translations", "translations_base_pages", "counters", "pmd_mapped_kb", "cont_kb"))'
check "report --json rollup equals the sum of the processes" pyjson "$tmp/r.json" \
	'd["rollup"]["resident_kb"] == sum(p["rollup"]["resident_kb"] for p in d["processes"])'

# Translations: base pages need one each; PMD-mapped text one per 2M.
check "translations of small-folio text: one per page" pyjson "$tmp/r.json" \
	'd["rollup"]["translations"] == d["rollup"]["translations_base_pages"] == d["rollup"]["resident_kb"] // 4'
if [ -n "$big" ]; then
	"$ctl" report --pid "$big" --json > "$tmp/big.json"
	if pyjson "$tmp/big.json" 'd["rollup"]["pmd_mapped_kb"] > 0' > /dev/null; then
		check "translations of PMD-mapped text: one per 2M, one per page for the rest" pyjson "$tmp/big.json" \
			'(lambda r: r["translations"] == r["pmd_mapped_kb"] // 2048 + (r["resident_kb"] - r["pmd_mapped_kb"]) // 4 < r["translations_base_pages"])(d["rollup"])'
		check "folios array: 2M entry holds the PMD-mapped text" pyjson "$tmp/big.json" \
			'any(f["size"] == 2097152 and f["pmd_mapped_kb"] == d["rollup"]["pmd_mapped_kb"] for f in d["rollup"]["folios"])'
	else
		skip "translations of PMD-mapped text" "tmpfs gave no PMD mapping"
	fi
	"$ctl" report --pid "$big" | grep '^  translations: *[0-9]* ([0-9]* in base pages)' > /dev/null &&
		ok "report prints the translations line" || nok "report prints the translations line"
else
	skip "translations of PMD-mapped text" "no bigtext-2m ($(head -c 100 "$tmp/cc.err")) or tmpfs huge=always"
fi

# --rollup: only the sum.
"$ctl" report --pid "$utf" --pid $$ --rollup > "$tmp/roll"
[ "$(grep -c ': rollup' "$tmp/roll")" = 1 ] && grep -q '^all 2 processes: rollup' "$tmp/roll" &&
	! grep -q 'r-xp' "$tmp/roll" && ok "report --rollup prints only the sum" ||
	{ nok "report --rollup prints only the sum"; head -5 "$tmp/roll" | sed 's/^/#   /'; }
"$ctl" report --pid "$utf" --pid $$ --rollup --json > "$tmp/roll.json"
"$ctl" report --pid "$utf" --pid $$ --json > "$tmp/full.json"
check "report --rollup --json: no processes, the same sum" "$py" -c '
import json, sys
r, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert r["processes"] == [] and r["processes_reported"] == 2, r
assert r["rollup"]["resident_kb"] == f["rollup"]["resident_kb"], (r["rollup"], f["rollup"])
' "$tmp/roll.json" "$tmp/full.json"

# --cgroup and --unit: a cgroup made here, named like a systemd service.
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo 2>/dev/null)
if [ -z "$cg2" ]; then
	cg2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -1)
fi
unit=efc-test-$$
if [ -n "$cg2" ] && [ -w "$cg2" ]; then
	[ -d "$cg2/system.slice" ] || { mkdir "$cg2/system.slice" && cgslice=$cg2/system.slice; }
	cg=$cg2/system.slice/$unit.service
	if mkdir "$cg" 2> /dev/null; then
		sleep 300 > /dev/null 2>&1 &
		s1=$!
		sh -c 'sleep 300 & wait' > /dev/null 2>&1 &
		s2=$!
		pids+=("$s1" "$s2")
		echo "$s1" > "$cg/cgroup.procs" && echo "$s2" > "$cg/cgroup.procs"
		mkdir "$cg/sub"
		sleep 300 > /dev/null 2>&1 &
		s3=$!
		pids+=("$s3")
		sleep 0.3
		echo "$s3" > "$cg/sub/cgroup.procs" 2> /dev/null || true
		want=$(cat "$cg/cgroup.procs" "$cg/sub/cgroup.procs" 2> /dev/null | sort -n | xargs)
		for how in "--unit $unit" "--unit $unit.service" "--cgroup /system.slice/$unit.service" \
			   "--cgroup system.slice/$unit.service" "--cgroup $cg"; do
			"$ctl" report $how --json > "$tmp/cg.json" 2> "$tmp/cg.err"
			got=$("$py" -c 'import json,sys; print(*sorted(p["pid"] for p in json.load(open(sys.argv[1]))["processes"]))' "$tmp/cg.json" 2>&1)
			[ "$got" = "$want" ] && ok "report $how: the processes of the cgroup and below ($got)" ||
				{ nok "report $how: got '$got', want '$want'"; sed 's/^/#   /' "$tmp/cg.err" | head -3; }
		done
		# Every process there is ours (also the sleep of sh -c).
		exec 3>&2 2> /dev/null
		kill -9 $(cat "$cg/sub/cgroup.procs" "$cg/cgroup.procs")
		wait "$s1" "$s2" "$s3"
		exec 2>&3 3>&-
		rmdir "$cg/sub"
	else
		skip "report --cgroup/--unit" "cannot make a cgroup"
	fi
else
	skip "report --cgroup/--unit" "no writable cgroup2 mount"
fi
# The same for a cgroup: a process listed in cgroup.procs that exits
# before it is read is skipped and counted, not an error.
churn=efc-churn-$$
cgc=$cg2/system.slice/$churn.service
if [ -d "$cg2/system.slice" ] && mkdir "$cgc" 2> /dev/null; then
	sh -c 'echo $$ > "$1/cgroup.procs" && while :; do /bin/true; done' - "$cgc" > /dev/null 2>&1 &
	loop=$!
	pids+=("$loop")
	sleep 0.5
	: > "$tmp/cgc.rc"
	for i in $(seq 50); do
		"$ctl" report --cgroup "$cgc" --rollup > /dev/null 2>> "$tmp/cgc.err"; echo $? >> "$tmp/cgc.rc"
	done
	for i in $(seq 20); do
		"$ctl" report --unit "$churn" --rollup > /dev/null 2>> "$tmp/cgc.err"; echo $? >> "$tmp/cgc.rc"
	done
	bad=$(grep -vc '^0$' "$tmp/cgc.rc")
	[ "$bad" = 0 ] && ok "report --cgroup (50 runs) and --unit (20) of a cgroup forking all the time: all exit 0" ||
		{ nok "report --cgroup/--unit of a cgroup forking all the time: $bad of 70 runs failed"
		  grep -v 'that exited$' "$tmp/cgc.err" | sed 's/[0-9]\+/N/g' | sort | uniq -c | sort -rn | head -3 | sed 's/^/#   /'; }
	"$ctl" report --cgroup "$cgc" --json > "$tmp/cgc.json" 2> /dev/null
	check "report --cgroup --json of a forking cgroup: skipped.vanished present" pyjson "$tmp/cgc.json" \
		'd["skipped"]["vanished"] >= 0 and d["skipped"]["unreadable"] == 0'
	exec 3>&2 2> /dev/null
	kill -9 "$loop"; wait "$loop"
	exec 2>&3 3>&-
	for i in $(seq 50); do [ -s "$cgc/cgroup.procs" ] || break; sleep 0.1; done
	rmdir "$cgc"
else
	skip "report --cgroup of a cgroup forking all the time" "cannot make a cgroup"
fi
# --unit NAME takes the system's NAME.service when another cgroup has a
# unit of the same name (a user manager's user@UID.service/app.slice/
# NAME.service): the other one is made in a directory that the cgroup
# tree lists before system.slice, so that a search of the whole tree in
# directory order would find it first.
dup=efc-dup-$$
decoy=
if [ -d "$cg2/system.slice" ] && mkdir "$cg2/system.slice/$dup.service" 2> /dev/null; then
	rmdirs+=("$cg2/system.slice/$dup.service")
	for d in user.slice efc-decoy-$$-{1..16}; do
		made=
		[ -d "$cg2/$d" ] || { mkdir "$cg2/$d" 2> /dev/null && made=1; } || continue
		if ls -f "$cg2" | sed '/^system\.slice$/q' | grep -xF "$d" > /dev/null; then
			decoy=$cg2/$d
			[ -z "$made" ] || rmdirs+=("$decoy")
			break
		fi
		[ -z "$made" ] || rmdir "$cg2/$d"
	done
fi
if [ -n "$decoy" ] && mkdir -p "$decoy/user@$$.service/app.slice/$dup.service"; then
	rmdirs+=("$decoy/user@$$.service" "$decoy/user@$$.service/app.slice"
		 "$decoy/user@$$.service/app.slice/$dup.service")
	sleep 300 > /dev/null 2>&1 &
	dsys=$!
	sleep 300 > /dev/null 2>&1 &
	duser=$!
	pids+=("$dsys" "$duser")
	echo "$dsys" > "$cg2/system.slice/$dup.service/cgroup.procs"
	echo "$duser" > "$decoy/user@$$.service/app.slice/$dup.service/cgroup.procs"
	"$ctl" report --unit "$dup" --json > "$tmp/dup.json" 2> "$tmp/dup.err"
	check "report --unit takes system.slice/$dup.service, not $(basename "$decoy")/.../$dup.service" \
		pyjson "$tmp/dup.json" "[p['pid'] for p in d['processes']] == [$dsys]"
	"$ctl" report --unit "user@$$" --json > "$tmp/dup.json" 2> "$tmp/dup.err"
	check "report --unit of a unit outside system.slice (user@$$.service) still found" \
		pyjson "$tmp/dup.json" "[p['pid'] for p in d['processes']] == [$duser]"
	exec 3>&2 2> /dev/null
	kill -9 "$dsys" "$duser"; wait "$dsys" "$duser"
	exec 2>&3 3>&-
else
	skip "report --unit prefers system.slice" "cannot make the cgroups"
fi
for ((i = ${#rmdirs[@]} - 1; i >= 0; i--)); do rmdir "${rmdirs[i]}" 2> /dev/null; done
rmdirs=()

expect 1 "no cgroup for unit 'efc-none-$$'" "report --unit of a unit that is not running" -- \
	"$ctl" report --unit "efc-none-$$"
expect 1 "invalid unit name" "report --unit refuses a path" -- "$ctl" report --unit ../etc
expect 1 "no cgroup '/nonexistent-cg'" "report --cgroup of a missing cgroup" -- \
	"$ctl" report --cgroup /nonexistent-cg
# A real systemd unit, where systemd runs.
if [ "$(cat /proc/1/comm 2> /dev/null)" = systemd ] && command -v systemd-run > /dev/null &&
   systemd-run --unit="efc-real-$$" --quiet sleep 300 2> /dev/null; then
	sleep 1
	p=$(systemctl show -P MainPID "efc-real-$$")
	"$ctl" report --unit "efc-real-$$" --json > "$tmp/unit.json"
	check "report --unit of a real systemd unit finds its process" pyjson "$tmp/unit.json" \
		"[p['pid'] for p in d['processes']] == [$p]"
	systemctl stop "efc-real-$$" 2> /dev/null
else
	skip "report --unit of a real systemd unit" "systemd is not PID 1 here"
fi

# Processes that exit while report reads them: in a PID namespace of its
# own, with loops forking short-lived processes, report --all skips and
# counts them (JSON: skipped.vanished; text: a line on stderr) and exits 0.
runs=20
if unshare -p -f --mount-proc true 2> /dev/null; then
	mkdir "$tmp/churn"
	cat > "$tmp/churn.sh" << 'EOF'
# churn.sh DIR CTL RUNS; the namespace, and its processes, end with this shell.
for i in 1 2 3; do (while :; do /bin/true; done) & done
sleep 0.5
for i in $(seq "$3"); do
	"$2" report --all --rollup > "$1/text.$i" 2> "$1/text-err.$i"; echo $? >> "$1/text.rc"
	"$2" report --all --json > "$1/json.$i" 2> "$1/json-err.$i"; echo $? >> "$1/json.rc"
done
EOF
	unshare -p -f --mount-proc sh "$tmp/churn.sh" "$tmp/churn" "$ctl" "$runs"
	check "report --all under fork churn exits 0 in $runs/$runs runs (text and JSON)" \
		sh -c '[ "$(cat "$1/text.rc" "$1/json.rc" | sort -u)" = 0 ] || { cat "$1"/*-err.* | sort | uniq -c; exit 1; }' - "$tmp/churn"
	check "report --all --json under fork churn: skipped.vanished present, nothing unreadable" "$py" -c '
import json, sys
n = 0
for i in range(1, int(sys.argv[2]) + 1):
    s = json.load(open(f"{sys.argv[1]}/json.{i}"))["skipped"]
    assert isinstance(s["vanished"], int) and s["vanished"] >= 0 and s["unreadable"] == 0, s
    n += s["vanished"]
print(n, "vanished in", sys.argv[2], "runs")
' "$tmp/churn" "$runs"
	vanished=$(head -1 "$tmp/chk" | cut -d' ' -f1)
	said=$(cat "$tmp/churn"/text-err.* | grep -c '^exec_folio_ctl: skipped [0-9]* process\(es\)\? that exited$')
	other=$(cat "$tmp/churn"/text-err.* | grep -vc 'that exited$')
	if [ "$said" -gt 0 ] && [ "$other" = 0 ]; then
		ok "report --all (text) says how many processes exited meanwhile ($said of $runs runs)"
	elif [ "${vanished:-0}" = 0 ] && [ "$said" = 0 ]; then
		skip "report --all (text) says how many processes exited" "no process exited during a walk"
	else
		nok "report --all (text) says how many processes exited: $said of $runs runs ($vanished in the JSON runs), $other other lines"
		cat "$tmp/churn"/text-err.* | sort | uniq -c | head -5 | sed 's/^/#   /'
	fi
	grep -q '^all [0-9]* process\(es\)\?: rollup$' "$tmp/churn/text.1" &&
		ok "report --all under churn prints its rollup" || nok "report --all under churn prints its rollup"
else
	skip "report --all under fork churn" "no PID namespaces (unshare -p)"
fi

# A process that exec's while report reads it has not vanished: read it
# again.  In a PID namespace, a shell that exec's itself without end.
if unshare -p -f --mount-proc true 2> /dev/null; then
	echo 'exec /bin/sh "$0"' > "$tmp/self.sh"
	cat > "$tmp/reexec.sh" << 'EOF'
# reexec.sh SELF CTL RUNS ERR: the exit status of each run on stdout.
/bin/sh "$1" &
sleep 0.3
for i in $(seq "$3"); do "$2" report --all --rollup > /dev/null 2>> "$4"; echo $?; done
EOF
	unshare -p -f --mount-proc sh "$tmp/reexec.sh" "$tmp/self.sh" "$ctl" 200 "$tmp/reexec.err" > "$tmp/reexec.rc"
	bad=$(grep -vc '^0$' "$tmp/reexec.rc")
	[ "$bad" = 0 ] && ! grep -q unreadable "$tmp/reexec.err" &&
		ok "report --all of a process that exec's all the time: 200 runs exit 0" ||
		{ nok "report --all of a process that exec's all the time: $bad of 200 runs failed"
		  sed 's/[0-9]\+/N/g' "$tmp/reexec.err" | sort | uniq -c | head -3 | sed 's/^/#   /'; }
fi

# status --json, set, apply and exec with a stand-in knob: a tmpfs over the
# THP directory in a private mount namespace (this kernel has no exec_folio_size).
if unshare -m true 2> /dev/null; then
	thp=/sys/kernel/mm/transparent_hugepage
	cat > "$tmp/knob.sh" << EOF
set -e
mount -t tmpfs none $thp
echo 'never [arch] auto 16K 32K 64K 128K 256K 512K 1M 2M' > $thp/exec_folio_size
echo 2097152 > $thp/hpage_pmd_size
"\$@"
EOF
	knob() { unshare -m sh "$tmp/knob.sh" "$@"; }
	knob "$ctl" status --json > "$tmp/st.json" 2> "$tmp/st.err"
	check "status --json is valid JSON with the documented fields" pyjson "$tmp/st.json" \
		'd["schema"] == "exec-folio-status" and d["version"] == 1 and d["exec_folio_size"] == "arch" and d["accepted"][:3] == ["never", "arch", "auto"] and d["pmd_size"] == 2097152 and d["page_size"] > 0 and d["processes"] == []'
	# This kernel's /proc/PID/status has no ExecFolioSize: no partial JSON.
	expect 2 "no ExecFolioSize" "status --json --pid on a kernel without the line" -- \
		knob "$ctl" status --json --pid $$
	[ ! -s "$tmp/o" ] && ok "status --json writes nothing on an error" ||
		nok "status --json writes nothing on an error"
	# The stand-in file keeps what follows the written word (no truncation).
	expect 0 "^autor" "set -- auto writes the knob" -- knob sh -c "$ctl set -- auto && cat $thp/exec_folio_size"
	expect 0 "^2Mver" "set 2MiB writes 2M" -- knob sh -c "$ctl set 2MiB && cat $thp/exec_folio_size"
	expect 1 "not accepted by this kernel" "set 64KB (64000 bytes) is refused" -- knob "$ctl" set 64KB
	printf 'exec_folio_size = 64k\n' > "$tmp/good.conf"
	expect 0 "^64Ker" "apply -- FILE writes the knob" -- \
		knob sh -c "$ctl apply -- $tmp/good.conf && cat $thp/exec_folio_size"
	# refused SIZE MESSAGE: the kernel refuses SIZE (MESSAGE): exec warns
	# and runs the command; with --strict it exits 1 and does not run it.
	refused() {
		expect 0 "^ran$" "exec --size $1 runs the command when the kernel refuses the size" -- \
			knob "$ctl" exec --size "$1" -- sh -c 'echo ran'
		grep -q "^exec_folio_ctl: warning: $2" "$tmp/e" && ok "exec warns: $2" ||
			{ nok "exec warns: $2"; sed 's/^/#   /' "$tmp/e"; }
		expect 1 "$2" "exec --strict --size $1 fails when the kernel refuses the size" -- \
			knob "$ctl" exec --strict --size "$1" -- sh -c 'echo ran'
		! grep -q '^ran$' "$tmp/o" && ok "exec --strict --size $1 did not run the command" ||
			nok "exec --strict --size $1 did not run the command"
	}
	# This kernel has no such prctl: it refuses every size.
	refused 2M "the kernel refused 2M"
	# A size below any page (1 byte, 2K) is no folio size: refused as an
	# argument, knob or not (utility-hostile.sh).
else
	skip "status --json, set, apply, exec with a knob" "no mount namespaces"
fi

# report == thpmaps, both directions, read through maps (the default) and
# through smaps; and the speed of report against thpmaps.
thpmaps=$tree/tools/mm/thpmaps
if [ ! -f "$thpmaps" ] || ! "$py" -c 'import numpy' 2> /dev/null; then
	skip "report agrees with thpmaps" "no thpmaps or numpy"
else
	# The compare script itself: a counter only ours shows is a mismatch.
	printf '0000000001: 0000000000400000-0000000000600000 r-xp 00000000 fe:00 00000001 /x\nfile-thp-pte-aligned-16kB:   0 kB ( 0%%)\n' > "$tmp/t.syn"
	printf '1: 0000000000400000-0000000000600000 r-xp 00000000 /x\n  file-thp-pte-aligned-32kB:   64 kB ( 3.0%%)\n  file-thp-pte-aligned-8kB:   8 kB (  0.4%%)\n' > "$tmp/o.syn"
	if python3 "$repo/tests/lib/compare-thpmaps.py" "$tmp/t.syn" "$tmp/o.syn" > "$tmp/cmp" 2>&1; then
		nok "compare-thpmaps.py checks ours against thpmaps too"
	elif grep -q '32kB: ours 64 kB, not in thpmaps' "$tmp/cmp" && ! grep -q 8kB "$tmp/cmp"; then
		ok "compare-thpmaps.py checks ours against thpmaps too (8kB exempt)"
	else
		nok "compare-thpmaps.py checks ours against thpmaps too"; sed 's/^/#   /' "$tmp/cmp"
	fi
	# ... and thpmaps against ours: an executable file mapping only thpmaps
	# shows is a mismatch (not a mapping that is not text, nor anonymous).
	{ printf '0000000001: 0000000000400000-0000000000600000 r-xp 00000000 fe:00 00000001 /x\nfile-thp-pte-aligned-16kB:   0 kB ( 0%%)\n'
	  printf '0000000001: 0000000000600000-0000000000700000 r--p 00200000 fe:00 00000001 /x\n'
	  printf '0000000001: 0000000000700000-0000000000800000 r-xp 00000000 fe:00 00000002 /usr/lib/y y.so\n'
	  printf '0000000001: 0000000000900000-0000000000a00000 rwxp 00000000 00:00 0 \n'; } > "$tmp/t2.syn"
	printf '1: 0000000000400000-0000000000600000 r-xp 00000000 /x\n  file-base-page:   64 kB (100.0%%)\n' > "$tmp/o2.syn"
	if python3 "$repo/tests/lib/compare-thpmaps.py" "$tmp/t2.syn" "$tmp/o2.syn" > "$tmp/cmp" 2>&1; then
		nok "compare-thpmaps.py flags text that thpmaps shows and ours leaves out"
	elif grep -q '^700000-800000 r-xp /usr/lib/y y.so: text in thpmaps, not in ours$' "$tmp/cmp" &&
	     [ "$(grep -c 'not in ours' "$tmp/cmp")" = 1 ]; then
		ok "compare-thpmaps.py flags text that thpmaps shows and ours leaves out"
	else
		nok "compare-thpmaps.py flags text that thpmaps shows and ours leaves out"; sed 's/^/#   /' "$tmp/cmp"
	fi
	for pid in $big $utf; do
		"$py" "$thpmaps" --pid "$pid" --cont 64K --inc-empty > "$tmp/thp.$pid" 2>&1
		for mode in maps smaps; do
			if [ $mode = smaps ]; then
				EXEC_FOLIO_CTL_SMAPS=1 "$ctl" report --pid "$pid" --cont 64K > "$tmp/ours.$pid" 2>&1
			else
				"$ctl" report --pid "$pid" --cont 64K > "$tmp/ours.$pid" 2>&1
			fi
			if python3 "$repo/tests/lib/compare-thpmaps.py" "$tmp/thp.$pid" "$tmp/ours.$pid" \
				> "$tmp/cmp" 2>&1; then
				ok "report ($mode) agrees with thpmaps both ways on pid $pid ($(head -1 "$tmp/cmp"))"
			else
				nok "report ($mode) agrees with thpmaps on pid $pid"; sed 's/^/#   /' "$tmp/cmp" | head -10
			fi
		done
	done

	# Speed, as bench/utility-speed.md measures it: in a PID namespace of
	# its own, where thpmaps can walk every process (PID 1 of some
	# sandboxes is unreadable, and thpmaps then stops), 120 processes
	# (sleep, sh, python3 with 20 MB of heap), also put in a cgroup made
	# here.  report --all and report --cgroup, best of 3, against thpmaps
	# over the same processes; every timed run must succeed and print its
	# rollup over the processes, so that a broken binary cannot pass.
	if unshare -p -f --mount-proc true 2> /dev/null; then
		sp=
		if [ -n "$cg2" ] && [ -w "$cg2" ] && mkdir "$cg2/efc-speed-$$" 2> /dev/null; then
			sp=$cg2/efc-speed-$$
		fi
		mkdir "$tmp/speed"
		cat > "$tmp/speed.sh" << 'EOF'
# speed.sh OUT CTL PY THPMAPS [CGROUP]: "NAME EXIT_STATUS MICROSECONDS" lines
# in OUT/times, each run's output in OUT/NAME.out.
out=$1 ctl=$2 py=$3 thpmaps=$4 sp=${5:-}
put() { [ -z "$sp" ] || echo "$1" > "$sp/cgroup.procs"; }
for i in $(seq 40); do
	sleep 300 > /dev/null 2>&1 & put $!
	sh -c 'sleep 300; :' > /dev/null 2>&1 & put $!
	"$py" -c 'import time; x = bytearray(20 << 20); time.sleep(300)' > /dev/null 2>&1 & put $!
done
sleep 3
[ -z "$sp" ] || wc -l < "$sp/cgroup.procs" > "$out/n-cgroup"
timed() {
	local name=$1 s e rc
	shift
	s=$(date +%s%N); "$@" > "$out/$name.out" 2> "$out/$name.err"; rc=$?; e=$(date +%s%N)
	echo "$name $rc $(( (e - s) / 1000 ))" >> "$out/times"
}
for i in 1 2 3; do timed all$i "$ctl" report --all --rollup; done
timed thpmaps-all "$py" "$thpmaps" --rollup
if [ -n "$sp" ]; then
	for i in 1 2 3; do timed cgroup$i "$ctl" report --cgroup "$sp" --rollup; done
	timed thpmaps-cgroup "$py" "$thpmaps" --cgroup "$sp" --rollup
fi
EOF
		unshare -p -f --mount-proc sh "$tmp/speed.sh" "$tmp/speed" "$ctl" "$py" "$thpmaps" "$sp"
		# speed_check WHAT PREFIX MIN_PROCESSES [EXACT]: exit status, the
		# rollup line, then the ratio of thpmaps to the best of 3.
		speed_check() {
			local what=$1 name=$2 min=$3 exact=${4:-} best= line n rc us thp
			for i in 1 2 3; do
				read -r _ rc us <<< "$(grep "^$name$i " "$tmp/speed/times")"
				line=$(grep '^all [0-9]* processes: rollup$' "$tmp/speed/$name$i.out")
				n=$(echo "$line" | cut -d' ' -f2)
				if [ "${rc:-x}" != 0 ] || [ -z "$n" ] || [ "$n" -lt "$min" ] ||
				   { [ -n "$exact" ] && [ "$n" != "$exact" ]; }; then
					nok "report $what: run $i exit ${rc:-none}, rollup line '${line:-none}' (want >= $min${exact:+, = $exact} processes)"
					sed 's/^/#   /' "$tmp/speed/$name$i.err" | head -3
					return
				fi
				[ -z "$best" ] || [ "$us" -lt "$best" ] && best=$us
			done
			read -r _ rc thp <<< "$(grep "^thpmaps-$name " "$tmp/speed/times")"
			if [ "${rc:-x}" != 0 ]; then
				nok "thpmaps $what ran (exit ${rc:-none})"; sed 's/^/#   /' "$tmp/speed/thpmaps-$name.err" | tail -3
				return
			fi
			ratio=$(( thp / (best > 0 ? best : 1) ))
			echo "# speed: report $what over $n processes: ${best} us (best of 3), thpmaps ${thp} us, ratio ${ratio}x"
			[ "$ratio" -ge 20 ] && ok "report $what is ${ratio}x faster than thpmaps over $n processes" ||
				nok "report $what is ${ratio}x faster than thpmaps over $n processes (want >= 20x)"
		}
		speed_check --all all 120
		if [ -n "$sp" ]; then
			speed_check "--cgroup" cgroup 120 "$(cat "$tmp/speed/n-cgroup")"
			# The namespace's processes were killed with it; the cgroup empties.
			for i in $(seq 50); do [ -s "$sp/cgroup.procs" ] || break; sleep 0.1; done
			rmdir "$sp" 2> /dev/null
		else
			skip "report --cgroup speed against thpmaps" "cannot make a cgroup"
		fi
	else
		skip "report speed against thpmaps" "no PID namespaces (unshare -p)"
	fi
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
