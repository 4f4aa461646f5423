# Signals while attaching, sourced by tests/check.sh: every bpf() call of
# trace and run is held 100 ms by strace, so once the first link exists
# the others are still to come, and SIGINT, SIGTERM or SIGKILL lands in
# the attach phase. Each: the exit status, signalled before 'tracing', no
# BPF program or link left (by id), nothing left behind (after SIGKILL
# once the next run has removed it, saying so). Run as root.
# shellcheck shell=bash

scratch_setup fs-signals-attach
# in_attach SIG CMD...: sets sa_ids (BPF objects at the signal), returns
# CMD's status.
in_attach() {
	local sig=$1 pid sp
	shift
	sa_ids=
	env --default-signal=INT "$NOLSAN" strace -f -o /dev/null -e trace=bpf \
		-e inject=bpf:delay_enter=100000 "$@" >/dev/null 2>"$SCRATCH/attach.err" &
	sp=$!
	# Not one of strace's short-lived ptrace probes: folioscope itself.
	wait_until 30 pgrep -P "$sp" -x folioscope >/dev/null
	pid=$(pgrep -P "$sp" -x folioscope)
	wait_until 60 has_link "$pid"
	sa_ids=$(bpf_ids "$pid")
	sa_phase=$(grep -c tracing "$SCRATCH/attach.err")
	kill -"$sig" "$pid"
	{ wait "$sp"; } 2>/dev/null
}
if ! strace_delays bpf; then
	skip "signals: while attaching" "needs strace with syscall delay injection"
else
	for sig in INT TERM KILL; do
		name="signals: trace: SIG$sig while attaching"
		in_attach "$sig" "$FS" trace -t all
		rc=$?
		expect_eq "$name: exit (0, or 137 for KILL); signalled before 'tracing'" "$rc $sa_phase" \
			"$([ "$sig" == KILL ] && echo 137 || echo 0) 0"
		if [ -z "$sa_ids" ]; then
			bad "$name: no BPF program or link left" "none seen"
		else
			expect_bpf_gone "$name: no BPF program or link left" "$sa_ids"
		fi
		name="signals: run: SIG$sig while attaching"
		before=$(leak_state)
		in_attach "$sig" "$FS" run shmem-read --size 1M
		expect_eq "$name: dies of it" "$?" "$(sig_code "$sig")"
		expect_bpf_gone "$name: no BPF program or link left" "$sa_ids"
		if [ "$sig" == KILL ]; then
			nxt=$("$FS" run shmem-read --size 1M 2>&1 >/dev/null)
			expect_match "$name: the next run removes what is left" "$nxt" \
				"^folioscope: run: removed '$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}' \(0 mounts\), left behind by a run that was killed$"
		fi
		expect_eq "$name: nothing left" "$(leak_state)" "$before"
	done
fi
