# Sequences of operations (sourced by tests/check.sh): run shmem-read
# --ops and run dedupe --ops with a fixed seed pass, check every answer
# and reconcile; the same seed runs the same sequence, another seed
# another; and under fake kernel bugs (tests/host/progs/fakekernel.c: a
# truncate down inside a page that leaves the rest of the page as it
# was; a dedupe that clones the source onto a destination at another
# in-page offset first, a false SAME; ZERO_RANGE refused on btrfs and
# xfs, which have it) the run fails with the bug's kind,
# shrinks the sequence to the few operations that show it, and the
# replay command fails the same way under the bug and passes without it.
# With --jobs, readers race the sequence: clean on the host's kernel for
# both workloads, each read checked against the versions of its window;
# a fake bug only a race shows (FS_FAKE_RACE=reuse: a read overlapped by
# a truncate copies a reused page) is caught as "no version" with
# readers and missed without them, and the run says it needs the race.
# Stuck is a verdict: a racing reader's read that never returns
# (FS_FAKE_RACE=hang) is a timeout with that reader's own kernel stack,
# and so is a shrink trial's (FS_FAKE_HANG_AT), the report written.
# Run as root.
# shellcheck shell=bash

op=$(mktemp -d "${TMPDIR:-/tmp}/fs-ops.XXXXXX")
OP_BIN=$FS
OP_ENV=()
OP_WL=shmem-read
# op_run NAME ARGS...: folioscope run $OP_WL ARGS, JSON in
# $op/NAME.json, stderr in $op/NAME.err, status in op_rc.
op_run() {
	local name=$1
	shift
	env "${OP_ENV[@]}" timeout 300 "$OP_BIN" run "$OP_WL" "$@" \
		-j "$op/$name.json" >"$op/$name.txt" 2>"$op/$name.err"
	op_rc=$?
}
# op_sum NAME: what a run of the sequence did, for comparing two runs.
op_sum() { jq -r '"\(.workload.calls) \(.workload.bytes) \(.validation.checks) \(.targets.shmem.histograms.bytes.buckets | map(.count) | join(","))"' "$op/$1.json" 2>&1; }

op_run seed1 --ops 1000 --seed 1
expect_eq "ops: 1000 operations of seed 1: exit 0, 0 failures, reconciled, mode ops" \
	"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile) \(.workload.mode) \(.workload.ops_seed) \(.workload.ops) \(.workload.ops_run)"' "$op/seed1.json" 2>&1)" \
	"0 0 ok ops 1 1000 1000"
expect_eq "ops: reads checked, calls and bytes are the probes'" \
	"$(jq -r '(.validation.checks > 1000) and (.targets.shmem.counters.calls == .workload.calls) and (.workload.calls > 100) and (.workload.bytes > 0)' "$op/seed1.json" 2>&1)" \
	true
# tmpfs has no ZERO_RANGE: each one drawn is refused, none zeroes.
expect_eq "ops: tmpfs refused every zero-range (EOPNOTSUPP), zeroed none" \
	"$(jq -r '"\(.workload.ops_zero_refused_tmpfs > 0) \(.workload.ops_zeroed_tmpfs)"' "$op/seed1.json" 2>&1)" \
	"true 0"
expect_match "ops: the seed is printed" "$(cat "$op/seed1.err")" \
	'^folioscope: run shmem-read: ops: seed 1, 1000 operations$'
op_run seed1-again --ops 1000 --seed 1
expect_eq "ops: the same seed runs the same sequence" "$op_rc $(op_sum seed1-again)" "0 $(op_sum seed1)"
op_run seed2 --ops 1000 --seed 2
expect_eq "ops: another seed, another sequence" \
	"$op_rc $([ "$(op_sum seed2)" != "$(op_sum seed1)" ] && echo other)" "0 other"
op_run fresh --ops 50
fresh=$(sed -nE 's/^folioscope: run shmem-read: ops: seed ([0-9]+), 50 operations$/\1/p' "$op/fresh.err")
expect_eq "ops: without --seed, the seed drawn is printed and in the JSON" \
	"$op_rc $([ -n "$fresh" ] && jq -r .workload.ops_seed "$op/fresh.json")" "0 $fresh"

# dedupe: btrfs and xfs on loop images, FIDEDUPERANGE with up to 16
# destinations, FICLONERANGE and copy_file_range among the operations.
if ! command -v mkfs.xfs >/dev/null || ! command -v mkfs.btrfs >/dev/null; then
	skip "ops dedupe" "mkfs.xfs or mkfs.btrfs not installed (tests/deps.sh)"
