#!/bin/bash
# Host tests of tools/exec_folio_ctl, on this machine's kernel (which has
# no exec folio policy): the build with -Werror, the parser unit tests
# under valgrind, the command line (help, version, errors, exit codes),
# the man page, and "report" against the kernel's tools/mm/thpmaps on
# live processes.  Usage: utility.sh [KERNEL_TREE]  (for thpmaps)
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:-$repo/build/src}
dir=$repo/tools/exec_folio_ctl
ctl=$dir/exec_folio_ctl
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'umount "$tmp/huge" 2>/dev/null; rm -rf "$tmp"' EXIT

. "$repo/tests/lib/host-tap.sh"
t() { local what=$1; shift; if "$@" > "$tmp/out" 2>&1; then ok "$what"; else nok "$what"; sed 's/^/#   /' "$tmp/out" | tail -20; fi; }


t "utility builds with -Wall -Wextra -Werror" make -s -C "$dir" clean all
t "parser unit tests pass under valgrind" make -s -C "$dir" check
grep -E '^[0-9]+ passed' "$tmp/out" | sed 's/^/# parse_test: /'

expect 0 '^Usage:' "--help prints usage on stdout" -- "$ctl" --help
expect 0 'exec-folio 0\.1' "--version" -- "$ctl" --version
expect 0 '^Usage:' "report --help" -- "$ctl" report --help
expect 1 '^exec_folio_ctl: no command' "no command is an error" -- "$ctl"
expect 1 "^exec_folio_ctl: unknown command 'frob'" "unknown command" -- "$ctl" frob
expect 1 "^exec_folio_ctl: try" "unknown option" -- "$ctl" status --bogus
expect 1 "invalid PID 'abc'" "bad pid" -- "$ctl" status --pid abc
expect 1 "invalid PID '-5'" "negative pid" -- "$ctl" report --pid -5
expect 1 "give --pid PID, --cgroup PATH, --unit NAME or --all" "report needs a target" -- "$ctl" report
expect 1 "give --pid PID, --cgroup PATH, --unit NAME or --all" "report --pid and --all exclude" -- "$ctl" report --pid 1 --all
expect 1 "invalid --cont size '48K'" "report bad --cont" -- "$ctl" report --pid 1 --cont 48K
expect 1 "give --mode, --size or --order" "exec needs a policy" -- "$ctl" exec true
expect 1 "only one of" "exec takes one policy" -- "$ctl" exec --size 64K --order 4 true
expect 1 "invalid size '48K'" "exec rejects a non-power-of-two size" -- "$ctl" exec --size 48K true
expect 1 "invalid size '3K'" "exec rejects a non-power-of-two size below a page" -- "$ctl" exec --size 3K true
expect 1 "invalid size '64KK'" "exec rejects a garbage size" -- "$ctl" exec --size 64KK true
expect 1 "invalid mode 'sometimes'" "exec rejects a bad mode" -- "$ctl" exec --mode sometimes true
expect 1 "invalid order '-1'" "exec rejects a negative order" -- "$ctl" exec --order -1 true
expect 1 "invalid order '99'" "exec rejects a huge order" -- "$ctl" exec --order 99 true
expect 1 "no command given" "exec needs a command" -- "$ctl" exec --size 64K
expect 1 "expected one MODE or SIZE" "set needs a value" -- "$ctl" set
expect 1 "cannot read /nonexistent" "apply of a missing file" -- "$ctl" apply /nonexistent
printf 'exec_folio_size = auto\nfoo = bar\nexec_folio_size = sometimes\n' > "$tmp/bad.conf"
expect 1 "bad.conf:2: unknown setting \"foo\"" "apply names the bad line" -- "$ctl" apply "$tmp/bad.conf"
expect 1 "bad.conf:3: \"sometimes\"" "apply names every bad line" -- "$ctl" apply "$tmp/bad.conf"
expect 1 "2 bad lines, nothing applied" "apply applies nothing" -- "$ctl" apply "$tmp/bad.conf"

