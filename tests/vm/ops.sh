# Sequences of operations at length (sourced by tests/check.sh; in `make
# check-vm-full` only): 2000 operations of shmem-read (seed 1) and of
# dedupe (seeds 1, 2, 3: xfs with 2048-, 4096- and 1024-byte blocks), all
# in one boot, each clean and reconciled; prints each run's operations
# per second in the guest (docs/benchmarks.md).
# shellcheck shell=bash
opsd=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmops.XXXXXX")
opsjobs=("shmem-read 1" "dedupe 1" "dedupe 2" "dedupe 3")
opsargs=()
for job in "${opsjobs[@]}"; do
	read -r wl seed <<<"$job"
	opsargs+=(run "$wl" --ops 2000 --seed "$seed" -j "$opsd/$wl-$seed.json" :::)
done
start=$SECONDS
vm_jobs "$opsd" "$LOGDIR/vm-ops.log" "$LOGDIR/vm-ops.err" 3600 "${opsargs[@]}"
echo "  sequences of operations: $((SECONDS - start)) s in the VM; logs $LOGDIR/vm-ops.log, $LOGDIR/vm-ops.err"
i=0
for job in "${opsjobs[@]}"; do
	read -r wl seed <<<"$job"
	j=$opsd/$wl-$seed.json
	expect_eq "vm ops $wl seed $seed: exit status" \
		"$(vm_job_rc "$LOGDIR/vm-ops.log" "$i")" 0
	i=$((i + 1))
	if ! jq -e .workload "$j" >/dev/null 2>&1; then
		bad "vm ops $wl seed $seed" "no JSON; see $LOGDIR/vm-ops.err"
		continue
	fi
	expect_eq "vm ops $wl seed $seed: 2000 operations, none failed, reconciled, kernel log clean" \
		"$(jq -r '"\(.workload.ops_run) \(.validation.failures) \(.workload.reconcile) \(.workload.kernel_log)"' "$j")" \
		"2000 0 ok clean"
	echo "  $wl seed $seed: $(jq -r '"\(.validation.checks) checks at \(.targets | to_entries[0].value.attach.mechanism) level, \(.workload.ops_ms) ms: \(2000000 / (.workload.ops_ms + 1) | floor) operations/s"' "$j")"
done
rm -rf "$opsd"
