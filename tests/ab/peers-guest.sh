#!/bin/sh
# Guest side of `make ab`'s cross-checks, run by `folioscope vm --exec`
# with fio and duperemove put in the guest by --with:
#
#   peers-guest.sh fio SIZE BS...    fio (psync, sequential read, 3
#                                    loops) of one SIZE file on a tmpfs
#                                    mounted huge=always, at each BS
#   peers-guest.sh fio-states SIZE BS...  the same on huge=never and
#                                    always, of a file written, one
#                                    fallocated and one all hole
#   peers-guest.sh duperemove N MB   N identical files of MB MiB on a
#                                    btrfs image in RAM, deduped by
#                                    duperemove -d
#
# One result line each, for the host to read:
#   == fio bs=BS bw_bytes=N huge_kb=N
#   == fio huge=H state=S bs=BS bw_bytes=N
#   == duperemove files=N mb=MB sys_s=S user_s=S real_s=S
# and "== error WHAT" when a step fails.
set -u
PATH=/bin:/sbin:/usr/bin:/usr/sbin

fail() {
	echo "== error $*"
	exit 1
}

peer_fio() {
	size=$1
	shift
	mkdir -p /mnt/fio && mount -t tmpfs -o huge=always,size=$((size * 2)) fio /mnt/fio ||
		fail "mount tmpfs"
	# The file written once, in 2 MiB pieces, as run shmem-read writes
	# its own (zeros written are folios like any data); fio then only
	# reads it, three times, without dropping the cache between loops
	# (tmpfs has nothing to drop; fio would spend its time trying).
	dd if=/dev/zero of=/mnt/fio/f bs=2M count=$((size >> 21)) 2>/dev/null ||
		fail "write the file"
	hk=$(sed -n 's/^ShmemHugePages: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	fio_each "" " huge_kb=$hk" "$size" "$@"
	umount /mnt/fio
}

# fio_each TAG SUFFIX SIZE BS...: fio of the file at /mnt/fio/f at each
# BS, a line each: "== fio TAG bs=BS bw_bytes=N" and SUFFIX.
fio_each() {
	tag=$1 suffix=$2 size=$3
	shift 3
	for bs in "$@"; do
		fio --name=read --thread --ioengine=psync --rw=read --bs="$bs" \
			--size="$size" --loops=3 --invalidate=0 --filename=/mnt/fio/f \
			--output-format=json --output=/tmp/fio.json >/dev/null 2>/tmp/fio.err ||
			fail "fio ${tag:+$tag }bs=$bs: $(head -n 1 /tmp/fio.err)"
		bw=$(sed -n 's/.*"bw_bytes" *: *\([0-9]*\).*/\1/p' /tmp/fio.json | head -n 1)
		[ -n "$bw" ] || fail "fio ${tag:+$tag }bs=$bs: no bw_bytes in its JSON"
		echo "== fio ${tag:+$tag }bs=$bs bw_bytes=$bw$suffix"
	done
}

# The file states of the 2026 folio-batching series' table: written
# (zeros written, as its fio test does), fallocated and never written,
# a hole (the size set only), on huge=never and huge=always.
peer_fio_states() {
	size=$1
	shift
	mkdir -p /mnt/fio
	for huge in never always; do
		for state in written fallocated hole; do
			mount -t tmpfs -o huge=$huge,size=$((size * 2)) fio /mnt/fio ||
				fail "mount tmpfs huge=$huge"
			case $state in
			written) dd if=/dev/zero of=/mnt/fio/f bs=2M count=$((size >> 21)) 2>/dev/null ;;
			fallocated) fallocate -l "$size" /mnt/fio/f ;;
			hole) truncate -s "$size" /mnt/fio/f ;;
			esac || fail "make the $state file"
			fio_each "huge=$huge state=$state" "" "$size" "$@"
			umount /mnt/fio
		done
	done
}

peer_duperemove() {
	n=$1 mb=$2
	img=/tmp/dr.img
	# Twice the data plus room for btrfs's own metadata.
	truncate -s $((n * mb * 2 + 256))M "$img" || fail "image"
	mkfs.btrfs -q -f "$img" >/dev/null 2>&1 || fail "mkfs.btrfs"
	mkdir -p /mnt/dr && mount -o loop "$img" /mnt/dr || fail "mount btrfs"
	head -c $((mb << 20)) /dev/urandom >/mnt/dr/f0 || fail "write f0"
	i=1
	while [ "$i" -lt "$n" ]; do
		cat /mnt/dr/f0 >/mnt/dr/f$i || fail "write f$i"
		i=$((i + 1))
	done
	sync
	# busybox time: the child's rusage from wait4, in seconds.
	time -p duperemove -d -q -r /mnt/dr >/dev/null 2>/tmp/dr.err ||
		fail "duperemove: $(grep -v '^real\|^user\|^sys' /tmp/dr.err | head -n 1)"
	sys=$(sed -n 's/^sys //p' /tmp/dr.err)
	usr=$(sed -n 's/^user //p' /tmp/dr.err)
	real=$(sed -n 's/^real //p' /tmp/dr.err)
	echo "== duperemove files=$n mb=$mb sys_s=$sys user_s=$usr real_s=$real"
	umount /mnt/dr
	rm -f "$img"
}

what=$1
shift
case $what in
fio) peer_fio "$@" ;;
fio-states) peer_fio_states "$@" ;;
duperemove) peer_duperemove "$@" ;;
*) fail "unknown peer '$what'" ;;
esac
