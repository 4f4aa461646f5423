#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The ftrace variants of the overhead benchmark (where the kernel allows,
# the ftrace hist-trigger equivalent on kprobe events): folioscope's
# per-call histograms as far as tracefs alone can build them, with no
# BPF. Called by measure.sh (host bash/dash or the guest's busybox sh):
#
#   ftrace.sh declare SCOPE "MECHS"      records for the aggregation: the
#                                        ratios of each possible ftrace-M,
#                                        a note with the reason for each
#                                        impossible one, and "variant
#                                        ftrace-M" lines (not records)
#   ftrace.sh run MECH TARGET BENCHTOOL  sets up the events and triggers,
#                                        says "ftrace: attached" on stderr,
#                                        waits for SIGINT/SIGTERM, prints
#                                        the histograms, tears down
#   ftrace.sh teardown                   removes whatever of ours is left
#                                        (idempotent; measure.sh's exit)
#
# MECH kprobe (TARGET shmem, dedupe or all): kprobe/kretprobe events on
# the functions folioscope's kprobe plan attaches to on Debian 12's 6.1
# kernel, their fetch arguments' offsets read from the running kernel's
# BTF (benchtool btf); MECH syscall (TARGET shmem or dedupe): the
# syscalls/sys_{enter,exit}_{pread64,ioctl} tracepoints. Latency is a
# synthetic event fired by an onmatch() action of the exit event's
# trigger, from a timestamp the entry event's trigger keeps per thread.
# Every histogram has log2 buckets where folioscope's has, except the
# offset/buffer alignment ones: hist expressions have no bitwise
# operators, so "largest power of two dividing the offset" cannot be
# computed; the sub-page offset (low 12 bits, 64-byte buckets) stands in.
# Not expressible at all: the folio size and copy-chunk histograms of
# shmem (they need the folio a lookup stored through its foliop argument,
# read at return: a 6.1 kretprobe event cannot see the entry's arguments
# and a hist variable cannot be dereferenced), and per-call state across
# events beyond a variable passed from entry to exit (the dedupe folio
# sizes are therefore counted for every read_cache_folio system-wide,
# not only inside dedupe calls). See bench/README.md.
set -u
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
G=fsbench        # our kprobe event group
S=fsb_           # prefix of our synthetic events
STATE=/tmp/fsbench-ftrace.triggers  # triggers written, in order
CLOCK=/tmp/fsbench-ftrace.clock     # the trace clock before ours

say() { echo "ftrace: $*" >&2; }

# why_not MECH: empty if the variant can run here, else the reason.
why_not() {
	local ev
	[ -d $T/events ] || { echo "no tracefs at /sys/kernel/tracing"; return; }
	case $1 in
	kprobe)
		[ -e $T/kprobe_events ] || {
			echo "no kprobe_events in tracefs: $(kconfig KPROBE_EVENTS KPROBES)"
			return; }
		ev="$T"/events/sched/sched_switch ;;
	syscall)
		ev="$T"/events/syscalls/sys_enter_pread64
		[ -d "$ev" ] || {
			echo "no syscalls/sys_enter_pread64 event: $(kconfig FTRACE_SYSCALLS)"
			return; } ;;
	*) echo "no ftrace equivalent of mechanism $1"; return ;;
	esac
	grep -q 'hist' "$ev/trigger" 2>/dev/null || {
		echo "no hist triggers: $(kconfig HIST_TRIGGERS) (the event's triggers:$(sed -n '/^# Available triggers:/{n;s/^#//p;}' "$ev/trigger" 2>/dev/null))"
		return; }
	[ -e $T/synthetic_events ] ||
		echo "no synthetic_events (for the latency histogram): $(kconfig SYNTH_EVENTS)"
}

# kconfig NAME...: why the kernel lacks a feature: the first of the
# options /proc/config.gz says is not set, else the first option named.
kconfig() {
	local c
	for c in "$@"; do
		zcat /proc/config.gz 2>/dev/null | grep -q "^# CONFIG_$c is not set" &&
			{ echo "CONFIG_$c is not set"; return; }
	done
	echo "kernel without CONFIG_$1?"
}

