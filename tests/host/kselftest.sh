#!/bin/bash
# The selftest where kselftests run: tools/testing/selftests/mm/Makefile
# builds exec_folio_test and its helpers (exec_folio/ beside it) from the
# kernel tree, run_vmtests.sh knows the exec_folio category, and on this
# machine's kernel (which has no exec folio policy) the test skips, or
# fails with EXEC_FOLIO_REQUIRE=1.  Usage: kselftest.sh [KERNEL_TREE]
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:-$repo/build/src}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$repo/tests/lib/host-tap.sh"
if [ ! -f "$tree/tools/testing/selftests/mm/exec_folio_test.c" ]; then
	nok "kernel tree with the series at $tree"
	echo "$pass passed, $fail failed"
	exit 1
fi
out=$tmp/out
mkdir -p "$out"
helpers="bigtext bigtext-2m hugetext tinytext bigtext-nosep"
if make -s -C "$tree" O="$tmp/obj" headers > "$tmp/build.log" 2>&1 &&
   make -s -C "$tree/tools/testing/selftests/mm" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $tmp/obj/usr/include" "$out/exec_folio_test" \
	$(for h in $helpers; do echo "$out/exec_folio/$h"; done) >> "$tmp/build.log" 2>&1; then
	ok "kselftest's mm Makefile builds exec_folio_test and its helpers"
else
	nok "kselftest's mm Makefile builds exec_folio_test and its helpers"
	tail -20 "$tmp/build.log" | sed 's/^/#   /'
fi
missing=
for h in $helpers; do [ -x "$out/exec_folio/$h" ] || missing="$missing $h"; done
[ -z "$missing" ] && ok "helpers in exec_folio/ beside the test" ||
	nok "helpers in exec_folio/ beside the test (missing:$missing)"
# Without a static libc the Makefile still builds the test and tinytext
# (which needs no libc), warns, and leaves the other helpers out (the
# tests that need them skip: "no helper binaries").  libc.a is hidden by a bind mount of /dev/null
# in a mount namespace of this test's own, so that a static link fails
# as where libc.a is not installed; nothing outside it sees the mount.
libca=$(gcc -print-file-name=libc.a)
if [ "$libca" = libc.a ] || ! unshare -m true 2>/dev/null; then
	skip "without a static libc the test builds and its helpers are left out" \
		"no libc.a or no mount namespace here"
else
	out2=$tmp/out-nostatic
	mkdir -p "$out2"
	unshare -m sh -c 'mount --bind /dev/null "$1" || exit 99
		echo "int main(void){return 0;}" > "$3/t.c"
		if gcc -static -o "$3/t" "$3/t.c" 2> /dev/null; then exit 98; fi
		make -s -C "$2/tools/testing/selftests/mm" OUTPUT="$3" \
			KHDR_INCLUDES="-isystem $4/obj/usr/include" "$3/exec_folio_test" \
			"$3/exec_folio" warn_exec_folio_static' \
		sh "$libca" "$tree" "$out2" "$tmp" > "$tmp/nostatic.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ -x "$out2/exec_folio_test" ] && [ -x "$out2/exec_folio/tinytext" ] &&
	   [ ! -e "$out2/exec_folio/bigtext" ] && grep -q "cannot link static programs" "$tmp/nostatic.log"; then
		ok "without a static libc the test and tinytext build, the other helpers are left out with a warning"
	else
		nok "without a static libc the test and tinytext build, the other helpers are left out with a warning (exit $rc)"
		tail -5 "$tmp/nostatic.log" | sed 's/^/#   /'
	fi
fi
# "make install" copies the helpers' directory, not its files one by one
# (installed flat, the test would not find them); a dry run shows it.
make -n -s -C "$tree/tools/testing/selftests/mm" OUTPUT="$out" INSTALL_PATH="$tmp/inst" \
	KHDR_INCLUDES="-isystem $tmp/obj/usr/include" install > "$tmp/install.log" 2>&1
if grep -E '^rsync ' "$tmp/install.log" | tr ' ' '\n' | grep -x "$out/exec_folio" > /dev/null &&
   ! grep -E '^rsync ' "$tmp/install.log" | grep "$out/exec_folio/" > /dev/null; then
	ok "make install installs the helpers in exec_folio/ beside the test"
else
	nok "make install installs the helpers in exec_folio/ beside the test"
	grep -E '^rsync ' "$tmp/install.log" | tr ' ' '\n' | grep exec_folio | sed 's/^/#   /'
fi
# The memory pressure test changes min_free_kbytes: only with -d.
grep -q 'EXEC_FOLIO_ARGS="-T pressure_keeps_auto_pmd"' "$tree/tools/testing/selftests/mm/run_vmtests.sh" &&
	grep -q '$RUN_DESTRUCTIVE && EXEC_FOLIO_ARGS=$' "$tree/tools/testing/selftests/mm/run_vmtests.sh" &&
	ok "run_vmtests.sh runs the pressure test only when destructive tests are asked for (-d)" ||
	nok "run_vmtests.sh runs the pressure test only when destructive tests are asked for (-d)"
grep -q 'CATEGORY="exec_folio" run_test' "$tree/tools/testing/selftests/mm/run_vmtests.sh" &&
	ok "run_vmtests.sh runs the exec_folio category" ||
	nok "run_vmtests.sh runs the exec_folio category"
if [ -x "$out/exec_folio_test" ]; then
	"$out/exec_folio_test" > "$tmp/skip.log" 2>&1
	rc=$?
	grep -q 'fail:0 .*skip:[1-9]' "$tmp/skip.log" && [ $rc -eq 0 ] &&
		ok "without the feature the tests skip (exit $rc)" ||
		nok "without the feature the tests skip (exit $rc)"
	EXEC_FOLIO_REQUIRE=1 "$out/exec_folio_test" > "$tmp/req.log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q 'fail:[1-9]' "$tmp/req.log" &&
		ok "with EXEC_FOLIO_REQUIRE=1 a missing feature fails (exit $rc)" ||
		nok "with EXEC_FOLIO_REQUIRE=1 a missing feature fails (exit $rc)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
