#!/bin/sh
# Guest side of the kprobe blacklist cases of tests/vm/kfacts.sh (run by
# `folioscope vm --exec`): the real blacklist with debugfs mounted and
# without, then a blacklist file (FOLIOSCOPE_KPROBE_BLACKLIST) listing
# shmem_file_read_iter. Arguments: -o DOC-REAL -o DOC-NODEBUGFS
# -o DOC-LISTED -o RUN-LISTED -j RUN-AUTO
real=$2 nodbg=$4 listed=$6 rlisted=$8 rauto=${10}
folioscope doctor >"$real" 2>&1
# Lazily: tracefs may be mounted inside it.
umount -l /sys/kernel/debug || exit 1
[ -e /sys/kernel/debug/kprobes/blacklist ] && { echo "kfacts-bl: debugfs still there" >&2; exit 1; }
folioscope doctor >"$nodbg" 2>&1
mount -t debugfs none /sys/kernel/debug
printf '0x0000000000000000-0x0000000000000000\tshmem_file_read_iter\n' >/tmp/bl
export FOLIOSCOPE_KPROBE_BLACKLIST=/tmp/bl
folioscope doctor -m kprobe >"$listed" 2>&1
folioscope run shmem-read --size 4M -m kprobe >/dev/null 2>/tmp/rl.err
echo "exit $?" >"$rlisted"
cat /tmp/rl.err >>"$rlisted"
folioscope run shmem-read --size 4M -j "$rauto" >/dev/null
