# Signals to run and trace, sourced by tests/check.sh: SIGINT, SIGTERM and
# SIGKILL in the set-up and traced phases of run, a second SIGINT during
# the graceful stop, SIGKILL at random points of a short run, and to trace
# (the final report, -j, a traced command). Each: the exit status, no BPF
# program or link left (by id), nothing left behind, or, after SIGKILL,
# what the next run removes and says; -j's file old or new but complete.
# Run as root.
# shellcheck shell=bash

scratch_setup fs-signals
sg_good=$SCRATCH/good.json
cp tests/fixtures/export-base.json "$sg_good"
has_tmp() { compgen -G "$TMPDIR/folioscope-*" >/dev/null; }

# sig_run NAME SIG PHASE ARGS...: signal 'run ARGS' in PHASE (setup: its
# temp dir exists, nothing attached yet; traced: probes attached), then
# check: dies of the signal, no BPF program or link left, after INT/TERM
# nothing left, after KILL the next run removes what is left and says so,
# and -j's file is the old or the new complete report.
sig_run() {
	local name=$1 sig=$2 phase=$3 pid ids rc before out=$SCRATCH/sig.json nxt
	shift 3
	cp "$sg_good" "$out"
	before=$(leak_state)
	# traced: the workload stops itself after its first call or case (probes
	# attached), however fast it would otherwise run to its end.
	if [ "$phase" == setup ]; then
		"$FS" run "$@" -j "$out" >/dev/null 2>"$SCRATCH/sig.err" &
		pid=$!
		wait_until 30 has_tmp
	else
		"$FS" run "$@" --stop-after 1 -j "$out" >/dev/null 2>"$SCRATCH/sig.err" &
		pid=$!
		wait_until 60 proc_stopped "$pid"
	fi
	# Held still while its BPF objects are listed, so the signal lands
	# in the phase named (a stopped process gets it when continued).
	kill -STOP "$pid"
	[ "$phase" == setup ] && has_link "$pid" && phase=traced
	ids=$(bpf_ids "$pid")
	kill -"$sig" "$pid"
	kill -CONT "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	name="signals: run $name: SIG$sig in $phase"
	expect_eq "$name: dies of it" "$rc" "$(sig_code "$sig")"
	expect_bpf_gone "$name: no BPF program or link left" "$ids"
	if [ "$sig" == KILL ]; then
		if [ "$before" != "$(leak_state)" ]; then
			nxt=$("$FS" run shmem-read --size 1M 2>&1 >/dev/null)
			expect_match "$name: next run removes what is left" "$nxt" "removed '$TMPDIR/folioscope-(shmem|dedupe)-[A-Za-z0-9]{6}' \([0-9]+ mounts?\), left behind by a run that was killed"
		fi
	fi
	expect_eq "$name: nothing left" "$(leak_state)" "$before"
	if json_ok "$out"; then ok "$name: -j file complete"; else bad "$name: -j file complete" "$(head -c 200 "$out")"; fi
}
sg_sh=(shmem-read --size 32M --bs 512)
sg_dd=(dedupe --count 512 --range 64K)
sig_run shmem-read INT traced "${sg_sh[@]}"
sig_run shmem-read TERM setup "${sg_sh[@]}"
sig_run shmem-read KILL traced "${sg_sh[@]}"
sig_run shmem-read KILL setup shmem-read --size 256M --bs 1M
sig_run dedupe INT setup "${sg_dd[@]}"
sig_run dedupe TERM traced "${sg_dd[@]}"
sig_run dedupe KILL setup "${sg_dd[@]}"

# SIGKILL while run waits for mkfs: the tool dies with it, nothing is
# left running. The mkfs.xfs found first in PATH says its pid, then
# blocks on a fifo no one opens for writing.
mkdir -p "$SCRATCH/bin"
mkfifo "$SCRATCH/never"
printf '#!/bin/sh\necho $$ >"%s"\nexec cat "%s"\n' "$SCRATCH/mkfs.pid" "$SCRATCH/never" >"$SCRATCH/bin/mkfs.xfs"
chmod +x "$SCRATCH/bin/mkfs.xfs"
before=$(leak_state)
PATH=$SCRATCH/bin:$PATH "$FS" run dedupe --fs xfs --count 1 >/dev/null 2>&1 &
sg_run=$!
if wait_until 30 test -s "$SCRATCH/mkfs.pid"; then
	sg_mkfs=$(cat "$SCRATCH/mkfs.pid")
	kill -KILL "$sg_run"
	{ wait "$sg_run"; } 2>/dev/null
	wait_until 10 sh -c "! kill -0 $sg_mkfs 2>/dev/null"
	expect_eq "signals: run dedupe: SIGKILL during mkfs: mkfs dies with it" \
		"$(kill -0 "$sg_mkfs" 2>/dev/null && echo alive || echo gone)" gone
	kill -KILL "$sg_mkfs" 2>/dev/null
	"$FS" run shmem-read --size 1M >/dev/null 2>&1
	expect_eq "signals: run dedupe: SIGKILL during mkfs: nothing left after the next run" "$(leak_state)" "$before"
