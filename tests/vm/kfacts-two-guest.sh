#!/bin/sh
# Guest side of the two-instance case of tests/vm/kfacts.sh (run by
# `folioscope vm --exec`): two traces at once, one unfiltered with
# per-process entries, one with -p of the first reader, and two gated
# readers released only once both are attached.
# Arguments: -j ALL -j ONE -o PIDS
all=$2 one=$4 pids=$6
d=/tmp/kf
mkdir -p $d && cd $d || exit 1
head -c 1000000 /dev/urandom >a
head -c 300000 /dev/urandom >b

# alive PID: running (a zombie not yet waited for is not).
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
# reader NAME CMD...: blocked on fifo NAME.go, then execs CMD (same pid).
reader() {
	name=$1
	shift
	mkfifo $name.go
	sh -c 'read -r _ <"$0"; exec "$@" >/dev/null' $name.go "$@" &
	RPID=$!
}
# go NAME: release reader NAME, at most 30 s (a dead reader must not
# leave the script blocked on its fifo).
go() {
	(echo go >$1.go) &
	gp=$!
	wait_gone 30 $gp || { echo "kfacts-guest: reader $1 not waiting" >&2; kill -KILL $gp; }
	rm -f $1.go
}
# start_trace N ARGS...: trace N in the background until attached; its
# pid in T<N>.
start_trace() {
	n=$1
	shift
	folioscope trace -t shmem "$@" >/dev/null 2>err.$n &
	eval T$n=$!
	i=0
	while [ $i -lt 600 ]; do
		grep -q tracing err.$n 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "kfacts-guest: trace $* did not start:" >&2
	cat err.$n >&2
	return 1
}
fail() {
	kill -KILL $A $B $T1 $T2 2>/dev/null
	rm -f a.go b.go
	exit 1
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
T1= T2=
start_trace 1 -P -j "$all" || fail
start_trace 2 -p $A -j "$one" || fail
go a
go b
wait_gone 60 $A $B || { echo "kfacts-guest: readers hung" >&2; fail; }
kill -INT $T1 $T2
wait_gone 60 $T1 $T2 || { echo "kfacts-guest: a trace did not stop" >&2; fail; }
wait $T1 || exit 1
wait $T2 || exit 1
echo "$A $B" >"$pids"
exit 0
