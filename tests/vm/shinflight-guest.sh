#!/bin/sh
# Guest side of tests/vm/shinflight.sh (run by `folioscope vm --exec`).
# Arguments: SHBLOCK (the helper's path), then -j FILE pairs, one per
# output in the order of $names below (the VM renames the files).
shblock=$1
shift
# Two tmpfs mounts: reads on /mnt/tb are left out by --dev /mnt/ta.
for m in ta tb; do
	mkdir -p "/mnt/$m" && mount -t tmpfs -o size=64M "$m" "/mnt/$m" ||
		echo "shinflight-guest: no tmpfs at /mnt/$m"
done
names="blk-fentry blk-kprobe blk-kprobe-hash blk-syscall blk-fentry-migrate blk-fentry-nomigrate"
n=0
for name in $names; do
	[ $# -ge 2 ] || { echo "shinflight-guest: no output for $name" >&2; exit 1; }
	f=$2
	shift 2
	n=$((n + 1))
	mkdir -p "/mnt/ta/$n" "/mnt/tb/$n"
	# 5 threads in the read at once, each then reads on /mnt/tb (not
	# traced) and once more on /mnt/ta.
	blk="$shblock /mnt/ta/$n 5 /mnt/tb/$n"
	tr="folioscope trace -q -t shmem --dev /mnt/ta -j $f"
	# shellcheck disable=SC2086 # $tr and $blk are commands and arguments
	case $name in
	blk-fentry)
		FOLIOSCOPE_KRETPROBE_MAXACTIVE=2 $tr -m fentry -- $blk ;;
	blk-kprobe)
		FOLIOSCOPE_KRETPROBE_MAXACTIVE=2 $tr -m kprobe -- $blk ;;
	blk-kprobe-hash)
		FOLIOSCOPE_INFLIGHT=hash FOLIOSCOPE_KRETPROBE_MAXACTIVE=2 \
			$tr -m kprobe -- $blk ;;
	blk-syscall)
		$tr -m syscall -- $blk ;;
	blk-fentry-migrate)
		FOLIOSCOPE_INFLIGHT=cpu $tr -m fentry -- $blk migrate ;;
	blk-fentry-nomigrate)
		FOLIOSCOPE_INFLIGHT=test-nomigrate $tr -m fentry -- $blk migrate ;;
	esac >/dev/null
	echo "== $name exit $?"
done