if [ -e /sys/kernel/mm/transparent_hugepage/exec_folio_size ]; then
	skip "no-kernel-support exit status" "this kernel has exec_folio_size"
else
	expect 2 "this kernel has no exec folio policy" "status on a kernel without it" -- "$ctl" status
	expect 2 "this kernel has no exec folio policy" "set on a kernel without it" -- "$ctl" set auto
	expect 2 "this kernel has no exec folio policy" "exec --strict on a kernel without it" -- \
		"$ctl" exec --strict --size 64K true
	printf 'exec_folio_size = auto\n' > "$tmp/good.conf"
	expect 2 "this kernel has no exec folio policy" "apply on a kernel without it" -- "$ctl" apply "$tmp/good.conf"
fi
expect 1 "report needs CAP_SYS_ADMIN" "report refuses non-root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" report --pid 1

if MANWIDTH=80 man --warnings -l "$dir/exec_folio_ctl.8" > "$tmp/man" 2> "$tmp/manerr" &&
   [ ! -s "$tmp/manerr" ] && grep -q "EXIT STATUS" "$tmp/man"; then
	ok "man page renders without warnings"
else
	nok "man page renders without warnings"; sed 's/^/#   /' "$tmp/manerr" | head
fi
# apply's escapes, as the page shows them: one backslash.
grep -qF '\xNN' "$tmp/man" && ! grep -qF '\\x' "$tmp/man" &&
	ok "man page shows apply's escapes as \\xNN" ||
	{ nok "man page shows apply's escapes as \\xNN"; grep -F 'xNN' "$tmp/man" | sed 's/^/#   /'; }
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES FILES "SEE ALSO"; do
	grep -q "^\.SH \"\?$s" "$dir/exec_folio_ctl.8" && ok "man page has $s" || nok "man page has $s"
done
t "bash completion parses" bash -n "$dir/exec_folio_ctl.bash-completion"
t "make install honours PREFIX and DESTDIR" make -s -C "$dir" install PREFIX=/usr DESTDIR="$tmp/root"
[ -x "$tmp/root/usr/sbin/exec_folio_ctl" ] && [ -f "$tmp/root/usr/share/man/man8/exec_folio_ctl.8" ] &&
	[ -f "$tmp/root/usr/lib/systemd/system/exec-folio.service" ] && ok "installed files in place" ||
	nok "installed files in place"

# The systemd unit and the drop-in example, as systemd reads them.
if command -v systemd-analyze > /dev/null; then
	root=$tmp/root
	t "exec-folio.service passes systemd-analyze verify" systemd-analyze verify --man=no \
		--root="$root" "$root/usr/lib/systemd/system/exec-folio.service"
	mkdir -p "$root/etc/systemd/system/demo.service.d" "$root/usr/bin"
	cp /usr/bin/true "$root/usr/bin/"
	printf '[Unit]\nDefaultDependencies=no\n[Service]\nExecStart=/usr/bin/true\n' \
		> "$root/etc/systemd/system/demo.service"
	sed 's|/usr/sbin/mysqld|/usr/bin/true|' "$dir/service-drop-in.conf.example" \
		> "$root/etc/systemd/system/demo.service.d/exec-folio.conf"
	t "the drop-in example passes systemd-analyze verify" systemd-analyze verify --man=no \
		--root="$root" "$root/etc/systemd/system/demo.service"
else
	skip "systemd units verify" "no systemd-analyze"
fi

