# SIGKILL to 'run' in the guest's 6.1 kernel (sourced by tests/check.sh):
# the workload's mounts are in the run's own namespace (seen in its
# /proc/PID/mountinfo, not in /proc/mounts), and once it is killed no
# mount and no loop device is left, also when it dies with its loop device
# bound and not yet mounted. tests/vm/killns-guest.sh holds and kills it.
# shellcheck shell=bash
knsvm=()
[ -n "${FS_VM_KERNEL:-}" ] && knsvm+=(--kernel "$FS_VM_KERNEL")
[ -n "${FS_VM_MODULES:-}" ] && knsvm+=(--modules "$FS_VM_MODULES")
knsout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmkns.XXXXXX")
knslog=$LOGDIR/vm-killns.log
knsscript=$PWD/tests/vm/killns-guest.sh
if ! command -v strace >/dev/null; then
	skip "vm killns" "needs strace on the host (copied into the guest)"
elif (cd "$knsout" && "$FS" vm "${knsvm[@]}" --exec "$knsscript" \
	--with "$(command -v strace)" --) >"$knslog" 2>&1; then
	# NAME NS: whether the run had its mounts when killed.
	for c in shmem-read_--size_16M-traced:1 dedupe_--fs_xfs-traced:1 dedupe_--fs_btrfs-traced:1 \
		dedupe_xfs-unmounted:0 dedupe_btrfs-unmounted:0 dedupe_xfs-bound:0 dedupe_btrfs-bound:0; do
		name=${c%:*}
		line=$(grep -m1 "^== $name " "$knslog")
		if [ "${c#*:}" == 1 ]; then want_ns='[1-9][0-9]*'; else want_ns=0; fi
		expect_match "vm SIGKILL $name: held, mounts only in its namespace, nothing left" \
			"${line:-no line for $name}" "^== $name reached=yes ns=$want_ns host=0 left=\[\]$"
	done
else
	bad "vm killns" "see $knslog: $(tail -3 "$knslog")"
fi
rm -rf "$knsout"
