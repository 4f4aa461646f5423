#!/bin/bash
# What the per-call event path costs when no event is selected: the
# syscall-level plan on this host, a 4 KiB pread loop on a warm tmpfs
# file, untraced and under `trace -t shmem` of a build without the event
# code (BASE) and of this one (NEW), without events and with a selection
# no call meets (--slower-than 1000s: the check runs, nothing is sent).
# Prints, per round and as medians, the ns each adds per call and the
# ratios NEW/BASE; and the programs' translated instruction counts
# (bpftool), which are equal when the verifier has removed the event
# branches. With OLD (another build with events) it runs too, in the
# same rounds, for the ratio NEW/OLD of a change to the event path.
# No thresholds: figures to read, not a test.
#   bench/events-cost.sh BASE_FOLIOSCOPE [ROUNDS] [OLD_FOLIOSCOPE]
set -u
base=$1 rounds=${2:-3} old=${3:-}
new=$PWD/build/folioscope
loop=$PWD/build/bench/preadloop
d=$(mktemp -d /dev/shm/evcost.XXXXXX)
trap 'rm -rf "$d"' EXIT

# p10 ns per call of one loop.
run_loop() { "$loop" -f "$d/f" -b 4096 -s 1M -n 100000 -k | sed -n 's/.*p10_ns_per_call=\([0-9.]*\).*/\1/p'; }
# trace_loop BIN ARGS...: the loop under BIN trace ARGS; its programs'
# xlated instruction counts into $d/insns.
trace_loop() {
	local bin=$1 tp ids
	shift
	"$bin" trace -t shmem -m syscall "$@" >"$d/out" 2>"$d/err" &
	tp=$!
	for _ in $(seq 300); do
		grep -q tracing "$d/err" 2>/dev/null && break
		sleep 0.1
	done
	ids=$(grep -h '^prog_id:' /proc/"$tp"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un)
	for i in $ids; do
		bpftool prog show id "$i" --json | jq -r '"\(.name)=\(.bytes_xlated / 8)"'
	done | sort | paste -sd' ' >"$d/insns"
	[ -s "$d/insns" ] || echo "events-cost: $bin trace $* not attached: $(head -c 300 "$d/err")" >&2
	run_loop
	kill -INT "$tp"
	wait "$tp"
}
run_loop >/dev/null
printf '%-5s %9s %9s %9s %9s %9s %8s %8s %8s\n' round untraced base old new new-sel new/base sel/base new/old
for r in $(seq "$rounds"); do
	u0=$(run_loop)
	b=$(trace_loop "$base"); bi=$(cat "$d/insns")
	o=0 oi=-
	if [ -n "$old" ]; then
		o=$(trace_loop "$old"); oi=$(cat "$d/insns")
	fi
	n=$(trace_loop "$new"); ni=$(cat "$d/insns")
	s=$(trace_loop "$new" --slower-than 1000s); si=$(cat "$d/insns")
	u1=$(run_loop)
	awk -v r="$r" -v u0="$u0" -v u1="$u1" -v b="$b" -v o="$o" -v n="$n" -v s="$s" 'BEGIN {
		u = (u0 + u1) / 2; ab = b - u; ao = o - u; an = n - u; as = s - u
		printf "%-5s %9.1f %9.1f %9.1f %9.1f %9.1f %8.3f %8.3f %8.3f\n", r, u, ab, o ? ao : 0, an, as, an / ab, as / ab, o ? an / ao : 0 }' |
		tee -a "$d/rows"
done
# med COLUMN: median [min, max] of a column of the rows.
med() {
	awk -v c="$1" '{ print $c }' "$d/rows" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.3f [%.3f, %.3f]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
echo "median added-ns ratio new/base, no events:            $(med 7)"
echo "median added-ns ratio new/base, --slower-than 1000s: $(med 8)"
[ -n "$old" ] && echo "median added-ns ratio new/old, no events:             $(med 9)"
echo "xlated insns base:         $bi"
[ -n "$old" ] && echo "xlated insns old:          $oi"
echo "xlated insns new:          $ni"
echo "xlated insns new selected: $si"