# The tmpfiles.d example, as systemd-tmpfiles reads it: it writes its value
# into a stand-in exec_folio_size under --root, and on a kernel without the
# knob (no file) it creates nothing and does not fail.
if command -v systemd-tmpfiles > /dev/null; then
	tf=$tmp/tmpfiles
	knob=$tf/sys/kernel/mm/transparent_hugepage/exec_folio_size
	mkdir -p "$tf/etc/tmpfiles.d" "$(dirname "$knob")"
	cp "$dir/exec-folio.tmpfiles.example" "$tf/etc/tmpfiles.d/exec-folio.conf"
	t "systemd-tmpfiles --create without the knob succeeds" systemd-tmpfiles --root="$tf" --create
	[ ! -e "$knob" ] && ok "systemd-tmpfiles creates no exec_folio_size where the kernel has none" ||
		nok "systemd-tmpfiles creates no exec_folio_size where the kernel has none"
	: > "$knob"
	t "systemd-tmpfiles --create with the tmpfiles.d example" systemd-tmpfiles --root="$tf" --create
	[ "$(cat "$knob")" = auto ] && ok "the tmpfiles.d example writes auto to exec_folio_size" ||
		nok "the tmpfiles.d example writes auto to exec_folio_size (got '$(cat "$knob")')"
else
	skip "the tmpfiles.d example" "no systemd-tmpfiles"
fi

# Issue 12: the defects an admin would hit, each with its test.
sleep 300 &
sl=$!
sleep 0.2
# report without CAP_SYS_ADMIN sees page frame numbers of 0: it must fail, not
# print "100% base pages".
expect 1 "needs CAP_SYS_ADMIN" "report as uid 0 without CAP_SYS_ADMIN fails" -- \
	setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$ctl" report --pid "$sl"
if unshare -Ur true 2> /dev/null; then
	expect 1 "page frame numbers" "report where pagemap hides PFNs (user namespace) fails" -- \
		unshare -Ur sh -c "sleep 30 & sleep 0.2; exec $ctl report --pid \$!"
else
	skip "report where pagemap hides PFNs" "no user namespaces"
fi
# A repeated --pid is one process.
"$ctl" report --pid "$sl" > "$tmp/once" 2>&1
"$ctl" report --pid "$sl" --pid "$sl" > "$tmp/twice" 2>&1
cmp -s "$tmp/once" "$tmp/twice" && ok "a repeated --pid is counted once" ||
	{ nok "a repeated --pid is counted once"; diff "$tmp/once" "$tmp/twice" | sed 's/^/#   /' | head; }
# --all skips only processes that vanished; others are counted, named, exit 1.
# Run as nobody with the capabilities report needs, so that processes of
# other users (on this sandbox at least PID 1) cannot be read.
asnobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+sys_admin,+dac_read_search \
		--ambient-caps=+sys_admin,+dac_read_search "$@"
}
asnobody "$ctl" report --all --json > "$tmp/all.json" 2> "$tmp/all.err"
rc=$?
unreadable=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["skipped"]; print(s["unreadable"], *[p["pid"] for p in s["unreadable_pids"]][:1])' "$tmp/all.json" 2>&1)
set -- $unreadable
if [ "${1:-x}" = 0 ]; then
	skip "report --all exits 1 and names unreadable processes" "every process readable here"
elif [ "$rc" = 1 ] && grep -q "skipped $1 unreadable process.*[: ]$2 (" "$tmp/all.err"; then
	ok "report --all counts and names unreadable processes, exit 1 ($1: $(head -c 80 "$tmp/all.err"))"
else
	nok "report --all counts and names unreadable processes, exit 1: rc=$rc, $unreadable"
	sed 's/^/#   /' "$tmp/all.err" | head -3
fi
set --

# exec: an optional tuning never keeps a service from starting.
if [ ! -e /sys/kernel/mm/transparent_hugepage/exec_folio_size ]; then
	expect 0 "^ran$" "exec runs the command anyway on a kernel without the feature" -- \
		"$ctl" exec --size 2M -- sh -c 'echo ran'
	grep -q "^exec_folio_ctl: warning: .*no exec folio policy" "$tmp/e" &&
		ok "exec warns on stderr that the size was not applied" ||
		nok "exec warns on stderr that the size was not applied"
	expect 2 "no exec folio policy" "exec --strict keeps exit 2" -- \
		"$ctl" exec --strict --size 2M -- true
	expect 127 "failed to execute" "exec of a missing command without the feature: 127" -- \
		"$ctl" exec --size 2M -- /nonexistent/cmd
	# A size below the smallest page of any Linux (4K) is no folio size
	# anywhere: refused as a bad argument, before anything is run.
	expect 1 "invalid size '2K'" "exec --size 2K (below any page) is refused" -- \
		"$ctl" exec --size 2K -- sh -c 'echo ran'
	if command -v strace > /dev/null; then
		strace -o "$tmp/strace" -e trace=prctl "$ctl" exec --size 2M -- /bin/true 2> /dev/null
		! grep -q 'prctl(' "$tmp/strace" && ok "no prctl call without the exec_folio_size knob" ||
			{ nok "no prctl call without the exec_folio_size knob"; sed 's/^/#   /' "$tmp/strace" | head -3; }
	else
		skip "no prctl call without the exec_folio_size knob" "no strace"
	fi
