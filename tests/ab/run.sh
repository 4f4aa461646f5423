#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# End-to-end A/B of patched kernels (`make ab`): from the two seed patches
# in tests/kernels/patches to a verdict.
#
#   tests/ab/run.sh [--series 6.1|6.12] [--runs N] [--out DIR] [--size BYTES]
#                   [--dd-files N]
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
# 4. dedupe: the validation matrix (`run dedupe --matrix` when this
#    folioscope has it, else the plain dedupe workload on btrfs and xfs) on
#    the base and the dedupe-patched kernel, interleaved likewise, with
#    each kernel's validation verdict and the compare; then duperemove in
#    the guest on both kernels (--dd-files files of 4 MiB, default 64, on
#    btrfs), its system time per run.
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
runs=3
out=
size=1G
series=6.1
dd_files=64

die() {
	echo "ab: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--size) size=${2:-}; shift 2 ;;
	--series) series=${2:-}; shift 2 ;;
	--dd-files) dd_files=${2:-}; shift 2 ;;
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

say() { echo "ab: $*" | tee -a "$summary"; }
start=$(date +%s)

# ---- kernels ----
kernel() {
	local name=$1 k
	shift
	k=$(tests/kernels/build.sh -s "$series" -n "$name$sfx" "$@" | tail -n 1) ||
		die "kernel $name$sfx failed to build"
	echo "$k"
}
k_base=$(kernel ab-base) || exit 2
k_shmem=$(kernel ab-shmem "${p_shmem[@]}") || exit 2
k_dedupe=$(kernel ab-dedupe "${p_dedupe[@]}") || exit 2
say "series $series; kernels: base $k_base; shmem $k_shmem; dedupe $k_dedupe ($(($(date +%s) - start)) s)"

# vm KERNEL LOG ARGS...: folioscope ARGS in a guest, from $out (so -j
# files land there), with the kernel's DWARF when its build left the
# vmlinux beside it. Returns folioscope's exit status.
vm() {
	local k=$1 log=$2 dbg=()
	shift 2
	[ -f "$(dirname "$k")/linux/vmlinux" ] && dbg=(--debuginfo)
	(cd "$out" && "$FS" vm --kernel "$k" --mem "$mem" --timeout 3600 "${dbg[@]}" -- "$@") \
		>"$out/$log" 2>&1
}

# peer KERNEL LOG ARGS...: tests/ab/peers-guest.sh ARGS in a guest, with
# fio and duperemove and their libraries.
peer() {
	local k=$1 log=$2
	shift 2
	(cd "$out" && "$FS" vm --kernel "$k" --mem "$mem" --timeout 3600 \
		--with "$(command -v fio)" --with "$(command -v duperemove)" \
		--exec "$repo/tests/ab/peers-guest.sh" -- "$@") >"$out/$log" 2>&1
}

# interleave NEWKERNEL STEP ARGS...: STEP SIDE I KERNEL ARGS... N times
# on each kernel in turn (base, new, base, new, ...), so that a host busy
# for a while slows both sides alike.
interleave() {
	local knew=$1 step=$2 i side k
	shift 2
	for i in $(seq 1 "$runs"); do
		for side in base new; do
			k=$k_base
			[ $side = new ] && k=$knew
			"$step" "$side" "$i" "$k" "$@"
		done
	done
}

# peer_step SIDE I KERNEL PEER DONE ARGS...: one boot of the peer, log
# PEER-SIDE-I.log; a boot whose log has no line matching DONE (its last
# result) is said with the guest's error.
peer_step() {
	local side=$1 i=$2 k=$3 what=$4 done=$5 log
	shift 5
	log=$out/$what-$side-$i.log
	peer "$k" "$(basename "$log")" "$what" "$@"
	grep -q "$done" "$log" ||
		say "$what $side run $i: $(grep -m1 '^== error' "$log" || tail -n 1 "$log")"
}