declare_() { # declare_ SCOPE "MECHS"
	local m why b
	for m in kprobe syscall; do
		why=$(why_not $m)
		if [ -n "$why" ]; then
			echo "note $1 ftrace-$m not measured: $why"
			continue
		fi
		case " $2 " in *" $m "*) ;; *) continue ;; esac
		echo "variant ftrace-$m"
		for b in pread4k dedupe4k; do
			echo "ratio $1 $b added_ns_per_call folioscope-$m ftrace-$m ratio_to_ftrace"
		done
		echo "ratio $1 startup startup_s folioscope-$m ftrace-$m ratio_startup_to_ftrace"
	done
	[ -z "$(why_not kprobe)" ] || [ -z "$(why_not syscall)" ] &&
		echo "note $1 ftrace-M: tracefs hist triggers (bench/ftrace.sh) on the same functions or syscalls, no BPF: log2 histograms of bytes asked/returned and latency (synthetic event from the exit trigger's onmatch), counts by return value; sub-page offsets instead of alignment; no folio-size/copy-chunk histograms for shmem (not expressible, see bench/README.md)."
	return 0
}

# w FILE LINE: appends LINE to tracefs FILE; on failure, says why (the
# kernel's error_log) and returns 1.
w() {
	if ! echo "$2" >>"$T/$1" 2>/dev/null; then
		say "cannot write '$2' to $1: $(tail -n 3 $T/error_log 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
}

# trig EVENT SPEC: adds a trigger, remembered for the teardown.
trig() {
	w "events/$1/trigger" "$2" || return 1
	echo "$1 $2" >>"$STATE"
}

off() { # off TYPE MEMBER: a byte offset from the kernel's BTF
	"$BTOOL" btf off "$1" "$2" || { say "no offset for $1.$2"; return 1; }
}

setup_kprobe() { # setup_kprobe TARGET
	local pos cnt ubuf ord head
	if [ "$1" != dedupe ]; then
		pos=$(off kiocb ki_pos) && cnt=$(off iov_iter count) &&
			ubuf=$(off iov_iter ubuf) || return 1
		# shmem_file_read_iter(iocb, to): asked bytes, offset and user
		# buffer (ITER_UBUF: a pread's single buffer) at entry.
		w kprobe_events "p:$G/sh_entry shmem_file_read_iter req=+$cnt(\$arg2):u64 pos_pg=+$pos(\$arg1):b12@0/64 buf_pg=+$ubuf(\$arg2):b12@0/64" &&
		w kprobe_events "r:$G/sh_exit shmem_file_read_iter ret=\$retval:s64" &&
		# The folio lookup inside a call: its count only (what it
		# stored through foliop is out of reach at return).
		w kprobe_events "r:$G/sh_lookup shmem_get_folio_gfp ret=\$retval:s32" &&
		w synthetic_events "${S}sh_call u64 lat_ns" &&
		trig $G/sh_entry "hist:keys=common_pid:sh_ts=common_timestamp:clock=mono" &&
		trig $G/sh_entry "hist:keys=req.log2" &&
		trig $G/sh_entry "hist:keys=pos_pg.buckets=64" &&
		trig $G/sh_entry "hist:keys=buf_pg.buckets=64" &&
		trig $G/sh_exit "hist:keys=common_pid:sh_lat=common_timestamp-\$sh_ts:clock=mono:onmatch($G.sh_entry).trace(${S}sh_call,\$sh_lat)" &&
		trig $G/sh_exit "hist:keys=ret.log2 if ret >= 0" &&
		trig $G/sh_exit "hist:keys=ret if ret < 0" &&
		trig $G/sh_lookup "hist:keys=ret" &&
		trig synthetic/${S}sh_call "hist:keys=lat_ns.log2" || return 1
	fi
	if [ "$1" != shmem ]; then
		# The folio order: a byte of its own up to 6.5, the low byte
		# of _flags_1 from 6.6 (x86 is little-endian: +OFF:u8 reads it).
		ord=$("$BTOOL" btf off folio _folio_order 2>/dev/null) ||
			ord=$(off folio _flags_1) || return 1
		head=$("$BTOOL" btf enum PG_head) || { say "no PG_head in BTF"; return 1; }
		# __generic_remap_file_range_prep(file_in, pos_in, file_out,
		# pos_out, *len, remap_flags): dedupe calls have
		# REMAP_FILE_DEDUP (bit 0, a #define: not in BTF) in remap_flags.
		# *len at entry: the bytes asked (folioscope reports the bytes
		# compared, written back through len: out of reach at return).
		w kprobe_events "p:$G/dd_entry __generic_remap_file_range_prep len=+0(\$arg5):s64 flags=\$arg6:u32 src_pg=\$arg2:b12@0/64 dst_pg=\$arg4:b12@0/64" &&
		w kprobe_events "r:$G/dd_exit __generic_remap_file_range_prep ret=\$retval:s32" &&
		# The folio each compare reads: large (PG_head) and its order.
		w kprobe_events "r:$G/dd_folio read_cache_folio folio=\$retval:u64 head=+0(\$retval):b1@$head/64 order=+$ord(\$retval):u8" &&
		w synthetic_events "${S}dd_call u64 lat_ns; s32 ret" &&
		trig $G/dd_entry "hist:keys=common_pid:dd_ts=common_timestamp:clock=mono if flags & 1" &&
		trig $G/dd_entry "hist:keys=len.log2 if flags & 1" &&
		trig $G/dd_entry "hist:keys=src_pg.buckets=64 if flags & 1" &&
		trig $G/dd_entry "hist:keys=dst_pg.buckets=64 if flags & 1" &&
		trig $G/dd_exit "hist:keys=common_pid:dd_lat=common_timestamp-\$dd_ts:clock=mono:dd_ret=ret:onmatch($G.dd_entry).trace(${S}dd_call,\$dd_lat,\$dd_ret)" &&
		trig synthetic/${S}dd_call "hist:keys=lat_ns.log2" &&
		# SAME (0), DIFFERS (-EBADE) and each error.
		trig synthetic/${S}dd_call "hist:keys=ret" &&
		trig $G/dd_folio "hist:keys=order if head == 1" &&
		trig $G/dd_folio "hist:keys=head if head == 0 && folio < 0xfffffffffffff001" ||
			return 1
	fi
}

