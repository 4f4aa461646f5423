# Signals in the VM boot, sourced by tests/check.sh: 'vm -- doctor'
# signalled once its qemu runs (the guest is booting). INT/TERM stop
# qemu, remove the work dir, one line, exit 1; KILL takes qemu down with
# it (PR_SET_PDEATHSIG) and leaves the work dir
# ($TMPDIR/folioscope-vm-PID.XXXXXX), a few KB of fifos and qemu's log
# (the initramfs is a file with no name, gone with the last fd), which
# the next vm removes, saying so, even one that then fails. Run as root.
# shellcheck shell=bash

scratch_setup fs-signals-vm
# Not a kernel: the next vm fails on it after its stale clean-up.
head -c 100000 /dev/urandom >"$SCRATCH/notakernel"
sv_cache=${FOLIOSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/folioscope}
qemu_of() { pgrep -P "$1" -f qemu-system; }
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "signals: vm boot" "no qemu-system-x86_64"
elif ! compgen -G "$sv_cache/kernels/linux-image-*/boot/vmlinuz-*" >/dev/null; then
	skip "signals: vm boot" "the default kernel is not in $sv_cache (a first 'folioscope vm' fetches it)"
else
	for sig in INT TERM KILL; do
		name="signals: vm: SIG$sig while booting"
		before=$(leak_state)
		"$FS" vm --accel tcg -- doctor >/dev/null 2>"$SCRATCH/vm.err" &
		pid=$!
		wait_until 120 qemu_of "$pid" >/dev/null
		sv_q=$(qemu_of "$pid")
		kill -"$sig" "$pid"
		{ wait "$pid"; } 2>/dev/null
		rc=$?
		if [ "$sig" == KILL ]; then
			expect_eq "$name: dies of it" "$rc" 137
		else
			expect_eq "$name: exit 1, one line" "$rc $(cat "$SCRATCH/vm.err")" "1 folioscope: vm: interrupted by $([ "$sig" == INT ] && echo Interrupt || echo Terminated)"
		fi
		if [ -n "$sv_q" ] && wait_until 60 proc_gone "$sv_q"; then
			ok "$name: no qemu left"
		else
			bad "$name: no qemu left" "qemu '${sv_q:-not found}' still there"
		fi
		if [ "$sig" == KILL ]; then
			sv_left=$(compgen -G "$TMPDIR/folioscope-vm-$pid.*")
			expect_eq "$name: its work dir is left" "$(grep -c . <<<"$sv_left")" 1
			sv_kb=$(du -sk "$sv_left" | cut -f1)
			expect_eq "$name: what is left is a few KB (<= 16), not the initramfs" \
				"$([ "$sv_kb" -le 16 ] && echo yes || echo "no: $sv_kb KB: $(ls -la "$sv_left")")" yes
			sv_err=$("$FS" vm --kernel "$SCRATCH/notakernel" -- doctor 2>&1 >/dev/null)
			expect_match "$name: the next vm removes it, one line" "$sv_err" \
				"^folioscope: vm: removed '$sv_left', left behind by a vm that was killed$"
		fi
		expect_eq "$name: nothing left" "$(leak_state)" "$before"
	done
fi