else
	bad "signals: run dedupe: SIGKILL during mkfs" "the fake mkfs.xfs never ran"
	kill -KILL "$sg_run" 2>/dev/null
fi

# A second SIGINT ends a run at once (runguard.c). strace holds the
# run's mount (setup) and umount (clean-up) a few seconds each: the first
# SIGINT is sent while it is held at the mount, with its handler in, so
# the handler runs as the mount returns (its message) and the graceful
# stop goes on to the clean-up; the second is sent while it is held at
# the umount, and the run dies of it before removing its temp dir, which
# the next run removes and names. Had the second changed nothing, the
# clean-up would finish: nothing left, nothing for the next run to say.
# (env: a background job has SIGINT ignored.)
sg_nr_mount=$(printf '#include <sys/syscall.h>\nSYS_mount\n' | cpp -P 2>/dev/null | tail -n 1)
sg_nr_umount2=$(printf '#include <sys/syscall.h>\nSYS_umount2\n' | cpp -P 2>/dev/null | tail -n 1)
# in_syscall PID NR: PID is at the entry of syscall NR (held there).
in_syscall() { [ "$(cut -d' ' -f1 /proc/"$1"/syscall 2>/dev/null)" == "$2" ]; }
# catches_int PID: PID has a SIGINT handler.
catches_int() {
	local cgt
	cgt=$(awk '/^SigCgt:/ { print $2 }' /proc/"$1"/status 2>/dev/null)
	[ -n "$cgt" ] && (((0x$cgt >> 1) & 1))
}
sg_at_mount() { in_syscall "$1" "$sg_nr_mount" && catches_int "$1"; }
sg_msg='^folioscope: run: interrupted: finishing the workload to undo it \(again to exit at once\)$'
if ! strace_delays umount2 ||
	[[ ! "$sg_nr_mount $sg_nr_umount2" =~ ^[0-9]+\ [0-9]+$ ]]; then
	skip "signals: run: second SIGINT" "needs strace with syscall delay injection and cpp"
else
	name="signals: run: second SIGINT during the graceful stop"
	before=$(leak_state)
	: >"$SCRATCH/sig.err"
	env --default-signal=INT "$NOLSAN" strace -f -o /dev/null -e trace=mount,umount2 \
		-e inject=mount:delay_enter=3000000 -e inject=umount2:delay_enter=3000000 \
		"$FS" run "${sg_sh[@]}" >/dev/null 2>"$SCRATCH/sig.err" &
	sp=$!
	# strace's own first children only probe ptrace and exit: the one
	# that counts is the one that became folioscope.
	wait_until 30 pgrep -P "$sp" -x folioscope >/dev/null
	pid=$(pgrep -P "$sp" -x folioscope)
	wait_until 60 sg_at_mount "$pid"
	kill -INT "$pid"
	wait_until 60 grep -Eq "$sg_msg" "$SCRATCH/sig.err"
	wait_until 60 in_syscall "$pid" "$sg_nr_umount2"
	expect_eq "$name: the first one began the graceful stop, held at its umount" \
		"$(grep -Ec "$sg_msg" "$SCRATCH/sig.err") $(in_syscall "$pid" "$sg_nr_umount2" && echo held)" "1 held"
	kill -INT "$pid"
	{ wait "$sp"; } 2>/dev/null
	expect_eq "$name: dies of it" "$?" 130
	expect_match "$name: its temp dir is left" "$(compgen -G "$TMPDIR/folioscope-shmem-*")" \
		"^$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}$"
	nxt=$("$FS" run shmem-read --size 1M 2>&1 >/dev/null)
	expect_match "$name: the next run removes what is left" "$nxt" \
		"^folioscope: run: removed '$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}' \([0-9]+ mounts?\), left behind by a run that was killed$"
	expect_eq "$name: nothing left after the next run" "$(leak_state)" "$before"
fi

