#!/bin/sh
# Guest side of tests/vm/buftmpfs.sh (run by `folioscope vm --exec`):
# run shmem-read --buf-tmpfs, whose buffers come from another tmpfs file
# and fault during every read's copy, once per case. Arguments: -j FILE
# pairs in this order: read-fentry, read-kprobe, readv-fentry,
# read-fentry-hash (the in-flight hash instead of task storage).
rc=0
for n in read-fentry read-kprobe readv-fentry read-fentry-hash; do
	[ $# -ge 2 ] || { echo "buftmpfs-guest: no output for $n" >&2; exit 1; }
	f=$2
	shift 2
	m=fentry
	case $n in *kprobe*) m=kprobe ;; esac
	store=task
	case $n in *hash*) store="hash" ;; esac
	call="--syscall read"
	case $n in readv*) call="--syscall readv --iovecs 3 --bs 48K" ;; esac
	# shellcheck disable=SC2086
	FOLIOSCOPE_INFLIGHT=$store folioscope run shmem-read --huge never \
		--size 1M --bs 64K $call --buf-tmpfs -m "$m" -j "$f" \
		>/dev/null || rc=1
done
exit $rc
