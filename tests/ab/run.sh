#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# End-to-end A/B of patched kernels (`make ab`): from the two seed patches
# in tests/kernels/patches to a verdict.
#
#   tests/ab/run.sh [--series 6.1|6.12] [--runs N] [--out DIR] [--size BYTES]
#                   [--dd-files N] [--validate-budget DURATION]
#
# 1. builds the base test kernel of the series and one kernel per seed
#    (cached; tests/kernels/build.sh): on 6.1 the tmpfs seed's port to
#    6.1's loop (patches/shmem-folio-read.patch), on 6.12 the series as
#    posted (patches/6.12/: shmem-ki-pos.patch, then shmem-folio-read.patch);
#    and checks that fentry and kprobe both attach on the base kernel
#    (doctor in the VM);
# 2. shmem: `run shmem-read --huge always --throughput` at --bs 64K and 4K
#    on a SIZE file (default 1G) N times on the base and the shmem-patched
#    kernel, interleaved (base, new, base, new, ...) so that drift of the
#    host hits both sides alike, then `compare` pools the runs and shows
#    the run-to-run spread beside each change (throughput too), with rules
#    that copy_bytes moved from 4 KiB pieces to 64 KiB reads at 64K and
#    that the data read back are right on both kernels;
# 3. fio in the guest on both kernels, interleaved likewise, at both block
#    sizes: its read throughput as a cross-check of run's;
# 4. dedupe: the validation matrix (`validate --only dedupe --tiers
#    matrix`) on the base and the dedupe-patched kernel, interleaved
#    likewise, with each kernel's validation verdict and the compare of
#    the matrices' histograms; then duperemove in the guest on both
#    kernels (--dd-files files of 4 MiB, default 64, on btrfs), its system
#    time per run;
# 5. `validate` (every tier of both workloads, --validate-budget each,
#    default 5m) once on each patched kernel and the base: each tier's
#    verdict side by side.
# Each guest gets the vmlinux built with its bzImage (vm --debuginfo), so
# where a kernel inlines the compare the plan probes its inline site:
# dedupe.latency_ns is the compare's own, and caller_latency_ns its
# caller's in the same runs.
#
# Throughput under TCG is the emulator's: see docs/ab.md for what it can
# and cannot show. Everything lands in DIR (default build/ab, build/ab-6.12
# for 6.12): JSON per run, VM logs, the compare outputs and summary.txt. Exit 0 when the shmem expectations hold
# and the base kernel validates; the dedupe patch's verdict is a finding,
# printed either way. Exit 2 when something could not be run at all.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
. tests/ab/lib.sh
runs=3
out=
size=1G
series=6.1
dd_files=64
vbudget=5m


while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--size) size=${2:-}; shift 2 ;;
	--series) series=${2:-}; shift 2 ;;
	--dd-files) dd_files=${2:-}; shift 2 ;;
	--validate-budget) vbudget=${2:-}; shift 2 ;;
	*) sed -n '5,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) die "--runs wants a positive number, got '$runs'" ;; esac
case $dd_files in '' | *[!0-9]* | 0 | 1) die "--dd-files wants 2 or more, got '$dd_files'" ;; esac
# Each series' seed patches, in the order they apply.
case $series in
6.1)
	p_shmem=(tests/kernels/patches/shmem-folio-read.patch)
	p_dedupe=(tests/kernels/patches/dedupe-wordwise.patch)
	sfx=
	;;
6.12)
	p_shmem=(tests/kernels/patches/6.12/shmem-ki-pos.patch
		tests/kernels/patches/6.12/shmem-folio-read.patch)
	p_dedupe=(tests/kernels/patches/6.12/dedupe-wordwise.patch)
	sfx=-6.12
	;;
*) die "--series wants 6.1 or 6.12, got '$series'" ;;
esac
[ -n "$out" ] || out=build/ab$sfx
# The size in bytes, for the guest's memory: the file, fio's file, the
# checked pass's buffers and the guest's own.
size_b=$(numfmt --from=iec "$size" 2>/dev/null) || die "--size '$size' is not a size"
mem=$((size_b * 2 / 1048576 + 1536))
for t in fio duperemove; do
	command -v "$t" >/dev/null || die "no $t on this host: apt-get install $t (or make deps)"
