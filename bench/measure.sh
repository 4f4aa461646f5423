#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The measuring half of `make bench`: runs where the kernel under test
# is, on the host (bash or dash) or in the guest (busybox sh, started by
# `folioscope vm --exec`), and appends raw records (bench/README.md) to
# the -o file. bench/run.sh drives it and aggregates.
#
#   measure.sh --scope host|vm --rounds N --tools DIR --fs FOLIOSCOPE
#              --bt DIR --mechs "fentry kprobe" [--combined] [--workloads]
#              [--scale] [--pread-calls N] [--dedupe-calls N] [--by-calls N]
#              [--budget S]
#              [--deadline EPOCH] [--bystander] [--only-bystander]
#              [--inline] [--variants "V..."]
#              [--breakdown|--breakdown-nohists] [--base FOLIOSCOPE]
#              [--profile MARK]
#              -o RAW|-
#
# --budget S: seconds for the overhead rounds; --deadline EPOCH: the
# rounds must end by then, in the host's time (wall, below). No round is
# started that would not end in time (judged by 1.3x the longest round
# so far), so a loaded machine gets fewer rounds rather than a run over
# time. Scale runs come first: they are short.
#
# --bystander: also the bystander rounds (what a running tracer costs
# syscalls it does not measure: getppid, 4 KiB preads of /dev/zero; and,
# with two CPUs, migrations between them);
# --only-bystander: those rounds and the traced tmpfs preads against
# bpftrace's one-liner only, the quick tier (make bench PART=quick).
#
# --inline: the kernel's DWARF is at the distribution path (vm
# --debuginfo), so folioscope-inline (trace -m kprobe, which probes the
# compare's inline site first) is measured too; every other folioscope
# run excludes that step (FOLIOSCOPE_EXCLUDE=kprobe-inline) and attaches
# as without DWARF. --variants: only these of the overhead variants (for
# a partial run; the aggregation takes what is there).
#
# --breakdown: also folioscope with one part of its work left out at a
# time (FOLIOSCOPE_COST_DROP: folioscope-dropPART-M, PART one of file,
# inflight, time, folio, hists, hist.NAME), each with a "part" record:
# cost_bpf_ns and cost_added_ns, the bench's build with nothing left out
# (folioscope-knobs-M) minus the variant, per round: what that part costs
# a call. Those runs take --knobs FOLIOSCOPE-KNOBS, the build whose
# programs read the knobs (a trace's build leaves them out); what reading
# them costs is knobs_bpf_ns and knobs_added_ns, folioscope-knobs-M minus
# folioscope-M.
#
# --base FOLIOSCOPE: another build of folioscope (an older commit), run
# as base-M beside folioscope-M on the traced tmpfs preads and dedupes
# (and the quick tier's preads), each with a "part" record: saved_bpf_ns
# and saved_added_ns, the base's figure minus folioscope's, per round:
# what a change saved a call, measured in one run.
#
# --profile MARK: instead of the rounds, one window per variant and target
# for bench/profile.sh: the loop between two runs of MARK, which the
# qemu plugin that counts the guest's instructions (bench/profile/
# insncount.c) takes as a snapshot of its counts. After each window,
# "profwin" names it, and "profsym" and "profjit" records (bench/profile/
# jitlines.c) hold the BPF programs it ran, while they are loaded; last,
# "profksym" records hold the kernel's text symbols.
#
# --combined: one tracer start per round serves both loops (function
# level: the dedupe probes never fire during preads, nor the reverse);
# without it each target gets its own start, as the syscall level needs
# (both targets' programs run on every syscall).
set -u
SCOPE=host ROUNDS=5 TOOLS= FS= BT= MECHS=syscall COMBINED=0 WORKLOADS=0
SCALE=0 OUT= BUDGET=0 DEADLINE=0 BYSTANDER=0 ONLY_BYSTANDER=0
INLINE=0 ONLY_VARIANTS= BREAKDOWN=0 BREAKDOWN_HISTS=1 BASE_FS= KNOBS_FS=
PROFILE=
PREAD_CALLS=${PREAD_CALLS:-40000}
DEDUPE_CALLS=${DEDUPE_CALLS:-2000}
BY_CALLS=${BY_CALLS:-200000}
while [ $# -gt 0 ]; do
	case $1 in
	--scope) SCOPE=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--tools) TOOLS=$2; shift ;;
	--fs) FS=$2; shift ;;
	--bt) BT=$2; shift ;;
	--mechs) MECHS=$2; shift ;;
	--combined) COMBINED=1 ;;
	--workloads) WORKLOADS=1 ;;
	--scale) SCALE=1 ;;
	--bystander) BYSTANDER=1 ;;
	--only-bystander) BYSTANDER=1 ONLY_BYSTANDER=1 ;;
	--inline) INLINE=1 ;;
	--variants) ONLY_VARIANTS=$2; shift ;;
	--breakdown) BREAKDOWN=1 ;;
	--breakdown-nohists) BREAKDOWN=1 BREAKDOWN_HISTS=0 ;;
	--base) BASE_FS=$2; shift ;;
	--knobs) KNOBS_FS=$2; shift ;;
	--profile) PROFILE=$2; shift ;;
	--budget) BUDGET=$2; shift ;;
	--deadline) DEADLINE=$2; shift ;;
	--pread-calls) PREAD_CALLS=$2; shift ;;
	--dedupe-calls) DEDUPE_CALLS=$2; shift ;;
	--by-calls) BY_CALLS=$2; shift ;;
	-o) OUT=$2; shift ;;
	*) echo "measure.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$OUT" ] && [ -n "$TOOLS" ] && [ -n "$FS" ] && [ -n "$BT" ] || {
	echo "measure.sh: need -o, --tools, --fs, --bt" >&2; exit 2; }
[ "$BREAKDOWN" = 0 ] || [ -n "$KNOBS_FS" ] || {
	echo "measure.sh: --breakdown needs --knobs" >&2; exit 2; }
