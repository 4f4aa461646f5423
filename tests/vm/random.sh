# Random layouts at their largest number (sourced by tests/check.sh; in
# `make check-vm-full` only, about 15 minutes under TCG): every layout
# of seeds 1, 2 and 3 at N = 256, of both workloads, is set up in the
# default guest (2048 MB, its /tmp a tmpfs of half that) and passes.
# Each is set up only while it runs; all of a seed's dedupe layouts
# together would need about 14 GB. One boot runs them all.
# shellcheck shell=bash
rnd=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmrandom.XXXXXX")
rndargs=()
rndjobs=()
for seed in 1 2 3; do
	for wl in dedupe shmem-read; do
		rndjobs+=("$wl-$seed")
		rndargs+=(run "$wl" --random 256 --seed "$seed" -j "$rnd/$wl-$seed.json" :::)
	done
done
start=$SECONDS
vm_jobs "$rnd" "$LOGDIR/vm-random.log" "$LOGDIR/vm-random.err" 3600 "${rndargs[@]}"
echo "  random layouts: $((SECONDS - start)) s in the VM; logs $LOGDIR/vm-random.log, $LOGDIR/vm-random.err"
i=0
for job in "${rndjobs[@]}"; do
	j=$rnd/$job.json
	expect_eq "vm random $job: exit status" \
		"$(vm_job_rc "$LOGDIR/vm-random.log" "$i")" 0
	i=$((i + 1))
	if ! jq -e .workload "$j" >/dev/null 2>&1; then
		bad "vm random $job" "no JSON; see $LOGDIR/vm-random.err: $(grep -m1 'could not\|needs' "$LOGDIR/vm-random.err")"
		continue
	fi
	expect_eq "vm random $job: 256 layouts set up and run, none failed, reconciled" \
		"$(jq -r '"\(.workload.random_layouts) \(.workload.random_failed) \(.validation.failures) \(.workload.reconcile) \(.workload.kernel_log)"' "$j")" \
		"256 0 0 ok clean"
done
rm -rf "$rnd"
