#!/bin/sh
# Guest side of tests/vm/filters.sh (run by `folioscope vm --exec`): each
# trace filter at the function level, with two gated readers of which only
# one may count. Arguments: -j P -j COMM -j CGROUP -j DEV -j FSXFS -j FSTMPFS
p=$2 comm=$4 cg=$6 dev=$8 fsx=${10} fst=${12}
d=/tmp/lt
mkdir -p $d/m && cd $d || exit 1
head -c 1000000 /dev/urandom >a
head -c 300000 /dev/urandom >b
ln -s /bin/busybox $d/dd
ncase=0
mount -t tmpfs -o size=4m none $d/m && cp b m/b || exit 1

# reader NAME CMD...: blocked on fifo NAME.go, then execs CMD (same pid).
reader() {
	name=$1
	shift
	mkfifo $name.go
	sh -c 'read -r _ <"$0"; exec "$@" >/dev/null' $name.go "$@" &
	RPID=$!
}
# go NAME: release reader NAME (at most 30 s: a reader that died early
# must not block the script on its fifo).
go() {
	(echo go >$1.go) &
	gp=$!
	wait_gone 30 $gp || { echo "filters-guest: reader $1 not waiting" >&2; kill -KILL $gp; }
	rm -f $1.go
}
# start_trace ARGS...: trace in the background, its stderr in a file
# of this case only (a previous case's "tracing" line must not count).
start_trace() {
	ncase=$((ncase + 1))
	err=err.$ncase
	rm -f $err
	folioscope trace -t shmem "$@" >/dev/null 2>$err &
	TPID=$!
	i=0
	while [ $i -lt 600 ]; do
		grep -q tracing $err 2>/dev/null && return 0
		alive $TPID || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "filters-guest: trace $* did not start:" >&2
	cat $err >&2
	kill -KILL $TPID 2>/dev/null
	return 1
}
# alive PID: running (an exited child not yet waited for is a zombie,
# which kill -0 still finds).
alive() {
	st=$(sed -n 's/.*) \(.\).*/\1/p' /proc/$1/stat 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}
# wait_gone SECONDS PID...: until the processes exit, at most SECONDS.
wait_gone() {
	t=$(($1 * 10))
	shift
	for pid in "$@"; do
		while alive $pid; do
			[ $t -le 0 ] && return 1
			sleep 0.1
			t=$((t - 1))
		done
	done
}
stop_trace() {
	kill -INT $TPID
	wait_gone 60 $TPID || { echo "filters-guest: trace did not stop" >&2; kill -KILL $TPID; return 1; }
	wait $TPID
}
# run_case JSON TRACE-ARGS...: readers A (cat a) and B ($BCMD) race. On
# any failure the readers are released and killed, so nothing blocks.
run_case() {
	out=$1
	shift
	echo "filters-guest: case $*" >&2
	if ! start_trace "$@" -j "$out"; then
		kill -KILL $A $B 2>/dev/null
		rm -f a.go b.go
		return 1
	fi
	go a
	go b
	wait_gone 60 $A $B || { echo "filters-guest: readers hung" >&2; kill -KILL $A $B; }
	wait $A $B
	stop_trace
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
run_case "$p" -p $A

reader a cat a; A=$RPID
reader b $d/dd if=b of=/dev/null bs=65536; B=$RPID
run_case "$comm" --comm dd

mkdir -p /sys/fs/cgroup
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || echo "filters-guest: no cgroup2" >&2
mkdir -p /sys/fs/cgroup/t
reader a cat a; A=$RPID
reader b cat b; B=$RPID
echo $A >/sys/fs/cgroup/t/cgroup.procs
run_case "$cg" -c /sys/fs/cgroup/t

reader a cat a; A=$RPID
reader b cat m/b; B=$RPID
run_case "$dev" --dev $d/m -p $A -p $B

for fs in xfs tmpfs; do
	reader a cat a; A=$RPID
	reader b cat b; B=$RPID
	if [ $fs = xfs ]; then o=$fsx; else o=$fst; fi
	run_case "$o" --fs $fs -p $A -p $B
done
umount $d/m
exit 0
