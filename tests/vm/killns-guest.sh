#!/bin/sh
# Guest side of tests/vm/killns.sh (run by `folioscope vm --exec`, with
# strace): SIGKILL to 'run' held at a known point, then what is left.
# One line per case: "== NAME reached=yes|no ns=N host=N left=[...]",
# ns the run's own mounts under $TMPDIR just before the kill (in its
# /proc/PID/mountinfo), host those in /proc/mounts then, left the mounts
# (any live process's table) and loop devices found after it died.
export TMPDIR=/tmp/kns
mkdir -p "$TMPDIR"

left() {
	grep -hF "$TMPDIR/" /proc/mounts /proc/[0-9]*/mountinfo 2>/dev/null
	grep -lF "$TMPDIR/" /sys/block/loop*/loop/backing_file 2>/dev/null
}
# child PID: the first child process of PID.
child() {
	for s in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...: comm has no space here.
		read -r p _ _ pp _ <"$s" 2>/dev/null || continue
		[ "$pp" = "$1" ] && { echo "$p"; return 0; }
	done
	return 1
}
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
bound() { grep -qF "$TMPDIR/" /sys/block/loop*/loop/backing_file 2>/dev/null; }
# In mount(2) (165 on x86_64) with the loop device bound: the image's
# mount, not the one that makes '/' private.
bound_in_mount() { bound && [ "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" = 165 ]; }
# until CMD...: poll CMD, 60 s at most.
until_ok() {
	n=0
	while [ $n -lt 3000 ]; do
		"$@" && return 0
		sleep 0.02
		n=$((n + 1))
	done
	return 1
}

# kcase NAME PID BG WAIT...: wait until WAIT PID holds, kill PID, wait
# for the job BG, report.
kcase() {
	name=$1 pid=$2 bg=$3
	shift 3
	r=no
	until_ok "$@" "$pid" && r=yes
	ns=$(grep -cF " $TMPDIR/" "/proc/$pid/mountinfo" 2>/dev/null)
	host=$(grep -cF " $TMPDIR/" /proc/mounts)
	kill -9 "$pid"
	wait "$bg" 2>/dev/null
	n=0
	while [ -n "$(left)" ] && [ $n -lt 500 ]; do
		sleep 0.02
		n=$((n + 1))
	done
	echo "== $name reached=$r ns=$ns host=$host left=[$(left | tr '\n' ' ')]"
	rm -rf "${TMPDIR:?}"/*
}

for wl in "shmem-read --size 16M" "dedupe --fs xfs --count 8 --range 64K" \
	"dedupe --fs btrfs --count 8 --range 64K"; do
	# shellcheck disable=SC2086
	folioscope run $wl --stop-after 1 >/dev/null 2>&1 &
	kcase "$(echo "$wl" | cut -d' ' -f1-3 | tr ' ' _)-traced" $! $! stopped
done
for fs in xfs btrfs; do
	# Bound with autoclear, held before the mount: the device goes with
	# the loop fd when the process dies.
	strace -o /dev/null -e trace=mount -e inject=mount:delay_enter=10000000 \
		folioscope run dedupe --fs $fs --count 8 >/dev/null 2>&1 &
	bg=$!
	until_ok child "$bg" >/dev/null
	kcase "dedupe_$fs-unmounted" "$(child "$bg")" "$bg" bound_in_mount
	# Every ioctl held on its way back: the one that bound the device.
	strace -o /dev/null -e trace=ioctl -e inject=ioctl:delay_exit=2000000 \
		folioscope run dedupe --fs $fs --count 8 >/dev/null 2>&1 &
	bg=$!
	until_ok child "$bg" >/dev/null
	kcase "dedupe_$fs-bound" "$(child "$bg")" "$bg" bound
done
