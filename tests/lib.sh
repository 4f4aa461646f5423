# Shared by the shell test suites: counting, assertions, leak checks.
# shellcheck shell=bash
FS=${FS:-$PWD/build/folioscope}
PASS=${PASS:-0}
FAIL=${FAIL:-0}
SKIP=${SKIP:-0}
LOGDIR=${LOGDIR:-$PWD/build/test-logs}
# tests/kernels/build.sh's option for the suites that boot a `make kernel`
# build: -c (only a kernel already built; make check never waits 25
# minutes for one) unless FS_KERNEL_BUILD=1 (make check-vm-full), where
# the kernel is built if it is missing.
KBUILD_OPT=-c
[ "${FS_KERNEL_BUILD:-}" = 1 ] && KBUILD_OPT=
# The series of those kernels (build.sh reads FS_KERNEL_SERIES too):
# kpatch NAME is that series' tests/kernels/patches/NAME.patch (6.12's in
# patches/6.12/), kname NAME the build's name (6.12's with -6.12).
kpatch() {
	case ${FS_KERNEL_SERIES:-6.1} in
	6.1) echo "tests/kernels/patches/$1.patch" ;;
	*) echo "tests/kernels/patches/$FS_KERNEL_SERIES/$1.patch" ;;
	esac
}
kname() {
	case ${FS_KERNEL_SERIES:-6.1} in
	6.1) echo "$1" ;;
	*) echo "$1-$FS_KERNEL_SERIES" ;;
	esac
}
mkdir -p "$LOGDIR"
# `folioscope vm` arguments of the VM suites: $FS_VM_KERNEL, else Debian's
# $FS_VM_DEBIAN (6.1 when unset), and $FS_VM_MODULES.
vmargs=()
if [ -n "${FS_VM_KERNEL:-}" ]; then
	vmargs+=(--kernel "$FS_VM_KERNEL")
elif [ -n "${FS_VM_DEBIAN:-}" ]; then
	vmargs+=(--debian "$FS_VM_DEBIAN")
fi
[ -n "${FS_VM_MODULES:-}" ] && vmargs+=(--modules "$FS_VM_MODULES")
# vm_jobs DIR LOG ERR TIMEOUT ARGS...: one boot that runs each folioscope
# command in ARGS (each ended by ":::") in turn, from DIR
# (tests/vm/jobs-guest.sh); its stdout in LOG, stderr in ERR.
# vm_job_rc LOG I: job I's exit status ("" when it never ended).
JOBS_GUEST=$PWD/tests/vm/jobs-guest.sh
vm_jobs() {
	local dir=$1 log=$2 err=$3 timeout=$4
	shift 4
	(cd "$dir" && "$FS" vm "${vmargs[@]}" --timeout "$timeout" --exec "$JOBS_GUEST" -- "$@") \
		>"$log" 2>"$err"
}
vm_job_rc() { sed -n "s/^== job $2 exit \([0-9]*\).*/\1/p" "$1"; }
# vm_job_out LOG I: job I's standard output (the lines before its exit
# line, after the one before).
vm_job_out() { awk -v n="$2" '/^== job [0-9]+ exit/ { j++; next } j == n' "$1"; }
# vm_helper SRC OUT LABEL: builds the C helper SRC (tests/vm/*.c) into OUT,
# static: it runs in the guest, which has no libc of its own. If it
# cannot, a skip of LABEL that says why, and false.
vm_helper() {
	local log
	log=$LOGDIR/$(basename "${1%.c}")-build.log
	gcc -O2 -Wall -static -pthread "$1" -o "$2" 2>"$log" && return 0
	skip "$3" "cannot build $1 statically: $(head -1 "$log")"
	return 1
}
# vm_helper_boot LABEL LOG DIR SCRIPT HELPER NAME...: one boot that runs
# SCRIPT (vm --exec) with HELPER at its own path in the guest (vm --with)
# and the arguments HELPER, then -j NAME.json per NAME (landing in DIR);
# the VM's output in LOG. Counts "LABEL: guest runs" and, per NAME,
# "LABEL NAME: exit", the status SCRIPT prints as "== NAME exit N".
vm_helper_boot() {
	local label=$1 log=$2 dir=$3 script=$4 helper=$5 n args=()
	shift 5
	for n in "$@"; do args+=(-j "$n.json"); done
	if (cd "$dir" && "$FS" vm "${vmargs[@]}" --timeout 900 --with "$helper" \
		--exec "$script" -- "$helper" "${args[@]}") >"$log" 2>&1; then
		ok "$label: guest runs"
	else
		bad "$label: guest runs" "see $log: $(tail -3 "$log")"
	fi
	for n in "$@"; do
		expect_eq "$label $n: exit" "$(sed -n "s/^== $n exit //p" "$log")" 0
	done
}
# The guest scripts' shared helpers: a suite puts the file in the guest
# (vm --with "$GUEST_LIB") and passes its path as the script's first
# argument.
GUEST_LIB=$PWD/tests/vm/lib-guest.sh