fi

# apply: only a small regular file; bounded, escaped messages; errno kept.
expect 1 "/dev/zero: not a regular file" "apply /dev/zero is refused" -- \
	bash -c "ulimit -v 300000; exec timeout 5 $ctl apply /dev/zero"
expect 1 "/dev/urandom: not a regular file" "apply /dev/urandom is refused" -- \
	bash -c "ulimit -f 200; exec timeout 5 $ctl apply /dev/urandom"
expect 1 "cannot read /tmp: Is a directory|/tmp: not a regular file" "apply of a directory" -- \
	"$ctl" apply /tmp
# errno kept: a file that nobody may not read (in a directory it may enter).
pub=$(mktemp -d)
chmod 755 "$pub"
printf 'exec_folio_size = auto\n' > "$pub/secret.conf"
chmod 600 "$pub/secret.conf"
expect 1 "cannot read $pub/secret.conf: Permission denied" "apply of a 0600 file as nobody: Permission denied" -- \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" apply "$pub/secret.conf"
rm -rf "$pub"
head -c 70000 /dev/zero | tr '\0' '#' > "$tmp/big.conf"
expect 1 "larger than 64 KiB" "apply refuses a file over 64 KiB" -- "$ctl" apply "$tmp/big.conf"
for i in $(seq 50); do echo "bogus$i"; done > "$tmp/many.conf"
expect 1 "50 bad lines, nothing applied" "apply counts every bad line" -- "$ctl" apply "$tmp/many.conf"
[ "$(wc -l < "$tmp/e")" -le 12 ] && ok "apply stops after a handful of messages ($(wc -l < "$tmp/e") lines)" ||
	nok "apply stops after a handful of messages ($(wc -l < "$tmp/e") lines)"
printf 'ex\033[31mec = \377\n' > "$tmp/esc.conf"
expect 1 'ex\\x1b\[31mec' "apply escapes non-printable bytes" -- "$ctl" apply "$tmp/esc.conf"
! LC_ALL=C grep -q $'[\033\377]' "$tmp/e" && ok "no raw control bytes in apply's messages" ||
	nok "no raw control bytes in apply's messages"

# Options: errors name the program; set and apply use getopt; sizes as util-linux.
expect 1 "^exec_folio_ctl: unrecognized option '--bogus'" "option errors name the program" -- \
	"$ctl" status --bogus
expect 1 "^exec_folio_ctl: unrecognized option '--bogus'" "set rejects an unknown option" -- \
	"$ctl" set --bogus
expect 1 "^exec_folio_ctl: unrecognized option '--bogus'" "apply rejects an unknown option" -- \
	"$ctl" apply --bogus
expect 0 '^Usage:' "set --help" -- "$ctl" set --help
if [ ! -e /sys/kernel/mm/transparent_hugepage/exec_folio_size ]; then
	expect 2 "no exec folio policy" "set -- auto is parsed" -- "$ctl" set -- auto
fi
expect 1 "cannot read /nonexistent" "apply -- FILE is parsed" -- "$ctl" apply -- /nonexistent
expect 0 "default /etc/exec-folio.conf" "--help names apply's default file" -- "$ctl" --help
expect 1 "invalid size '64KB'" "64KB means 64000 bytes (util-linux), not a folio size" -- \
	"$ctl" exec --strict --size 64KB -- true
