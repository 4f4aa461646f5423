# In-flight stores and --lean at the function level in the guest (6.1),
# sourced by tests/check.sh: the per-CPU slots are what every step uses
# there, task storage where their migration program cannot attach (a
# test hook makes the kernel refuse it); the slots, task storage (asked
# for) and the hash (forced, or after the refusal a test hook provokes)
# count exactly the same, folio sizes and copy chunks included (their
# sub-probes read the in-flight call too). --lean leaves out the
# sub-probes and buf_align (and, at fentry, where the exit alone counts a
# read, latency), says so, and still counts every byte.
# shellcheck shell=bash
pout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmstore-lean.XXXXXX")
pscript=$PWD/tests/vm/store-lean-guest.sh
pargs=()
pargs+=(-j doctor-default.json -j doctor-test-nocpu.json)
for store in cpu task hash test-refuse; do
	pargs+=(-j "doctor-$store.json")
	for m in fentry kprobe; do
		pargs+=(-j "sh-$m-$store.json" -j "dd-$m-$store.json")
	done
done
pargs+=(-j lean.json -j full.json)
if (cd "$pout" && "$FS" vm "${vmargs[@]}" --timeout 900 --exec "$pscript" \
	-- "${pargs[@]}") >"$LOGDIR/vm-store-lean.log" 2>&1; then
	ok "vm store-lean: guest runs"
else
	bad "vm store-lean: guest runs" "see $LOGDIR/vm-store-lean.log: $(tail -3 "$LOGDIR/vm-store-lean.log")"
fi
for store in default test-nocpu cpu task hash test-refuse; do
	case $store in
	default | cpu) want="per-CPU slots" ;;
	test-nocpu) want="task storage (per-CPU slots refused: attach sched_migrate_task failed: No such file or directory)" ;;
	task) want="task storage" ;;
	hash) want="hash (FOLIOSCOPE_INFLIGHT=hash)" ;;
	test-refuse) want="hash (task storage refused: load failed: Invalid argument)" ;;
	esac
	# Every step that attached, fentry, kprobe and syscall alike.
	expect_eq "vm doctor ($store): every attached step's in-flight store" \
		"$(jq -r '[.targets[].steps[] | select(.reason == "attached") | .inflight] | unique | join(",")' \
			"$pout/doctor-$store.json" 2>&1)" "$want"
done
# The store takes nothing away: the same steps attach with each.
psteps() { jq -r '[.targets[].steps[] | select(.reason == "attached") | "\(.mechanism) \(.symbol)"] | join(",")' "$1" 2>&1; }
for store in default test-nocpu cpu task test-refuse; do
	expect_eq "vm doctor ($store): the steps that attach with the hash attach" \
		"$(psteps "$pout/doctor-$store.json")" "$(psteps "$pout/doctor-hash.json")"
done
# counts FILE TARGET: everything but latency.
pcounts() { jq -S -c ".targets.$2 | {calls, errors, counters, h: (.histograms | del(.latency_ns))}" "$1" 2>&1; }
for m in fentry kprobe; do
	for w in sh dd; do
		tgt=$([ $w == dd ] && echo dedupe || echo shmem)
		for store in cpu task hash test-refuse; do
			j=$pout/$w-$m-$store.json
			expect_eq "vm $tgt -m $m (in-flight $store): reconciles, nothing dropped" \
				"$(jq -r ".workload.reconcile + \" \" + (.workload.validation_failures|tostring) + \" \" + (.targets.$tgt.counters.dropped|tostring) + \" \" + .targets.$tgt.attach.mechanism" "$j" 2>&1)" \
				"ok 0 0 $m"
		done
		expect_eq "vm $tgt -m $m: sub-probe measured with task storage" \
			"$(jq -r ".targets.$tgt.histograms.folio_size.measured" "$pout/$w-$m-task.json" 2>&1)" true
		for store in cpu hash test-refuse; do
			expect_eq "vm $tgt -m $m: $store counts = task storage counts" \
				"$(pcounts "$pout/$w-$m-$store.json" "$tgt")" "$(pcounts "$pout/$w-$m-task.json" "$tgt")"
		done
	done
done
# --lean: dd's 1000000 bytes plus < 4 KiB of exec's reads, both ways.
for v in lean full; do
	sum=$(jq -r .targets.shmem.histograms.bytes.sum "$pout/$v.json" 2>/dev/null)
	expect_eq "vm trace -m fentry ($v): dd's bytes" \
		"$([ -n "$sum" ] && [ "$sum" -ge 1000000 ] && [ "$sum" -lt 1004096 ] && echo yes || echo "no (${sum:-no JSON})")" yes
done
# At fentry the read's exit alone counts it: no latency either.
expect_eq "vm trace --lean: buf_align, the sub-probes' folio_size, copy_bytes, lookups_per_call and (exit alone) latency_ns left out" \
	"$(jq -r '[.targets.shmem.histograms | to_entries[] | select(.value.measured == false) | "\(.key): \(.value.why)"] | join("; ")' "$pout/lean.json" 2>&1)" \
	"buf_align: left out by --lean; folio_size: left out by --lean; copy_bytes: left out by --lean; latency_ns: left out by --lean: each call is counted at its exit alone, with no clock; lookups_per_call: left out by --lean"
expect_eq "vm trace without --lean: all measured" \
	"$(jq -r '[.targets.shmem.histograms[] | .measured] | all' "$pout/full.json" 2>&1)" true
expect_eq "vm trace --lean: same calls as without" \
	"$(jq -r .targets.shmem.calls "$pout/lean.json" 2>&1)" "$(jq -r .targets.shmem.calls "$pout/full.json" 2>&1)"
rm -rf "$pout"
