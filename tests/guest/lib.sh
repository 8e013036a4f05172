#!/bin/sh
# Shared by the guest scripts (busybox sh); source it.

# TAP-style results: "ok - what" / "not ok - what", counted in $pass and
# $fail for the closing "N passed, N failed" line.
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }

# field NAME DIST: the value of NAME= in a report_dist line, 0 if absent.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1 | grep . || echo 0; }

# drop_caches: empty the page cache before a measurement.  If that fails,
# say GUEST-ERROR: the run fails, and no figure measured after it is used.
# On stderr, which reaches the console also when the caller's stdout is
# taken by $(...) (cold_spawn).
drop_caches() {
	echo 3 > /proc/sys/vm/drop_caches ||
		echo "GUEST-ERROR cannot drop the page cache: measurements are not cold" >&2
}

# cold_spawn CMD [ARG]...: drop the page cache, start CMD in the background
# (its output discarded: callers read ours through $(...)), wait up to 10 s
# for it to stop itself with SIGSTOP, and print its pid.  Returns 1 if it
# did not stop.
cold_spawn() {
	sync
	drop_caches
	"$@" > /dev/null 2>&1 &
	_p=$!
	for _i in $(seq 100); do
		if grep -q '^State:.*T (stopped)' /proc/$_p/status 2>/dev/null; then
			echo $_p
			return 0
		fi
		sleep 0.1
	done
	echo $_p
	return 1
}

