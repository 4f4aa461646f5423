#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# End-to-end A/B of patched kernels (`make ab`): from the two seed patches
# in tests/kernels/patches to a verdict.
#
#   tests/ab/run.sh [--runs N] [--out DIR] [--size BYTES]
#
# 1. builds the base 6.1 test kernel and one kernel per patch (cached;
#    tests/kernels/build.sh), and checks that fentry and kprobe both attach
#    on the base kernel (doctor in the VM);
# 2. shmem: `run shmem-read --huge always --bs 64K` N times on the base and
#    the shmem-patched kernel, interleaved (base, new, base, new, ...) so
#    that drift of the host hits both sides alike, then `compare` pools the
#    runs and shows the run-to-run spread beside each change, with rules
#    that copy_bytes moved from 4 KiB pieces to 64 KiB reads;
# 3. dedupe: the validation matrix (`run dedupe --matrix` when this
#    folioscope has it, else the plain dedupe workload on btrfs and xfs) on
#    the base and the dedupe-patched kernel, interleaved likewise, with
#    each kernel's validation verdict and the compare.
# Each guest gets the vmlinux built with its bzImage (vm --debuginfo), so
# where a kernel inlines the compare the plan probes its inline site:
# dedupe.latency_ns is the compare's own, and caller_latency_ns its
# caller's in the same runs.
#
# Everything lands in DIR (default build/ab): JSON per run, VM logs, the
# compare outputs and summary.txt. Exit 0 when the shmem expectations hold
# and the base kernel validates; the dedupe patch's verdict is a finding,
# printed either way. Exit 2 when something could not be run at all.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
runs=3
out=build/ab
size=16M

die() {
	echo "ab: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--size) size=${2:-}; shift 2 ;;
	*) sed -n '5,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) die "--runs wants a positive number, got '$runs'" ;; esac