# Under tests/check.sh a suite runs in a process of its own: each result
# is also a line in its tally file (tests/harness/run.sh), which counts
# what a suite did even if it dies, and results from its subshells too.
tally() { [ -z "${CHECK_TALLY:-}" ] || echo "$1" >>"$CHECK_TALLY"; }
# CHECK_TAG prefixes every name while a suite runs once more on another
# kernel ("[6.12] "), so its results stay apart from the first pass's.
ok() { PASS=$((PASS + 1)); printf 'ok      %s%s\n' "${CHECK_TAG:-}" "$1"; tally P; }
# Each failure also goes to CHECK_FAILURES (tests/check.sh sets it), so
# one that scrolled past or came from a run nobody watched is kept.
bad() {
	FAIL=$((FAIL + 1))
	printf 'FAIL    %s%s: %s\n' "${CHECK_TAG:-}" "$1" "$2"
	[ -z "${CHECK_FAILURES:-}" ] ||
		printf '%s FAIL %s%s: %s\n' "$(date -u +%FT%TZ)" "${CHECK_TAG:-}" "$1" "$2" >>"$CHECK_FAILURES"
	tally F
}
skip() { SKIP=$((SKIP + 1)); printf 'skip    %s%s: %s\n' "${CHECK_TAG:-}" "$1" "$2"; tally S; }

# wait_until TIMEOUT_S CMD...: poll CMD every 10 ms until it succeeds
# (0) or TIMEOUT_S have passed (1).
wait_until() {
	local n=$(($1 * 100))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.01
		n=$((n - 1))
	done
	return 1
}

# gated_reader DIR NAME CMD...: a process blocked on fifo DIR/NAME.go
# that then execs CMD under the same pid, so that a trace can filter on
# it before it reads; its pid lands in $RPID.
gated_reader() {
	local dir=$1 name=$2
	shift 2
	mkfifo "$dir/$name.go"
	sh -c 'read -r _ <"$0"; exec "$@" >/dev/null' "$dir/$name.go" "$@" &
	RPID=$!
}
# free_port: a TCP port nothing listens on, on 127.0.0.1.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		if [ -z "$(ss -Htln "sport = :$p")" ]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
# prom_start DIR PORT SECONDS LOG TARGET...: Prometheus on 127.0.0.1:PORT
# scraping each TARGET (host:port) every second, stopped after SECONDS
# at the latest, its data in DIR; PROM_PID is its pid.
prom_start() {
	local dir=$1 port=$2 secs=$3 log=$4 targets
	shift 4
	targets=$(printf "'%s', " "$@")
	cat >"$dir/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		scrape_configs:
		  - job_name: folioscope
		    static_configs:
		      - targets: [${targets%, }]
	EOF
	timeout "$secs" prometheus --config.file="$dir/prometheus.yml" \
		--storage.tsdb.path="$dir/tsdb" --web.listen-address="127.0.0.1:$port" \
		--log.level=warn >"$log" 2>&1 &
	PROM_PID=$!
}

# release DIR NAME: lets gated_reader NAME go.
release() { echo go >"$1/$2.go"; rm -f "$1/$2.go"; }

# trace_bg DIR ARGS...: `folioscope trace ARGS` in the background (its pid
# in $TPID, stdout in DIR/out, stderr in DIR/err) until it has attached:
# true once it says 'tracing', false if it exits first or takes over 30 s.
# The old err goes first: the background shell truncates it only when it
# gets to run, and the previous trace's 'tracing' line must not count.
trace_bg() {
	local dir=$1
	shift
	rm -f "$dir/err"
	"$FS" trace "$@" >"$dir/out" 2>"$dir/err" &
	TPID=$!
	wait_until 30 trace_settled "$dir/err" "$TPID"
	grep -q tracing "$dir/err" 2>/dev/null
}
# trace_settled ERR PID: trace PID has said 'tracing' in ERR, or is gone.
trace_settled() { grep -q tracing "$1" 2>/dev/null || ! kill -0 "$2" 2>/dev/null; }
# trace_stop: SIGINT to trace_bg's trace, which must then print its final
# report and exit 0; its exit status in $TRC.
trace_stop() {
	kill -INT "$TPID"
	wait "$TPID"
	TRC=$?
}

