#!/bin/sh
# The file execve() opens is no one else's business: a binfmt_misc
# interpreter registered with the "O" flag gets that same open file
# (AT_EXECFD) and reads it with read().  Under every policy those reads
# must read ahead as reads of any file do: the series once left the exec
# file in FMODE_RANDOM, and the interpreter then read it in single pages.
# Measured with exec_folio_ctl report on the interpreter's PROT_EXEC
# mapping of the file (busybox sh, in the x86_64 guest).
ctl=/tests/bin/exec_folio_ctl
dir=/mnt/exec-folio
knob=/sys/kernel/mm/transparent_hugepage/exec_folio_size
misc=/proc/sys/fs/binfmt_misc
. /tests/bin/lib.sh

if ! grep -q binfmt_misc /proc/filesystems; then
	nok "binfmt_misc in this kernel (CONFIG_BINFMT_MISC)"
	exit 1
fi
[ -e $misc/register ] || mount -t binfmt_misc none $misc
[ -e $misc/efolio ] && echo -1 > $misc/efolio
echo ":efolio:M::EFOLIO::$dir/execfd_reader:O" > $misc/register &&
	ok "binfmt_misc entry with the O flag registered" ||
	{ nok "binfmt_misc entry with the O flag registered"; exit 1; }
{ printf 'EFOLIO'; head -c 4194304 /dev/zero; } > $dir/payload
chmod 0755 $dir/payload
orig=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
for pol in never 64K auto; do
	echo $pol > $knob
	p=$(cold_spawn $dir/payload)
	if [ $? != 0 ]; then
		nok "$pol: the payload runs under its O-flag interpreter"
		kill -9 $p 2> /dev/null
		continue
	fi
	dist=$($ctl report --pid $p | report_dist payload)
	kill -9 $p
	wait $p 2> /dev/null
	echo "#  execfd $pol: payload read by the interpreter:$dist"
	small=$(field small "$dist")
	[ -n "$dist" ] && [ "${small%.*}" -lt 50 ] &&
		ok "$pol: the interpreter's read()s of the exec file read ahead (not in single pages)" ||
		nok "$pol: the interpreter's read()s of the exec file read ahead (not in single pages)"
done
echo "$orig" > $knob
echo -1 > $misc/efolio
rm -f $dir/payload
echo "$pass passed, $fail failed"
[ $fail = 0 ]