done
FS=${FS:-$repo/build/folioscope}
[ -x "$FS" ] || die "no $FS: run make first"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.json "$out"/*.log "$out"/*.txt
summary=$out/summary.txt
: >"$summary"
start=$(date +%s)

k_base=$(kernel ab-base) || exit 2
k_shmem=$(kernel ab-shmem "${p_shmem[@]}") || exit 2
k_dedupe=$(kernel ab-dedupe "${p_dedupe[@]}") || exit 2
say "series $series; kernels: base $k_base; shmem $k_shmem; dedupe $k_dedupe ($(($(date +%s) - start)) s)"

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

rc=0

# ---- shmem: folio-sized copies, and the throughput ----
# At 64K the seed copies a read in one piece where the base copies 16;
# at 4K both copy a page per read. Rules on what the histograms must show
# and on the data; the throughput is printed with its spread, not judged
# (TCG: see docs/ab.md).
for bs in 64K 4K; do
	tag=shmem-$bs
	echo "ab: shmem-read --huge always --bs $bs --size $size --throughput, $runs runs per kernel" >&2
	run_pair "$tag" "$k_shmem" run shmem-read --huge always --bs "$bs" --size "$size" --throughput
	rules=(-e 'shmem.calls==base' -e 'shmem.bytes.sum==base'
		-e 'shmem.folio_size.p50==2M' -e 'validation.failures==0')
	if [ "$bs" = 64K ]; then
		rules+=(-e 'shmem.copy_bytes.p50>=64K' -e 'shmem.copy_bytes.p50>=base*16')
	else
		rules+=(-e 'shmem.copy_bytes.p50==4K' -e 'shmem.copy_bytes.p50==base')
	fi
	compare_pair "$tag" "${rules[@]}"
	st=$?
	base_max=$(jq -s '[.[].targets.shmem.histograms.copy_bytes.buckets[] | select(.count>0) | .lo] | max' "$out/$tag"-base-*.json)
	new_p=$(jq -rs '[.[].targets.shmem.histograms.copy_bytes.buckets[] | select(.count>0) | .lo] | unique | map(tostring) | join(",")' "$out/$tag"-new-*.json)
	say "$tag: copy_bytes base max bucket $base_max B; patched buckets (lo) $new_p; compare exit $st"
	[ "$base_max" = 4096 ] || { say "$tag: base kernel copied more than a page at a time"; rc=1; }
	[ $st -eq 0 ] || rc=1
	for side in base new; do
		for j in "$out/$tag-$side"-*.json; do
			say "$tag $side $(basename "$j"): $(verdict "$j"); $(jq -r '.workload | "\(.mb_per_s) MB/s (passes \(.mb_per_s_min)..\(.mb_per_s_max)), \(.cpu_us_per_gib) us CPU/GiB"' "$j")"
		done
	done
	{ echo "  $tag shmem.copy_bytes:"; key_lines "$out/$tag-compare.txt" shmem.copy_bytes
	  echo "  $tag throughput (run --throughput, untraced passes; TCG):"
	  spread "run MB/s" MB/s "$(jq -r .workload.mb_per_s "$out/$tag"-base-*.json)" \
		"$(jq -r .workload.mb_per_s "$out/$tag"-new-*.json)"
	  spread "run CPU us/GiB" us "$(jq -r .workload.cpu_us_per_gib "$out/$tag"-base-*.json)" \
		"$(jq -r .workload.cpu_us_per_gib "$out/$tag"-new-*.json)"; } | tee -a "$summary"
done

# ---- fio in the guest: the same file size and block sizes ----
echo "ab: fio in the guest, $runs runs per kernel" >&2
peer_pair fio "$k_shmem" '^== fio bs=4k' "$size_b" 64k 4k
fio_bw() { # SIDE BS: bw_bytes / 1e6 of every run
	sed -n "s/^== fio bs=$2 bw_bytes=\([0-9]*\).*/\1/p" "$out"/fio-"$1"-*.log |
		awk '{ printf "%.0f\n", $1 / 1e6 }'
}
{ echo "  fio (psync, 3 loops, untraced; TCG):"
  for bs in 64k 4k; do
	spread "fio bs=$bs MB/s" MB/s "$(fio_bw base $bs)" "$(fio_bw new $bs)"
  done; } | tee -a "$summary"

# ---- dedupe: the validation matrix ----
# TAG=ARGS, one per validation to run.
wl_list=("dedupe-matrix=validate --only dedupe --tiers matrix --seed 1")
for entry in "${wl_list[@]}"; do
	tag=${entry%%=*}
	wl=${entry#*=}
	echo "ab: $wl, $runs runs per kernel" >&2
	# shellcheck disable=SC2086
	run_pair "$tag" "$k_dedupe" $wl
	for side in base new; do
		for j in "$out/$tag-$side"-*.json; do
			say "$tag $side ($([ $side = base ] && echo "$series" || echo "$series+dedupe-wordwise")) $(basename "$j"): $(verdict "$j")"
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

# ---- duperemove in the guest: the seed's own measure, system time ----
echo "ab: duperemove -d of $dd_files x 4 MiB identical files on btrfs, $runs runs per kernel" >&2
peer_pair duperemove "$k_dedupe" '^== duperemove ' "$dd_files" 4
dr_field() { # SIDE FIELD
	sed -n "s/^== duperemove .* $2=\([0-9.]*\).*/\1/p" "$out"/duperemove-"$1"-*.log
}
{ echo "  duperemove -d, $dd_files x 4 MiB on btrfs (busybox time: wait4's rusage; TCG):"
  for f in sys_s:system user_s:user real_s:wall; do
	spread "duperemove ${f#*:} time" s "$(dr_field base "${f%%:*}")" "$(dr_field new "${f%%:*}")"
  done; } |
	tee -a "$summary"

# ---- every tier on each kernel: one verdict each ----
for pk in shmem:"$k_shmem" dedupe:"$k_dedupe"; do
	validate_pair "validate-${pk%%:*}" "${pk#*:}" --seed 1 --budget "$vbudget"
	case $? in
	1) say "validate-${pk%%:*}: the BASE kernel failed validation"; rc=1 ;;
	2) rc=2 ;;
	esac
done

say "done in $(($(date +%s) - start)) s; outputs in $out"
exit $rc
