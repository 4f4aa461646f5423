#!/bin/sh
# Guest side of tests/vm/filters.sh (run by `folioscope vm --exec`): each
# trace filter at the function level, with two gated readers of which only
# one may count. Arguments: the path of tests/vm/lib-guest.sh, -j P
# -j COMM -j CGROUP -j DEV -j FSXFS -j FSTMPFS -j BYCGROUP
guest=filters-guest
. "$1" || exit 1
shift
p=$2 comm=$4 cg=$6 dev=$8 fsx=${10} fst=${12} bycg=${14}
d=/tmp/lt
mkdir -p $d/m && cd $d || exit 1
head -c 1000000 /dev/urandom >a
head -c 300000 /dev/urandom >b
ln -s /bin/busybox $d/dd
ncase=0
mount -t tmpfs -o size=4m none $d/m && cp b m/b || exit 1

# run_case JSON TRACE-ARGS...: readers A (cat a) and B ($BCMD) race. On
# any failure the readers are released and killed, so nothing blocks.
run_case() {
	out=$1
	shift
	echo "$guest: case $*" >&2
	# A stderr file of this case only.
	ncase=$((ncase + 1))
	if ! start_trace /dev/null err.$ncase "$@" -j "$out"; then
		kill -KILL $A $B 2>/dev/null
		rm -f a.go b.go
		return 1
	fi
	release a
	release b
	wait_gone 60 $A $B || { echo "$guest: readers hung" >&2; kill -KILL $A $B; }
	wait $A $B
	stop_trace $TPID
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
run_case "$p" -p $A

reader a cat a; A=$RPID
reader b $d/dd if=b of=/dev/null bs=65536; B=$RPID
run_case "$comm" --comm dd

mkdir -p /sys/fs/cgroup
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || echo "$guest: no cgroup2" >&2
mkdir -p /sys/fs/cgroup/t
reader a cat a; A=$RPID
reader b cat b; B=$RPID
echo $A >/sys/fs/cgroup/t/cgroup.procs
run_case "$cg" -c /sys/fs/cgroup/t

# --by cgroup under -c t: reader A in t/x, B in t/y/in, each its row.
# dd reads with read(2), whose copies the sub-probes see on every kernel
# (busybox cat sends the file to its output, a splice read on 6.12).
mkdir -p /sys/fs/cgroup/t/x /sys/fs/cgroup/t/y/in
reader a $d/dd if=a of=/dev/null bs=65536; A=$RPID
reader b $d/dd if=b of=/dev/null bs=65536; B=$RPID
echo $A >/sys/fs/cgroup/t/x/cgroup.procs
echo $B >/sys/fs/cgroup/t/y/in/cgroup.procs
run_case "$bycg" -c /sys/fs/cgroup/t --by cgroup

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
