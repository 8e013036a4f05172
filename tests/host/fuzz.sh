#!/bin/bash
# Host tests of tools/exec_folio_ctl under the sanitizers: each libFuzzer
# target of tools/exec_folio_ctl/fuzz/ (sizes, policy words and the knob,
# config lines and files, smaps lines, JSON strings, the option values of
# every subcommand from argv vectors) built with clang's
# -fsanitize=fuzzer,address,undefined and run from its seed corpus for a
# fixed time and a bounded number of runs; then the utility and its parser
# unit tests built with ASan and UBSan, parse_test and a few commands run
# with every sanitizer report fatal.  Builds in a temporary directory.
# FUZZ_SECONDS (per target, default 8) and FUZZ_RUNS (default 2000000)
# bound the fuzzing; SAN_CC (default gcc) builds the utility.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$repo/tools/exec_folio_ctl
secs=${FUZZ_SECONDS:-8}
runs=${FUZZ_RUNS:-2000000}
san_cc=${SAN_CC:-gcc}
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

. "$repo/tests/lib/host-tap.sh"
# A sanitizer or libFuzzer report, or a broken invariant, in a log.
reported() { grep -qE 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|ERROR: libFuzzer|invariant broken|deadly signal|SUMMARY: ' "$1"; }
show() { sed 's/^/#   /' "$1" | grep -vE '^#   +#[0-9]+ 0x[0-9a-f]+ in fuzzer::' | head -${2:-30}; }

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86

# The targets: name, then the utility's sources it needs besides its own.
# A target whose sources are not in the tree (yet) is skipped.
targets=(
	"size policy.c"
	"policy policy.c"
	"conf conf.c policy.c"
	"smaps proc_smaps.c"
	"json json.c"
	"args args.c policy.c"
)
# The config target checks that parsing writes nothing: these calls are
# wrapped and abort while the parser runs.
conf_ldflags="-Wl,--wrap=open,--wrap=openat,--wrap=fopen,--wrap=write,--wrap=prctl"
fuzz_cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

fuzzer_rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
if ! command -v clang > /dev/null || [ ! -f "$fuzzer_rt" ]; then
	skip "libFuzzer targets" "no clang with libFuzzer (clang, libclang-rt-14-dev)"
else
	echo "# $(clang --version | head -1); ${secs} s and at most $runs runs per target"
	for entry in "${targets[@]}"; do
		read -r t srcs <<< "$entry"
		src=$dir/fuzz/fuzz_$t.c
		missing=
		for s in $srcs; do [ -f "$dir/$s" ] || missing+=" $s"; done
		if [ -n "$missing" ]; then
			skip "fuzz_$t" "not in the tree:$missing"
			continue
		fi
		bin=$tmp/fuzz_$t
		ldflags=
		[ "$t" = conf ] && ldflags=$conf_ldflags
		# shellcheck disable=SC2086
		if ! (cd "$dir" && clang $fuzz_cflags $ldflags -o "$bin" "$src" $srcs) \
			> "$tmp/build-$t.log" 2>&1; then
			nok "fuzz_$t builds with clang -fsanitize=fuzzer,address,undefined"
			show "$tmp/build-$t.log"
			continue
		fi
		ok "fuzz_$t builds with clang -fsanitize=fuzzer,address,undefined"

		# New inputs go to a scratch corpus (first), the seeds are read only.
		mkdir -p "$tmp/corpus-$t" "$tmp/run-$t"
		seeds=$(find "$dir/fuzz/corpus/$t" -type f 2>/dev/null | wc -l)
		t0=$SECONDS
		(cd "$tmp/run-$t" && "$bin" -max_total_time="$secs" -runs="$runs" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$tmp/run-$t/" \
			"$tmp/corpus-$t" "$dir/fuzz/corpus/$t") > "$tmp/fuzz-$t.log" 2>&1
		rc=$?
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/fuzz-$t.log")
		new=$(find "$tmp/corpus-$t" -type f | wc -l)
		crashes=$(find "$tmp/run-$t" -type f -name 'crash-*' -o -type f -name 'leak-*' \
			-o -type f -name 'timeout-*' -o -type f -name 'oom-*' | head -1)
		echo "# fuzz_$t: ${execs:-0} executions in $((SECONDS - t0)) s, $seeds seeds, $new new inputs"
		if [ "$rc" -eq 0 ] && [ -z "$crashes" ] && [ "${execs:-0}" -gt 0 ] &&
		   ! reported "$tmp/fuzz-$t.log"; then
			ok "fuzz_$t: ${execs} runs from $seeds seeds, no crash, no sanitizer report, invariants hold"
		else
			nok "fuzz_$t: exit $rc, ${execs:-0} runs"
			grep -E 'invariant broken|ERROR:|runtime error:|SUMMARY:|^#[0-9]+ 0x|^    #[0-9]+ ' \
				"$tmp/fuzz-$t.log" | sed 's/^/#   /' | grep -v 'in fuzzer::' | head -25
			[ -n "$crashes" ] && echo "#   input (base64): $(base64 -w0 "$crashes")"
		fi
	done
fi

# The utility and parse_test with ASan and UBSan, from a copy of the sources.
mkdir -p "$tmp/src"
(cd "$dir" && tar --exclude=./fuzz --exclude='*.o' --exclude=./exec_folio_ctl \
	--exclude=./exec_folio_ctl.static --exclude=./tests/parse_test -cf - .) |
	tar -xf - -C "$tmp/src"
san="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
if ! command -v "$san_cc" > /dev/null; then
	skip "utility under ASan and UBSan" "no $san_cc"
elif CC=$san_cc CFLAGS=$san LDFLAGS="-fsanitize=address,undefined" \
	make -s -C "$tmp/src" exec_folio_ctl tests/parse_test > "$tmp/san-build.log" 2>&1; then
	ok "utility and parse_test build with $san_cc -fsanitize=address,undefined"
	"$tmp/src/tests/parse_test" > "$tmp/parse.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && ! reported "$tmp/parse.log"; then
		ok "parse_test passes under ASan and UBSan ($(grep -E '^[0-9]+ passed' "$tmp/parse.log"))"
	else
		nok "parse_test passes under ASan and UBSan (exit $rc)"
		grep -E '^not ok|ERROR|runtime error|SUMMARY' "$tmp/parse.log" | sed 's/^/#   /' | head -20
	fi

	ctl=$tmp/src/exec_folio_ctl
	printf 'exec_folio_size = auto\nfoo = bar\nexec_folio_size = \xff\xfe\n' > "$tmp/bad.conf"
	# run WANT WHAT -- ARGS...: the exit status (- for any but a
	# sanitizer's), and no sanitizer report.
	run() {
		local want=$1 what=$2 rc
		shift 3
		"$ctl" "$@" > "$tmp/cmd.out" 2> "$tmp/cmd.err"
		rc=$?
		if [ "$rc" -ne 86 ] && [ "$rc" -lt 128 ] && { [ "$want" = - ] || [ "$rc" -eq "$want" ]; } &&
		   ! reported "$tmp/cmd.err"; then
			ok "under ASan/UBSan: $what (exit $rc)"
		else
			nok "under ASan/UBSan: $what: exit $rc, want $want"
			show "$tmp/cmd.err" 20
		fi
	}
	run 0 "--help" -- --help
	run 0 "--version" -- --version
	run 1 "no command" --
	run 1 "unknown command" -- frob
	run 1 "unknown option" -- status --bogus
	run 1 "bad pid" -- status --pid abc
	run 1 "negative pid" -- report --pid -5
	run 1 "bad --cont" -- report --pid 1 --cont 48K
	run 1 "non-power-of-two size" -- exec --size 48K true
	run 1 "garbage size" -- exec --size 64KK true
	run 1 "size too long for a word" -- exec --size 5555555555555555 true
	run 1 "huge order" -- exec --order 99 true
	run 1 "bad mode" -- exec --mode sometimes true
	run 1 "set without a value" -- set
	run - "set of garbage" -- set "$(printf '\xff%.0s' {1..100})"
	run - "apply of a missing file" -- apply /nonexistent
	run 1 "apply of bad lines" -- apply "$tmp/bad.conf"
	run - "status on this kernel" -- status
	if [ "$(id -u)" -eq 0 ]; then
		run 0 "report --pid \$\$" -- report --pid $$
		run 0 "report --pid \$\$ --cont 64K" -- report --pid $$ --cont 64K
		"$ctl" --help > "$tmp/help" 2>&1
		grep -q -- --json "$tmp/help" && run 0 "report --pid \$\$ --json" -- report --pid $$ --json
		grep -q -- --json "$tmp/help" && run - "status --json" -- status --json
		grep -q -- --all "$tmp/help" && run - "report --all --rollup" -- report --all --rollup
		grep -q -- --unit "$tmp/help" && run 1 "report of a bad unit name" -- report --unit ../x
		grep -q -- --cgroup "$tmp/help" && run 1 "report of a missing cgroup" -- report --cgroup /nonexistent
		run - "exec --mode never true" -- exec --mode never true
	else
		skip "under ASan/UBSan: report --pid \$\$" "not root"
	fi
else
	nok "utility and parse_test build with $san_cc -fsanitize=address,undefined"
	show "$tmp/san-build.log"
fi

echo "# fuzz.sh took $((SECONDS - start)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
