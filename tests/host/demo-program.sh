#!/bin/bash
# demo/run.sh --program for a program that runs to completion or reads
# its own input (issue 21 defect 10), on this machine's kernel, without
# a guest: field_probe exitstop (which tests/guest/field.sh runs such a
# program under) holds a program at its exit with its memory intact and
# releases it when it is killed itself; demo/run.sh copies the files its
# ARGS name (and --with PATHs) into the chroot tree and passes them by
# their absolute path; field-closure.sh --with puts them there.  The
# guest side (field.sh measuring sha256sum at its exit under each
# policy) runs in the field-x86_64 boot.
#
# FIELD_PROBE=BINARY runs the field_probe checks on another build (a
# control: the field_probe before exitstop fails each of them).
set -u
. "$(dirname "$0")/../lib/host-tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
holders=
trap 'for h in $holders; do kill -9 $h 2> /dev/null; done; rm -rf "$tmp"' EXIT

probe=${FIELD_PROBE:-$tmp/field_probe}
if [ -z "${FIELD_PROBE:-}" ] &&
   ! gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$probe" "$repo/tests/progs/field_probe.c" 2> "$tmp/cc"; then
	nok "field_probe builds"
	sed 's/^/#   /' "$tmp/cc" | head -5
fi

# state PID: the state letter of /proc/PID/stat, "gone" without it.
state() { sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2> /dev/null | grep . || echo gone; }
# released PID: true once PID is gone or a zombie (within 5 s).
released() {
	for _ in $(seq 50); do
		case $(state "$1") in gone|Z) return 0 ;; esac
		sleep 0.1
	done
	return 1
}
# end_holder WHAT: kill the holder $h; $p must then be released.
end_holder() {
	kill -9 "$h"
	wait "$h" 2> /dev/null
	released "$p" && ok "exitstop: killing the holder releases $1" ||
		nok "exitstop: killing the holder releases $1 (state $(state "$p"))"
}
# start NAME CMD...: run CMD under field_probe exitstop, record in
# $tmp/NAME.rec, holder's pid in $h, CMD's in $p (once the record says).
start() {
	local name=$1
	shift
	rm -f "$tmp/$name.rec"
	"$probe" exitstop "$tmp/$name.rec" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
	h=$!
	holders="$holders $h"
	p=
	for _ in $(seq 50); do
		p=$(sed -n 's/^pid=//p' "$tmp/$name.rec" 2> /dev/null)
		[ -n "$p" ] && return 0
		sleep 0.1
	done
	return 1
}
# held NAME PATTERN: the record's second line matches PATTERN (within 5 s).
held() {
	for _ in $(seq 50); do
		grep -qE "$2" "$tmp/$1.rec" 2> /dev/null && return 0
		sleep 0.1
	done
	return 1
}

# 1. A program that exits 3: held at its exit, its mappings there.
if start exit3 sh -c 'echo out; exit 3' && held exit3 '^exited=1 exit_status=3 run_ms=[0-9]+$'; then
	ok "exitstop: a program that exits 3 is held at its exit (exited=1 exit_status=3 run_ms=N)"
	st=$(state "$p") maps=$(grep -c ' r-xp .*/' "/proc/$p/maps" 2> /dev/null)
	[ "$st" = t ] && [ "${maps:-0}" -ge 2 ] &&
		ok "exitstop: held in a tracing stop with its text still mapped (state $st, $maps executable file mappings)" ||
		nok "exitstop: held in a tracing stop with its text still mapped (state $st, ${maps:-0} executable file mappings; want t, >= 2)"
	grep -qx out "$tmp/exit3.out" && ok "exitstop: the program's output passes through" ||
		nok "exitstop: the program's output passes through (got '$(head -c 40 "$tmp/exit3.out")')"
	# The kernel's behaviour field.sh depends on: a SIGKILL to a task
	# stopped in exit_group() does not end it, killing its tracer does.
	kill -9 "$p"
	sleep 0.5
	st=$(state "$p")
	[ "$st" = t ] && ok "exitstop: SIGKILL to the held program leaves it held (state t)" ||
		nok "exitstop: SIGKILL to the held program leaves it held (state $st, want t)"
	end_holder "the program (PTRACE_O_EXITKILL)"
else
	nok "exitstop: a program that exits 3 is held at its exit (record: $(tr '\n' ' ' < "$tmp/exit3.rec" 2> /dev/null))"
	sed 's/^/#   /' "$tmp/exit3.err" 2> /dev/null | head -3
fi

# 2. Killed by a signal: the status as a shell gives it (128 + N).
if start segv sh -c 'kill -SEGV $$' && held segv '^exited=1 exit_status=139 '; then
	ok "exitstop: a program killed by SIGSEGV is held at its exit (exit_status=139)"
else
	nok "exitstop: a program killed by SIGSEGV is held at its exit (record: $(tr '\n' ' ' < "$tmp/segv.rec" 2> /dev/null))"
fi
kill -9 "$h" 2> /dev/null
wait "$h" 2> /dev/null

# 3. A program that exec()s another (busybox chroot does): held at the
# exit of the second, the same pid.
if start exec sh -c 'exec sleep 0.2' && held exec '^exited=1 exit_status=0 '; then
	exe=$(readlink "/proc/$p/exe")
	case "$exe" in
	*/sleep) ok "exitstop: through an exec(), held at the exit of what it exec()ed ($exe)" ;;
	*) nok "exitstop: through an exec(), held at the exit of what it exec()ed (exe '$exe', want .../sleep)" ;;
	esac
