#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench: the host part (syscall level, workloads vs peers), then the
# VM part (fentry and kprobe on each of Debian 12's cloud kernels, in
# qemu), then the aggregation into bench/results.json and a table.
#
#   bench/run.sh [--rounds N] [--vm-rounds N]
#                [--part host|vm|all|quick|breakdown|throughput]
#                [--vm-kernels "6.1 6.12"] [--out FILE] [--base FOLIOSCOPE]
#   (BENCH_BUDGET=SECONDS: the time budget, default 840 plus 420 per VM
#   kernel after the first)
#
# Defaults: 4 host rounds, 3 VM rounds per kernel (a TCG round costs ~2
# minutes, most of it bpftrace compiling its script), which keeps `make
# bench` under 15 minutes on a 2-core machine with one VM kernel, 22 with
# both. Debian's 6.1 records scope "vm", any other kernel K "vm-K".
# --part quick: the host's bystander rounds and its traced tmpfs preads
# against bpftrace's one-liner only, in a few minutes.
# --part breakdown: where a traced call's BPF time goes (measure.sh
# --breakdown) on the host and the VM kernels, into
# bench/results-breakdown.json; BREAKDOWN_HISTS=0 leaves out the
# histograms one by one in the VM (the host always has them).
# --part throughput: `run shmem-read --throughput` against fio
# (bench/throughput.sh) on the host and in a guest per VM kernel, into
# bench/results-throughput.json; --part all runs it too, in a boot of
# its own per kernel.
# Each VM gets its kernel's DWARF (vm --debuginfo: the -dbg package,
# fetched once), so the dedupe compare's inline-site kprobes are measured
# beside the caller's fentry and kprobe (measure.sh --inline);
# BENCH_INLINE=0 leaves them out. --base FOLIOSCOPE: another build (an
# older commit) measured beside this one as base-M, with what this build
# saves a call (measure.sh --base). BENCH_VARIANTS="V...": only those
# overhead variants in the VM (a partial run).
# The guests run under vm --accel tcg-icount: one vCPU whose clock
# counts the instructions it executes, so a guest's timings are the same
# on every run whatever the host's load, where under plain TCG they
# swing with it by more than a tracer adds. BENCH_ACCEL=tcg (or any vm
# --accel value) measures in wall time instead.
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=4 VM_ROUNDS= PART=all RESULTS=bench/results.json
VM_KERNELS="6.1 6.12" BASE=
ACCEL=${BENCH_ACCEL:-tcg-icount}
# The raw record types (bench/README.md): what is kept of a guest's output.
RECORDS='env|sample|baseline|ratio|part|floor|target|note'
declare -A VM_SCOPE=([6.1]=vm)
while [ $# -gt 0 ]; do
	case $1 in
	--vm-kernels) VM_KERNELS=$2; shift ;;
	--rounds) ROUNDS=$2; VM_ROUNDS=${VM_ROUNDS:-$2}; shift ;;
	--vm-rounds) VM_ROUNDS=$2; shift ;;
	--part) PART=$2; shift ;;
	--out) RESULTS=$2; shift ;;
	--base) BASE=$(realpath "$2") || exit 2; shift ;;
	*) echo "bench: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
VM_ROUNDS=${VM_ROUNDS:-3}
read -ra vm_kernels <<<"$VM_KERNELS"
[ "$PART" = host ] || [ "$PART" = quick ] && vm_kernels=()
# The quick tier's and the breakdown's figures go beside the full run's,
# not over them.
[ "$PART" = quick ] && [ "$RESULTS" = bench/results.json ] &&
	RESULTS=bench/results-quick.json
[ "$PART" = breakdown ] && [ "$RESULTS" = bench/results.json ] &&
	RESULTS=bench/results-breakdown.json
[ "$PART" = throughput ] && [ "$RESULTS" = bench/results.json ] &&
	RESULTS=bench/results-throughput.json
