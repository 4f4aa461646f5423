# In-flight store and --lean on this host (sourced by tests/check.sh).
# Task local storage is the default; the hash (forced, or after a real
# refusal the test hook provokes) must count exactly the same. --lean
# leaves out histograms, says so in every report, and still counts calls
# and bytes exactly.
# shellcheck shell=bash
pf=$(mktemp -d /dev/shm/fs-store-lean.XXXXXX)

# doctor names the store of the step it would use.
for store in default hash test-refuse; do
	want="task storage"
	[ "$store" == hash ] && want="hash (FOLIOSCOPE_INFLIGHT=hash)"
	[ "$store" == test-refuse ] && want="hash (task storage refused: load failed: Invalid argument)"
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
	for store in task hash test-refuse; do
		# shellcheck disable=SC2086
		if ! FOLIOSCOPE_INFLIGHT=$store "$FS" run $wl -j "$pf/$name.$store.json" \
			>"$LOGDIR/store-lean-$name.$store.log" 2>&1; then
			bad "run $wl (in-flight $store)" "exit $?; see $LOGDIR/store-lean-$name.$store.log"
			continue
		fi
		j=$pf/$name.$store.json
		expect_eq "run $wl (in-flight $store): reconciles" \
			"$(jq -r '.workload.reconcile + " " + (.workload.validation_failures|tostring)' "$j")" "ok 0"
		expect_match "run $wl (in-flight $store): store in the reason" \
			"$(jq -r ".targets.$tgt.attach.reason" "$j")" \
			"in-flight calls: $([ $store == task ] && echo 'task storage$' || echo 'hash \(')"
		expect_eq "run $wl (in-flight $store): nothing dropped" \
			"$(jq -r ".targets.$tgt.counters.dropped" "$j")" 0
	done
	counts() { jq -S -c ".targets.$tgt | {calls, errors, counters, h: (.histograms | del(.latency_ns))}" "$1" 2>&1; }
	expect_eq "run $wl: hash counts = task storage counts" \
		"$(counts "$pf/$name.hash.json")" "$(counts "$pf/$name.task.json")"
	expect_eq "run $wl: after a refusal, hash counts = task storage counts" \
		"$(counts "$pf/$name.test-refuse.json")" "$(counts "$pf/$name.task.json")"
done

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
