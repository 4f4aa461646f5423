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
mount -t tmpfs -o size=4m none $d/m && cp b m/b || exit 1

# reader NAME CMD...: blocked on fifo NAME.go, then execs CMD (same pid).
reader() {
	name=$1
	shift
	mkfifo $name.go
	sh -c 'read -r _ <"$0"; exec "$@" >/dev/null' $name.go "$@" &
	RPID=$!
}
go() { echo go >$1.go; rm -f $1.go; }
start_trace() {
	folioscope trace -t shmem "$@" >out 2>err &
	TPID=$!
	i=0
	while [ $i -lt 600 ]; do
		grep -q tracing err && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
stop_trace() { kill -INT $TPID; wait $TPID; }
# run_case JSON TRACE-ARGS...: readers A (cat a) and B ($BCMD) race.
run_case() {
	out=$1
	shift
	start_trace "$@" -j "$out" || return 1
	go a
	go b
	wait $A $B
	stop_trace
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
run_case "$p" -p $A

reader a cat a; A=$RPID
reader b $d/dd if=b of=/dev/null bs=65536; B=$RPID
run_case "$comm" --comm dd

mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup &&
	mkdir /sys/fs/cgroup/t
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