# -o -: records on stdout (the VM streams it to the host as it comes, so
# a guest that runs out of time still hands over what it measured).
# (No /dev/stdout in the guest: devtmpfs has no such link.)
[ "$OUT" = - ] || : >"$OUT"
BTOOL=$TOOLS/benchtool
# The ftrace variants' script, beside the .bt directory (bench/ftrace.sh).
FTRACE=${BT%/*}/ftrace.sh

say() { echo "bench[$SCOPE]: $*" >&2; }
# wall: the host's time in seconds, for the deadline. A guest whose clock
# counts instructions (vm --accel tcg-icount) keeps its own time, which
# runs apart from the host's; a guest's RTC is the host's clock (qemu's
# default), read afresh on every read of since_epoch.
wall() {
	[ -n "${FOLIOSCOPE_VM_ACCEL:-}" ] &&
		cat /sys/class/rtc/rtc0/since_epoch 2>/dev/null || date +%s
}
rec() { if [ "$OUT" = - ]; then echo "$*"; else echo "$*" >>"$OUT"; fi; }
now() { "$BTOOL" now; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'; }
# kv KEY "a=1 b=2": the value of KEY in a line of key=value pairs.
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

W=$(mktemp -d /tmp/fsbench.XXXXXX)
TRACER=
LOOPDEV=
cleanup() {
	[ -n "$TRACER" ] && kill -KILL "$TRACER" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null
	umount "$W/btrfs" 2>/dev/null
	umount "$W/tmpfs" 2>/dev/null
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	[ -e "$FTRACE" ] && sh "$FTRACE" teardown
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$W/tmpfs" "$W/btrfs"
mount -t tmpfs -o size=256m fsbench "$W/tmpfs" || exit 1
truncate -s 256M "$W/btrfs.img"
mkfs.btrfs -q -f "$W/btrfs.img" >/dev/null 2>&1 || { say "mkfs.btrfs failed"; exit 1; }
LOOPDEV=$(losetup -f) && losetup "$LOOPDEV" "$W/btrfs.img" || exit 1
mount -t btrfs "$LOOPDEV" "$W/btrfs" || exit 1
PFILE=$W/tmpfs/pread.dat
"$TOOLS/dedupeloop" -d "$W/btrfs" -k -n 64 >/dev/null || { say "dedupeloop failed"; exit 1; }

# ---- environment ----
rec "env $SCOPE where $SCOPE"
rec "env $SCOPE kernel $(uname -r)"
rec "env $SCOPE cpus $(grep -c ^processor /proc/cpuinfo)"
rec "env $SCOPE cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
rec "env $SCOPE date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
rec "env $SCOPE rounds $ROUNDS"
# How a guest ran (vm puts it in the guest's environment): under
# tcg-icount its times are instruction counts, 8 ns each.
[ -n "${FOLIOSCOPE_VM_ACCEL:-}" ] && rec "env $SCOPE accel $FOLIOSCOPE_VM_ACCEL"
rec "env $SCOPE pread_calls $PREAD_CALLS"
rec "env $SCOPE dedupe_calls $DEDUPE_CALLS"
rec "env $SCOPE bystander_calls $BY_CALLS"
command -v bpftrace >/dev/null && rec "env $SCOPE bpftrace $(bpftrace --version 2>/dev/null)"

# Attach symbol per mechanism and target: what folioscope itself picks,
# from a 1-second trace per mechanism (slow under TCG: once).
# With --inline the DWARF would make kprobe's plan the inline site: the
# floors are on what folioscope attaches without it.
NOINLINE=${FOLIOSCOPE_EXCLUDE:-}
[ "$INLINE" = 1 ] && NOINLINE=${NOINLINE:+$NOINLINE,}kprobe-inline
PLAN_MECHS=$MECHS
[ "$INLINE" = 1 ] && PLAN_MECHS="$MECHS inline"
for m in $PLAN_MECHS; do
	if [ "$m" = inline ]; then
		"$FS" trace -t all -m kprobe -d 1 -j "$W/plan.$m.json" >/dev/null 2>&1
	else
		FOLIOSCOPE_EXCLUDE=$NOINLINE \
			"$FS" trace -t all -m "$m" -d 1 -j "$W/plan.$m.json" >/dev/null 2>&1
	fi
	for t in dedupe shmem; do
		rec "env $SCOPE plan_${m}_$t $(awk -v t="\"$t\":" '$1 == t { on = 1 }
			on && /"reason"/ { sub(/^ *"reason": */, ""); print; exit }' \
			"$W/plan.$m.json")"
	done
