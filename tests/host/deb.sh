#!/bin/bash
# The Debian package of exec_folio_ctl: packaging/build-deb.sh builds the
# source and binary packages with dpkg-buildpackage -us -uc and checks
# them with lintian (no error, no warning); the .deb installs with
# dpkg -i, puts each file where the unit and the docs say, and is purged
# afterwards.  Needs root and Debian's dpkg-dev, debhelper, lintian.  First,
# the top-level make targets: "make deb" (the kernel), "make utility-deb".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/deb-test
pass=0 fail=0 skip=0
. "$repo/tests/lib/host-tap.sh"
done_() { echo "$pass passed, $fail failed, $skip skipped"; [ "$fail" -eq 0 ]; exit; }

# The top-level make targets: "make deb" is the kernel's packages
# (bindeb-pkg, as the issue names it), "make kernel-deb" the same,
# "make utility-deb" this package.
mk() { make -s -n -C "$repo" "$1" 2> /dev/null | grep -c "$2"; }
[ "$(mk deb tests/lib/kernel-deb.sh)" = 1 ] && [ "$(mk deb packaging/build-deb.sh)" = 0 ] &&
	ok "make deb builds the kernel packages (tests/lib/kernel-deb.sh)" ||
	nok "make deb builds the kernel packages: $(make -s -n -C "$repo" deb 2>&1 | tail -1)"
[ "$(mk kernel-deb tests/lib/kernel-deb.sh)" = 1 ] && ok "make kernel-deb is the same" ||
	nok "make kernel-deb is the same"
[ "$(mk utility-deb packaging/build-deb.sh)" = 1 ] && ok "make utility-deb builds this package" ||
	nok "make utility-deb builds this package"

# The recipe for Debian's own kernel config: README.md and the comment of
# tests/lib/kernel-deb.sh give the same commands.
readme=$(sed -n '/^To build them with Debian.s own configuration/,/^```$/p' "$repo/README.md" |
	sed -n '/^```sh$/,/^```$/p' | grep -v '^```' | sed 's/ *#.*//')
script=$(sed -n '/^#   apt-get install linux-config/,/^#$/p' "$repo/tests/lib/kernel-deb.sh" |
	grep -v '^#$' | sed 's/^#   //')
[ -n "$readme" ] && [ "$readme" = "$script" ] && echo "$readme" | grep -q 'config.amd64_none_amd64.xz' &&
	ok "README and kernel-deb.sh give the same recipe for Debian's config ($(echo "$readme" | wc -l) commands)" ||
	{ nok "README and kernel-deb.sh give the same recipe for Debian's config"; diff <(echo "$readme") <(echo "$script") | sed 's/^/#   /'; }

for c in dpkg-buildpackage dh lintian fakeroot; do
	command -v $c > /dev/null || { skip "Debian package" "no $c (tests/lib/deps.sh installs it)"; done_; }
done
if dpkg-query -W -f='${Status}' exec-folio-ctl 2> /dev/null | grep -q 'ok installed'; then
	skip "Debian package installs" "exec-folio-ctl is already installed here; not touching it"
	done_
fi
if "$repo/packaging/build-deb.sh" "$out" > "$out.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc builds the source and binary packages"
	ok "lintian: no errors, no warnings ($(grep -c '^I:' "$out/lintian.log") infos)"
else
	nok "packaging/build-deb.sh (build or lintian)"; tail -20 "$out.log" | sed 's/^/#   /'
	done_
fi
deb=$(ls "$out"/exec-folio-ctl_*.deb)
[ -f "$(ls "$out"/exec-folio-ctl_*.dsc)" ] && ok "source package: $(basename "$out"/exec-folio-ctl_*.dsc)" ||
	nok "source package"
trap 'dpkg --purge exec-folio-ctl > /dev/null 2>&1' EXIT
if dpkg -i "$deb" > "$out/install.log" 2>&1; then
	ok "dpkg -i $(basename "$deb")"
else
	nok "dpkg -i $(basename "$deb")"; tail -5 "$out/install.log" | sed 's/^/#   /'
	done_
fi
/usr/sbin/exec_folio_ctl --version | grep -q 'exec-folio' && ok "installed /usr/sbin/exec_folio_ctl runs" ||
	nok "installed /usr/sbin/exec_folio_ctl runs"
for f in /usr/share/man/man8/exec_folio_ctl.8.gz /usr/share/bash-completion/completions/exec_folio_ctl \
	 /lib/systemd/system/exec-folio.service \
	 /usr/share/doc/exec-folio-ctl/exec-folio.conf.example \
	 /usr/share/doc/exec-folio-ctl/service-drop-in.conf.example \
	 /usr/share/doc/exec-folio-ctl/exec-folio.tmpfiles.example \
	 /usr/share/doc/exec-folio-ctl/copyright; do
	[ -f "$f" ] && ok "installed $f" || nok "installed $f"
done
grep -qx 'ExecStart=/usr/sbin/exec_folio_ctl apply /etc/exec-folio.conf' /lib/systemd/system/exec-folio.service &&
	ok "the unit runs the installed binary" || nok "the unit runs the installed binary"
man -w exec_folio_ctl > /dev/null 2>&1 && ok "man exec_folio_ctl finds the page" || nok "man exec_folio_ctl"
if command -v systemd-analyze > /dev/null; then
	systemd-analyze verify --man=no /lib/systemd/system/exec-folio.service > "$out/verify" 2>&1 &&
		ok "systemd-analyze verify of the installed unit" ||
		{ nok "systemd-analyze verify of the installed unit"; sed 's/^/#   /' "$out/verify" | head -5; }
fi
dpkg --purge exec-folio-ctl > "$out/purge.log" 2>&1 && [ ! -e /usr/sbin/exec_folio_ctl ] &&
	! dpkg-query -W exec-folio-ctl > /dev/null 2>&1 && ok "dpkg --purge removes it" ||
	nok "dpkg --purge removes it"
done_