FS=${FS:-$repo/build/folioscope}
[ -x "$FS" ] || die "no $FS: run make first"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.json "$out"/*.log "$out"/*.txt
summary=$out/summary.txt
: >"$summary"

say() { echo "ab: $*" | tee -a "$summary"; }
start=$(date +%s)

# ---- kernels ----
kernel() {
	local name=$1 k
	shift
	k=$(tests/kernels/build.sh -n "$name" "$@" | tail -n 1) ||
		die "kernel $name failed to build"
	echo "$k"
}
k_base=$(kernel ab-base) || exit 2
k_shmem=$(kernel ab-shmem tests/kernels/patches/shmem-folio-read.patch) || exit 2
k_dedupe=$(kernel ab-dedupe tests/kernels/patches/dedupe-wordwise.patch) || exit 2
say "kernels: base $k_base; shmem $k_shmem; dedupe $k_dedupe ($(($(date +%s) - start)) s)"

# vm KERNEL LOG ARGS...: folioscope ARGS in a guest, from $out (so -j
# files land there), with the kernel's DWARF when its build left the
# vmlinux beside it. Returns folioscope's exit status.
vm() {
	local k=$1 log=$2 dbg=()
	shift 2
	[ -f "$(dirname "$k")/linux/vmlinux" ] && dbg=(--debuginfo)
	(cd "$out" && "$FS" vm --kernel "$k" "${dbg[@]}" -- "$@") >"$out/$log" 2>&1
}

# ---- attach check: fentry and kprobe both possible on the test kernel ----
vm "$k_base" doctor.log doctor --json
doc=$(sed -n '/^{/,/^}/p' "$out/doctor.log")
jq -e . >/dev/null 2>&1 <<<"$doc" || die "no doctor JSON from the base kernel, see $out/doctor.log"
for tgt in shmem dedupe; do
	say "doctor $tgt: auto = $(jq -r ".targets.$tgt.mechanism + \" \" + .targets.$tgt.chosen" <<<"$doc"); attachable: $(jq -r "[.targets.$tgt.steps[] | select(.available) | .mechanism + \" \" + .symbol] | join(\", \")" <<<"$doc")"
done
for m in fentry kprobe; do
	jq -e ".targets.shmem.steps[] | select(.mechanism==\"$m\" and .available)" >/dev/null <<<"$doc" ||
		die "$m does not attach to shmem_file_read_iter on the test kernel, see $out/doctor.log"
done

# run_pair TAG NEWKERNEL ARGS...: N interleaved runs of ARGS on base and
# new; JSON in TAG-base-I.json / TAG-new-I.json. A run that wrote no JSON
# is an error; a run that exits 1 (a validation failure) is a finding.
run_pair() {
	local tag=$1 knew=$2 i side k st
	shift 2
	for i in $(seq 1 "$runs"); do
		for side in base new; do
			k=$k_base
			[ $side = new ] && k=$knew
			vm "$k" "$tag-$side-$i.log" "$@" -j "$tag-$side-$i.json"
			st=$?
			if ! jq -e . "$out/$tag-$side-$i.json" >/dev/null 2>&1; then
				tail -n 5 "$out/$tag-$side-$i.log" >&2
				die "$tag $side run $i wrote no report (exit $st), see $out/$tag-$side-$i.log"
			fi
			echo "ab: $tag $side run $i/$runs: exit $st" >&2
		done
	done
}

# compare_pair TAG RULES...: compare all base runs with all new runs.
compare_pair() {
	local tag=$1 st
	shift
	"$FS" compare "$out/$tag"-base-*.json --vs "$out/$tag"-new-*.json "$@" \
		-o "$out/$tag-compare.html" >"$out/$tag-compare.txt" 2>&1
	st=$?
	cat "$out/$tag-compare.txt"
	return $st
}

# Validation verdict of one run: failures/checks, from the model's
# validation object when the report has it, else the workload's value.
verdict() {
	jq -r 'if .validation then "\(.validation.failures) failures in \(.validation.checks) checks"
	       else "\(.workload.validation_failures // "?") failures" end' "$1"
}

rc=0

# ---- shmem: folio-sized copies ----
echo "ab: shmem-read --huge always --bs 64K --size $size, $runs runs per kernel" >&2
run_pair shmem "$k_shmem" run shmem-read --huge always --bs 64K --size "$size"
compare_pair shmem \
	-e 'shmem.calls==base' -e 'shmem.bytes.sum==base' \
	-e 'shmem.folio_size.p50==2M' -e 'validation.failures==0' \
	-e 'shmem.copy_bytes.p50>=64K' -e 'shmem.copy_bytes.p50>=base*16'
st=$?
base_max=$(jq -s '[.[].targets.shmem.histograms.copy_bytes.buckets[] | select(.count>0) | .lo] | max' "$out"/shmem-base-*.json)
new_p=$(jq -rs '[.[].targets.shmem.histograms.copy_bytes.buckets[] | select(.count>0) | .lo] | unique | map(tostring) | join(",")' "$out"/shmem-new-*.json)
say "shmem: copy_bytes base max bucket $base_max B; patched buckets (lo) $new_p; compare exit $st"
[ "$base_max" = 4096 ] || { say "shmem: base kernel copied more than a page at a time"; rc=1; }
[ $st -eq 0 ] || rc=1
# The headline lines: copy sizes, then latency with its run-to-run noise.
key_lines() {
	sed -n "/^  $2 /,/^\$/p" "$1" | grep -E '^    (p50|max) |G-test|run to run'
}
{ echo "  shmem.copy_bytes:"; key_lines "$out/shmem-compare.txt" shmem.copy_bytes
  echo "  shmem.latency_ns (TCG: emulated time, not the host's):"
  key_lines "$out/shmem-compare.txt" shmem.latency_ns; } | tee -a "$summary"

# ---- dedupe: the validation matrix ----
# TAG=WORKLOAD ARGS, one per workload to run.
run_help=$("$FS" run --help 2>&1)
if grep -q -- '--matrix' <<<"$run_help"; then
	wl_list=("dedupe-matrix=dedupe --matrix")
else
	wl_list=("dedupe-btrfs=dedupe --fs btrfs --count 64 --range 128K"
		"dedupe-xfs=dedupe --fs xfs --count 64 --range 128K")
	say "dedupe: this folioscope has no --matrix; running the plain workload"
fi
for entry in "${wl_list[@]}"; do
	tag=${entry%%=*}
	wl=${entry#*=}
	echo "ab: $wl, $runs runs per kernel" >&2
	# shellcheck disable=SC2086
	run_pair "$tag" "$k_dedupe" run $wl
	for side in base new; do
		for j in "$out/$tag-$side"-*.json; do
			say "$tag $side ($([ $side = base ] && echo 6.1 || echo 6.1+dedupe-wordwise)) $(basename "$j"): $(verdict "$j")"
		done
	done
	# The first failing layouts of the patched kernel, if any.
	jq -r '.validation.cases[]? | "  \(.layout): expected \(.expected), got \(.got)"' \
		"$out/$tag-new-1.json" 2>/dev/null | head -n 5 | tee -a "$summary"
	# --force: a patched function may be inlined differently, which
	# changes the attach plan; the verdicts do not depend on it.
	compare_pair "$tag" --force -e 'validation.failures==0' -e 'dedupe.calls==base'
	say "$tag: compare exit $? (1 = a rule failed: see validation above)"
	for side in base new; do
		say "$tag $side attach: $(jq -r '.targets.dedupe.attach | "\(.mechanism) \(.symbol)"' "$out/$tag-$side-1.json")"
	done
	{ echo "  dedupe.latency_ns (TCG: emulated time, not the host's; at an inline site the compare's own):"
	  key_lines "$out/$tag-compare.txt" dedupe.latency_ns
	  echo "  dedupe.caller_latency_ns (the caller around an inline site, same calls):"
	  key_lines "$out/$tag-compare.txt" dedupe.caller_latency_ns; } | tee -a "$summary"
	for j in "$out/$tag-base"-*.json; do
		[ "$(verdict "$j" | cut -d' ' -f1)" = 0 ] || {
			say "$tag: the BASE kernel failed validation"; rc=1; }
	done
done

say "done in $(($(date +%s) - start)) s; outputs in $out"
exit $rc
