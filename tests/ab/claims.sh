#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The claim table of a patch to tmpfs reads, measured (`make ab SERIES=6.12
# PATCH=tests/kernels/patches/6.12/shmem-read-batch.patch`): the 2026
# folio-batching series' table (fio sequential reads, THP off and on, of a
# file written, fallocated and never written, and all hole, at 1M, 64k
# and 4k) A/B'd on the kernel the patch applies to and the patched one.
#
#   tests/ab/claims.sh --patch FILE [--series 6.12] [--runs N] [--size BYTES]
#                      [--out DIR] [--validate-budget DURATION] [--table-only]
#
# The base kernel is the series' test kernel with the tmpfs seed (the
# patch applies on top of it), the new one that and FILE. Per run and
# kernel, interleaved (base, new, base, ...): one boot runs the 18 cells
# as `run shmem-read --huge H --fill F --bs BS --size SIZE --throughput`
# (timed passes, then the checked and traced one: the data of every file
# state, and lookups_per_call), one boot fio on the same 18 (peers-guest
# fio-states). Then a line per cell: the series' own figure, run's and
# fio's change of the medians with the runs' spread (TCG: see docs/ab.md),
# the page-cache lookups per read call on each kernel, and the validation
# failures of each; and per cell `compare` with the rules that the reads
# returned the same and that every check passed. Last, `validate --only
# shmem` (every tier of tmpfs reads, --validate-budget, default 5m) once
# on each kernel, its tiers' verdicts side by side. Exit 0 when both
# kernels validate every cell and the base kernel every tier, 1 when one
# does not, 2 when something could not be run. Everything lands in DIR
# (default build/ab-claims-SERIES); --table-only runs nothing and prints
# the table again from the reports an earlier run left there.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
repo=$PWD
. tests/ab/lib.sh
runs=3
out=
size=128M
series=6.12
patch=
vbudget=5m
table_only=

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--size) size=${2:-}; shift 2 ;;
	--series) series=${2:-}; shift 2 ;;
	--patch) patch=${2:-}; shift 2 ;;
	--validate-budget) vbudget=${2:-}; shift 2 ;;
	--table-only) table_only=1; shift ;;
	*) sed -n '10,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) die "--runs wants a positive number, got '$runs'" ;; esac
[ -r "$patch" ] || die "--patch wants a patch file, got '$patch'"
case $series in
6.1) p_seed=(tests/kernels/patches/shmem-folio-read.patch) sfx= ;;
6.12)
	p_seed=(tests/kernels/patches/6.12/shmem-ki-pos.patch
		tests/kernels/patches/6.12/shmem-folio-read.patch)
	sfx=-6.12
	;;
*) die "--series wants 6.1 or 6.12, got '$series'" ;;
esac
[ -n "$out" ] || out=build/ab-claims$sfx
size_b=$(numfmt --from=iec "$size" 2>/dev/null) || die "--size '$size' is not a size"
mem=$((size_b * 2 / 1048576 + 1536))
command -v fio >/dev/null || die "no fio on this host: apt-get install fio (or make deps)"
FS=${FS:-$repo/build/folioscope}
[ -x "$FS" ] || die "no $FS: run make first"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
summary=$out/summary.txt
start=$(date +%s)
name=$(basename "$patch" .patch)
if [ -n "$table_only" ]; then
	summary=$out/table.txt
	: >"$summary"
else
	rm -f "$out"/*.json "$out"/*.log "$out"/*.txt
	: >"$summary"
	k_base=$(kernel ab-seed "${p_seed[@]}") || exit 2
	k_new=$(kernel "ab-$name" "${p_seed[@]}" "$patch") || exit 2
	say "series $series; base $k_base (the seed); new $k_new (+ $name) ($(($(date +%s) - start)) s)"
fi

# The table's rows and columns, and the series' own figures (v2's cover
# letter, fio --ioengine=sync --rw=read, 1 GiB, v7.1-rc5), in that order.
hugs=(never always)
fills=(full fallocated hole)
states=(written fallocated hole)
sizes=(1M 64K 4K)
claim=(+10.4 +11.8 +0.6 +20.2 +21.3 +0.5 +18.2 +22.1 -3.5
	+1.4 0.0 +0.7 +37.3 +36.5 -1.2 +42.0 +32.3 -0.9)

# cells_step SIDE I KERNEL: the 18 cells in one boot, JSON per cell.
# shellcheck disable=SC2317 # called by interleave
cells_step() {
	local side=$1 i=$2 k=$3 h f bs args=() c=0
	for h in "${hugs[@]}"; do
		for f in "${fills[@]}"; do
			for bs in "${sizes[@]}"; do
				args+=(run shmem-read --huge "$h" --fill "$f" --bs "$bs"
					--size "$size" --throughput -q
					-j "cell-$h-$f-$bs-$side-$i.json" :::)
				c=$((c + 1))
			done
		done
	done
	(cd "$out" && "$FS" vm --kernel "$k" --mem "$mem" --timeout 7200 \
		--exec "$repo/tests/vm/jobs-guest.sh" -- "${args[@]}") \
		>"$out/cells-$side-$i.log" 2>"$out/cells-$side-$i.err"
	echo "ab: cells $side run $i/$runs: $(grep -c '^== job [0-9]* exit 0' "$out/cells-$side-$i.log") of $c exit 0" >&2
}

sizes_fio=(1m 64k 4k)
if [ -z "$table_only" ]; then
	echo "ab: 18 cells of run shmem-read --throughput at $size, $runs runs per kernel" >&2
	interleave "$k_new" cells_step
	echo "ab: fio in the guest on the same 18 cells, $runs runs per kernel" >&2
	peer_pair fio-states "$k_new" '^== fio huge=always state=hole bs=4k' "$size_b" "${sizes_fio[@]}"
fi

# fio_cell SIDE HUGE STATE BS: MB/s of every run.
fio_cell() {
	sed -n "s/^== fio huge=$2 state=$3 bs=$4 bw_bytes=\([0-9]*\).*/\1/p" \
		"$out"/fio-states-"$1"-*.log 2>/dev/null | awk '{ printf "%.0f\n", $1 / 1e6 }'
}

