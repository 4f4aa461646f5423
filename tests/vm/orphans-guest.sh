#!/bin/sh
# Guest side of the orphans check in tests/vm/checks.sh: orphans that
# exit while /init waits for this script's status, each one's SIGCHLD
# sent to PID 1; then exit 7, which `vm` must return all the same.
i=0
while [ $i -lt 20 ]; do
	(/bin/busybox true &)
	i=$((i + 1))
done
# Until one of them has exited (a zombie, or already reaped by PID 1:
# bounded, as nothing else tells).
n=0
until grep -qs '^State:[[:space:]]*Z' /proc/[0-9]*/status || [ $n -ge 200 ]; do
	n=$((n + 1))
done
exit 7