# report_dist NAME < report: the counters of the mapping of NAME in
# "exec_folio_ctl report" output, as the fields of a "# folio-dist" line
# (" small=0.3 64K=96.6 ... cont=96.6"), in percent of its text.
report_dist() {
	awk -v want="$1" '
		/^[0-9]+: / { on = index($0, want) > 0 && $0 !~ /rollup/; next }
		on && /file-/ {
			key = $1; sub(":", "", key); pct = $0
			sub(/.*\( */, "", pct); sub(/%.*/, "", pct)
			if (key == "file-base-page") name = "small"
			else if (key ~ /^file-thp-pte-aligned-/) { name = key; sub(/file-thp-pte-aligned-/, "", name); sub(/kB/, "K", name) }
			else if (key ~ /^file-thp-pte-unaligned-/) { unal += pct; next }
			else if (key == "file-thp-pte-partial") name = "partial"
			else if (key ~ /^file-thp-pmd/) name = "pmd"
			else if (key ~ /^file-cont-pte/) name = "cont"
			else next
			printf " %s=%s", name, pct
		}
		END { if (unal) printf " unaligned=%s", unal }'
}

# The kernel's own view of a mapping's folios (tests/kmod/folio_oracle).
oracle=/sys/kernel/debug/folio_oracle

# oracle_load: load folio_oracle.ko from the directory of this script's
# caller ($1, default /tests/bin) unless it is loaded; returns 1 if it
# cannot be.
oracle_load() {
	[ -e $oracle ] && return 0
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	insmod "${1:-/tests/bin}/folio_oracle.ko" 2>/dev/null
	[ -e $oracle ]
}

# oracle_compare PID LABEL [CTL]: does "exec_folio_ctl report" (or CTL)
# say, for each text mapping of PID (executable, of a file), what the
# kernel holds?  Compared: resident, base pages, aligned and unaligned
# whole folios of each size, partially mapped folios, PMD-mapped pages
# and pages in aligned blocks of one folio (what report counts as
# contpte), all in kB.  Prints a "# oracle" line per mapping
# with the kernel's figures and the differences; sets _n (mappings),
# _bad (of them, differing from the kernel) and _cbad (of them, mapping
# folios the file's page cache does not hold at that size: the oracle's
# own consistency) and, on arm64, _nobit (of them, with aligned blocks
# the kernel did not map with the contiguous bit).  Returns 1 if report
# fails.
oracle_compare() {
	_ctl=${3:-/tests/bin/exec_folio_ctl}
	_n=0 _bad=0 _cbad=0 _nobit=0
	$_ctl report --pid "$1" > /tmp/oracle-report || return 1
	: > /tmp/oracle-kernel
	: > /tmp/oracle-nobit
	# (busybox builtins only in the loop: a fork costs under TCG)
	for _r in $(sed -n "s|^$1: \([0-9a-f]*-[0-9a-f]*\) r-xp [0-9a-f]* /.*|\1|p" /tmp/oracle-report); do
		_k=refused
		echo "$1 0x${_r%-*} 0x${_r#*-}" > $oracle && read -r _k < $oracle
		echo "$_r $_k" >> /tmp/oracle-kernel
	done
	# report's contpte pages are its inference, blocks aligned in address
	# and PFN within one folio: compared with the same blocks in the
	# kernel's page tables.  Whether arm64 set the contiguous bit on
	# them is apart (_nobit: the mappings where it did not on all).
	awk -v label="$2" -v arm64="$([ "$(uname -m)" = aarch64 ] && echo 1)" '
		function canon(list,   i, n, k, out) {
			n = split(list, k, " "); out = ""
			# (few keys: a sort by insertion is enough)
			for (i = 2; i <= n; i++) {
				j = i; v = k[i]
				while (j > 1 && k[j - 1] > v) { k[j] = k[j - 1]; j-- }
				k[j] = v
			}
			for (i = 1; i <= n; i++) out = out k[i] " "
			return out
		}
		FNR == 1 { nf++ }
		nf == 1 && /^[0-9]+: / {
			r = $2; on = $3 == "r-xp" && $5 ~ /^\//
			if (on) { p = $0; sub(/^[^\/]*/, "", p); PATH[r] = p; MINE[r] = "" }
			next
		}
		nf == 1 && on && $3 == "kB" {
			key = $1; sub(/:$/, "", key); v = $2; n = ""
			if (key == "file-resident") n = "resident"
			else if (key == "file-base-page") n = "small"
			else if (key == "file-thp-pte-partial") n = "partial"
			else if (key ~ /^file-thp-pmd-aligned-/) n = "pmd"
			else if (key ~ /^file-cont-pte-aligned-/) n = "cont"
			else if (key ~ /^file-thp-pte-(un)?aligned-[0-9]+kB$/) {
				n = key; sub(/^file-thp-pte-/, "", n); sub(/kB$/, "", n)
			}
			if (n != "" && v + 0) MINE[r] = MINE[r] " " n "=" v
			next
		}
		nf == 2 {
			r = $1; total++
			k = $0; sub(/^[^ ]* /, "", k)
			if (k == "refused") {
				bad++; printf "#   %s: the oracle refused %s\n", PATH[r], r; next
			}
			printf "# oracle %s %s: %s\n", label, PATH[r], k
			theirs = ""; split("", M); split("", C); bit = blocks = 0
			for (i = 2; i <= NF; i++) {
				split($i, kv, "="); key = kv[1]; v = kv[2]
				if (key ~ /^map-/) M[substr(key, 5)] = v
				if (key ~ /^cache-/) C[substr(key, 7)] = v
				if (key == "cont") { bit = v; continue }
				if (key == "blocks") { key = "cont"; blocks = v }
				if (key ~ /^(resident|small|partial|pmd|cont|aligned-[0-9]+|unaligned-[0-9]+)$/ && v + 0)
					theirs = theirs " " key "=" v
			}
			a = canon(MINE[r]); b = canon(theirs)
			if (a != b) {
				bad++
				printf "#   %s: report: %s\n#   %s: kernel: %s\n", PATH[r], a, PATH[r], b
			}
			# Each size'"'"'s mapped pages are cached in folios of that size.
			over = ""
			for (sz in M)
				if (M[sz] > C[sz] + 0)
					over = over sprintf(" %sK: %d kB mapped, %d kB cached", sz, M[sz], C[sz])
			if (over != "") { cbad++; printf "#   %s: mapped beyond the page cache:%s\n", PATH[r], over }
			if (arm64 && bit != blocks) {
				nobit++
				printf "#   %s: the contiguous bit on %d kB of its %d kB of aligned blocks\n",
					PATH[r], bit, blocks > "/tmp/oracle-nobit"
			}
		}
		END { printf "%d %d %d %d\n", total, bad, cbad, nobit > "/tmp/oracle-counts" }
	' /tmp/oracle-report /tmp/oracle-kernel
	read -r _n _bad _cbad _nobit < /tmp/oracle-counts
}

# oracle_check PID LABEL [CTL]: oracle_compare as two TAP results.
oracle_check() {
	if ! oracle_compare "$@"; then
		nok "oracle: $2: exec_folio_ctl report runs"
		return 1
	fi
	if [ $_n -gt 0 ] && [ $_bad -eq 0 ]; then
		ok "oracle: report of $2's text mappings is the kernel's"
	else
		nok "oracle: report of $2's text mappings is the kernel's ($_bad of $_n differ)"
	fi
	if [ $_n -gt 0 ] && [ $_cbad -eq 0 ]; then
		ok "oracle: $2's mapped text folios are its files' cached folios"
	else
		nok "oracle: $2's mapped text folios are its files' cached folios ($_cbad of $_n not)"
	fi
}