# run shmem-read --throughput against fio: alone (PART=throughput) or
# after each place's other parts (PART=all).
tput=
[ "$PART" = all ] || [ "$PART" = throughput ] && tput=1
# The whole run's time budget: `make bench` must end within 15 minutes
# with one VM kernel, 7 more per further kernel. Rounds that would not fit
# are not started (see measure.sh --budget).
BUDGET=${BENCH_BUDGET:-$(( 840 + 420 * (${#vm_kernels[@]} > 1 ? ${#vm_kernels[@]} - 1 : 0) ))}
B=$PWD/build/bench
if [ "$(id -u)" != 0 ]; then
	echo "bench: must run as root (loads BPF programs, mounts)" >&2
	exit 1
fi
for t in bpftrace fio duperemove mkfs.btrfs; do
	command -v "$t" >/dev/null || PATH=$PATH:/usr/sbin:/sbin
	command -v "$t" >/dev/null || {
		echo "bench: $t is missing (make deps)" >&2; exit 1; }
done
# A private copy: others may rebuild build/folioscope while we run. The
# breakdown runs the build whose programs read the bench's knobs
# (make bench-tools builds it beside the tools).
cp build/folioscope "$B/folioscope"
knobs=(--knobs "$B/folioscope-knobs")
base=()
if [ -n "$BASE" ]; then
	cp "$BASE" "$B/folioscope-base" || exit 2
	base=(--base "$B/folioscope-base")
fi
T0=$(date +%s)
raws=()

if [ "$PART" != vm ]; then
	echo "== bench: host ($(uname -r)), $ROUNDS rounds"
	HOST_PARTS="--scale --workloads --bystander"
	[ "$PART" = quick ] && HOST_PARTS=--only-bystander
	[ "$PART" = breakdown ] && HOST_PARTS=--breakdown
	tracefs=
	if [ "$PART" != throughput ]; then
		if [ ! -e /sys/kernel/tracing/events ]; then
			mount -t tracefs tracefs /sys/kernel/tracing && tracefs=1
		fi
		# Own mount namespace: our tmpfs and btrfs mounts stay out of other
		# users' /proc/mounts.
		unshare -m --propagation private bench/measure.sh --scope host \
			--rounds "$ROUNDS" --tools "$B" --fs "$B/folioscope" \
			--bt "$PWD/bench/bpftrace" --mechs syscall $HOST_PARTS "${base[@]}" "${knobs[@]}" \
			--budget $(( BUDGET / 8 )) \
			-o "$B/host.raw"
		st=$?
		[ -n "$tracefs" ] && umount /sys/kernel/tracing
		[ $st -eq 0 ] && raws+=("$B/host.raw") || echo "bench: host part failed ($st)" >&2
	fi
	if [ -n "$tput" ]; then
		rm -f "$B/host-tput.raw.tmp"
		unshare -m --propagation private bench/throughput.sh --scope host \
			--fs "$B/folioscope" --rounds "$ROUNDS" -o "$B/host-tput.raw.tmp" &&
			mv "$B/host-tput.raw.tmp" "$B/host-tput.raw" && raws+=("$B/host-tput.raw") ||
			echo "bench: host throughput part failed" >&2
	fi
	echo "   host part: $(( $(date +%s) - T0 )) s"
fi

nk=${#vm_kernels[@]}
for ((ki = 0; ki < nk; ki++)); do
	k=${vm_kernels[$ki]}
	scope=${VM_SCOPE[$k]:-vm-$k}
	if [ -n "$tput" ]; then
		echo "== bench: VM (Debian 12's $k cloud kernel, qemu), throughput, $VM_ROUNDS rounds"
		T1=$(date +%s)
		"$B/folioscope" vm --debian "$k" --accel "$ACCEL" --mem 2048 --timeout 1200 \
			--with "$(command -v fio)" --exec bench/throughput.sh -- \
			--scope "$scope" --fs /bin/folioscope --rounds "$VM_ROUNDS" -o - \
			>"$B/$scope-tput.raw" 2>"$B/$scope-tput.console"
		st=$?
		grep -E "^($RECORDS) " "$B/$scope-tput.raw" \
			>"$B/$scope-tput.raw.tmp" && mv "$B/$scope-tput.raw.tmp" "$B/$scope-tput.raw"
		if grep -q '^sample' "$B/$scope-tput.raw"; then
			raws+=("$B/$scope-tput.raw")
		else
			echo "bench: VM throughput part on $k failed ($st; $B/$scope-tput.console)" >&2
		fi
		echo "   VM throughput part on $k: $(( $(date +%s) - T1 )) s"
		[ "$PART" = throughput ] && continue
	fi
	T1=$(date +%s)
	# Each kernel gets an equal share of the budget left; the guest's
	# rounds must end 30 s before that share (teardown, and for the last
	# kernel aggregation); qemu is stopped 10 s after that at the latest.
	deadline=$(( T1 + (T0 + BUDGET - 30 - T1) / (nk - ki) ))
	left=$(( deadline - T1 + 10 ))
	[ $left -lt 120 ] && left=120
	echo "== bench: VM (Debian 12's $k cloud kernel, qemu), $VM_ROUNDS rounds"
	with=()
	for f in "$B"/preadloop "$B"/dedupeloop "$B"/sysloop "$B"/benchfloor "$B"/benchtool \
		 bench/bpftrace/*.bt "$(command -v bpftrace)"; do
		with+=(--with "$f")
	done
	with+=(--with "$PWD/bench/ftrace.sh")
	[ -n "$BASE" ] && with+=(--with "$B/folioscope-base")
	with+=(--with "$B/folioscope-knobs")
	dbg=() inl=() only=()
	if [ "${BENCH_INLINE:-1}" != 0 ]; then
		dbg=(--debuginfo)
		inl=(--inline)
	fi
	[ -n "${BENCH_VARIANTS:-}" ] && only=(--variants "$BENCH_VARIANTS")
	# Under tcg-icount a loop takes the same time on every run, so fewer
	# calls measure it as well, and more rounds fit the budget.
	calls=(--pread-calls 20000 --dedupe-calls 1500)
	[ "$ACCEL" = tcg-icount ] &&
		calls=(--pread-calls 10000 --dedupe-calls 500 --by-calls 20000)
	parts=(--scale --bystander)
	bd=--breakdown
	[ "${BREAKDOWN_HISTS:-1}" = 0 ] && bd=--breakdown-nohists
	[ "$PART" = breakdown ] && parts=("$bd")
	# The guest's kernel console (-v) and stderr go to $scope.console;
	# the bench's own progress lines also to the terminal.
	"$B/folioscope" vm -v --debian "$k" --accel "$ACCEL" "${dbg[@]}" --mem 3072 --timeout "$left" "${with[@]}" \
		--exec bench/measure.sh -- --scope "$scope" --rounds "$VM_ROUNDS" \
		--tools "$B" --fs /bin/folioscope --bt "$PWD/bench/bpftrace" \
		--mechs "fentry kprobe" "${inl[@]}" "${only[@]}" --combined "${parts[@]}" "${base[@]}" "${knobs[@]}" \
		"${calls[@]}" --deadline "$deadline" \
		-o - >"$B/$scope.raw" 2>"$B/$scope.console" &
	vm_pid=$!
	tail -n +1 -F --pid=$vm_pid "$B/$scope.console" 2>/dev/null |
		grep --line-buffered -E '^(bench|folioscope|benchfloor|libbpf)' >&2
	wait $vm_pid
	st=$?
	# Records only (the guest's stdout carries nothing else, but a stray
	# line must not cost the run); streamed before a failure: kept.
	grep -E "^($RECORDS) " "$B/$scope.raw" \
		>"$B/$scope.raw.tmp" && mv "$B/$scope.raw.tmp" "$B/$scope.raw"
	# A guest kernel that oopsed or panicked is part of the result: which
	# variant was running, and the first line of the report.
	oops=$(grep -a -m1 -E 'Kernel panic|BUG:|Oops:|general protection fault' "$B/$scope.console" | tr -d '\r')
	if [ -n "$oops" ]; then
		during=$(grep -a -E '^bench\[[^]]*\]:   [a-z0-9-]+: ' "$B/$scope.console" | tail -1 |
			sed -E 's/^bench\[[^]]*\]:   ([a-z0-9-]+):.*/\1/')
		echo "bench: the $k guest's kernel failed during ${during:-?}: $oops (console: $B/$scope.console)" >&2
		echo "note $scope the guest's kernel failed during ${during:-?}, the records after it are missing: ${oops#*] }" >>"$B/$scope.raw"
	fi
	[ $st -ne 0 ] && grep -q '^sample' "$B/$scope.raw" && st=0
	[ $st -eq 0 ] && raws+=("$B/$scope.raw") || echo "bench: VM part on $k failed ($st)" >&2
	echo "   VM part on $k: $(( $(date +%s) - T1 )) s"
done

[ ${#raws[@]} -gt 0 ] || exit 1
{
	echo "env run date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "env run total_s $(( $(date +%s) - T0 ))"
	echo "env run host_load $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$B/run.raw"
"$B/benchtool" agg -j "$RESULTS" "$B/run.raw" "${raws[@]}" || exit 1
"$B/benchtool" agg -m "$B/run.raw" "${raws[@]}" >"$B/table.md"
"$B/benchtool" agg -m -s "$B/run.raw" "${raws[@]}" >"$B/summary.md"
echo
echo "bench: $RESULTS written; Markdown tables in $B/table.md (all) and $B/summary.md; $(( $(date +%s) - T0 )) s in all"
