# Sequences of operations (sourced by tests/check.sh): run shmem-read
# --ops with a fixed seed passes, checks every read and reconciles; the
# same seed runs the same sequence, another seed another; and under a
# fake kernel bug (tests/host/progs/fakekernel.c: a truncate down inside
# a page that leaves the rest of the page as it was) the run fails with
# kind "data", shrinks the sequence to the few operations that show it,
# and the replay command fails the same way under the bug and passes
# without it. Run as root.
# shellcheck shell=bash

op=$(mktemp -d "${TMPDIR:-/tmp}/fs-ops.XXXXXX")
OP_BIN=$FS
OP_ENV=()
# op_run NAME ARGS...: folioscope run shmem-read ARGS, JSON in
# $op/NAME.json, stderr in $op/NAME.err, status in op_rc.
op_run() {
	local name=$1
	shift
	env "${OP_ENV[@]}" timeout 300 "$OP_BIN" run shmem-read "$@" \
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
	"$(jq -r '(.validation.checks > 1000) and (.targets.shmem.counters.calls == .workload.calls) and (.workload.calls > 300) and (.workload.bytes > 0)' "$op/seed1.json" 2>&1)" \
	true
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

dyn=$(dirname "$FS")/folioscope-dyn
if [ -n "${SAN:-}" ]; then
	skip "ops: shrinking a fake bug" "not with a sanitizer build (the LD_PRELOAD shim cannot come before ASan's runtime)"
elif [ ! -x "$dyn" ]; then
	skip "ops: shrinking a fake bug" "no $dyn (make build/folioscope-dyn): LD_PRELOAD needs the dynamic build"
elif ! ${CC:-cc} -O2 -Wall -shared -fPIC tests/host/progs/fakekernel.c \
	-o "$op/fakekernel.so" -ldl 2>"$op/cc.err"; then
	skip "ops: shrinking a fake bug" "cannot build the preload shim: $(head -1 "$op/cc.err")"
else
	OP_BIN=$dyn
	OP_ENV=(FS_FAKE_TRUNC=tail LD_PRELOAD="$op/fakekernel.so")
	op_run tail --ops 300 --seed 6
	expect_eq "ops tail: exit 1, failures of kind 'data' only, reconciled" \
		"$op_rc $(jq -r '"\(.validation.failures > 0) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile) \(.workload.ops_failed_at)"' "$op/tail.json" 2>&1)" \
		"1 true data ok 72"
	expect_match "ops tail: the failing operation, with the seed and its index" "$(cat "$op/tail.err")" \
		'^folioscope: run shmem-read: ops: seed 6: operation 72 FAILED \(data\): #72 read file 0 '
	replay=$(sed -nE 's/^folioscope: run shmem-read: ops: shrunk to ([0-9]+) operations in [0-9]+ trials; replay: folioscope run shmem-read (.*)$/\2/p' "$op/tail.err")
	nshrunk=$(sed -nE 's/^folioscope: run shmem-read: ops: shrunk to ([0-9]+) operations .*/\1/p' "$op/tail.err")
	# What shows the bug: data written, a truncate down into it, and
	# the file grown over it again (the read-back reads it).
	expect_eq "ops tail: shrunk to at most 4 operations, a truncate among them, each printed" \
		"$([ "${nshrunk:-99}" -le 4 ] && echo small) $(grep -c '^folioscope: run shmem-read: ops:   #[0-9]* truncate ' "$op/tail.err") $(grep -c '^folioscope: run shmem-read: ops:   #' "$op/tail.err")" \
		"small 1 $nshrunk"
	# shellcheck disable=SC2086 # the options, word by word
	op_run replay-tail $replay
	expect_eq "ops tail: the replay fails the same way, with the bug" \
		"$op_rc $(jq -r '"\([.validation.cases[].kind] | unique | join(",")) \(.workload.ops_run)"' "$op/replay-tail.json" 2>&1)" \
		"1 data $nshrunk"
	OP_ENV=()
	# shellcheck disable=SC2086
	op_run replay-nobug $replay
	expect_eq "ops tail: the replay passes without it" \
		"$op_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile)"' "$op/replay-nobug.json" 2>&1)" \
		"0 0 ok"
fi
rm -rf "$op"