done
sym() { # sym MECH TARGET: from a 1-second trace's report
	awk -v t="\"$2\":" '$1 == t { on = 1 }
		on && /"symbol"/ { gsub(/[",]/, "", $2); print $2; exit }' \
		"$W/plan.$1.json"
}

# Every probe folioscope attaches for TARGET with MECH, as benchfloor
# arguments: the main pair, and the sub-probe (folio lookups or reads
# inside a call) on its function, "kprobe:FUNC" where folioscope fell
# back to kprobe for it (its report's reason says "FUNC via kprobe"),
# "exit:FUNC" where its sub-probe is an exit alone (src/probe/target.c's
# sub sets: dedupe's folio reads with either mechanism, shmem's lookups
# at fentry, whose fexit has the arguments too).
all_probes() { # all_probes MECH TARGET
	local sub via c
	case $2 in
	shmem) c="shmem_get_folio_gfp shmem_getpage_gfp shmem_get_folio shmem_getpage" ;;
	dedupe) c="read_cache_folio read_cache_page" ;;
	esac
	via=$(awk -v t="\"$2\":" '$1 == t { on = 1 }
		on && /"reason"/ { print; exit }' "$W/plan.$1.json" |
		sed -n 's/.*; \([a-z_0-9]*\) via \([a-z]*\) (.*/\2:\1/p')
	if [ -z "$via" ]; then
		for sub in $c; do
			grep -q " $sub\$" /proc/kallsyms && { via=$sub; break; }
		done
		case $2/$1 in
		dedupe/* | shmem/fentry) [ -n "$via" ] && via=exit:$via ;;
		esac
	fi
	case $2/$via in
	dedupe/kprobe:*) via=kprobe:exit:${via#kprobe:} ;;
	esac
	echo "$(sym "$1" "$2") $via"
}

# ---- one tracer variant ----
# start_tracer VARIANT TARGET: starts it in the background, waits until
# attached; sets TRACER and STARTUP (seconds). Returns 1 if it failed.
# folioscope-lean-M is folioscope with --lean on mechanism M.
start_tracer() {
	local variant=$1 target=$2 tool=${1%%-*} mech=${1#*-} bm funcs ready t0 fs
	local log=$W/tracer.log lean= by= exclude=$NOINLINE drop= knobs= store=
	: >"$log"
	# A part of the work left out (--breakdown): hist.NAME is hist=NAME;
	# by the build that reads the knobs, as is knobs-M, nothing left out.
	case $mech in
	drop*-*) drop=${mech%%-*} mech=${mech#*-} knobs=1
		drop=$(echo "${drop#drop}" | tr . =) ;;
	knobs-*) mech=${mech#knobs-} knobs=1 ;;
	esac
	case $mech in
	# The compare's inline site: kprobe's plan with the DWARF in reach.
	inline) exclude=${FOLIOSCOPE_EXCLUDE:-} mech=kprobe ;;
	lean-*) lean=--lean mech=${mech#lean-} ;;
	bycg-*) by=cgroup mech=${mech#bycg-} ;;
	# In-flight calls in task storage instead of the per-CPU slots,
	# whose migration program runs on every migration of every task.
	task-*) store=task mech=${mech#task-} ;;
	# The syscall level on the raw sys_enter/sys_exit tracepoints, the
	# fallback for kernels without per-syscall ones.
	raw-*) exclude=syscalls mech=${mech#raw-} ;;
	esac
	t0=$(now)
	case $tool in
	folioscope|base)
		fs=$FS
		[ "$tool" = base ] && fs=$BASE_FS
		[ -n "$knobs" ] && fs=$KNOBS_FS
		# shellcheck disable=SC2086
		FOLIOSCOPE_EXCLUDE=$exclude FOLIOSCOPE_COST_DROP=$drop FOLIOSCOPE_INFLIGHT=$store \
			"$fs" trace -t "$target" -m "$mech" $lean ${by:+--by "$by"} -j "$W/trace.json" \
			>"$W/trace.out" 2>"$log" &
		ready="folioscope: tracing" ;;
	bpftrace)
		bm=$mech
		[ "$mech" = fentry ] && bm=kfunc
		{ printf '%s\n' 'BEGIN { printf("READY\n"); }'
		  if [ "$mech" = oneliner ]; then
			# What a user would run instead: one histogram.
			printf '%s\n' 'tracepoint:syscalls:sys_exit_pread64 /args->ret > 0/ { @b = hist(args->ret); }'
		  elif [ "$target" = all ]; then
			cat "$BT/shmem-$bm.bt" "$BT/dedupe-$bm.bt"
		  else
			cat "$BT/$target-$bm.bt"
		  fi; } >"$W/script.bt"
		# The scripts are written for 6.1; the kernel's BTF says what
		# moved: the folio order is the low byte of _flags_1 from 6.6,
		# and 6.12's lookup takes write_end before foliop.
		if [ "$mech" != oneliner ] &&
		   ! "$BTOOL" btf off folio _folio_order >/dev/null 2>&1; then
			sed -i 's/((struct folio \*)\([$a-z]*\))->_folio_order/(((struct folio *)\1)->_flags_1 \& 0xff)/g' \
				"$W/script.bt"
		fi
		[ "$mech" != oneliner ] &&
		fp=$("$BTOOL" btf arg shmem_get_folio_gfp foliop) &&
			sed -i "s/@sh_foliop\[tid\] = arg[0-9];/@sh_foliop[tid] = arg$fp;/" "$W/script.bt"
		bpftrace "$W/script.bt" >"$log" 2>"$W/bpftrace.err" &
		ready="READY" ;;
	floorall)
		funcs=
		[ "$target" != dedupe ] && funcs="$funcs $(all_probes "$mech" shmem)"
		[ "$target" != shmem ] && funcs="$funcs $(all_probes "$mech" dedupe)"
		[ -s "$W/floorall.$mech.$target" ] ||
			rec "env $SCOPE floorall_${mech}_$target$funcs"
		echo "$funcs" >"$W/floorall.$mech.$target"
		# shellcheck disable=SC2086
		"$TOOLS/benchfloor" "$mech" $funcs 2>"$log" &
		ready="floor: attached" ;;
	floortp)
		# The empty program on each per-syscall tracepoint the
		# syscall-level plan attaches to: enabling any of them sends
		# every syscall of every task through the slow syscall path.
		funcs=
		[ "$target" != dedupe ] && funcs="$funcs read pread64 readv preadv preadv2"
		[ "$target" != shmem ] && funcs="$funcs ioctl"
		# shellcheck disable=SC2086
		"$TOOLS/benchfloor" tracepoint $(for f in $funcs; do echo "sys_enter_$f sys_exit_$f"; done) 2>"$log" &
		ready="floor: attached" ;;
	floor)
		if [ "$mech" = syscall ]; then
			"$TOOLS/benchfloor" syscall 2>"$log" &
		else
			funcs=
			[ "$target" != dedupe ] && funcs="$funcs $(sym "$mech" shmem)"
			[ "$target" != shmem ] && funcs="$funcs $(sym "$mech" dedupe)"
			# shellcheck disable=SC2086
			"$TOOLS/benchfloor" "$mech" $funcs 2>"$log" &
		fi
		ready="floor: attached" ;;
	ftrace)
		# tracefs hist triggers, no BPF; sigdfl: a background job
		# starts with SIGINT ignored, which sh cannot trap.
		"$BTOOL" sigdfl sh "$FTRACE" run "$mech" "$target" "$BTOOL" \
			>"$W/ftrace.out" 2>"$log" &
		ready="ftrace: attached" ;;
	esac
	TRACER=$!
	if ! "$BTOOL" waitfor "$log" "$ready" 180 "$TRACER"; then
		say "$variant did not attach: $(head -c 400 "$log") $(head -c 400 "$W/bpftrace.err" 2>/dev/null)"
		kill -KILL "$TRACER" 2>/dev/null
		wait "$TRACER" 2>/dev/null
		TRACER=
		return 1
	fi
	STARTUP=$(sub "$(now)" "$t0")
	return 0
}

# alive PID: running (an exited child not yet waited for is a zombie,
# which kill -0 still finds).
alive() {
	local st
	st=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# stop_tracer: SIGINT, then at most 10 s for it to end (its final report);
# a tracer still there is killed, so a hung one cannot stall the bench.
stop_tracer() {
	local i=0
	[ -n "$TRACER" ] || return 0
	kill -INT "$TRACER" 2>/dev/null
	while alive "$TRACER" && [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if alive "$TRACER"; then
		say "tracer $TRACER did not stop within 10 s of SIGINT: killed"
		rec "note $SCOPE a tracer did not stop within 10 s of SIGINT and was killed"
		kill -KILL "$TRACER" 2>/dev/null
	fi
	wait "$TRACER" 2>/dev/null
	TRACER=
}

pread_loop() { # pread_loop [CALLS]: best ns per call
	local r
	r=$("$TOOLS/preadloop" -f "$PFILE" -n "${1:-$PREAD_CALLS}") || return 1
	kv p10_ns_per_call "$r"
}

# Every loop dedupes the same two kept files (made, and their ranges
# shared, once below), after a sync: on new files each loop's first
# dedupe of each range costs less than the rest, and btrfs freed the last
# loop's files during this one, which moved its 10th percentile by up to
# 1200 ns per call between loops under tcg-icount (kept and synced: 440).
dedupe_loop() {
	local r
	sync
	r=$("$TOOLS/dedupeloop" -d "$W/btrfs" -k -n "${1:-$DEDUPE_CALLS}") || return 1
	kv p10_ns_per_call "$r"
}

# BPF stats of the running tracer over one loop; the kernel's own
# counters exclude dispatch (trampoline/kprobe entry and exit).
bpf_stats() { # bpf_stats BENCH VARIANT ROUND LOOP CALLS
	local s0 s1 dn dc
	case $2 in ftrace-*) return 0 ;; esac # no BPF
	sysctl -qw kernel.bpf_stats_enabled=1 || return 0
	s0=$("$BTOOL" bpfstat "$TRACER")
	$4 "$5" >/dev/null
	s1=$("$BTOOL" bpfstat "$TRACER")
	sysctl -qw kernel.bpf_stats_enabled=0
	dn=$(( $(kv run_time_ns "$s1") - $(kv run_time_ns "$s0") ))
	dc=$(( $(kv run_cnt "$s1") - $(kv run_cnt "$s0") ))
	rec "sample $SCOPE $1 $2 $3 bpf_ns_per_call $(div "$dn" "$5")"
	rec "sample $SCOPE $1 $2 $3 bpf_runs_per_call $(div "$dc" "$5")"
	[ "$dc" -gt 0 ] && rec "sample $SCOPE $1 $2 $3 bpf_ns_per_run $(div "$dn" "$dc")"
}

# Resident memory and BPF memory of the running tracer.
tracer_mem() { # tracer_mem BENCH VARIANT ROUND
	local rss b
	case $2 in ftrace-*) return 0 ;; esac # kernel memory only
	rss=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$TRACER/status")
	b=$("$BTOOL" bpfstat "$TRACER")
	[ -n "$rss" ] && rec "sample $SCOPE $1 $2 $3 rss_kb $rss"
	rec "sample $SCOPE $1 $2 $3 map_memlock_bytes $(kv map_memlock "$b")"
	rec "sample $SCOPE $1 $2 $3 prog_memlock_bytes $(kv prog_memlock "$b")"
}

# One variant in one round: attach, time the loops, BPF stats, memory.
variant_round() { # variant_round VARIANT ROUND
	local v=$1 r=$2 targets t x
	if [ "$COMBINED" = 1 ]; then
		targets=all
	else
		targets="shmem dedupe"
	fi
	for t in $targets; do
		# bpftrace's one-liner traces preads only; a histogram left
		# out one by one is one of tmpfs reads'.
		[ "$v" = bpftrace-oneliner ] && [ "$t" = dedupe ] && continue
		case $v in folioscope-drophist.*) [ "$t" = dedupe ] && continue ;; esac
		# Untraced runs right before and after the session: the
		# baseline its added_ns_per_call is taken against.
		untraced_pair "$v" "$r" "$t" pre
		start_tracer "$v" "$t" || continue
		rec "sample $SCOPE startup $v $r startup_s $STARTUP"
		if [ "$t" != dedupe ]; then
			x=$(pread_loop) && rec "sample $SCOPE pread4k $v $r ns_per_call $x"
			bpf_stats pread4k "$v" "$r" pread_loop 10000
			tracer_mem pread4k "$v" "$r"
		fi
		if [ "$t" != shmem ]; then
			x=$(dedupe_loop) && rec "sample $SCOPE dedupe4k $v $r ns_per_call $x"
			bpf_stats dedupe4k "$v" "$r" dedupe_loop 500
		fi
		stop_tracer
		untraced_pair "$v" "$r" "$t" post
	done
}

untraced_pair() { # untraced_pair VARIANT ROUND TARGET pre|post
	local x
	if [ "$3" != dedupe ]; then
		x=$(pread_loop) && rec "sample $SCOPE pread4k $1 $2 $4_ns_per_call $x"
	fi
	if [ "$3" != shmem ]; then
		x=$(dedupe_loop) && rec "sample $SCOPE dedupe4k $1 $2 $4_ns_per_call $x"
	fi
}

untraced_round() {
	local x
	x=$(pread_loop) && rec "sample $SCOPE pread4k untraced $1 ns_per_call $x"
	x=$(dedupe_loop) && rec "sample $SCOPE dedupe4k untraced $1 ns_per_call $x"
}

# ---- declarations for the aggregation ----
# What folioscope saved against the --base build, per round.
base_parts() { # base_parts BENCH MECH
	rec "part $SCOPE $1 bpf_ns_per_call folioscope-$2 base-$2 saved_bpf_ns"
	rec "part $SCOPE $1 added_ns_per_call folioscope-$2 base-$2 saved_added_ns"
	rec "ratio $SCOPE $1 bpf_ns_per_call folioscope-$2 base-$2 bpf_ratio_to_base"
}

# Against bpftrace's one-liner on tmpfs preads: end to end, and the BPF
# program bodies (full folioscope's at most twice the one-liner's).
oneliner_targets() {
	local v
	for v in folioscope-syscall folioscope-lean-syscall; do
		rec "ratio $SCOPE pread4k added_ns_per_call $v bpftrace-oneliner ratio_to_oneliner"
		rec "ratio $SCOPE pread4k bpf_ns_per_call $v bpftrace-oneliner bpf_ratio_to_oneliner"
	done
	rec "target $SCOPE pread4k folioscope-lean-syscall ratio_to_oneliner le 2 pread4k syscall --lean: folioscope adds <= 2x bpftrace's one-liner"
	rec "target $SCOPE pread4k folioscope-syscall bpf_ratio_to_oneliner le 2 pread4k syscall: folioscope's BPF time <= 2x the one-liner's"
}
VARIANTS=
# The empty pair a variant of mechanism M is set against: at the syscall
# level on the per-syscall tracepoints where folioscope's plan takes them
# (its 1-second trace above), as empty programs on those same
# tracepoints, else the raw pair.
floor_of() { # floor_of MECH
	if [ "$1" = syscall ] && [ "$(sym syscall shmem)" = syscalls ]; then
		echo floortp-syscall
	else
		echo "floor-$1"
	fi
}
if [ "$ONLY_BYSTANDER" = 0 ]; then
for m in $MECHS; do
	VARIANTS="$VARIANTS folioscope-$m folioscope-lean-$m folioscope-bycg-$m bpftrace-$m floor-$m"
	# Function level: also empty programs on every probe folioscope uses.
	[ "$m" = syscall ] || VARIANTS="$VARIANTS floorall-$m"
	fl=$(floor_of "$m")
	[ "$fl" = "floor-$m" ] || VARIANTS="$VARIANTS $fl"
done
# The compare's inline site against its caller's kprobe and fentry and
# the empty pair on the caller.
if [ "$INLINE" = 1 ]; then
	VARIANTS="$VARIANTS folioscope-inline"
	rec "ratio $SCOPE dedupe4k added_ns_per_call folioscope-inline floor-kprobe ratio_to_floor"
	for m in $MECHS; do
		[ "$m" = syscall ] ||
			rec "ratio $SCOPE dedupe4k added_ns_per_call folioscope-inline folioscope-$m ratio_to_caller_$m"
	done
	rec "note $SCOPE folioscope-inline: trace -m kprobe with the kernel's DWARF: dedupe at the compare's inline site (kprobes at its entry and exit targets, the caller's entry and return), shmem as folioscope-kprobe; floor-kprobe is the empty pair on the caller."
fi
# bpftrace's one-liner on sys_exit_pread64: the simplest thing a user
# would run instead (tmpfs preads only).
case " $MECHS " in
*" syscall "*)
	VARIANTS="$VARIANTS bpftrace-oneliner"
	oneliner_targets ;;
esac
for b in pread4k dedupe4k; do
	rec "baseline $SCOPE $b ns_per_call untraced"
	for m in $MECHS; do
		rec "ratio $SCOPE $b added_ns_per_call folioscope-$m bpftrace-$m ratio_to_bpftrace"
		fl=$(floor_of "$m")
		rec "ratio $SCOPE $b added_ns_per_call folioscope-$m $fl ratio_to_floor"
		rec "ratio $SCOPE $b bpf_ns_per_call folioscope-$m bpftrace-$m bpf_ratio_to_bpftrace"
		rec "target $SCOPE $b folioscope-$m ratio_to_bpftrace le 0.5 $b $m: folioscope adds <= 0.5x bpftrace's ns/call"
		# Function level in full mode probes the folio lookups too: set
		# against empty pairs on all the functions it probes. Full mode
		# at the syscall level is held to bpftrace and the one-liner;
		# its ratio_to_floor is recorded without a target.
		if [ "$m" != syscall ]; then
			rec "ratio $SCOPE $b added_ns_per_call folioscope-$m floorall-$m ratio_to_floor_all"
			rec "ratio $SCOPE $b bpf_ns_per_call folioscope-$m floorall-$m bpf_ratio_to_floor_all"
			rec "target $SCOPE $b folioscope-$m ratio_to_floor_all le 1.3 $b $m: folioscope adds <= 1.3x empty pairs on all its probes"
		fi
		# --lean: the same without the histograms it leaves out.
		rec "ratio $SCOPE $b added_ns_per_call folioscope-lean-$m bpftrace-$m ratio_to_bpftrace"
		rec "ratio $SCOPE $b added_ns_per_call folioscope-lean-$m $fl ratio_to_floor"
		rec "ratio $SCOPE $b bpf_ns_per_call folioscope-lean-$m bpftrace-$m bpf_ratio_to_bpftrace"
		rec "ratio $SCOPE $b bpf_ns_per_call folioscope-lean-$m folioscope-$m bpf_ratio_to_full"
		rec "target $SCOPE $b folioscope-lean-$m ratio_to_bpftrace le 0.5 $b $m --lean: folioscope adds <= 0.5x bpftrace's ns/call"
		rec "target $SCOPE $b folioscope-lean-$m ratio_to_floor le 1.15 $b $m --lean: folioscope adds <= 1.15x the empty pair's ns/call"
		# --by cgroup: what the breakdown adds to a traced call.
		rec "ratio $SCOPE $b added_ns_per_call folioscope-bycg-$m folioscope-$m ratio_to_full"
		rec "ratio $SCOPE $b bpf_ns_per_call folioscope-bycg-$m folioscope-$m bpf_ratio_to_full"
	done
done
for m in $MECHS; do
	rec "ratio $SCOPE startup startup_s folioscope-$m bpftrace-$m ratio_startup_to_bpftrace"
done
if [ -n "$BASE_FS" ]; then
	for m in $MECHS; do
		VARIANTS="$VARIANTS base-$m"
		for b in pread4k dedupe4k; do
			base_parts "$b" "$m"
		done
	done
fi
# The parts of folioscope's work, one left out at a time. The histograms
# one by one are tmpfs reads' (a name dedupe lacks drops nothing there);
# folio_size and copy_bytes exist at function level only.
# --breakdown-nohists: the parts without the histograms one by one (a
# shorter run under TCG). The run is then the breakdown alone: unless
# --variants says otherwise, the variants declared so far and these.
if [ "$BREAKDOWN" = 1 ]; then
	bmechs=$MECHS
	[ "$INLINE" = 1 ] && bmechs="$bmechs inline"
	for m in $bmechs; do
		VARIANTS="$VARIANTS folioscope-knobs-$m"
		for b in pread4k dedupe4k; do
			rec "part $SCOPE $b bpf_ns_per_call folioscope-$m folioscope-knobs-$m knobs_bpf_ns"
			rec "part $SCOPE $b added_ns_per_call folioscope-$m folioscope-knobs-$m knobs_added_ns"
		done
		parts="file inflight time folio hists"
		[ "$BREAKDOWN_HISTS" = 0 ] ||
			parts="$parts hist.bytes hist.req_bytes hist.pos_align hist.buf_align hist.latency_ns"
		[ "$BREAKDOWN_HISTS" = 0 ] || [ "$m" = syscall ] ||
			parts="$parts hist.folio_size hist.copy_bytes"
		for p in $parts; do
			VARIANTS="$VARIANTS folioscope-drop$p-$m"
			for b in pread4k dedupe4k; do
				case $b$p in dedupe4khist.*) continue ;; esac
				rec "part $SCOPE $b bpf_ns_per_call folioscope-drop$p-$m folioscope-knobs-$m cost_bpf_ns"
				rec "part $SCOPE $b added_ns_per_call folioscope-drop$p-$m folioscope-knobs-$m cost_added_ns"
			done
		done
	done
	rec "note $SCOPE folioscope-dropPART-M: folioscope with PART of its work left out (FOLIOSCOPE_COST_DROP, the bench's build); cost_bpf_ns and cost_added_ns are the BPF and added ns per call of that build with nothing left out (folioscope-knobs-M) minus the variant's, per round; knobs_bpf_ns and knobs_added_ns what reading the knobs costs, folioscope-knobs-M minus folioscope-M."
	[ -n "$ONLY_VARIANTS" ] || ONLY_VARIANTS=$VARIANTS
fi
# ftrace hist-trigger variants where the kernel has them, else a note why
# not (bench/ftrace.sh).
FT=$(sh "$FTRACE" declare "$SCOPE" "$MECHS")
VARIANTS="$VARIANTS $(echo "$FT" | sed -n 's/^variant //p')"
echo "$FT" | sed '/^variant /d; /^$/d' | while read -r l; do rec "$l"; done
if [ -n "$ONLY_VARIANTS" ]; then
	keep=
	for v in $VARIANTS; do
		case " $ONLY_VARIANTS " in *" $v "*) keep="$keep $v" ;; esac
	done
	VARIANTS=$keep
	rec "note $SCOPE a partial run: only the variants$VARIANTS"
fi
fi
rec "note $SCOPE ns_per_call is the 10th percentile of the loop's batches of 50 calls (the batches least disturbed by other load); added_* subtracts the mean of two untraced runs made just before the variant attached and just after it detached."
rec "note $SCOPE folioscope-lean-M: trace --lean, without buf_align and the folio-size/copy-chunk sub-probes (bpftrace-M still measures them); for tmpfs reads at fentry and the syscall level, and for dedupes at fentry, also without latency: the exit programs alone, no record, no clock."
rec "note $SCOPE folioscope-bycg-M: trace --by cgroup, histograms per cgroup v2 (a cgroup id and a hash lookup per call)."
rec "note $SCOPE floor-M: an empty entry/exit pair on the function folioscope traces; floorall-M: empty programs on every attach point folioscope probes: a pair on its function, and on its sub-probe's function (folio lookups/reads) a pair, or the exit alone where folioscope's sub-probe is an exit alone, with folioscope's fallback mechanism; at the syscall level ratio_to_floor is against floortp-syscall (empty programs on the per-syscall tracepoints the plan attaches to) where the plan takes those, else against floor-syscall (the empty raw pair)."
rec "note $SCOPE bpf_ns_per_call is the kernel's BPF stats (run_time_ns) per loop call: program bodies only, not the trampoline/kprobe/tracepoint dispatch that the end-to-end added_ns_per_call also pays."

# ---- profile: the instructions of one loop per variant ----
# prof_window BENCH VARIANT LOOP CALLS
prof_window() {
	# btrfs writes back what earlier windows left dirty now, not in
	# this one.
	sync
	"$PROFILE"
	$3 "$4" >/dev/null
	"$PROFILE"
	rec "profwin $SCOPE $1 $2 $4"
	awk '$3 ~ /^bpf_(prog|trampoline)_/ { print "profsym " $1 " " $3 }' \
		/proc/kallsyms >>"$OUT"
	"$TOOLS/profile/jitlines" | sed 's/^/profjit /' >>"$OUT"
}
if [ -n "$PROFILE" ]; then
	# The counts are the whole guest's: khugepaged, which copies pages
	# to collapse them whenever it wakes, would land in some windows
	# and not others. The loops' files are tmpfs and btrfs pages.
	for f in enabled defrag; do
		echo never >/sys/kernel/mm/transparent_hugepage/$f 2>/dev/null
	done
	"$TOOLS/preadloop" -f "$PFILE" -n 1000 -k >/dev/null # create + warm
	for t in shmem dedupe; do
		if [ "$t" = shmem ]; then
			set -- pread4k pread_loop "$PREAD_CALLS"
		else
			set -- dedupe4k dedupe_loop "$DEDUPE_CALLS"
		fi
		prof_window "$1" untraced "$2" "$3"
		for v in $VARIANTS; do
			start_tracer "$v" "$t" || continue
			say "  profile $1 $v"
			prof_window "$1" "$v" "$2" "$3"
			stop_tracer
		done
	done
	awk '$2 ~ /^[tT]$/ { print "profksym " $1 " " $3 }' /proc/kallsyms >>"$OUT"
	say "done"
	exit 0
fi

# ---- scale: events/s with 1 and 2 readers, counts reconciled ----
if [ "$SCALE" = 1 ]; then
	for m in $MECHS; do
		for p in 1 2; do
			say "scale: $m, $p reader(s)"
			n=$PREAD_CALLS
			x=$("$TOOLS/preadloop" -f "$PFILE.s" -n "$n" -P "$p") &&
				rec "sample $SCOPE scale-${p}r untraced 0 events_per_s $(kv events_per_s "$x")"
			rm -f "$W/scale.json"
			x=$("$FS" trace -t shmem -m "$m" --dev "$W/tmpfs" -j "$W/scale.json" -- \
				"$TOOLS/preadloop" -f "$PFILE.s" -n "$n" -P "$p" 2>/dev/null |
				grep '^calls=') || { say "scale $m $p failed"; continue; }
			got=$(sed -n 's/.*"calls": *\([0-9]*\).*/\1/p' "$W/scale.json" | head -n 1)
			dropped=$(sed -n 's/.*"dropped": *\([0-9]*\).*/\1/p' "$W/scale.json" | head -n 1)
			missed=$(sed -n 's/.*"missed": *\([0-9]*\).*/\1/p' "$W/scale.json" | head -n 1)
			want=$(( n * p + 1 )) # + the warm-up read of the whole file
			rec "sample $SCOPE scale-${p}r folioscope-$m 0 events_per_s $(kv events_per_s "$x")"
			d=$(( want - ${got:-0} ))
			[ "$d" -lt 0 ] && d=$(( -d ))
			rec "sample $SCOPE scale-${p}r folioscope-$m 0 count_mismatch $d"
			rec "sample $SCOPE scale-${p}r folioscope-$m 0 dropped_events ${dropped:-0}"
			rec "sample $SCOPE scale-${p}r folioscope-$m 0 missed_runs ${missed:-0}"
			rec "ratio $SCOPE scale-${p}r events_per_s folioscope-$m untraced ratio_to_untraced"
			rec "target $SCOPE scale-${p}r folioscope-$m count_mismatch le 0 scale $m, $p reader(s): calls counted = calls made"
		done
	done
fi

# ---- bystander rounds: what a running tracer costs everything else ----
# Syscalls no variant measures (getppid) or reads it must look at and
# pass over (4 KiB preads of /dev/zero, not tmpfs), untraced and under
# each tracer: folioscope's syscall level with `trace -t all` on the
# per-syscall tracepoints (where the kernel has them) and on the raw
# sys_enter/sys_exit pair, bpftrace's one-liner and the empty raw pair.
# With --only-bystander also the traced tmpfs preads of `trace -t shmem`
# (and --lean) against the one-liner.
by_loop() { # by_loop getppid|pread|migrate: p10 ns per call
	local r n=$BY_CALLS
	# A migration costs over a hundred getppids: a fortieth of the
	# calls.
	[ "$1" = migrate ] && n=$((BY_CALLS / 40))
	r=$("$TOOLS/sysloop" "$1" -n "$n") || return 1
	kv p10_ns_per_call "$r"
}
migrate_loop() { # migrate_loop CALLS, for bpf_stats
	"$TOOLS/sysloop" migrate -n "$1"
}
by_loops() { # by_loops VARIANT ROUND [pre_|post_] [TMPFS]
	local x
	x=$(by_loop getppid) && rec "sample $SCOPE getppid $1 $2 $3ns_per_call $x"
	x=$(by_loop pread) && rec "sample $SCOPE zero4k $1 $2 $3ns_per_call $x"
	if [ "$BY_MIGRATE" = 1 ]; then
		x=$(by_loop migrate) && rec "sample $SCOPE migrate $1 $2 $3ns_per_call $x"
	fi
	if [ -n "${4:-}" ]; then
		x=$(pread_loop) && rec "sample $SCOPE pread4k $1 $2 $3ns_per_call $x"
	fi
}
bystander_rounds() {
	local r=0 v t tm by_plan quick
	BY_VARIANTS="folioscope-syscall folioscope-raw-syscall bpftrace-oneliner floor-syscall floortp-syscall"
	# Function-level plans too where the kernel takes them (the VM).
	for m in $MECHS; do
		[ "$m" = syscall ] || BY_VARIANTS="$BY_VARIANTS folioscope-$m"
	done
	# Migrations need a second CPU (the guests have one).
	BY_MIGRATE=0 by_benches="getppid zero4k"
	if "$TOOLS/sysloop" migrate -n 50 >/dev/null 2>&1; then
		BY_MIGRATE=1 by_benches="$by_benches migrate"
		BY_VARIANTS="$BY_VARIANTS folioscope-task-syscall"
	else
		rec "note $SCOPE migrate not measured: one CPU, nothing to migrate to"
	fi
	for b in $by_benches; do
		rec "baseline $SCOPE $b ns_per_call untraced"
		for v in $BY_VARIANTS; do
			rec "ratio $SCOPE $b ns_per_call $v untraced ratio_to_untraced"
		done
		for m in $MECHS; do
			[ "$m" = syscall ] ||
				rec "target $SCOPE $b folioscope-$m ratio_to_untraced le 1.05 $b under trace -t all -m $m: <= 1.05x untraced"
		done
		rec "ratio $SCOPE $b added_ns_per_call folioscope-syscall floor-syscall ratio_to_floor"
		rec "ratio $SCOPE $b ns_per_call folioscope-syscall floortp-syscall ratio_to_floor_tp"
		rec "ratio $SCOPE $b added_ns_per_call folioscope-raw-syscall floor-syscall ratio_to_floor"
		rec "ratio $SCOPE $b added_ns_per_call folioscope-syscall bpftrace-oneliner ratio_to_oneliner"
		rec "ratio $SCOPE $b added_ns_per_call folioscope-raw-syscall bpftrace-oneliner ratio_to_oneliner"
	done
	# getppid is no syscall folioscope traces; a pread of /dev/zero is
	# one it must look at (and pass over), so it has no such target.
	# Held to 1.05x untraced, or, in the rounds where the empty programs
	# on the same attach points already cost more than that (any enabled
	# per-syscall tracepoint sends every syscall through the kernel's
	# slow path), to 1.05x those programs.
	rec "floor $SCOPE getppid ns_per_call floortp-or-untraced untraced floortp-syscall 1.05"
	rec "ratio $SCOPE getppid ns_per_call folioscope-syscall floortp-or-untraced ratio_to_floor_or_untraced"
	rec "target $SCOPE getppid folioscope-syscall ratio_to_floor_or_untraced le 1.05 getppid under trace -t all at syscall level: <= 1.05x untraced, or 1.05x empty programs on the same tracepoints where they cost more"
	rec "floor $SCOPE getppid ns_per_call floor-or-untraced untraced floor-syscall 1.05"
	rec "ratio $SCOPE getppid ns_per_call folioscope-raw-syscall floor-or-untraced ratio_to_floor_or_untraced"
	rec "target $SCOPE getppid folioscope-raw-syscall ratio_to_floor_or_untraced le 1.05 getppid under trace -t all on the raw tracepoints: <= 1.05x untraced, or 1.05x the empty raw pair where it costs more"
	if [ "$BY_MIGRATE" = 1 ]; then
		for v in folioscope-syscall folioscope-raw-syscall; do
			rec "target $SCOPE migrate $v ratio_to_untraced le 1.05 migrations between two CPUs under ${v#folioscope-}-level trace -t all (the per-CPU slots' migration program on each): <= 1.05x untraced"
		done
		rec "ratio $SCOPE migrate ns_per_call folioscope-syscall folioscope-task-syscall ratio_to_task_store"
		rec "note $SCOPE migrate: sysloop migrate, sched_setaffinity(2) to the other of two CPUs, one migration per call; every folioscope variant keeps in-flight calls in per-CPU slots, whose program on sched_migrate_task runs on each migration; folioscope-task-syscall is folioscope-syscall with FOLIOSCOPE_INFLIGHT=task (task storage, no such program). bpf_ns_per_call of migrate is the BPF time per migration."
	fi
	rec "note $SCOPE getppid, zero4k: bystander syscalls (getppid; 4 KiB pread of /dev/zero) while a tracer runs system-wide: folioscope-syscall is trace -t all -m syscall as planned, folioscope-raw-syscall the same on the raw sys_enter/sys_exit tracepoints (FOLIOSCOPE_EXCLUDE=syscalls), bpftrace-oneliner is tracepoint:syscalls:sys_exit_pread64 /args->ret > 0/ { @b = hist(args->ret); }, floor-syscall an empty raw sys_enter/sys_exit pair, floortp-syscall an empty program on each per-syscall tracepoint the syscall-level plan of trace -t all attaches to (sys_enter_/sys_exit_ of read, pread64, readv, preadv, preadv2, ioctl)."
	if [ "$ONLY_BYSTANDER" = 1 ]; then
		rec "baseline $SCOPE pread4k ns_per_call untraced"
		oneliner_targets
		[ -n "$BASE_FS" ] && base_parts pread4k syscall
	fi
	while [ "$r" -lt "$BY_ROUNDS" ]; do
		say "bystander round $((r + 1))/$BY_ROUNDS"
		tm=
		[ "$ONLY_BYSTANDER" = 1 ] && tm=1
		by_loops untraced "$r" "" "$tm"
		for v in $BY_VARIANTS; do
			by_loops "$v" "$r" pre_
			start_tracer "$v" all || continue
			# Which plan each folioscope variant got, from its report.
			case $v in folioscope-*) by_plan=1 ;; *) by_plan= ;; esac
			tm=
			[ "$ONLY_BYSTANDER" = 1 ] && [ "$v" = bpftrace-oneliner ] && tm=1
			by_loops "$v" "$r" "" "$tm"
			[ -n "$tm" ] && bpf_stats pread4k "$v" "$r" pread_loop 10000
			[ "$BY_MIGRATE" = 1 ] && [ -n "$by_plan" ] &&
				bpf_stats migrate "$v" "$r" migrate_loop 2000
			stop_tracer
			if [ -n "$by_plan" ] && [ "$r" = 0 ]; then
				rec "env $SCOPE plan_$v $(sed -n 's/.*"symbol": *"\([^"]*\)".*/\1/p' "$W/trace.json" | tr '\n' ' ')"
			fi
			by_loops "$v" "$r" post_
		done
		if [ "$ONLY_BYSTANDER" = 1 ]; then
			quick=folioscope-syscall
			[ -n "$BASE_FS" ] && quick="$quick base-syscall"
			for v in $quick folioscope-lean-syscall; do
				x=$(pread_loop) && rec "sample $SCOPE pread4k $v $r pre_ns_per_call $x"
				start_tracer "$v" shmem || continue
				x=$(pread_loop) && rec "sample $SCOPE pread4k $v $r ns_per_call $x"
				bpf_stats pread4k "$v" "$r" pread_loop 10000
				stop_tracer
				x=$(pread_loop) && rec "sample $SCOPE pread4k $v $r post_ns_per_call $x"
			done
			# The one-liner's pread4k pre/post are its bystander ones.
			x=$(pread_loop) && rec "sample $SCOPE pread4k bpftrace-oneliner $r pre_ns_per_call $x"
			x=$(pread_loop) && rec "sample $SCOPE pread4k bpftrace-oneliner $r post_ns_per_call $x"
		fi
		r=$((r + 1))
	done
	tm=
	[ "$ONLY_BYSTANDER" = 1 ] && tm=1
	by_loops untraced "$r" "" "$tm"
	rec "env $SCOPE bystander_rounds $r"
}

if [ "$BYSTANDER" = 1 ]; then
	"$TOOLS/preadloop" -f "$PFILE" -n 1000 -k >/dev/null # create + warm
	BY_ROUNDS=${BY_ROUNDS:-$ROUNDS}
	bystander_rounds
fi
if [ "$ONLY_BYSTANDER" = 1 ]; then
	say "done"
	exit 0
fi

# ---- overhead rounds, interleaved ----
"$TOOLS/preadloop" -f "$PFILE" -n 1000 -k >/dev/null # create + warm
r=0
T_ROUNDS=$(now)
LONGEST=0 LONGEST_WALL=0
while [ "$r" -lt "$ROUNDS" ]; do
	say "round $((r + 1))/$ROUNDS"
	t_round=$(now) w_round=$(wall)
	untraced_round "$r"
	for v in $VARIANTS; do
		variant_round "$v" "$r"
		say "  $v: $(sub "$(now)" "$t_round") s into the round"
	done
	r=$((r + 1))
	LONGEST=$(awk -v a="$(sub "$(now)" "$t_round")" -v b="$LONGEST" \
		'BEGIN { print (a > b ? a : b) }')
	LONGEST_WALL=$(awk -v a="$(sub "$(wall)" "$w_round")" -v b="$LONGEST_WALL" \
		'BEGIN { print (a > b ? a : b) }')
	if [ "$r" -lt "$ROUNDS" ] &&
	   { { [ "$BUDGET" != 0 ] &&
	       awk -v used="$(sub "$(now)" "$T_ROUNDS")" -v l="$LONGEST" -v b="$BUDGET" \
		   'BEGIN { exit !(used + 1.3 * l > b) }'; } ||
	     { [ "$DEADLINE" != 0 ] &&
	       awk -v t="$(wall)" -v l="$LONGEST_WALL" -v d="$DEADLINE" \
		   'BEGIN { exit !(t + 1.3 * l + 20 > d) }'; }; }; then
		say "time budget: stopping after $r of $ROUNDS rounds"
		rec "note $SCOPE time budget: $r of $ROUNDS overhead rounds run (the machine was loaded)"
		break
	fi
done
rec "env $SCOPE rounds_done $r"
untraced_round "$r"

[ "$WORKLOADS" = 1 ] && . "$(dirname "$0")/workloads.sh"
say "done"
exit 0