expect 1 "invalid size '2MB'" "2MB means 2000000 bytes" -- "$ctl" exec --strict --size 2MB -- true
grep -q 'for powers of 1000' "$dir/exec_folio_ctl.8" && grep -q '64KB' "$dir/exec_folio_ctl.8" && ok "man page: KB is 1000, KiB and K 1024" ||
	nok "man page: KB is 1000, KiB and K 1024"
grep -q '8K' "$dir/exec_folio_ctl.8" && grep -q 'thpmaps.*16K\|16K.*thpmaps' "$dir/exec_folio_ctl.8" &&
	ok "man page: report counts 8K folios that thpmaps does not show" ||
	nok "man page: report counts 8K folios that thpmaps does not show"

# make: CFLAGS on the command line keeps the warnings; install is consistent
# with the unit; uninstall removes what install put.
make -s -C "$dir" -n -B CFLAGS=-O1 exec_folio_ctl > "$tmp/mk" 2>&1
grep -q -- '-Werror' "$tmp/mk" && grep -q -- '-Wextra' "$tmp/mk" && grep -q -- '-O1' "$tmp/mk" &&
	ok "make CFLAGS=... keeps -Wall -Wextra -Werror" || nok "make CFLAGS=... keeps -Wall -Wextra -Werror"
make -s -C "$dir" install DESTDIR="$tmp/def" > /dev/null 2>&1
exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$(find "$tmp/def" -name exec-folio.service | head -1)" 2>/dev/null)
[ -n "$exe" ] && [ -x "$tmp/def$exe" ] && ok "the installed unit runs the installed binary ($exe)" ||
	nok "the installed unit runs the installed binary (${exe:-no unit})"
make -s -C "$dir" uninstall DESTDIR="$tmp/def" > /dev/null 2>&1
[ -z "$(find "$tmp/def" -type f 2> /dev/null)" ] && ok "make uninstall removes every installed file" ||
	nok "make uninstall removes every installed file"
kill $sl 2> /dev/null

# enable-unit / disable-unit: the drop-in that wraps a service's commands,
# from the unit text "systemctl cat" prints (given with --from here).
printf '%s\n' '# /usr/lib/systemd/system/demo.service' '[Unit]' 'Description=demo' '[Service]' \
	'ExecStart=/usr/bin/old' 'ExecStart=' 'ExecStart=-/usr/bin/true --flag "a b"' '' \
	'# /etc/systemd/system/demo.service.d/exec-folio.conf' '[Service]' 'ExecStart=' \
	'ExecStart=/usr/sbin/exec_folio_ctl exec --size 64K -- /usr/bin/true' > "$tmp/demo.cat"
ur=$tmp/unitroot
di=$ur/etc/systemd/system/demo.service.d/exec-folio.conf
expect 0 "^wrote $di" "enable-unit writes the drop-in" -- \
	"$ctl" enable-unit demo --size 2MiB --from "$tmp/demo.cat" --root "$ur" --exe "$ctl"
grep -qxF "ExecStart=-$ctl exec --size 2M -- /usr/bin/true --flag \"a b\"" "$di" &&
	[ "$(grep -c '^ExecStart=' "$di")" = 2 ] && grep -qx 'ExecStart=' "$di" &&
	ok "the drop-in wraps the unit's last command, prefix kept, our old drop-in ignored" ||
	{ nok "the drop-in wraps the unit's command"; sed 's/^/#   /' "$di"; }
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$ur/usr/lib/systemd/system" "$ur/usr/bin" "$ur$(dirname "$ctl")"
	cp /usr/bin/true "$ur/usr/bin/"
	cp "$ctl" "$ur$ctl"
	printf '[Unit]\nDefaultDependencies=no\n[Service]\nExecStart=-/usr/bin/true --flag "a b"\n' \
		> "$ur/usr/lib/systemd/system/demo.service"
	t "systemd-analyze verify accepts the written drop-in" systemd-analyze verify --man=no \
		--root="$ur" "$ur/usr/lib/systemd/system/demo.service"
