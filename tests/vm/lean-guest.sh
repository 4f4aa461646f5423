#!/bin/sh
# Guest side of --lean's check in tests/vm/checks.sh (run by `folioscope
# vm --exec`): one reader traced four ways, -m fentry and -m kprobe, with
# --lean and without. The reader sends a 1000000-byte tmpfs file with
# busybox cat (sendfile: shmem_file_splice_read from 6.5, a read_iter on
# a pipe before) and reads it with dd in 64 KiB read()s. Arguments: -j
# FILE pairs, one per trace in this order (the VM renames the files):
# lean-fentry full-fentry lean-kprobe full-kprobe.
rc=0
head -c 1000000 /dev/urandom >/tmp/a || exit 1
for n in lean-fentry full-fentry lean-kprobe full-kprobe; do
	[ $# -ge 2 ] || { echo "lean-guest: no output for $n" >&2; exit 1; }
	f=$2
	shift 2
	lean=
	[ "${n%%-*}" = lean ] && lean=--lean
	# shellcheck disable=SC2086 # lean: no option or one
	folioscope trace -q -t shmem $lean -m "${n#*-}" -j "$f" -- \
		/bin/busybox sh -c 'cat /tmp/a >/dev/null &&
			dd if=/tmp/a of=/dev/null bs=64k 2>/dev/null' || rc=1
done
exit $rc