# interval_rows FILE: "N CALLS BYTES" for each "== interval N" report in
# FILE (trace -i's text output, one target: its calls and bytes lines).
interval_rows() {
	awk '/^== interval/ { if (n) print n, c + 0, b + 0; n = $3; c = b = 0; on = 1 }
		/^== totals/ { if (n) print n, c + 0, b + 0; n = 0; on = 0 }
		on && /counters:  calls/ { v = $3; gsub(",", "", v); c = v }
		on && /^  bytes \(bytes\)/ { for (i = 1; i < NF; i++) if ($i == "sum") { v = $(i + 1); gsub(/[^0-9]/, "", v); b = v } }
		END { if (n) print n, c + 0, b + 0 }' "$1"
}
# interval_sum ROWS FIELD LO HI: FIELD (2 calls, 3 bytes) of interval_rows'
# ROWS summed over the intervals N with LO < N <= HI.
interval_sum() {
	awk -v f="$2" -v lo="$3" -v hi="$4" '$1 > lo && $1 <= hi { s += $f } END { print s + 0 }' <<<"$1"
}

# jq: the lower bound of the bucket holding a histogram's median.
# shellcheck disable=SC2016 # jq's variables
JQ_P50='def p50: .count as $n | reduce .buckets[] as $b ({c: 0, lo: null};
	.c += $b.count | if .lo == null and .c * 2 >= $n then .lo = $b.lo else . end) | .lo;'

# expect_inline_compare NAME REPORT: the checks of a run dedupe measured
# at the compare's inline site (tests/vm/dwarf.sh, dwarfbuilt.sh). The
# compare runs only for requests that pass the caller's range checks with
# something to compare: its calls are the workload's SAME and DIFFERS
# answers, none lost or dropped, its bytes the compared ones; each call's
# caller interval holds the site's, so the caller's sum is larger and its
# median bucket none smaller.
expect_inline_compare() {
	local n=$1 j=$2 dd='.targets.dedupe'
	expect_eq "$n: calls, bytes reconcile, no validation failure" \
		"$(jq -r '.workload | "\(.reconcile) \(.validation_failures)"' "$j" 2>&1)" "ok 0"
	expect_eq "$n: calls = the workload's SAME + DIFFERS answers" \
		"$(jq -r "$dd.counters | \"\(.calls) \(.same) \(.differs) \(.errors) \(.dropped)\"" "$j" 2>&1)" \
		"$(jq -r '.workload | "\(.same + .differs) \(.same) \(.differs) 0 0"' "$j" 2>&1)"
	expect_eq "$n: bytes = the workload's compared bytes" \
		"$(jq -r "$dd.histograms.bytes.sum" "$j" 2>&1)" "$(jq -r .workload.bytes "$j" 2>&1)"
	expect_eq "$n: the compare's own time is below its caller's" \
		"$(jq -r "$JQ_P50 $dd.histograms | [(.latency_ns.sum < .caller_latency_ns.sum), ((.latency_ns | p50) <= (.caller_latency_ns | p50))] | map(tostring) | join(\" \")" "$j" 2>&1)" \
		"true true"
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi
}

# expect_match NAME TEXT REGEX
expect_match() {
	if grep -Eq -- "$3" <<<"$2"; then ok "$1"; else bad "$1" "'$3' not in: $(head -c 600 <<<"$2")"; fi
}

# State that must be identical before and after a failing command: the
# mounts and loop devices of files under $TMPDIR and folioscope's temp
# dirs there. tests/check.sh gives each run its own TMPDIR, so other
# folioscope runs on the same machine do not show up here. A suite with a
# scratch dir of its own (scratch_setup) narrows it further: LEAK_MOUNTS
# is the path prefix of the mounts and loop images, LEAK_FILES the glob
# of the temp dirs.
leak_state() {
	local t=${TMPDIR:-/tmp}
	{ grep -hsF "${LEAK_MOUNTS:-$t/}" /proc/mounts /sys/block/loop*/loop/backing_file
	  compgen -G "${LEAK_FILES:-$t/folioscope-*}"; } | sort
}

