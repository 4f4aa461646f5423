#!/bin/sh
# Guest side of tests/vm/checks.sh's trace -i case (run by `folioscope vm
# --exec`): readers a, b and c take turns, each released once two more
# interval reports are out after the one before it ended (the first of
# them may have been collected before that reader's last read; the second
# was collected after the first was written), so each reader's reads sit
# in intervals of their own. Arguments: -j JSON -o REPORTS -o MARKS:
# trace's JSON and text reports, and per reader "NAME N", N the interval
# reports out once its reads were closed. First of all, the path of
# tests/vm/lib-guest.sh.
guest=interval-guest
. "$1" || exit 1
shift
j=$2 txt=$4 marks=$6
d=/tmp/iv
mkdir -p $d && cd $d || exit 1
head -c 1000000 /dev/urandom >a
head -c 300000 /dev/urandom >b
head -c 200000 /dev/urandom >c

# go NAME PID: release reader NAME and wait (at most 60 s) for it to end.
go() {
	release $1
	wait_gone 60 $2 || { echo "$guest: reader $1 hung" >&2; kill -KILL $2; }
	wait $2
}
intervals() { grep -c '^== interval' $txt; }
# closed: until two more interval reports are out (at most 60 s); prints
# how many are out then.
closed() {
	n=$(($(intervals) + 2))
	i=0
	while [ "$(intervals)" -lt $n ]; do
		[ $i -ge 600 ] && { echo "$guest: no interval report" >&2; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
	intervals
}

reader a cat a; A=$RPID
reader b cat b; B=$RPID
reader c cat c; C=$RPID
start_trace $txt err -i 0.4 -p $A -p $B -p $C -j $j || {
	kill -KILL $A $B $C
	exit 1
}
: >$marks
go a $A && echo "a $(closed)" >>$marks
go b $B && echo "b $(closed)" >>$marks
go c $C && echo "c $(closed)" >>$marks
stop_trace $TPID