else
	OP_WL=dedupe
	op_run dd1 --ops 1000 --seed 1
	expect_eq "ops dedupe: 1000 operations of seed 1 (xfs bs=2048): exit 0, 0 failures, reconciled" \
		"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile) \(.workload.mode) \(.workload.ops_run) \(.workload.xfs_block_size)"' "$op/dd1.json" 2>&1)" \
		"0 0 ok ops 1000 2048"
	expect_eq "ops dedupe: SAME, DIFFERS and errors answered, as many as the probes saw" \
		"$(jq -r '[.workload.same > 10, .workload.differs > 10, .workload.errors > 10, .targets.dedupe.counters.same == .workload.same, .targets.dedupe.counters.differs == .workload.differs] | all' "$op/dd1.json" 2>&1)" \
		true
	# btrfs and xfs have ZERO_RANGE: done on both, refused on neither.
	expect_eq "ops dedupe: zero-range done on btrfs and xfs, refused on neither" \
		"$(jq -r '.workload | "\(.ops_zeroed_btrfs > 0) \(.ops_zeroed_xfs > 0) \(.ops_zero_refused_btrfs) \(.ops_zero_refused_xfs)"' "$op/dd1.json" 2>&1)" \
		"true true 0 0"
	op_run dd1-again --ops 1000 --seed 1
	expect_eq "ops dedupe: the same seed runs the same sequence" \
		"$op_rc $(jq -r '"\(.validation.checks) \(.workload.same) \(.workload.differs) \(.workload.errors)"' "$op/dd1-again.json")" \
		"0 $(jq -r '"\(.validation.checks) \(.workload.same) \(.workload.differs) \(.workload.errors)"' "$op/dd1.json")"
	OP_WL=shmem-read
fi

# Racing readers: 3 beside the mutator, on the host's kernel.
op_run race --ops 2000 --seed 1 --jobs 4
expect_eq "ops --jobs 4: exit 0, 0 failures, reconciled, 2000 operations, 4 jobs" \
	"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile) \(.workload.ops_run) \(.workload.ops_jobs)"' "$op/race.json" 2>&1)" \
	"0 0 ok 2000 4"
# The readers read, some while operations ran (a window of more than one
# version), and the probes counted their reads too.
expect_eq "ops --jobs 4: racing reads made, some overlapping operations, all counted by the probes" \
	"$(jq -r '[.workload.race_reads > 100, .workload.race_reads_overlapped > 10, .targets.shmem.counters.calls == .workload.calls] | all' "$op/race.json" 2>&1)" \
	true
expect_match "ops --jobs 4: the readers are said" "$(cat "$op/race.err")" \
	'^folioscope: run shmem-read: ops: seed 1, 2000 operations, 3 racing readers$'
if command -v mkfs.xfs >/dev/null && command -v mkfs.btrfs >/dev/null; then
	OP_WL=dedupe
	op_run ddrace --ops 1000 --seed 1 --jobs 3
	expect_eq "ops dedupe --jobs 3: exit 0, 0 failures, reconciled, racing reads overlapping operations" \
		"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile) \(.workload.race_reads > 100) \(.workload.race_reads_overlapped > 10)"' "$op/ddrace.json" 2>&1)" \
		"0 0 ok true true"
	# The second mutator: a store into a destination of each dedupe
	# that compares one in another file, by pwrite and by a mapping;
	# none lost, every answer right. (How many began while their ioctl
	# ran is the machine's timing: counted, not held to a number.)
	expect_eq "ops dedupe --jobs 3: racing stores made by pwrite and by mapping" \
		"$(jq -r '.workload | [.race_stores > 20, .race_stores_mapped > 5, .race_stores - .race_stores_mapped > 5, .race_stores_inside <= .race_stores] | all' "$op/ddrace.json" 2>&1)" \
		true
	expect_match "ops dedupe --jobs 3: the readers and stores are said" "$(cat "$op/ddrace.err")" \
		'^folioscope: run dedupe: ops: seed 1, 1000 operations, 2 racing readers and stores into dedupes, xfs bs=2048$'
	OP_WL=shmem-read
fi

op_run repeat --ops 500 --seed 3 --jobs 3 --repeat 3
expect_eq "ops --repeat 3: three clean runs of the sequence, 1500 operations" \
	"$op_rc $(jq -r '"\(.workload.ops_repeat) \(.workload.ops_repeats_failed) \(.workload.ops_run) \(.validation.failures) \(.workload.reconcile)"' "$op/repeat.json" 2>&1)" \
	"0 3 0 1500 0 ok"
