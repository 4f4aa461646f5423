#!/bin/sh
# Guest side of the BTF cases of tests/vm/kfacts.sh (run by `folioscope
# vm --exec`): the kernel's BTF is saved, then hidden under an empty
# tmpfs on /sys/kernel/btf; folioscope runs without it, then with --btf
# pointing at the saved copy. Arguments: -o DOCTOR-NONE -o RUN-NONE
# -o DOCTOR-BTF -j RUN-BTF
dnone=$2 rnone=$4 dbtf=$6 rbtf=$8
cp /sys/kernel/btf/vmlinux /tmp/vmlinux.btf || exit 1
mount -t tmpfs -o size=1m none /sys/kernel/btf || exit 1
[ -e /sys/kernel/btf/vmlinux ] && { echo "kfacts-btf: BTF not hidden" >&2; exit 1; }
folioscope doctor >"$dnone" 2>&1
folioscope run shmem-read --size 4M >/dev/null 2>run-none.err
echo "exit $?" >"$rnone"
cat run-none.err >>"$rnone"
folioscope doctor --btf /tmp/vmlinux.btf >"$dbtf" 2>&1
folioscope run shmem-read --size 4M --btf /tmp/vmlinux.btf -j "$rbtf" >/dev/null
rc=$?
umount /sys/kernel/btf
exit $rc