# brief: spread's line as "B (lo..hi) -> N (lo..hi) UNIT, change, runs ...".
brief() {
	sed -n 's/^  [^:]*: base median \([^ ]*\) \([^ ]*\) ([0-9]* runs, \([^)]*\)), new median \([^ ]*\) ([0-9]* runs, \([^)]*\)), change \(.*\)/\1 (\3) -> \4 (\5) \2, \6/p'
}

# mean_of HIST FILES...: the mean of shmem histogram HIST over the
# checked passes of every run (lookups_per_call: page-cache lookups per
# read call; copy_bytes: bytes per copy to user space).
mean_of() {
	local h=$1
	shift
	jq -rs --arg h "$h" '([.[].targets.shmem.counters.batch_copy_bytes // 0] | add) as $b |
	       [.[].targets.shmem.histograms[$h] | select(.measured)] |
	       if length == 0 then "not measured"
	       elif (map(.count) | add) == 0 and $h == "copy_bytes" and $b > 0 then "after batches"
	       elif (map(.count) | add) == 0 then "none"
	       else (map(.sum) | add) / (map(.count) | add) | . * 10 | round / 10 end' "$@"
}

rc=0
{ echo
  echo "claim table of $name on $series (base: the seed), $runs runs per kernel, $size files:"
  echo "  cell: series' fio figure | run --throughput, median (runs' range) base -> new | fio, the same | lookups per read call base -> new | bytes per copy base -> new | validation failures base / new"; } |
	tee -a "$summary"
c=0
for h in "${hugs[@]}"; do
	for sx in 0 1 2; do
		f=${fills[$sx]}
		for si in 0 1 2; do
			bs=${sizes[$si]}
			cell=cell-$h-$f-$bs
			bj=("$out/$cell"-base-*.json)
			nj=("$out/$cell"-new-*.json)
			if ! jq -e .workload "${bj[@]}" "${nj[@]}" >/dev/null 2>&1; then
				say "$cell: a run wrote no report; see $out/cells-*.log"
				rc=2
				c=$((c + 1))
				continue
			fi
			fb=0
			fn=0
			for j in "${bj[@]}"; do fb=$((fb + $(jq .validation.failures "$j"))); done
			for j in "${nj[@]}"; do fn=$((fn + $(jq .validation.failures "$j"))); done
			[ $fb -eq 0 ] && [ $fn -eq 0 ] || rc=1
			runl=$(spread run MB/s "$(jq -r .workload.mb_per_s "${bj[@]}")" \
				"$(jq -r .workload.mb_per_s "${nj[@]}")" | brief)
			fiol=$(spread fio MB/s "$(fio_cell base "$h" "${states[$sx]}" "${sizes_fio[$si]}")" \
				"$(fio_cell new "$h" "${states[$sx]}" "${sizes_fio[$si]}")" | brief)
			echo "  THP $([ "$h" = always ] && echo on || echo off) ${states[$sx]} $bs: ${claim[$c]}% | ${runl:-not measured} | ${fiol:-not measured} | $(mean_of lookups_per_call "${bj[@]}") -> $(mean_of lookups_per_call "${nj[@]}") | $(mean_of copy_bytes "${bj[@]}") -> $(mean_of copy_bytes "${nj[@]}") | $fb / $fn" |
				tee -a "$summary"
			# The mechanism: where a read meets several 4 KiB folios
			# that are in the page cache (written or fallocated, THP
			# off, reads of 64K and more), one batch looks up what
			# took a lookup per folio.
			mech=()
			[ "$h" != never ] || [ "$f" == hole ] || [ "$bs" == 4K ] ||
				mech=(-e 'shmem.lookups_per_call.mean<base*0.25')
			"$FS" compare "${bj[@]}" --vs "${nj[@]}" --force \
				-e 'shmem.calls==base' -e 'shmem.bytes.sum==base' \
				-e 'validation.failures==0' "${mech[@]}" \
				>"$out/$cell-compare.txt" 2>&1 ||
				{ say "$cell: compare's rules do not hold, see $out/$cell-compare.txt"; rc=1; }
			c=$((c + 1))
		done
	done
done
if [ -n "$table_only" ]; then
	for side in base new; do
		if jq -e .validation "$out/validate-$side.json" >/dev/null 2>&1; then
			say "validate $side: $(tail -n 1 "$out/validate-$side.log")"
		else
			say "validate $side: no report"
			rc=2
		fi
	done
	sed -n '/^  tier /,/^$/p' "$out/validate-compare.txt" 2>/dev/null | tee -a "$summary"
	[ "$(jq -r '.validation.failures // 1' "$out/validate-base.json" 2>/dev/null)" = 0 ] || rc=1
else
	validate_pair validate "$k_new" --only shmem --seed 1 --budget "$vbudget"
	case $? in
	1) say "validate: the BASE kernel failed validation"; rc=1 ;;
	2) rc=2 ;;
	esac
fi
# The patched kernel's verdict: a finding of its own.
[ "$(jq -r '.validation.failures // 1' "$out/validate-new.json" 2>/dev/null)" = 0 ] || rc=1
say "done in $(($(date +%s) - start)) s; outputs in $out"
exit $rc
