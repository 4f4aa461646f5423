#!/bin/sh
# Guest side of the two-instance case of tests/vm/kfacts.sh (run by
# `folioscope vm --exec`): two traces at once, one unfiltered with
# per-process entries, one with -p of the first reader, and two gated
# readers released only once both are attached.
# Arguments: the path of tests/vm/lib-guest.sh, -j ALL -j ONE -o PIDS
guest=kfacts-guest
. "$1" || exit 1
shift
all=$2 one=$4 pids=$6
d=/tmp/kf
mkdir -p $d && cd $d || exit 1
head -c 1000000 /dev/urandom >a
head -c 300000 /dev/urandom >b

fail() {
	kill -KILL $A $B $T1 $T2 2>/dev/null
	rm -f a.go b.go
	exit 1
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
T1= T2=
# The -P trace starts last: every process that reads tmpfs once it
# traces takes one of its 64 entries, and the other trace's start, polled
# by a new grep and sleep every 100 ms, would take them all on a slow
# guest before the readers are let go.
start_trace /dev/null err.2 -p $A -j "$one" || fail
T2=$TPID
start_trace /dev/null err.1 -P -j "$all" || fail
T1=$TPID
release a
release b
wait_gone 60 $A $B || { echo "$guest: readers hung" >&2; fail; }
kill -INT $T1 $T2
wait_gone 60 $T1 $T2 || { echo "$guest: a trace did not stop" >&2; fail; }
wait $T1 || exit 1
wait $T2 || exit 1
echo "$A $B" >"$pids"
exit 0