setup_syscall() { # setup_syscall TARGET
	local e=syscalls
	case $1 in
	shmem)
		# The sub-page offset by arithmetic (no bitfield fetch
		# on a tracepoint field), carried to the synthetic event.
		w synthetic_events "${S}sc_call u64 lat_ns; u64 pos_pg; u64 buf_pg" &&
		trig $e/sys_enter_pread64 "hist:keys=common_pid:sc_ts=common_timestamp:sc_pos=pos-pos/4096*4096:sc_buf=buf-buf/4096*4096:clock=mono" &&
		trig $e/sys_enter_pread64 "hist:keys=count.log2" &&
		trig $e/sys_exit_pread64 "hist:keys=common_pid:sc_lat=common_timestamp-\$sc_ts:sc_pg=\$sc_pos:sc_bf=\$sc_buf:clock=mono:onmatch($e.sys_enter_pread64).trace(${S}sc_call,\$sc_lat,\$sc_pg,\$sc_bf)" &&
		trig synthetic/${S}sc_call "hist:keys=pos_pg.buckets=64" &&
		trig synthetic/${S}sc_call "hist:keys=buf_pg.buckets=64" &&
		trig $e/sys_exit_pread64 "hist:keys=ret.log2 if ret >= 0" &&
		trig $e/sys_exit_pread64 "hist:keys=ret if ret < 0" &&
		trig synthetic/${S}sc_call "hist:keys=lat_ns.log2" ;;
	dedupe)
		# FIDEDUPERANGE = _IOWR(0x94, 54, struct file_dedupe_range):
		# its ranges are in user memory, out of a tracepoint's reach.
		w synthetic_events "${S}sc_call u64 lat_ns; s64 ret" &&
		trig $e/sys_enter_ioctl "hist:keys=common_pid:sc_ts=common_timestamp:clock=mono if cmd == 0xc0189436" &&
		trig $e/sys_exit_ioctl "hist:keys=common_pid:sc_lat=common_timestamp-\$sc_ts:clock=mono:sc_ret=ret:onmatch($e.sys_enter_ioctl).trace(${S}sc_call,\$sc_lat,\$sc_ret)" &&
		trig synthetic/${S}sc_call "hist:keys=lat_ns.log2" &&
		trig synthetic/${S}sc_call "hist:keys=ret" ;;
	*) say "syscall level: one target at a time (shmem or dedupe)"; return 1 ;;
	esac
}

# untrig EVENT SPEC: removes a trigger as it was written or as the
# trigger file lists it.
untrig() {
	echo "!$2" >>"$T/events/$1/trigger" 2>/dev/null
}

