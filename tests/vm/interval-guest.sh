#!/bin/sh
# Guest side of tests/vm/checks.sh's trace -i case (run by `folioscope vm
# --exec`): readers a, b and c take turns, each released once two more
# interval reports are out after the one before it ended (the first of
# them may have been collected before that reader's last read; the second
# was collected after the first was written), so each reader's reads sit
# in intervals of their own. Arguments: -j JSON -o REPORTS -o MARKS:
# trace's JSON and text reports, and per reader "NAME N", N the interval
# reports out once its reads were closed.
j=$2 txt=$4 marks=$6
d=/tmp/iv
mkdir -p $d && cd $d || exit 1
head -c 1000000 /dev/urandom >a
head -c 300000 /dev/urandom >b
head -c 200000 /dev/urandom >c

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
# reader NAME CMD...: blocked on fifo NAME.go, then execs CMD (same pid).
reader() {
	name=$1
	shift
	mkfifo $name.go
	sh -c 'read -r _ <"$0"; exec "$@" >/dev/null' $name.go "$@" &
	RPID=$!
}
# go NAME PID: release reader NAME and wait (at most 60 s) for it to end.
go() {
	(echo go >$1.go) &
	gp=$!
	wait_gone 30 $gp || { echo "interval-guest: reader $1 not waiting" >&2; kill -KILL $gp; }
	rm -f $1.go
	wait_gone 60 $2 || { echo "interval-guest: reader $1 hung" >&2; kill -KILL $2; }
	wait $2
}
intervals() { grep -c '^== interval' $txt; }
# closed: until two more interval reports are out (at most 60 s); prints
# how many are out then.
closed() {
	n=$(($(intervals) + 2))
	i=0
	while [ "$(intervals)" -lt $n ]; do
		[ $i -ge 600 ] && { echo "interval-guest: no interval report" >&2; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
	intervals
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
reader c cat c; C=$RPID
folioscope trace -t shmem -i 0.4 -p $A -p $B -p $C -j $j >$txt 2>err &
T=$!
i=0
until grep -q tracing err 2>/dev/null; do
	if [ $i -ge 600 ] || ! alive $T; then
		echo "interval-guest: trace did not start:" >&2
		cat err >&2
		kill -KILL $A $B $C $T 2>/dev/null
		exit 1
	fi
	sleep 0.1
	i=$((i + 1))
done
: >$marks
go a $A && echo "a $(closed)" >>$marks
go b $B && echo "b $(closed)" >>$marks
go c $C && echo "c $(closed)" >>$marks
kill -INT $T
wait_gone 60 $T || { echo "interval-guest: trace did not stop" >&2; kill -KILL $T; exit 1; }
wait $T
