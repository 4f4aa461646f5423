# In-flight store and --lean on this host (sourced by tests/check.sh).
# The per-CPU slots are the default; task local storage (asked for, or
# after a real refusal of the slots' migration program that a test hook
# provokes) and the hash (forced, or after a real refusal of task storage)
# must count exactly the same, and so must the slots when reads sleep and
# wake on another CPU.
# --lean leaves out histograms, says so in every report, and still counts
# calls and bytes exactly.
# shellcheck shell=bash
pf=$(mktemp -d /dev/shm/fs-store-lean.XXXXXX)

# doctor names the store of the step it would use.
nocpu="task storage (per-CPU slots refused: attach sched_migrate_task failed: No such file or directory)"
for store in default cpu task hash test-refuse test-nocpu; do
	case $store in
	default | cpu) want="per-CPU slots" ;;
	task) want="task storage" ;;
	test-nocpu) want=$nocpu ;;
	hash) want="hash (FOLIOSCOPE_INFLIGHT=hash)" ;;
	test-refuse) want="hash (task storage refused: load failed: Invalid argument)" ;;
	esac
	env=()
	[ "$store" != default ] && env=(FOLIOSCOPE_INFLIGHT="$store")
	dj=$(env "${env[@]}" "$FS" doctor --json 2>/dev/null)
	for tgt in dedupe shmem; do
		expect_eq "doctor ($store): $tgt in-flight store" \
			"$(jq -r ".targets.$tgt.inflight" <<<"$dj")" "$want"
	done
	expect_match "doctor text ($store): in-flight line" \
		"$(env "${env[@]}" "$FS" doctor 2>/dev/null)" "in-flight calls: ${want//[()]/.}"
done

# The same workloads through each store: calls, bytes, every counter and
# every histogram but latency identical, nothing dropped.
for wl in "shmem-read --size 8M --bs 64K" "shmem-read --size 2M --bs 4K --syscall readv --iovecs 3 --buf-align 5" \
	"dedupe --count 16 --range 128K"; do
	name=$(tr -c 'a-z0-9\n' - <<<"$wl" | tr -s -)
	tgt=$([ "${wl%% *}" == dedupe ] && echo dedupe || echo shmem)
	for store in cpu task hash test-refuse test-nocpu; do
		# shellcheck disable=SC2086
		if ! FOLIOSCOPE_INFLIGHT=$store "$FS" run $wl -j "$pf/$name.$store.json" \
			>"$LOGDIR/store-lean-$name.$store.log" 2>&1; then
			bad "run $wl (in-flight $store)" "exit $?; see $LOGDIR/store-lean-$name.$store.log"
			continue
		fi
		j=$pf/$name.$store.json
		expect_eq "run $wl (in-flight $store): reconciles" \
			"$(jq -r '.workload.reconcile + " " + (.workload.validation_failures|tostring)' "$j")" "ok 0"
		case $store in
		cpu) want='per-CPU slots$' ;;
		task) want='task storage$' ;;
		test-nocpu) want='task storage \(per-CPU slots refused: attach sched_migrate_task failed' ;;
		*) want='hash \(' ;;
		esac
		expect_match "run $wl (in-flight $store): store in the reason" \
			"$(jq -r ".targets.$tgt.attach.reason" "$j")" "in-flight calls: $want"
		expect_eq "run $wl (in-flight $store): nothing dropped" \
			"$(jq -r ".targets.$tgt.counters.dropped" "$j")" 0
	done
	counts() { jq -S -c ".targets.$tgt | {calls, errors, counters, h: (.histograms | del(.latency_ns))}" "$1" 2>&1; }
	for store in cpu hash test-refuse test-nocpu; do
		expect_eq "run $wl: $store counts = task storage counts" \
			"$(counts "$pf/$name.$store.json")" "$(counts "$pf/$name.task.json")"
	done
done

# Reads that sleep inside the call (tests/vm/shblock.c: 5 threads each
# asleep in a userfaultfd fault of its read's copy at once, so the later
# ones find their CPU's slot held), with and without each moved to
# another CPU while it sleeps: every store counts all 10 traced reads
# (the 5 first of 4 KiB, 5 of 8 KiB after a read on another tmpfs, which
# --dev leaves out). Without the move of a migrating thread's record
# (test-nomigrate), the reads that held a slot when they moved are lost:
# what the migration program is for.
if ! ${CC:-cc} -O2 -Wall -pthread -o "$pf/shblock" tests/vm/shblock.c 2>"$LOGDIR/store-lean-shblock.log"; then
	bad "shblock builds" "see $LOGDIR/store-lean-shblock.log"