expect_error "ops: --replay without --jobs refused" 2 \
	"^folioscope: run: --replay needs --ops and --jobs$" "$FS" run shmem-read --ops 5 --replay /nonexistent
expect_error "ops: --schedule with --repeat refused" 2 \
	"^folioscope: run: --schedule runs the sequence once; drop --repeat$" "$FS" run shmem-read --ops 5 --jobs 2 --repeat 2 --schedule /tmp/x
expect_error "ops: --repeat without --jobs refused" 2 \
	"^folioscope: run: --repeat needs --ops and --jobs \\(alone, a sequence runs the same every time\\)$" "$FS" run shmem-read --ops 5 --repeat 3
expect_error "ops: --jobs without --ops refused" 2 \
	"^folioscope: run: --jobs needs --ops$" "$FS" run shmem-read --jobs 2
expect_error "ops: --jobs past its limit refused" 2 \
	"^folioscope: run: --jobs 18 is too large \\(at most 17\\)$" "$FS" run shmem-read --ops 5 --jobs 18
expect_error "ops: --ops with --random refused" 2 \
	"^folioscope: run: --ops runs its own operations; drop --random$" "$FS" run shmem-read --ops 5 --random 2
expect_error "ops: --ops with a layout option refused" 2 \
	"^folioscope: run: --ops runs its own operations; drop --size$" "$FS" run shmem-read --ops 5 --size 1M
expect_error "ops: --ops-only past --ops refused" 2 \
	"^folioscope: run: invalid --ops-only '3,9' \\(ascending operation indices under --ops 5, comma-separated\\)$" \
	"$FS" run shmem-read --ops 5 --ops-only 3,9
expect_error "ops: --ops-only not ascending refused" 2 \
	"^folioscope: run: invalid --ops-only '3,2' " "$FS" run shmem-read --ops 5 --ops-only 3,2
expect_error "ops: --ops-only without --ops refused" 2 \
	"^folioscope: run: --ops-only needs --ops$" "$FS" run shmem-read --ops-only 3

if ! fake_shim "$op"; then
	skip "ops: shrinking a fake bug" "$FAKE_WHY"
else
	OP_BIN=$FAKE_DYN
	OP_ENV=(FS_FAKE_TRUNC=tail LD_PRELOAD="$op/fakekernel.so")
	op_run tail --ops 300 --seed 4
	expect_eq "ops tail: exit 1, failures of kind 'data' only, reconciled" \
		"$op_rc $(jq -r '"\(.validation.failures > 0) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile) \(.workload.ops_failed_at)"' "$op/tail.json" 2>&1)" \
		"1 true data ok 198"
	expect_match "ops tail: the failing operation, with the seed and its index" "$(cat "$op/tail.err")" \
		'^folioscope: run shmem-read: ops: seed 4: operation 198 FAILED \(data\): #198 read file 3 '
	replay=$(sed -nE 's/^folioscope: run shmem-read: ops: shrunk to ([0-9]+) operations in [0-9]+ trials; replay: folioscope run shmem-read (.*)$/\2/p' "$op/tail.err")
	nshrunk=$(sed -nE 's/^folioscope: run shmem-read: ops: shrunk to ([0-9]+) operations .*/\1/p' "$op/tail.err")
	expect_eq "ops tail: the report keeps the replay the run printed" \
		"$(jq -r '.validation.replays[].command' "$op/tail.json" 2>&1)" \
		"folioscope run shmem-read $replay"
	# What shows the bug: data written, a truncate down into it, and
	# the file grown over it again (the read-back reads it).
	expect_eq "ops tail: shrunk to at most 4 operations, a truncate among them, each printed" \
		"$([ "${nshrunk:-99}" -le 4 ] && echo small) $([ "$(grep -c '^folioscope: run shmem-read: ops:   #[0-9]* truncate ' "$op/tail.err")" -ge 1 ] && echo truncate) $(grep -c '^folioscope: run shmem-read: ops:   #' "$op/tail.err")" \
		"small truncate $nshrunk"
	# shellcheck disable=SC2086 # the options, word by word
	op_run replay-tail $replay
	expect_eq "ops tail: the replay fails the same way, with the bug" \
		"$op_rc $(jq -r '"\([.validation.cases[].kind] | unique | join(",")) \(.workload.ops_run)"' "$op/replay-tail.json" 2>&1)" \
		"1 data $nshrunk"
	# A bug only a race shows: caught with readers, as "no version",
	# with who read what when; not by the same sequence alone.
	OP_ENV=(FS_FAKE_RACE=reuse LD_PRELOAD="$op/fakekernel.so")
	op_run fakerace --ops 3000 --seed 1 --jobs 4
	expect_eq "ops race fake: exit 1, failures of kind 'no version' only, reconciled" \
		"$op_rc $(jq -r '"\(.validation.failures > 0) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile)"' "$op/fakerace.json" 2>&1)" \
		"1 true no version ok"
	expect_match "ops race fake: the failure names the seed, the jobs, the reader, the versions of its window and the bytes" \
		"$(jq -r '.validation.cases[0] | "\(.layout) | \(.got)"' "$op/fakerace.json" 2>&1)" \
		'^ops seed=1 jobs=4 reader [1-3] #[0-9]+ read file [0-3] .* by (read|pread) off [0-9]+ len [0-9]+ \[[0-9.]+ ms\]: versions [0-9]+\.\.[0-9]+ by .*#[0-9]+ truncate.* \| offset [0-9]+: got 0x(52|45|55|53|44|21); version [0-9]+: 0x'
	expect_match "ops race fake: stderr tells the first in full, every operation of its window with its times" \
		"$(grep -A1 -m1 'FAILED (no version)' "$op/fakerace.err")" \
		'^folioscope: run shmem-read: ops: seed=1 jobs=4 reader .* FAILED \(no version\): offset [0-9]+: got 0x.*; expected ret fits a size of [0-9]+\.\.[0-9]+, each byte a version.s
