#!/bin/sh
# Guest side of tests/vm/events.sh (run by `folioscope vm --exec`).
# Arguments: -j FILE pairs, one per case of $names below. Each case's
# events (JSON Lines) go to stdout as "EV NAME {...}" lines, a flood's
# as their number ("EVN NAME N").
names="all-fentry all-kprobe slow-fentry slow-kprobe dd-fentry dd-kprobe
dderr-fentry dderr-kprobe ddslow-fentry ddslow-kprobe flood-fentry flood-kprobe"
d=/mnt/ev
if ! mkdir -p $d || ! mount -t tmpfs -o size=32m,huge=never ev $d; then
	echo "events-guest: no tmpfs at $d" >&2
	exit 1
fi
head -c 8388608 /dev/urandom >$d/f || exit 1
# All: 4 KiB reads at 8 offsets, then 2 of 1 MiB from 3 MiB on.
all="dd if=$d/f of=/dev/null bs=4096 skip=3 count=8;
dd if=$d/f of=/dev/null bs=1048576 skip=3 count=2"
# Slow: 4 KiB and 3 MiB reads mixed.
slow="dd if=$d/f of=/dev/null bs=4096 count=16;
dd if=$d/f of=/dev/null bs=3145728 count=2;
dd if=$d/f of=/dev/null bs=4096 skip=100 count=16;
dd if=$d/f of=/dev/null bs=3145728 skip=1 count=1"
for name in $names; do
	[ $# -ge 2 ] || { echo "events-guest: no output for $name" >&2; exit 1; }
	f=$2
	shift 2
	case $name in
	*-fentry) m=fentry ;;
	*) m=kprobe ;;
	esac
	case $name in
	all-*) sel="--events all" w=$all ;;
	# A flood into the smallest ring: 16384 reads of 512 bytes.
	flood-*) sel="--events all --events-ring 4K"
		w="dd if=$d/f of=/dev/null bs=512 count=16384" ;;
	*) sel="--slower-than 1048576ns" w=$slow ;;
	esac
	rm -f /tmp/ev.jsonl
	case $name in
	dd-*)
		# 4 FIDEDUPERANGEs of 64 KiB ranges on btrfs.
		folioscope run dedupe --fs btrfs --count 4 --range 64K -m $m \
			-j "$f" --events all --events-json /tmp/ev.jsonl \
			>/tmp/ev.out 2>&1 ;;
	dderr-* | ddslow-*)
		# The btrfs layouts of the matrix: warm and cold files, some
		# differing, some failing (offset inside a block, past EOF,
		# overlap).
		case $name in
		dderr-*) dsel=--errors ;;
		*) dsel="--slower-than 1048576ns" ;;
		esac
		# shellcheck disable=SC2086 # $dsel is options
		folioscope run dedupe --matrix --fs btrfs -m $m -j "$f" $dsel \
			--events-json /tmp/ev.jsonl >/tmp/ev.out 2>&1 ;;
	*)
		# shellcheck disable=SC2086 # $sel is options
		folioscope trace -q -t shmem --dev $d -m $m -j "$f" $sel \
			--events-json /tmp/ev.jsonl -- sh -c "$w" \
			>/tmp/ev.out 2>&1 ;;
	esac
	echo "== $name exit $?"
	# A flood's events only counted: thousands of lines through the
	# console would slow the guest more than the reads.
	case $name in
	flood-*) echo "EVN $name $(grep -c '"type":"event"' /tmp/ev.jsonl)" ;;
	*) sed "s/^/EV $name /" /tmp/ev.jsonl ;;
	esac
	sed "s/^/OUT $name /" /tmp/ev.out
done
