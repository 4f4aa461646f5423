#!/bin/sh
# Guest side of tests/vm/peers.sh (run by `folioscope vm --exec`): real fio
# and duperemove under `folioscope trace -- CMD`.
# Arguments: -j T64 -j FIO64 -j T4 -j FIO4 -j TDEDUPE -o DUPEREMOVE_LOG
t64=$2 f64=$4 t4=$6 f4=$8 td=${10} log=${12}
# The data on a tmpfs of its own: the loader reads fio's libraries from the
# tmpfs root as well, and --dev keeps only the data file's reads.
mkdir -p /tmp/pf && mount -t tmpfs -o size=16m none /tmp/pf || exit 1
for bs in 64k 4k; do
	if [ $bs = 64k ]; then t=$t64 f=$f64; else t=$t4 f=$f4; fi
	folioscope trace -t shmem --dev /tmp/pf -q -j "$t" -- fio --name=r \
		--filename=/tmp/pf/f --size=4M --bs=$bs --rw=read \
		--ioengine=psync --output-format=json --output="$f" \
		>/dev/null || exit 1
done
umount /tmp/pf
truncate -s 320M /tmp/img && mkfs.btrfs -q -f /tmp/img >/dev/null &&
	mkdir /tmp/m && mount -o loop /tmp/img /tmp/m || exit 1
head -c 4194304 /dev/urandom >/tmp/a
# busybox cp copies the bytes (no reflink), so there is work to do.
for f in a b c; do cp /tmp/a /tmp/m/$f; done
sync
folioscope trace -t dedupe -q -j "$td" -- duperemove -d -r -v /tmp/m >"$log" 2>&1
st=$?
umount /tmp/m
exit $st