folioscope: run shmem-read: ops:   version [0-9]+: #[0-9]+ [a-z_-]+ file [0-3] .* \[[0-9.]+\.\.[0-9.]+ ms\]$'
	expect_match "ops race fake: it does not fail alone, so it is not shrunk; the rerun is printed and kept" \
		"$(grep -c 'without readers, pass: the failure needs the race, not shrunk; run again: folioscope run shmem-read --ops 3000 --seed 1 --jobs 4$' "$op/fakerace.err") $(jq -r '.validation.replays[].command' "$op/fakerace.json" 2>&1)" \
		'^1 folioscope run shmem-read --ops 3000 --seed 1 --jobs 4$'
	# A catch rate: the sequence twice, the readers' timing each time
	# their own; the race fake shows in both.
	op_run fakerepeat --ops 2000 --seed 2 --jobs 4 --repeat 2
	expect_eq "ops race fake --repeat 2: both runs of the sequence caught it, 4000 operations in all" \
		"$op_rc $(jq -r '"\(.workload.ops_repeat) \(.workload.ops_repeats_failed) \(.workload.ops_run) \(.workload.reconcile)"' "$op/fakerepeat.json" 2>&1)" \
		"1 2 2 4000 ok"
	# Its schedule kept and replayed: the same reads at the same points
	# of the sequence, caught again with the bug and clean without.
	op_run fakesched --ops 1000 --seed 5 --jobs 4 --schedule "$op/sched"
	expect_eq "ops race fake --schedule: caught, the schedule written (a line per racing read), the rerun its replay" \
		"$op_rc $(head -1 "$op/sched" 2>&1) $(($(wc -l <"$op/sched") - 1)) $(grep -c "run again: folioscope run shmem-read --ops 1000 --seed 5 --jobs 4 --replay $op/sched\$" "$op/fakesched.err")" \
		"1 # folioscope race schedule: run shmem-read --ops 1000 --seed 5 --jobs 4 $(jq -r .workload.race_reads "$op/fakesched.json") 1"
	op_run fakereplay --ops 1000 --seed 5 --jobs 4 --replay "$op/sched"
	expect_eq "ops race fake --replay: the schedule's reads, the bug caught again as 'no version'" \
		"$op_rc $(jq -r '"\(.workload.race_reads) \(.validation.failures > 0) \([.validation.cases[].kind] | unique | join(","))"' "$op/fakereplay.json" 2>&1)" \
		"1 $(jq -r .workload.race_reads "$op/fakesched.json") true no version"
	OP_ENV=()
	# The schedule on a tmpfs: read while the run is set up, so its
	# bytes are none of the probes' (a guest's --with files are there).
	shm_sched=$(mktemp /dev/shm/fs-sched.XXXXXX)
	cp "$op/sched" "$shm_sched"
	op_run replay-clean --ops 1000 --seed 5 --jobs 4 --replay "$shm_sched"
	expect_eq "ops --replay without the bug: the same reads, clean, reconciled with the schedule on tmpfs" \
		"$op_rc $(jq -r '"\(.workload.race_reads) \(.validation.failures) \(.workload.reconcile)"' "$op/replay-clean.json" 2>&1)" \
		"0 $(jq -r .workload.race_reads "$op/fakesched.json") 0 ok"
	rm -f "$shm_sched"
	op_run replay-other --ops 1000 --seed 6 --jobs 4 --replay "$op/sched"
	expect_eq "ops --replay of another run's schedule refused" \
		"$op_rc $(grep -cxF "folioscope: run shmem-read: --replay '$op/sched': not a schedule of this run (want 'folioscope race schedule: run shmem-read --ops 1000 --seed 6 --jobs 4')" "$op/replay-other.err")" \
		"1 1"
	OP_ENV=(FS_FAKE_RACE=reuse LD_PRELOAD="$op/fakekernel.so")
	op_run fakerace-alone --ops 3000 --seed 1
	expect_eq "ops race fake: the sequence alone misses it" \
		"$op_rc $(jq -r '.validation.failures' "$op/fakerace-alone.json" 2>&1)" "0 0"

	# A racing reader stuck in the kernel: a timeout with its own
	# stack (the pipe it waits on), not the mutator's or main's.
	OP_ENV=(FS_FAKE_RACE=hang LD_PRELOAD="$op/fakekernel.so")
	op_run racehang --ops 3000 --seed 1 --jobs 4 --deadline-base 2
	expect_eq "ops race hang: exit 1, a timeout of a racing reader's read in the report" \
		"$op_rc $(jq -r '"\([.validation.cases[].kind] | join(",")) \(.validation.cases[0].layout | test("^ops seed=1 jobs=4 reader [1-3] #[0-9]+ read file [0-3] ")) \(.workload.reconcile)"' "$op/racehang.json" 2>&1)" \
		"1 timeout true skipped: a call never returned"
	hang_tid=$(sed -nE "s/^folioscope: run shmem-read: timeout: a call of layout 'ops seed=1 jobs=4 reader [1-3] .* kernel stack of thread ([0-9]+): .*pipe_read.*/\1/p" "$op/racehang.err")
	expect_match "ops race hang: the watchdog quotes the stuck reader's thread and its stack" \
		"${hang_tid:-none} $(grep -c "^folioscope: run shmem-read: timeout: " "$op/racehang.err")" '^[0-9]+ 1$'

	# A shrink trial stuck in the kernel: the first read after the
	# run's own (counted by a run without the bug) never returns.
	OP_ENV=(FS_FAKE_COUNT="$op/reads" LD_PRELOAD="$op/fakekernel.so")
	op_run count --ops 300 --seed 4
	nreads=$(cat "$op/reads" 2>/dev/null)
	OP_ENV=(FS_FAKE_TRUNC=tail FS_FAKE_HANG_AT=$((${nreads:-0} + 1)) LD_PRELOAD="$op/fakekernel.so")
	op_run trialhang --ops 300 --seed 4 --deadline-base 2
	expect_eq "ops trial hang: exit 1; the report has the run's failures and the trial's timeout" \
		"$op_rc $(jq -r '"\([.validation.cases[].kind] | unique | join(",")) \(.validation.cases[-1].kind)"' "$op/trialhang.json" 2>&1)" \
		"1 data,timeout timeout"
	expect_match "ops trial hang: the watchdog names the trial's read and its stack" \
		"$(cat "$op/trialhang.err")" \
		"^folioscope: run shmem-read: timeout: a call of layout 'ops seed=4 #[0-9]+ read .* kernel stack of thread [0-9]+: .*pipe_read"
	OP_ENV=()
	# shellcheck disable=SC2086
	op_run replay-nobug $replay
	expect_eq "ops tail: the replay passes without it" \
		"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile)"' "$op/replay-nobug.json" 2>&1)" \
		"0 0 ok"

	# dedupe's false SAME: caught as a wrong answer, shrunk, replayed.
	if command -v mkfs.xfs >/dev/null && command -v mkfs.btrfs >/dev/null; then
		OP_WL=dedupe
		# ZERO_RANGE refused where the filesystem has it (btrfs,
		# xfs): a wrong answer of each zero-range, nothing else.
		OP_ENV=(FS_FAKE_ZERO=refuse LD_PRELOAD="$op/fakekernel.so")
		op_run ddzero --ops 300 --seed 1
		expect_eq "ops dedupe zero refused: exit 1, wrong answers of zero-range operations only" \
			"$op_rc $(jq -r '"\([.validation.cases[].kind] | unique | join(",")) \([.validation.cases[].layout | test(" zero-range file ")] | all) \(.validation.failures > 0)"' "$op/ddzero.json" 2>&1)" \
			"1 wrong answer true true"
		# A store lost between the compare and the remap: caught with
		# the second mutator, as "lost store" only, each with its
		# store and when it began; not by the sequence alone.
		OP_ENV=(FS_FAKE_RACE=lose LD_PRELOAD="$op/fakekernel.so")
		op_run ddlose --ops 1000 --seed 2 --jobs 2
		expect_eq "ops dedupe lost store fake: exit 1, failures of kind 'lost store' only, reconciled" \
			"$op_rc $(jq -r '"\(.validation.failures > 2) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile)"' "$op/ddlose.json" 2>&1)" \
			"1 true lost store ok"
		expect_match "ops dedupe lost store fake: the failure names the dedupe, the store and when it began, the byte and the one before" \
			"$(jq -r '.validation.cases[0] | "\(.layout) | \(.expected) | \(.got)"' "$op/ddlose.json" 2>&1)" \
			'^ops seed=2 #[0-9]+ dedupe file [0-3] .*; jobs=2 store by (mapping|pwrite) file ([0-3]) off [0-9]+ len [0-9]+ \[-?[0-9]+\.[0-9]{3} ms into the ioctl.s [0-9]+\.[0-9]{3} ms\] \| file \2 offset [0-9]+: 0x[0-9a-f]{2}, the store.s \| 0x([0-9a-f]{2}) \(before the store: 0x\3\)$'
		expect_match "ops dedupe lost store fake: told on stderr; the sequence alone passes, so it is not shrunk" \
			"$(grep -c '^folioscope: run dedupe: ops: seed=2 #[0-9]* dedupe .* FAILED (lost store): got 0x' "$op/ddlose.err") $(grep -c 'without readers or stores, pass: the failure needs the race, not shrunk; run again: folioscope run dedupe --ops 1000 --seed 2 --jobs 2$' "$op/ddlose.err")" \
			'^[1-3] 1$'
		op_run ddlose-alone --ops 1000 --seed 2
		expect_eq "ops dedupe lost store fake: the sequence alone misses it" \
			"$op_rc $(jq -r '.validation.failures' "$op/ddlose-alone.json" 2>&1)" "0 0"
		OP_ENV=(FS_FAKE_DEDUPE=clone LD_PRELOAD="$op/fakekernel.so")
		op_run ddclone --ops 500 --seed 1
		expect_eq "ops dedupe clone: exit 1, its first failure a wrong answer of a dedupe, reconciled" \
			"$op_rc $(jq -r '"\(.validation.cases[0].kind) \(.validation.cases[0].layout | test(" dedupe file ")) \(.workload.reconcile)"' "$op/ddclone.json" 2>&1)" \
			"1 wrong answer true ok"
		replay=$(sed -nE 's/^folioscope: run dedupe: ops: shrunk to ([0-9]+) operations in [0-9]+ trials; replay: folioscope run dedupe (.*)$/\2/p' "$op/ddclone.err")
		nshrunk=$(sed -nE 's/^folioscope: run dedupe: ops: shrunk to ([0-9]+) operations .*/\1/p' "$op/ddclone.err")
		expect_eq "ops dedupe clone: shrunk to at most 4 operations, a dedupe last" \
			"$([ "${nshrunk:-99}" -le 4 ] && echo small) $(grep '^folioscope: run dedupe: ops:   #' "$op/ddclone.err" | tail -1 | grep -c ' dedupe file ')" \
			"small 1"
		# shellcheck disable=SC2086
		op_run ddclone-replay $replay
		expect_eq "ops dedupe clone: the replay fails with the bug" \
			"$op_rc $(jq -r '.validation.cases[0].kind' "$op/ddclone-replay.json" 2>&1)" "1 wrong answer"
		OP_ENV=()
		# shellcheck disable=SC2086
		op_run ddclone-nobug $replay
		expect_eq "ops dedupe clone: the replay passes without it" \
			"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile)"' "$op/ddclone-nobug.json" 2>&1)" \
			"0 0 ok"
		OP_WL=shmem-read
	fi
fi
rm -rf "$op"
