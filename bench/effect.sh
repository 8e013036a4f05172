#!/bin/bash
# bench/effect.sh: what PMD-mapped text is worth on this machine's CPU
# (issue 18 item 6), measured on the host's own kernel, not in a guest:
# three workloads (random calls over 32 MiB of text, a clang-14
# compile, mariadbd under sysbench oltp_read_only), each run from tmpfs
# with 4K folios, 2M folios mapped by PTEs, and 2M folios PMD-mapped,
# interleaved; writes bench/effect.md.  bench/effect.py says how.
#
# Needs root (tmpfs mounts, in a private mount namespace that goes away
# with the run) and Debian's clang-14, mariadb-server and sysbench,
# installed here if missing.  About 10 minutes; keep the machine
# otherwise idle (no kernel build, no .ci/run).
#   EFFECT_ARGS="--only calls --rounds 5" bench/effect.sh   # a quick look
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "effect.sh: needs root (tmpfs mounts)" >&2; exit 1; }
missing=
for p in clang-14:clang-14 mariadbd:mariadb-server sysbench:sysbench gcc:gcc; do
	command -v "${p%%:*}" > /dev/null || [ -x "/usr/sbin/${p%%:*}" ] || missing="$missing ${p#*:}"
done
if [ -n "$missing" ]; then
	echo "effect.sh: installing$missing" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing > /dev/null
fi
if [ -n "$(ls /sys/kernel/mm/transparent_hugepage/ 2> /dev/null)" ] &&
	grep -q '\[deny\]\|\[force\]' /sys/kernel/mm/transparent_hugepage/shmem_enabled; then
	echo "effect.sh: shmem_enabled is deny or force, which overrides the mounts' huge=" >&2
	exit 1
fi
commit=$(git -C "$repo" rev-parse --short HEAD 2> /dev/null || echo unknown)
out=${EFFECT_OUT:-$repo/bench/effect.md}
exec unshare -m --propagation private \
	python3 "$repo/bench/effect.py" --out "$out" --commit "$commit" ${EFFECT_ARGS:-}
