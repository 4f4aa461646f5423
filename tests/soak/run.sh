#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make soak: guest kernels under attach and detach, counted. Boots each
# kernel RUNS times in turn (Debian's 6.1 and 6.12, and `make kernel`'s
# 6.1 test build when it is built), each boot running
# tests/soak/soak-guest.sh: CYCLES attach/trace/detach cycles per
# mechanism while a tmpfs pread loop and a FIDEDUPERANGE loop run. A
# boot whose kernel oopses, panics or locks up, or whose guest never
# reports, is a death; each is printed with the oops's first line and
# its console is kept.
#
#   tests/soak/run.sh [--runs N] [--cycles C] [--kernels "6.1 6.12 test"]
#                     [--out DIR] [-- VM-OPTIONS...]
#
# Prints one line per boot and a summary: "soak: N boots, D deaths".
# Exit 1 when any boot died.
set -uo pipefail
cd "$(dirname "$0")/../.."
RUNS=10 CYCLES=6 KERNELS="6.1 6.12 test" OUT=build/soak
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift ;;
	--cycles) CYCLES=$2; shift ;;
	--kernels) KERNELS=$2; shift ;;
	--out) OUT=$2; shift ;;
	--) shift; break ;;
	*) echo "soak: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
FS=${FS:-$PWD/build/folioscope}
T=$PWD/build/bench
for t in preadloop dedupeloop; do
	[ -x "$T/$t" ] || { echo "soak: no $T/$t (make bench-tools)" >&2; exit 2; }
done
mkdir -p "$OUT"
read -ra kernels <<<"$KERNELS"
boots=0 deaths=0
declare -A kboots=() kdeaths=()
for ((i = 1; i <= RUNS; i++)); do
	for k in "${kernels[@]}"; do
		kargs=(--debian "$k" --debuginfo)
		if [ "$k" = test ]; then
			bz=$(tests/kernels/build.sh -c 2>/dev/null) || {
				[ "$i" = 1 ] && echo "soak: no make kernel build; skipping 'test'" >&2
				continue
			}
			kargs=(--kernel "$bz" --debuginfo)
		fi
		log=$OUT/$k-$i.log
		t0=$SECONDS
		"$FS" vm -v "${kargs[@]}" --timeout 900 "$@" \
			--with "$T/preadloop" --with "$T/dedupeloop" \
			--exec tests/soak/soak-guest.sh -- "$T" "$CYCLES" "fentry kprobe inline" \
			>"$log.out" 2>"$log"
		rc=$?
		dt=$((SECONDS - t0))
		boots=$((boots + 1))
		kboots[$k]=$((${kboots[$k]:-0} + 1))
		oops=$(grep -a -m1 -E 'Kernel panic|BUG:|Oops:|general protection fault|soft lockup|hard LOCKUP|rcu_sched self-detected|rcu: INFO' "$log" | tr -d '\r')
		cycles=$(grep -c '^soak: cycle' "$log.out")
		failed=$(grep -c '^soak: cycle .* [1-9][0-9]*$' "$log.out")
		if [ -n "$oops" ] || ! grep -q '^soak: done' "$log.out"; then
			deaths=$((deaths + 1))
			kdeaths[$k]=$((${kdeaths[$k]:-0} + 1))
			echo "soak: $k boot $i: DIED after $cycles cycles, $dt s, vm exit $rc: ${oops:-no oops line; see $log}"
		else
			echo "soak: $k boot $i: ok, $cycles cycles ($failed failed), $dt s"
		fi
	done
done
for k in "${kernels[@]}"; do
	[ -n "${kboots[$k]:-}" ] && echo "soak: $k: ${kboots[$k]} boots, ${kdeaths[$k]:-0} deaths"
done
echo "soak: $boots boots, $deaths deaths"
[ "$deaths" -eq 0 ]
