#!/bin/sh
# Shared by the guest scripts (busybox sh); source it.

# cold_spawn CMD [ARG]...: drop the page cache, start CMD in the background
# (its output discarded: callers read ours through $(...)), wait up to 10 s
# for it to stop itself with SIGSTOP, and print its pid.  Returns 1 if it
# did not stop.
cold_spawn() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
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