teardown() {
	local n i ev line f
	# Our triggers, last first (an onmatch() action holds the entry
	# event's variables and the synthetic event it fires).
	if [ -s "$STATE" ]; then
		n=$(wc -l <"$STATE")
		i=$n
		while [ "$i" -gt 0 ]; do
			line=$(sed -n "${i}p" "$STATE")
			untrig "${line%% *}" "${line#* }"
			i=$((i - 1))
		done
	fi
	rm -f "$STATE"
	# Anything still listed on our events (a run killed before it
	# recorded its triggers): by the trigger files' own listing,
	# synthetic and exit events first, twice for dependencies.
	for i in 1 2; do
		for f in "$T/events/synthetic/$S"*/trigger "$T/events/$G"/*_exit/trigger \
			 "$T/events/$G"/*/trigger "$T"/events/syscalls/sys_exit_pread64/trigger \
			 "$T"/events/syscalls/sys_exit_ioctl/trigger \
			 "$T"/events/syscalls/sys_enter_pread64/trigger \
			 "$T"/events/syscalls/sys_enter_ioctl/trigger; do
			[ -e "$f" ] || continue
			ev=${f#"$T"/events/}
			ev=${ev%/trigger}
			grep -v '^#' "$f" | sed 's/ \[active\]$//' | while read -r line; do
				case $line in hist:*) untrig "$ev" "$line" ;; esac
			done
		done
	done
	# The trace clock our triggers set (clock=mono), back as it was.
	[ -s "$CLOCK" ] && { cat "$CLOCK" >$T/trace_clock; rm -f "$CLOCK"; }
	[ -e $T/kprobe_events ] &&
		sed -n "s/^[pr][0-9]*:$G\/\([a-z_]*\) .*/\1/p" $T/kprobe_events |
		while read -r ev; do
			echo "-:$G/$ev" >>$T/kprobe_events 2>/dev/null ||
				say "cannot remove kprobe event $G/$ev"
		done
	[ -e $T/synthetic_events ] &&
		sed -n "s/^\(${S}[a-z_]*\).*/\1/p" $T/synthetic_events |
		while read -r ev; do
			echo "!$ev" >>$T/synthetic_events 2>/dev/null ||
				say "cannot remove synthetic event $ev"
		done
	left=$(leftovers)
	[ -z "$left" ] || { say "left behind: $left"; return 1; }
}

# leftovers: our events and triggers still in tracefs (empty when clean).
leftovers() {
	local f
	{
		grep -s "^[pr][0-9]*:$G/" $T/kprobe_events
		grep -s "^$S" $T/synthetic_events
		for f in "$T"/events/syscalls/sys_e*_pread64/trigger \
			 "$T"/events/syscalls/sys_e*_ioctl/trigger; do
			[ -e "$f" ] && grep '^hist' "$f"
		done
	} | tr '\n' ' '
}

# dump: every histogram of ours, for the log (ftrace's "report").
dump() {
	local f
	for f in "$T/events/$G"/*/hist "$T/events/synthetic/$S"*/hist \
		 "$T"/events/syscalls/sys_e*_pread64/hist "$T"/events/syscalls/sys_e*_ioctl/hist; do
		[ -e "$f" ] || continue
		grep -q '^hist:\|^# event histogram' "$f" 2>/dev/null || continue
		echo "== ${f#"$T"/events/}"
		grep -v '^$' "$f"
	done
}

run() { # run MECH TARGET BENCHTOOL
	local why sleeper
	BTOOL=$3
	why=$(why_not "$1")
	[ -z "$why" ] || { say "not possible: $why"; return 1; }
	teardown >/dev/null 2>&1 # a previous run's leftovers
	stop=
	trap 'stop=1' INT TERM
	# Timestamps by CLOCK_MONOTONIC (clock=mono), as folioscope's
	# (bpf_ktime_get_ns): the hist default, "global", stalls on a vCPU
	# whose clock lags another's (TCG), giving 0 ns latencies. It sets
	# the trace clock of the whole top-level instance: restored at the
	# teardown. (An instance of our own would keep it to itself, but
	# removing one takes over 20 s under TCG.)
	sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock >"$CLOCK"
	if ! "setup_$1" "$2"; then
		teardown
		return 1
	fi
	say "attached"
	while [ -z "$stop" ]; do
		sleep 2 &
		sleeper=$!
		wait "$sleeper"
		kill "$sleeper" 2>/dev/null
	done
	t0=$("$BTOOL" now)
	dump >"$STATE.dump"
	cat "$STATE.dump"
	# Lost entries (a full map) show as Dropped: say so.
	awk '/^Dropped: [1-9]/ { d += $2 } END { if (d) print "ftrace: " d " histogram entries dropped" }' "$STATE.dump" >&2
	rm -f "$STATE.dump"
	t1=$("$BTOOL" now)
	# In a child of its own: if we are killed for taking too long
	# (TCG), the teardown still completes.
	sh "$0" teardown &
	wait $!
	say "stopped: histograms read in $(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.2f", a - b }') s, torn down in $(awk -v a="$("$BTOOL" now)" -v b="$t1" 'BEGIN { printf "%.2f", a - b }') s"
}

case ${1:-} in
declare) declare_ "$2" "$3" ;;
run) run "$2" "$3" "$4" ;;
teardown) teardown ;;
*) echo "usage: ftrace.sh declare SCOPE MECHS | run MECH TARGET BENCHTOOL | teardown" >&2
   exit 2 ;;
esac
