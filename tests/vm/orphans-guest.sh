#!/bin/sh
# Guest side of the orphans check in tests/vm/checks.sh (vm --exec
# orphans-guest.sh -o FILE): orphans that exit while /init waits for this
# script's status, each one's SIGCHLD sent to PID 1; then 256 KiB in
# FILE, whose base64 keeps /init's control tty busy, and two processes
# that keep orphans exiting until the guest powers off, while /init sends
# FILE and the status; then exit 7, which `vm` must return all the same.
[ "$1" = -o ] || exit 2
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
i=0
: >"$2"
while [ $i -lt 64 ]; do
	printf '%04d%4092s' $i x >>"$2"
	i=$((i + 1))
done
for g in 1 2; do
	(while :; do (/bin/busybox true &); done) </dev/null >/dev/null 2>&1 &
done
exit 7
