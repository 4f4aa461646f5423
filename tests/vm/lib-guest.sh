# Shared by the guest scripts (tests/vm/*-guest.sh, busybox sh), the guest
# side of tests/lib.sh: gated readers, traces started and stopped, bounded
# waits. A host suite puts it in the guest with `vm --with` and passes its
# path as the script's first argument; the script sets $guest (its name
# in messages) and sources it. Every wait is bounded: a guest never hangs
# its VM.
# shellcheck shell=sh

# alive PID: running (an exited child not yet waited for is a zombie,
# which kill -0 still finds).
alive() {
	lg_st=$(sed -n 's/.*) \(.\).*/\1/p' /proc/$1/stat 2>/dev/null)
	[ -n "$lg_st" ] && [ "$lg_st" != Z ]
}
# wait_gone SECONDS PID...: until the processes exit, at most SECONDS.
wait_gone() {
	lg_t=$(($1 * 10))
	shift
	for lg_pid in "$@"; do
		while alive $lg_pid; do
			[ $lg_t -le 0 ] && return 1
			sleep 0.1
			lg_t=$((lg_t - 1))
		done
	done
}
# reader NAME CMD...: blocked on fifo NAME.go (in the current dir), then
# execs CMD (same pid, in $RPID).
reader() {
	mkfifo $1.go
	sh -c 'read -r _ <"$0"; shift; exec "$@" >/dev/null' $1.go "$@" &
	RPID=$!
}
# release NAME: lets reader NAME go, at most 30 s (a reader that died
# early must not leave the script blocked on its fifo).
release() {
	(echo go >$1.go) &
	lg_gp=$!
	wait_gone 30 $lg_gp || { echo "$guest: reader $1 not waiting" >&2; kill -KILL $lg_gp; }
	rm -f $1.go
}
# start_trace OUT ERR ARGS...: trace -t shmem ARGS in the background
# (stdout OUT, stderr ERR, its pid in $TPID) until it says 'tracing', at
# most 60 s; if it does not (or exits first), says so with its stderr,
# kills it and returns 1. ERR must be new: a previous trace's 'tracing'
# line must not count.
start_trace() {
	lg_out=$1 lg_err=$2
	shift 2
	folioscope trace -t shmem "$@" >$lg_out 2>$lg_err &
	TPID=$!
	lg_i=0
	while [ $lg_i -lt 600 ]; do
		grep -q tracing $lg_err 2>/dev/null && return 0
		alive $TPID || break
		sleep 0.1
		lg_i=$((lg_i + 1))
	done
	echo "$guest: trace $* did not start:" >&2
	cat $lg_err >&2
	kill -KILL $TPID 2>/dev/null
	return 1
}
# stop_trace PID: SIGINT, at most 60 s for it to end (else SIGKILL and
# 1); its exit status.
stop_trace() {
	kill -INT $1
	wait_gone 60 $1 || { echo "$guest: trace did not stop" >&2; kill -KILL $1; return 1; }
	wait $1
}