# Killed at random points of a short run: -j's file is always a complete
# report (old or new), and nothing is left once the next run has started.
cp "$sg_good" "$SCRATCH/race.json"
before=$(leak_state)
sg_bad=
for d in 0.1 0.2 0.3 0.4 0.5; do
	"$FS" run shmem-read --size 4M -j "$SCRATCH/race.json" >/dev/null 2>&1 &
	pid=$!
	sleep "$d"
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	json_ok "$SCRATCH/race.json" || sg_bad+=" $d"
done
expect_eq "signals: SIGKILL at any time: -j file old or new, complete" "${sg_bad:-none}" none
"$FS" run shmem-read --size 1M >/dev/null 2>&1
expect_eq "signals: SIGKILL at any time: nothing left after the next run" "$(leak_state)" "$before"
# The next export of the same file removes the temp files the killed ones
# may have left (.race.json.folioscope-PID.XXXXXX), and leaves none.
"$FS" run shmem-read --size 1M -j "$SCRATCH/race.json" >/dev/null 2>&1
expect_eq "signals: SIGKILL at any time: no temp file after the next export" \
	"$(compgen -G "$SCRATCH/.race.json.*")" ""

# trace: SIGINT/SIGTERM print the final report and exit 0; SIGKILL leaves
# the old -j file; no BPF object survives either way.
sig_trace() {
	local sig=$1 want=$2 pid ids rc out=$SCRATCH/trace.json
	cp "$sg_good" "$out"
	# Emptied first: the shell truncates it only once the job runs,
	# and a previous case's 'tracing' line must not count.
	: >"$SCRATCH/trace.err"
	"$FS" trace -t shmem -j "$out" >"$SCRATCH/trace.out" 2>"$SCRATCH/trace.err" &
	pid=$!
	wait_until 30 grep -q tracing "$SCRATCH/trace.err"
	ids=$(bpf_ids "$pid")
	kill -"$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	expect_eq "signals: trace: SIG$sig: exit" "$rc" "$want"
	expect_bpf_gone "signals: trace: SIG$sig: no BPF program or link left" "$ids"
	if json_ok "$out"; then ok "signals: trace: SIG$sig: -j file complete"; else bad "signals: trace: SIG$sig: -j file complete" "$(head -c 200 "$out")"; fi
	if [ "$sig" == KILL ]; then
		expect_eq "signals: trace: SIGKILL: -j file is the old one" "$(cmp -s "$sg_good" "$out" && echo old)" old
	else
		expect_eq "signals: trace: SIG$sig: -j file is the new one" "$(jq -r .host.kernel "$out")" "$(uname -r)"
	fi
}
sig_trace INT 0
sig_trace TERM 0
sig_trace KILL 137
# Between its deadlines trace sleeps, and nothing but a signal, an event
# or its command's exit wakes it: over -d 2 it waits once, with -i 0.5 once
# an interval (every wait of the process counted, its threads' too). A
# tracer that woke every 20 ms would wait a hundred times, and each
# wake-up costs the traced calls on a busy CPU.
sg_waits() { # sg_waits ARGS...: the waits of 'trace -t shmem ARGS'
	env "$NOLSAN" strace -f -qq -o "$SCRATCH/waits" \
		-e trace=poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,nanosleep,clock_nanosleep \
		"$FS" trace -t shmem "$@" >/dev/null 2>&1
	grep -c . "$SCRATCH/waits"
}
if command -v strace >/dev/null; then
	expect_eq "signals: trace -d 2: one wait" "$(sg_waits -d 2)" 1
	expect_eq "signals: trace -i 0.5 -d 2: one wait an interval" "$(sg_waits -i 0.5 -d 2)" 4
else
	skip "signals: trace's waits" "needs strace"
fi
# SIGINT while still attaching: signalled as soon as its first BPF object
# exists; the programs seen at any point until it ends are gone.
# sg_sample: adds PID's BPF objects to ids; true once it has any.
sg_sample() {
	local now
	now=$(bpf_ids "$pid")
	ids+=$'\n'$now
	[ -n "$now" ]
}
# sg_ended: samples too; true once PID has exited (or is a zombie).
sg_ended() {
	sg_sample
	proc_gone "$pid"
}
"$FS" trace -t all >/dev/null 2>&1 &
pid=$!
ids=
wait_until 30 sg_sample
kill -INT "$pid"
wait_until 30 sg_ended
wait "$pid"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 130 ]
expect_eq "signals: trace: SIGINT while attaching: exit 0 (or 130 before the handler)" "$?" 0
ids=$(sort -u <<<"$ids")
expect_bpf_gone "signals: trace: SIGINT while attaching: nothing left" "$ids"
# trace -- CMD: SIGTERM stops the command too.
: >"$SCRATCH/trace.err"
"$FS" trace -t shmem -- sleep 60 >/dev/null 2>"$SCRATCH/trace.err" &
pid=$!
wait_until 30 grep -q tracing "$SCRATCH/trace.err"
sg_child=$(pgrep -P "$pid" -x sleep)
kill -TERM "$pid"
wait "$pid"
expect_eq "signals: trace -- CMD: SIGTERM: exit 0" "$?" 0
expect_eq "signals: trace -- CMD: SIGTERM: the command is stopped" "$(kill -0 "$sg_child" 2>/dev/null && echo alive || echo gone)" gone