# peer_pair PEER NEWKERNEL DONE ARGS...: N interleaved boots of the peer.
peer_pair() {
	local what=$1 knew=$2
	shift 2
	interleave "$knew" peer_step "$what" "$@"
}

# spread NAME UNIT BASE NEW: one line from each side's values (one per
# line): its median (one slow run, common under TCG on a shared host,
# moves a mean of three a lot), its runs' range, the change of the
# medians, and whether the ranges are apart.
spread() {
	{ printf '%s\n' "$3" | grep .; echo --; printf '%s\n' "$4" | grep .; } |
		awk -v name="$1" -v unit="$2" '
		function median(side,   i, j, t, m, a) {
			m = n[side]
			for (i = 1; i <= m; i++) a[i] = v[side, i]
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		BEGIN { side = 0 }
		$0 == "--" { side = 1; next }
		{ x = $0 + 0; v[side, ++n[side]] = x
		  if (n[side] == 1 || x < lo[side]) lo[side] = x
		  if (n[side] == 1 || x > hi[side]) hi[side] = x }
		END {
			if (!n[0] || !n[1]) { printf "  %s: not measured\n", name; exit }
			b = median(0); w = median(1)
			sep = (hi[0] < lo[1] || hi[1] < lo[0]) ? "runs separate" : "runs overlap"
			printf "  %s: base median %.6g %s (%d runs, %.6g..%.6g), new median %.6g (%d runs, %.6g..%.6g), change %+.1f%%, %s\n",
				name, b, unit, n[0], lo[0], hi[0], w, n[1], lo[1], hi[1],
				b ? (w - b) * 100 / b : 0, sep
		}'
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

# run_step SIDE I KERNEL TAG ARGS...: one run of ARGS, JSON in
# TAG-SIDE-I.json. A run that wrote no JSON is an error; a run that exits
# 1 (a validation failure) is a finding.
run_step() {
	local side=$1 i=$2 k=$3 tag=$4 st
	shift 4
	vm "$k" "$tag-$side-$i.log" "$@" -j "$tag-$side-$i.json"
	st=$?
	if ! jq -e . "$out/$tag-$side-$i.json" >/dev/null 2>&1; then
		tail -n 5 "$out/$tag-$side-$i.log" >&2
		die "$tag $side run $i wrote no report (exit $st), see $out/$tag-$side-$i.log"
	fi
	echo "ab: $tag $side run $i/$runs: exit $st" >&2
}

# run_pair TAG NEWKERNEL ARGS...: N interleaved runs of ARGS on base and
# new.
run_pair() {
	local tag=$1 knew=$2
	shift 2
	interleave "$knew" run_step "$tag" "$@"
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
# validation object when the report has it, else the workload's value;
# then the failures the report lists (its first 64) by kind, a wrong
# answer by which way it went: a SAME for differing data is a range the
# kernel shared, the DIFFERS for identical data a missed one.
verdict() {
	jq -r 'def way: if .kind != "wrong answer" then .kind
			elif (.got | startswith("SAME")) then "differing data answered SAME"
			elif (.got | startswith("DIFFERS")) then "identical data answered DIFFERS"
			else .kind end;
	       if .validation then "\(.validation.failures) failures in \(.validation.checks) checks" +
			(if (.validation.cases // []) == [] then ""
			 else " (" + ([.validation.cases[] | way] | group_by(.) |
				map("\(length) \(.[0])") | join(", ")) +
				(if .validation.failures > (.validation.cases | length)
				 then ", of the first \(.validation.cases | length)" else "" end) + ")" end)
	       else "\(.workload.validation_failures // "?") failures" end' "$1"
}

rc=0

# The headline lines: copy sizes, then latency with its run-to-run noise.
key_lines() {
	sed -n "/^  $2 /,/^\$/p" "$1" | grep -E '^    (p50|max) |G-test|run to run|identical on both sides'
}

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

say "done in $(($(date +%s) - start)) s; outputs in $out"
exit $rc
