#!/bin/sh
# Guest side of tests/vm/splice.sh (run by `folioscope vm --exec`): an
# xfs with 2048-byte blocks on a loop image, and splicepunch ($1) warm
# and cold on it, twice each: "== kernel RELEASE", then "== MODE N FIRST".
helper=$1
echo "== kernel $(uname -r)"
img=/tmp/splice.img
dd if=/dev/zero of=$img bs=1M count=320 2>/dev/null
mkfs.xfs -q -b size=2048 $img || { echo "== mkfs failed"; exit 1; }
mkdir -p /mnt/splice
mount -o loop $img /mnt/splice || { echo "== mount failed"; exit 1; }
for mode in warm cold warm cold; do
	echo "== $mode $("$helper" /mnt/splice/f $mode)"
done
umount /mnt/splice
