#!/bin/sh
# Guest side of --lean's check in tests/vm/checks.sh (run by `folioscope
# vm --exec`): tmpfs reads traced four ways, -m fentry and -m kprobe, with
# --lean and without, then dedupes traced twice at -m fentry, with --lean
# and without. The reader sends a 1000000-byte tmpfs file with busybox
# cat (sendfile: shmem_file_splice_read from 6.5, a read_iter on a pipe
# before) and reads it with dd in 64 KiB read()s. The dedupes are
# `folioscope run dedupe`'s on btrfs: 8 ranges of 64 KiB that match, the
# sources 4 KiB past the destinations (so that their offsets' alignments
# differ), then 4 whose middle byte differs. That run traces with kprobes
# itself, so its programs and the traced ones share no trampoline. The
# last trace excludes the preps, so the dedupes are counted at
# vfs_dedupe_file_range_one's fexit alone. Arguments: -j FILE pairs, one
# per trace in this order (the VM renames the files): lean-fentry
# full-fentry lean-kprobe full-kprobe dd-lean-fentry dd-full-fentry
# dd1-lean-fentry.
rc=0
head -c 1000000 /dev/urandom >/tmp/a || exit 1
for n in lean-fentry full-fentry lean-kprobe full-kprobe dd-lean-fentry \
	dd-full-fentry dd1-lean-fentry; do
	[ $# -ge 2 ] || { echo "lean-guest: no output for $n" >&2; exit 1; }
	f=$2
	shift 2
	lean=
	case $n in *lean-*) lean=--lean ;; esac
	m=${n##*-}
	case $n in
	dd*)
		exclude=
		[ "${n%%-*}" = dd1 ] &&
			exclude=__generic_remap_file_range_prep,generic_remap_file_range_prep
		# shellcheck disable=SC2086 # lean: no option or one
		FOLIOSCOPE_EXCLUDE=$exclude \
			folioscope trace -q -t dedupe $lean -m "$m" -j "$f" -- sh -c '
			folioscope run dedupe -q --fs btrfs --count 8 --range 64K \
				--src-off 4K --dst-off 0 -m kprobe >/dev/null &&
			folioscope run dedupe -q --fs btrfs --count 4 --range 64K \
				--differ middle -m kprobe >/dev/null' || rc=1
		continue
		;;
	esac
	# shellcheck disable=SC2086 # lean: no option or one
	folioscope trace -q -t shmem $lean -m "$m" -j "$f" -- \
		/bin/busybox sh -c 'cat /tmp/a >/dev/null &&
			dd if=/tmp/a of=/dev/null bs=64k 2>/dev/null' || rc=1
done
exit $rc
