# compare checks (sourced by tests/check.sh after the VM checks): two runs
# of the same workload on the same kernel (Debian's 6.1 cloud kernel,
# Debian's $FS_VM_DEBIAN, or $FS_VM_KERNEL) compared with --expect rules that must hold, one that must
# fail (the gate works), and the refusals. The full A/B of patched kernels
# is `make ab` (tests/ab/run.sh): too slow for every CI run.
# shellcheck shell=bash
cmpdir=$(mktemp -d "${TMPDIR:-/tmp}/fs-cmptest.XXXXXX")

for cmpside in base new; do
	(cd "$cmpdir" && "$FS" vm "${vmargs[@]}" -- run shmem-read --huge always \
		--size 4M --bs 64K -j "$cmpside.json") >"$LOGDIR/vm-compare-$cmpside.log" 2>&1
done
if ! jq -e . "$cmpdir/base.json" >/dev/null 2>&1 ||
	! jq -e . "$cmpdir/new.json" >/dev/null 2>&1; then
	bad "vm compare: two runs" "no JSON; see $LOGDIR/vm-compare-*.log"
else
	# Same kernel, same workload: these hold whatever the timing noise.
	"$FS" compare "$cmpdir/base.json" "$cmpdir/new.json" \
		-e 'shmem.calls==base' -e 'shmem.bytes.sum==base' \
		-e 'shmem.copy_bytes.count==base' \
		-e 'shmem.copy_bytes.max<=4K' -e 'shmem.folio_size.p50==2M' \
		-e 'validation.failures==0' -e 'shmem.latency_ns.count==base' \
		>"$LOGDIR/compare-hold.log" 2>&1
	expect_eq "compare: rules that hold exit 0" "$?" 0
	out_cmp=$(cat "$LOGDIR/compare-hold.log")
	expect_match "compare: side by side, with a test" "$out_cmp" \
		'copy_bytes .*|G-test|identical on both sides'
	expect_match "compare: all rules reported" "$out_cmp" '^7 of 7 rules hold$'

	# 6.1 copies a page at a time: the second seed's change is not here.
	"$FS" compare -q "$cmpdir/base.json" "$cmpdir/new.json" \
		-e 'shmem.calls==base' -e 'shmem.copy_bytes.p50>=64K' \
		>"$LOGDIR/compare-fail.log" 2>&1
	expect_eq "compare: a failing rule exits 1" "$?" 1
	expect_match "compare: the failing rule is named" \
		"$(cat "$LOGDIR/compare-fail.log")" \
		'FAIL +shmem.copy_bytes.p50>=64K: new 4096 >= 65536'

	# Different workload parameters or attach plans: refused, exit 2.
	jq '.workload.bs = 4096' "$cmpdir/new.json" >"$cmpdir/bs4k.json"
	expect_error "compare: refuses other workload parameters" 2 \
		'runs differ: workload bs=65536 .* but 4096' \
		"$FS" compare "$cmpdir/base.json" "$cmpdir/bs4k.json"
	jq '.targets.shmem.attach.mechanism = "kprobe"' "$cmpdir/new.json" \
		>"$cmpdir/kprobe.json"
	expect_error "compare: refuses another attach plan" 2 \
		'runs differ: shmem attached by fentry .* but kprobe' \
		"$FS" compare "$cmpdir/base.json" "$cmpdir/kprobe.json"
	"$FS" compare --force -q "$cmpdir/base.json" "$cmpdir/kprobe.json" \
		-e 'shmem.calls==base' >/dev/null 2>&1
	expect_eq "compare: --force compares anyway" "$?" 0
	# Not measured is never a zero: a rule on it has no value and fails.
	jq '.targets.shmem.histograms.latency_ns = {"unit": "ns", "kind": "log2", "measured": false, "why": "test"}' \
		"$cmpdir/new.json" >"$cmpdir/nolat.json"
	out_cmp=$("$FS" compare "$cmpdir/base.json" "$cmpdir/nolat.json" \
		-e 'shmem.latency_ns.count>=0' 2>&1)
	expect_eq "compare: rule on a not-measured histogram fails" "$?" 1
	expect_match "compare: not measured shown as such" "$out_cmp" \
		'not measured on new: test'
	expect_error "compare: malformed rule" 2 "bad rule 'shmem.calls=1'" \
		"$FS" compare "$cmpdir/base.json" "$cmpdir/new.json" \
		-e 'shmem.calls=1'
	expect_error "compare: unknown histogram" 2 "shmem has no histogram 'copy'" \
		"$FS" compare "$cmpdir/base.json" "$cmpdir/new.json" \
		-e 'shmem.copy.p50>1'
	expect_error "compare: unreadable report" 2 "cannot read" \
		"$FS" compare "$cmpdir/base.json" "$cmpdir/missing.json"
	# Repeated runs: pooled, with the run-to-run spread beside the change.
	out_cmp=$("$FS" compare "$cmpdir/base.json" "$cmpdir/new.json" --vs \
		"$cmpdir/new.json" "$cmpdir/base.json" -e 'shmem.calls==base' 2>&1)
	expect_match "compare --vs: spread of runs shown" "$out_cmp" \
		'runs: base \| new'
fi
rm -rf "$cmpdir"
