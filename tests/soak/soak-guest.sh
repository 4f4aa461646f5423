#!/bin/sh
# Guest side of tests/soak/run.sh (busybox sh, run by `folioscope vm
# --exec`): what bench does to a kernel, over and over. Two loops keep
# both paths busy (4 KiB tmpfs preads, FIDEDUPERANGE on btrfs) while
# folioscope attaches and detaches its probes CYCLES times per mechanism
# named in MECHS. Prints "soak: cycle N MECH rc" lines on stdout and
# "soak: done" at the end; a kernel that dies prints nothing more.
#
#   soak-guest.sh TOOLS CYCLES "MECHS"
TOOLS=$1 CYCLES=$2 MECHS=$3
W=/tmp/soak
mkdir -p "$W/btrfs"
truncate -s 256M "$W/btrfs.img"
mkfs.btrfs -q -f "$W/btrfs.img" >/dev/null 2>&1 || { echo "soak: mkfs.btrfs failed"; exit 1; }
LOOPDEV=$(losetup -f) && losetup "$LOOPDEV" "$W/btrfs.img" || exit 1
mount -t btrfs "$LOOPDEV" "$W/btrfs" || exit 1
# The loops run until the soak ends; each call is short, so attaching
# and detaching always meets calls in flight.
(while :; do "$TOOLS/preadloop" -f "$W/pread" -n 20000 >/dev/null 2>&1 || exit; done) &
p1=$!
(while :; do "$TOOLS/dedupeloop" -d "$W/btrfs" -n 500 >/dev/null 2>&1 || exit; done) &
p2=$!
c=1
while [ "$c" -le "$CYCLES" ]; do
	for m in $MECHS; do
		case $m in
		inline) set -- -m kprobe ;;
		*) set -- -m "$m" ;;
		esac
		if [ "$m" = inline ]; then
			/bin/folioscope trace -q "$@" -t all -d 1 >/dev/null 2>"$W/err"
		else
			FOLIOSCOPE_EXCLUDE=kprobe-inline /bin/folioscope trace -q "$@" -t all -d 1 \
				>/dev/null 2>"$W/err"
		fi
		rc=$?
		echo "soak: cycle $c $m $rc"
		[ $rc -eq 0 ] || sed 's/^/soak:   /' "$W/err"
	done
	c=$((c + 1))
done
kill $p1 $p2 2>/dev/null
wait 2>/dev/null
umount "$W/btrfs"
losetup -d "$LOOPDEV"
echo "soak: done"