# scratch_setup NAME: a dir of the suite's own, $SCRATCH (/tmp/NAME.XXXXXX,
# mode 755 so that other users' commands reach files in it), holding the
# workloads' TMPDIR ($SCRATCH/tmp): their images, mounts and temp dirs,
# and so leak_state and the stale clean-up, are this suite's only (other
# folioscope runs on the machine may mount and unmount meanwhile).
# Removed, its mounts first, when the suite's process ends, stopped or
# not; the functions named in scratch_atexit run before that.
scratch_atexit=()
scratch_setup() {
	SCRATCH=$(mktemp -d "/tmp/$1.XXXXXX")
	chmod 755 "$SCRATCH"
	export TMPDIR=$SCRATCH/tmp
	mkdir "$TMPDIR"
	LEAK_MOUNTS=$SCRATCH/
	LEAK_FILES="$TMPDIR/*"
	trap scratch_cleanup EXIT
	trap 'exit 130' INT TERM
}
scratch_cleanup() {
	local m f
	for f in "${scratch_atexit[@]}"; do "$f"; done
	for m in $(grep -oE "$SCRATCH/[^ ]*" /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null; done
	rm -rf "$SCRATCH"
}

# LeakSanitizer cannot work under ptrace (it fails the exit): the
# environment, for env(1), of what runs under strace in a SAN=1 build.
NOLSAN=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# strace_delays SYSCALL: strace can hold SYSCALL at its entry
# (-e inject=SYSCALL:delay_enter=US), which the signal tests use to make a
# phase last.
strace_delays() { command -v strace >/dev/null && strace -e inject="$1":delay_enter=1 true 2>/dev/null; }

# bpf_ids PID: the BPF programs and links PID holds, "prog N" / "link N",
# from its fdinfo.
bpf_ids() {
	awk 'FNR == 1 { l = 0 } /^link_type:/ { l = 1 } /^link_id:/ { print "link " $2 }
	     /^prog_id:/ && !l { print "prog " $2 }' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u
}
# bpf_gone IDS: none of bpf_ids' IDS exists any more (they are freed
# after an RCU grace period: up to 5 s); else prints those left.
bpf_gone() {
	local left kind id
	for _ in $(seq 50); do
		left=
		while read -r kind id; do
			[ -n "$id" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 && left+=" $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "$left"
	return 1
}
# expect_bpf_gone NAME IDS: a check that bpf_gone IDS.
expect_bpf_gone() {
	local left
	if left=$(bpf_gone "$2"); then ok "$1"; else bad "$1" "$left"; fi
}
# has_link PID: PID holds a BPF link (it has attached).
# (Output into grep's here-string, not a pipe: grep -q stops reading at a
# match, and the writer's SIGPIPE would fail the pipe under pipefail.)
has_link() { grep -q bpf_link <<<"$(ls -l /proc/"$1"/fd 2>/dev/null)"; }
# proc_gone PID: PID has exited, or is a zombie no one has reaped yet
# (its memory and files are freed).
proc_gone() {
	local st
	st=$(awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null)
	[ -z "$st" ] || [ "$st" == Z ]
}
# proc_stopped PID: PID is stopped (a run's --stop-after point).
proc_stopped() { [ "$(awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null)" == T ]; }
# json_ok FILE: FILE is a complete folioscope report.
json_ok() { jq -e '.schema == "folioscope/1" and (.targets | type) == "object"' "$1" >/dev/null 2>&1; }
# sig_code SIG: the exit status of a shell's child that died of SIG.
sig_code() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; KILL) echo 137 ;; esac; }

# expect_error NAME EXIT_CODE REGEX CMD...: exits with EXIT_CODE (or any
# non-zero with '!'), prints exactly one line on stderr matching REGEX,
# and leaves no mount, loop device or temp dir behind.
expect_error() {
	local name=$1 code=$2 re=$3 before after err rc
	shift 3
	before=$(leak_state)
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	after=$(leak_state)
	if [ "$code" == '!' ] && [ $rc -eq 0 ]; then
		bad "$name" "exit 0, want non-zero"; return
	elif [ "$code" != '!' ] && [ $rc -ne "$code" ]; then
		bad "$name" "exit $rc, want $code (stderr: $err)"; return
	fi
	if [ "$(grep -c . <<<"$err")" -ne 1 ]; then
		bad "$name" "want one stderr line, got: $err"; return
	fi
	if ! grep -Eq -- "$re" <<<"$err"; then
		bad "$name" "stderr '$err' does not match '$re'"; return
	fi
	if [ "$before" != "$after" ]; then
		bad "$name" "left behind: $(diff <(echo "$before") <(echo "$after") | tail -n +2)"; return
	fi
	ok "$name"
}

summary() {
	echo
	# Before the last line, which is the one CI reads.
	[ "$FAIL" -eq 0 ] || [ -z "${CHECK_FAILURES:-}" ] ||
		echo "the failures, with their times: $CHECK_FAILURES"
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
}

