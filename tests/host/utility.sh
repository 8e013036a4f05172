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

ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }
skip() { echo "ok - $1 # SKIP $2"; skip=$((skip + 1)); }
t() { local what=$1; shift; if "$@" > "$tmp/out" 2>&1; then ok "$what"; else nok "$what"; sed 's/^/#   /' "$tmp/out" | tail -20; fi; }

# expect STATUS PATTERN WHAT -- CMD...: exit status and a stderr/stdout pattern.
expect() {
	local want=$1 pat=$2 what=$3
	shift 4
	"$@" > "$tmp/o" 2> "$tmp/e"
	local rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$tmp/o" "$tmp/e"; then
		ok "$what (exit $rc)"
	else
		nok "$what: exit $rc, want $want matching '$pat'"
		sed 's/^/#   /' "$tmp/o" "$tmp/e" | head -5
	fi
}

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
expect 1 "give --pid PID or --all" "report needs a target" -- "$ctl" report
expect 1 "give --pid PID or --all" "report --pid and --all exclude" -- "$ctl" report --pid 1 --all
expect 1 "invalid --cont size '48K'" "report bad --cont" -- "$ctl" report --pid 1 --cont 48K
expect 1 "give --mode, --size or --order" "exec needs a policy" -- "$ctl" exec true
expect 1 "only one of" "exec takes one policy" -- "$ctl" exec --size 64K --order 4 true
expect 1 "invalid size '48K'" "exec rejects a non-power-of-two size" -- "$ctl" exec --size 48K true
expect 1 "invalid size '64KK'" "exec rejects a garbage size" -- "$ctl" exec --size 64KK true
expect 1 "invalid mode 'sometimes'" "exec rejects a bad mode" -- "$ctl" exec --mode sometimes true
expect 1 "invalid order '-1'" "exec rejects a negative order" -- "$ctl" exec --order -1 true
expect 1 "invalid order '99'" "exec rejects a huge order" -- "$ctl" exec --order 99 true
expect 1 "no command given" "exec needs a command" -- "$ctl" exec --size 64K
expect 1 "expected one MODE or SIZE" "set needs a value" -- "$ctl" set
expect 1 "cannot read /nonexistent" "apply of a missing file" -- "$ctl" apply /nonexistent
printf 'exec_order = auto\nfoo = bar\nexec_order = sometimes\n' > "$tmp/bad.conf"
expect 1 "bad.conf:2: unknown setting \"foo\"" "apply names the bad line" -- "$ctl" apply "$tmp/bad.conf"
expect 1 "bad.conf:3: \"sometimes\"" "apply names every bad line" -- "$ctl" apply "$tmp/bad.conf"
expect 1 "2 bad lines, nothing applied" "apply applies nothing" -- "$ctl" apply "$tmp/bad.conf"

if [ -e /sys/kernel/mm/transparent_hugepage/exec_order ]; then
	skip "no-kernel-support exit status" "this kernel has exec_order"
else
	expect 2 "this kernel has no exec folio policy" "status on a kernel without it" -- "$ctl" status
	expect 2 "this kernel has no exec folio policy" "set on a kernel without it" -- "$ctl" set auto
	expect 2 "no per-process exec folio policy" "exec on a kernel without it" -- "$ctl" exec --size 64K true
	printf 'exec_order = auto\n' > "$tmp/good.conf"
	expect 2 "this kernel has no exec folio policy" "apply on a kernel without it" -- "$ctl" apply "$tmp/good.conf"
fi
expect 1 "report needs root" "report refuses non-root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" report --pid 1

if MANWIDTH=80 man --warnings -l "$dir/exec_folio_ctl.8" > "$tmp/man" 2> "$tmp/manerr" &&
   [ ! -s "$tmp/manerr" ] && grep -q "EXIT STATUS" "$tmp/man"; then
	ok "man page renders without warnings"
else
	nok "man page renders without warnings"; sed 's/^/#   /' "$tmp/manerr" | head
fi
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
	if [ -x "$bin" ] && mount -t tmpfs -o huge=always,size=64M tmpfs "$tmp/huge" 2>/dev/null; then
		cp "$bin" "$tmp/huge/"
		"$tmp/huge/bigtext-2m" --stop &
		big=$!
		sleep 1
	else
		big=
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