else
	nok "exitstop: through an exec(), held at the exit of what it exec()ed (record: $(tr '\n' ' ' < "$tmp/exec.rec" 2> /dev/null))"
fi
kill -9 "$h" 2> /dev/null
wait "$h" 2> /dev/null

# 4. A program that stops itself stays stopped, and says so.
if start stop sh -c 'kill -STOP $$; echo resumed' && held stop '^stopped=19 run_ms=[0-9]+$'; then
	sleep 0.3
	st=$(state "$p")
	[ "$st" = t ] && ! grep -q resumed "$tmp/stop.out" &&
		ok "exitstop: a program that stops itself stays stopped (stopped=19, state t)" ||
		nok "exitstop: a program that stops itself stays stopped (state $st, output '$(cat "$tmp/stop.out")')"
	end_holder "a stopped program"
else
	nok "exitstop: a program that stops itself stays stopped (record: $(tr '\n' ' ' < "$tmp/stop.rec" 2> /dev/null))"
fi

# 5. A program still running when the holder is killed is killed too.
if start run sleep 600; then
	sleep 0.3
	st=$(state "$p")
	kill -9 "$h"
	wait "$h" 2> /dev/null
	[ "$st" = S ] && released "$p" &&
		ok "exitstop: a running program is not held, and ends with its holder" ||
		nok "exitstop: a running program is not held, and ends with its holder (state $st, then $(state "$p"))"
else
	nok "exitstop: a running program is not held, and ends with its holder (no pid= record)"
fi

# 6. A program that cannot be run: 127 and its name.
"$probe" exitstop "$tmp/none.rec" "$tmp/no-such-program" > /dev/null 2> "$tmp/none.err"
rc=$?
[ $rc = 127 ] && grep -q "no-such-program: No such file" "$tmp/none.err" &&
	ok "exitstop: a program that does not exist: exit 127, named" ||
	nok "exitstop: a program that does not exist: exit $rc, '$(head -c 80 "$tmp/none.err")' (want 127, its name)"

# demo/run.sh: what ARGS name is copied and passed by absolute path.
mkdir -p "$tmp/cwd/inc"
echo 'int f(void) { return 42; }' > "$tmp/cwd/in.c"
echo '#define X 1' > "$tmp/cwd/inc/x.h"
real=$(cd "$tmp/cwd" && pwd -P)
(cd "$tmp/cwd" && bash "$repo/demo/run.sh" --dry-run --with inc --program /bin/cat in.c \
	--input=in.c -o out.o "it's") > "$tmp/dry" 2>&1
rc=$?
grep -qx "run as: chroot DIR /bin/cat '$real/in.c' '--input=$real/in.c' '-o' 'out.o' 'it'\\\\''s'" "$tmp/dry" &&
	[ $rc = 0 ] && ok "demo --program: an ARG naming a file (whole or after =) is passed by its absolute path, others as given" ||
	{ nok "demo --program: an ARG naming a file is passed by its absolute path (exit $rc)"; sed 's/^/#   /' "$tmp/dry" | head -5; }
[ "$(grep -c "^copied into the chroot: " "$tmp/dry")" = 2 ] && grep -qx "copied into the chroot: $real/inc" "$tmp/dry" &&
	grep -qx "copied into the chroot: $real/in.c" "$tmp/dry" &&
	ok "demo --program: the file named twice is copied once, --with PATH too" ||
	{ nok "demo --program: the file named twice is copied once, --with PATH too"; sed 's/^/#   /' "$tmp/dry" | head -5; }
expect 1 "demo: --with $tmp/nope: no such file or directory" "demo --with a missing path is refused" -- \
	bash "$repo/demo/run.sh" --dry-run --with "$tmp/nope" --program /bin/cat
expect 1 "demo: --with needs --program" "demo --with without --program is refused" -- \
	bash "$repo/demo/run.sh" --dry-run --with "$tmp/cwd/in.c"

# field-closure.sh --with: the files at their absolute paths in the tree.
if bash "$repo/tests/lib/field-closure.sh" --run "'$real/in.c'" --with "$real/in.c" \
	--with "$real/inc" "$tmp/tree" /bin/cat > "$tmp/fc" 2>&1; then
	cmp -s "$real/in.c" "$tmp/tree$real/in.c" && cmp -s "$real/inc/x.h" "$tmp/tree$real/inc/x.h" &&
		grep -q "^cat /bin/cat none '' '' " "$tmp/tree/field.list" &&
		ok "field-closure --with: a file and a directory's files at their absolute paths; the program runs with CHECK none" ||
		{ nok "field-closure --with: the files at their absolute paths"; sed 's/^/#   /' "$tmp/tree/field.list"; }
else
	nok "field-closure --with: exit status $?"
	sed 's/^/#   /' "$tmp/fc" | tail -5
fi
expect 1 "--with $tmp/nope: no such file or directory" "field-closure --with a missing path is refused" -- \
	bash "$repo/tests/lib/field-closure.sh" --with "$tmp/nope" "$tmp/tree2" /bin/cat

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
