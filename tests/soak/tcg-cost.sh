#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What single-threaded TCG costs: the same VM commands under --accel tcg
# (the guest's vCPUs in one host thread) and tcg-multi (a thread each),
# interleaved, ROUNDS rounds; prints each command's median wall time per
# mode and their ratio. A run that fails (a guest death under tcg-multi)
# is counted and left out of the times.
#
#   tests/soak/tcg-cost.sh [ROUNDS] [--debian 6.1|6.12]
set -uo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
shift || true
FS=${FS:-$PWD/build/folioscope}
cmds=(
	"doctor"
	"run shmem-read --matrix"
	"run dedupe --matrix --fs xfs"
	"run shmem-read --ops 1000 --seed 1"
)
declare -A times=() fails=()
for ((r = 1; r <= ROUNDS; r++)); do
	for c in "${cmds[@]}"; do
		for mode in tcg tcg-multi; do
			t0=$(date +%s.%N)
			# shellcheck disable=SC2086 # the command's words
			if "$FS" vm --accel "$mode" "$@" -- $c >/dev/null 2>&1; then
				t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
				times["$c|$mode"]+="$t "
			else
				fails["$c|$mode"]=$((${fails["$c|$mode"]:-0} + 1))
			fi
		done
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }
printf '%-36s %10s %10s %7s\n' command tcg tcg-multi ratio
for c in "${cmds[@]}"; do
	s=$(median <<<"${times["$c|tcg"]:-}")
	m=$(median <<<"${times["$c|tcg-multi"]:-}")
	ratio=$(awk -v s="$s" -v m="$m" 'BEGIN { if (s + 0 > 0 && m + 0 > 0) printf "%.2f", s / m; else print "-" }')
	printf '%-36s %9ss %9ss %7s' "$c" "$s" "$m" "$ratio"
	[ -n "${fails["$c|tcg"]:-}${fails["$c|tcg-multi"]:-}" ] &&
		printf '  (failed runs: tcg %s, tcg-multi %s)' "${fails["$c|tcg"]:-0}" "${fails["$c|tcg-multi"]:-0}"
	echo
done