# fake_shim DIR: tests/host/progs/fakekernel.c (fake kernel bugs) built
# into DIR/fakekernel.so, for LD_PRELOAD into the dynamic build: sets
# FAKE_DYN and FAKE_SO, or returns 1 with the reason in FAKE_WHY.
fake_shim() {
	FAKE_DYN=$(dirname "$FS")/folioscope-dyn
	FAKE_SO=$1/fakekernel.so
	if [ -n "${SAN:-}" ]; then
		# ASan must be the first library loaded, before the shim.
		FAKE_WHY="not with a sanitizer build (the LD_PRELOAD shim cannot come before ASan's runtime)"
	elif [ ! -x "$FAKE_DYN" ]; then
		FAKE_WHY="no $FAKE_DYN (make build/folioscope-dyn): LD_PRELOAD needs the dynamic build"
	elif ! ${CC:-cc} -O2 -Wall -shared -fPIC tests/host/progs/fakekernel.c \
		-o "$FAKE_SO" -ldl -lpthread 2>"$1/cc.err"; then
		FAKE_WHY="cannot build the preload shim: $(head -1 "$1/cc.err")"
	else
		return 0
	fi
	return 1
}

# kunit_parser_dir: the kernel's own KTAP parser, tools/testing/kunit/ of
# Debian's linux-source-6.1 (tests/deps.sh installs it), extracted into
# $BUILD/kunit once and again only when the tarball changes (the whole
# tarball is decompressed for it: half a minute). Sets KUNIT_DIR, or
# returns 1 with the reason in KUNIT_WHY.
KUNIT_TARBALL=${KUNIT_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
kunit_parser_dir() {
	local dir=${BUILD:-build}/kunit stamp tmp src
	KUNIT_DIR=$PWD/$dir
	[[ "$dir" == /* ]] && KUNIT_DIR=$dir
	if ! command -v python3 >/dev/null; then
		KUNIT_WHY="no python3"
		return 1
	fi
	if [ ! -r "$KUNIT_TARBALL" ]; then
		KUNIT_WHY="no $KUNIT_TARBALL (package linux-source-6.1, tests/deps.sh)"
		return 1
	fi
	stamp=$(stat -c '%s %Y' "$KUNIT_TARBALL")
	if [ "$(cat "$KUNIT_DIR/.stamp" 2>/dev/null)" == "$stamp" ] &&
		[ -f "$KUNIT_DIR/kunit_parser.py" ]; then
		return 0
	fi
	mkdir -p "$(dirname "$KUNIT_DIR")"
	tmp=$(mktemp -d "$KUNIT_DIR.XXXXXX")
	tar -xJf "$KUNIT_TARBALL" -C "$tmp" --wildcards '*/tools/testing/kunit/*' 2>"$tmp/err"
	src=$(compgen -G "$tmp/*/tools/testing/kunit" | head -1)
	if [ ! -f "$src/kunit_parser.py" ]; then
		KUNIT_WHY="cannot extract tools/testing/kunit/ from $KUNIT_TARBALL: $(head -1 "$tmp/err")"
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "$KUNIT_DIR"
	mv "$src" "$KUNIT_DIR"
	echo "$stamp" >"$KUNIT_DIR/.stamp"
	rm -rf "$tmp"
}
# ktap_counts FILE: what the kernel's parser makes of KTAP FILE, "PASSED
# FAILED CRASHED SKIPPED ERRORS STATUS" (kunit_parser_dir first).
ktap_counts() {
	python3 tests/host/ktap-counts.py "$KUNIT_DIR" "$1" 2>&1
}
# json_ktap_counts JSON: the same numbers as a run's KTAP must give them,
# from its JSON report: a leaf per check (failed ones failed), a skip per
# validation.skipped entry, for a group that checked nothing (validate:
# a tier not run) and for a disturbed environment, and reconcile (ok, skipped: ..., absent: skipped; else failed).
json_ktap_counts() {
	jq -r '(.validation.checks // 0) as $c | (.validation.failures // 0) as $f |
		(.workload.reconcile // "") as $r |
		(if $r == "ok" then "pass" elif $r == "" or ($r | startswith("skipped: ")) then "skip" else "fail" end) as $rv |
		([.validation.groups // [] | .[] | select(.checks == 0 and .note)] | length) as $g |
		"\($c - $f + (if $rv == "pass" then 1 else 0 end)) \($f + (if $rv == "fail" then 1 else 0 end)) 0 \((.validation.skipped // [] | length) + $g + (if .validation.disturbed then 1 else 0 end) + (if $rv == "skip" then 1 else 0 end)) 0"' "$1" 2>&1
}
