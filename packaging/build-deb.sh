#!/bin/bash
# build-deb.sh [OUTDIR]: the Debian source and binary packages of
# exec_folio_ctl, built from tools/exec_folio_ctl and packaging/debian
# with dpkg-buildpackage -us -uc, then checked with lintian (no error and
# no warning).  Writes OUTDIR (default build/deb): exec-folio-ctl_*.dsc,
# .tar.xz, .deb, .changes, and lintian.log.  "make utility-deb" runs it
# ("make deb" is the kernel's packages).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/build/deb}" && cd "${1:-$repo/build/deb}" && pwd)
version=$(dpkg-parsechangelog -l "$repo/packaging/debian/changelog" -S Version)
src=$out/exec-folio-ctl-$version
rm -rf "$src" "$out"/exec-folio-ctl_*
mkdir -p "$src"
# The utility's sources as the kernel patch has them, without build
# products and without the fuzzers (they need clang and are no part of
# the package).
(cd "$repo/tools/exec_folio_ctl" && git ls-files -z --cached --others --exclude-standard . |
	grep -zv '^fuzz/' | xargs -0 cp --parents -t "$src")
cp -r "$repo/packaging/debian" "$src/debian"
(cd "$src" && dpkg-buildpackage -us -uc > "$out/build.log" 2>&1) ||
	{ tail -30 "$out/build.log" >&2; exit 1; }
lintian --fail-on error,warning --display-info "$out"/exec-folio-ctl_"$version"_*.changes \
	> "$out/lintian.log" 2>&1 || { cat "$out/lintian.log" >&2; exit 1; }
ls "$out"/exec-folio-ctl_"$version"*