fi
expect 0 "^ExecStart=.* exec --mode auto -- " "enable-unit --print writes to stdout" -- \
	"$ctl" enable-unit demo.service --mode auto --from "$tmp/demo.cat" --print
printf '[Service]\nExecStart=@/bin/sh mysh -c x\n' > "$tmp/at.cat"
expect 1 "sets argv\[0\] apart" "enable-unit refuses an @ command" -- \
	"$ctl" enable-unit demo --size 2M --from "$tmp/at.cat" --root "$ur"
printf '[Unit]\nDescription=x\n' > "$tmp/none.cat"
expect 1 "no ExecStart=" "enable-unit refuses a unit without ExecStart" -- \
	"$ctl" enable-unit demo --size 2M --from "$tmp/none.cat" --root "$ur"
expect 1 "invalid service name '../x'" "enable-unit refuses a path as name" -- \
	"$ctl" enable-unit ../x --size 2M --from "$tmp/demo.cat" --root "$ur"
expect 1 "invalid size '48K'" "enable-unit refuses a bad size" -- \
	"$ctl" enable-unit demo --size 48K --from "$tmp/demo.cat" --root "$ur"
grep -q -- '--size 2M' "$di" && ok "refused enable-unit calls left the drop-in alone" ||
	nok "refused enable-unit calls left the drop-in alone"
expect 0 "^removed $di" "disable-unit removes the drop-in" -- "$ctl" disable-unit demo --root "$ur"
[ ! -e "$di" ] && [ ! -d "$(dirname "$di")" ] && ok "disable-unit leaves no file or empty directory" ||
	nok "disable-unit leaves no file or empty directory"
expect 1 "cannot remove" "disable-unit of a unit without the drop-in" -- "$ctl" disable-unit demo --root "$ur"

# report == thpmaps on the same process.  Text on a tmpfs with huge=always
# has PMD-mapped, partially mapped and contpte-able parts; a sleeping
# sleep(1) has ordinary text.
thpmaps=$tree/tools/mm/thpmaps
# thpmaps needs numpy: Debian's python3-numpy, for Debian's interpreter.
py=/usr/bin/python3
if [ ! -f "$thpmaps" ] || ! "$py" -c 'import numpy' 2>/dev/null; then
	skip "report agrees with thpmaps" "no thpmaps or numpy"
else
	bin=$repo/build/guest-x86_64/bigtext-2m
	mkdir -p "$tmp/huge"
	big=
	if [ ! -x "$bin" ]; then
		skip "report agrees with thpmaps on PMD-mapped text" "no $bin (tests/run.sh builds it)"
	elif ! mount -t tmpfs -o huge=always,size=64M tmpfs "$tmp/huge" 2> "$tmp/mount-err"; then
		skip "report agrees with thpmaps on PMD-mapped text" "tmpfs huge=always: $(head -1 "$tmp/mount-err")"
	else
		cp "$bin" "$tmp/huge/"
		"$tmp/huge/bigtext-2m" --stop &
		big=$!
		sleep 1
	fi
	sleep 300 &
	small=$!
	sleep 0.5
	for pid in $big $small; do
		"$py" "$thpmaps" --pid "$pid" --cont 64K --inc-empty > "$tmp/thp.$pid" 2>&1
		"$ctl" report --pid "$pid" --cont 64K > "$tmp/ours.$pid" 2>&1
		if python3 "$repo/tests/lib/compare-thpmaps.py" "$tmp/thp.$pid" "$tmp/ours.$pid" > "$tmp/cmp" 2>&1; then
			ok "report agrees with thpmaps on pid $pid ($(head -1 "$tmp/cmp"))"
		else
			nok "report agrees with thpmaps on pid $pid"; sed 's/^/#   /' "$tmp/cmp" | head -20
		fi
	done
	kill -9 $big $small 2>/dev/null
	wait $big $small 2>/dev/null
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