elif mkdir -p "$pf/other" "$pf/blk" && mount -t tmpfs -o size=4m fs-store-other "$pf/other"; then
	sbcounts() { jq -r '.targets.shmem | "calls \(.calls) dropped \(.counters.dropped) bytes \(.histograms.bytes.sum) req \(.histograms.req_bytes.sum)"' "$1" 2>&1; }
	for store in cpu task hash test-nomigrate; do
		for mv in "" migrate; do
			[ "$store$mv" == test-nomigrate ] && continue
			j=$pf/blk-$store-${mv:-stay}.json
			FOLIOSCOPE_INFLIGHT=$store "$FS" trace -q -t shmem --dev "$pf" -j "$j" -- \
				"$pf/shblock" "$pf/blk" 5 "$pf/other" $mv >"$LOGDIR/store-lean-blk-$store-${mv:-stay}.log" 2>&1
			expect_eq "trace shblock${mv:+ $mv} (in-flight $store): exit 0" "$?" 0
			want="calls 10 dropped 0 bytes 61440 req 61440"
			# Without the move, a read the scheduler moved on its
			# own (unpinned threads) is lost too: no exact count.
			[ "$store" == test-nomigrate ] && continue
			expect_eq "trace shblock${mv:+ $mv} (in-flight $store): every traced read" "$(sbcounts "$j")" "$want"
		done
	done
	# The two threads that held the slots (one per CPU) lose their read.
	expect_eq "trace shblock migrate without the move (test-nomigrate): the slots' reads are lost" \
		"$(sbcounts "$pf/blk-test-nomigrate-migrate.json")" "calls 8 dropped 0 bytes 53248 req 53248"
	# With a one-entry hash, the moves and the entries that spill find it
	# full: every read is counted or counted dropped.
	j=$pf/blk-test-smallhash.json
	FOLIOSCOPE_INFLIGHT=test-smallhash "$FS" trace -q -t shmem --dev "$pf" -j "$j" -- \
		"$pf/shblock" "$pf/blk" 5 "$pf/other" migrate >"$LOGDIR/store-lean-blk-smallhash.log" 2>&1
	expect_eq "trace shblock migrate (in-flight test-smallhash): exit 0" "$?" 0
	expect_eq "trace shblock migrate, the hash full (test-smallhash): calls + dropped = 10 reads, some dropped" \
		"$(jq -r '.targets.shmem | "\(.calls + .counters.dropped) \(.counters.dropped > 0)"' "$j" 2>&1)" "10 true"
	umount "$pf/other"
else
	bad "store-lean: a second tmpfs" "mount failed"
fi

# trace --lean: dd reads a 1000000-byte tmpfs file in 64 KiB reads: 15
# full, one of 16960, one at EOF (17 calls). The left-out histograms are
# not measured, with the reason, in the text, JSON and OpenMetrics.
head -c 1000000 /dev/urandom >"$pf/a"
# trace_dd ARGS...: trace -t shmem ARGS (its text report in $pf/out) on a
# dd of that file that waits until the trace is in; returns trace's exit
# status.
trace_dd() {
	local R
	gated_reader "$pf" dd dd if="$pf/a" of=/dev/null bs=64k status=none
	R=$RPID
	trace_bg "$pf" -t shmem -p "$R" "$@"
	release "$pf" dd
	wait "$R"
	trace_stop
	return "$TRC"
}
trace_dd --lean -j "$pf/lean.json" -o "$pf/lean.om"
expect_eq "trace --lean: exit 0" "$?" 0
j=$pf/lean.json
expect_eq "trace --lean: calls exact" "$(jq -r .targets.shmem.calls "$j")" 17
expect_eq "trace --lean: bytes exact" "$(jq -r .targets.shmem.histograms.bytes.sum "$j")" 1000000
expect_eq "trace --lean: request sizes kept" "$(jq -r .targets.shmem.histograms.req_bytes.sum "$j")" $((17 * 65536))
expect_eq "trace --lean: buf_align not measured, left out by --lean" \
	"$(jq -r '.targets.shmem.histograms.buf_align | "\(.measured) \(.why // .reason // "")"' "$j")" \
	"false left out by --lean"
expect_match "trace --lean: text report says so" "$(cat "$pf/out")" \
	'buf_align: not measured \(left out by --lean\)'
expect_match "trace --lean: OpenMetrics says so" "$(cat "$pf/lean.om")" \
	'^folioscope_measured\{target="shmem",histogram="buf_align",[^}]*reason="left out by --lean"\} 0$'
# The same reader without --lean measures buf_align.
trace_dd -j "$pf/full.json"
expect_eq "trace without --lean: buf_align measured, 17 values" \
	"$(jq -r '.targets.shmem.histograms.buf_align | "\(.measured) \(.count)"' "$pf/full.json")" "true 17"
rm -rf "$pf"
