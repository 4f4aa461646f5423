#!/bin/sh
# Guest side of tests/vm/inflight.sh (run by `folioscope vm --exec`).
# Arguments: DDBLOCK (the helper's path), then -j FILE pairs, one per
# output in the order of $names below (the VM renames the files).
# The preps are excluded, so dedupe is traced at vfs_dedupe_file_range_one.
preps=__generic_remap_file_range_prep,generic_remap_file_range_prep
ddblock=$1
shift
# mkimg NAME FS: a loop-mounted FS at /mnt/NAME.
mkimg() {
	truncate -s 300M "/tmp/$1.img" && "mkfs.$2" -q "/tmp/$1.img" >/dev/null 2>&1 &&
		mkdir -p "/mnt/$1" && mount -o loop "/tmp/$1.img" "/mnt/$1"
}
mkimg a btrfs || echo "inflight-guest: no btrfs at /mnt/a"
mkimg b xfs || echo "inflight-guest: no xfs at /mnt/b"
names="blk-fentry blk-kprobe blk-kprobe-hash blk-kprobe-default
	one-matrix-fentry one-matrix-kprobe one-zero folio-xfs"
n=0
for name in $names; do
	[ $# -ge 2 ] || { echo "inflight-guest: no output for $name" >&2; exit 1; }
	f=$2
	shift 2
	n=$((n + 1))
	d=/mnt/a/$n
	mkdir -p "$d" "/mnt/b/$n"
	# ddblock: 5 threads in the call at once, each then makes a dedupe
	# on /mnt/b (xfs, not traced: --fs btrfs) and a second one on
	# /mnt/a.
	blk="$ddblock $d 5 /mnt/b/$n"
	# shellcheck disable=SC2086 # $blk is the command and its arguments
	case $name in
	blk-fentry)
		FOLIOSCOPE_EXCLUDE=$preps FOLIOSCOPE_KRETPROBE_MAXACTIVE=2 \
			folioscope trace -q -t dedupe -m fentry --fs btrfs -j "$f" -- $blk ;;
	blk-kprobe)
		FOLIOSCOPE_EXCLUDE=$preps FOLIOSCOPE_KRETPROBE_MAXACTIVE=2 \
			folioscope trace -q -t dedupe -m kprobe --fs btrfs -j "$f" -- $blk ;;
	blk-kprobe-hash)
		FOLIOSCOPE_INFLIGHT=hash FOLIOSCOPE_EXCLUDE=$preps FOLIOSCOPE_KRETPROBE_MAXACTIVE=2 \
			folioscope trace -q -t dedupe -m kprobe --fs btrfs -j "$f" -- $blk ;;
	blk-kprobe-default)
		# 12 threads: more than the kernel's default instances when
		# that is 10 (max(10, 2 x possible CPUs)).
		echo "== possible cpus $(cat /sys/devices/system/cpu/possible)" >&2
		FOLIOSCOPE_EXCLUDE=$preps \
			folioscope trace -q -t dedupe -m kprobe --fs btrfs -j "$f" -- \
			"$ddblock" "$d" 12 "/mnt/b/$n" ;;
	one-matrix-*)
		FOLIOSCOPE_EXCLUDE=$preps folioscope run dedupe --matrix \
			-m "${name#one-matrix-}" -j "$f" ;;
	one-zero)
		# 3000 bytes, not at EOF: the prep rounds the length down to
		# 0 blocks, the ioctl still says SAME with 3000 bytes.
		FOLIOSCOPE_EXCLUDE=$preps folioscope run dedupe --fs btrfs \
			--range 3000 --count 1 --dests 4 --file-size 8192 -m kprobe -j "$f" ;;
	folio-xfs)
		folioscope run dedupe --fs xfs --block-size 1024 --src-off 1024 \
			--dst-off 2048 --range 64K --count 2 -j "$f" ;;
	esac >/dev/null
	echo "== $name exit $?"
done
# Kprobe events: a killed run's (a pid that is gone) is removed by the
# next run, which leaves none of its own. tracefs at a place folioscope
# does not look, so it mounts its own privately.
mkdir -p /tmp/trfs && mount -t tracefs nodev /tmp/trfs &&
	echo "p:folioscope_999999/fs999999_p0_vfs_dedupe_file_range_one vfs_dedupe_file_range_one" \
		>>/tmp/trfs/kprobe_events
echo "== events before $(grep -c folioscope_ /tmp/trfs/kprobe_events)"
FOLIOSCOPE_EXCLUDE=$preps folioscope run dedupe --fs btrfs --count 2 --range 64K \
	-m kprobe >/dev/null
echo "== events run exit $?"
echo "== events after $(grep -c folioscope_ /tmp/trfs/kprobe_events)"
