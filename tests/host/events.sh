# Per-call events at the syscall level on this host (sourced by
# tests/check.sh): one event per call with the offsets and lengths as
# issued, --errors exactly the failing calls, --slower-than as many
# events as the latency histogram holds at or above the bound, a tiny
# ring's losses counted, -q of trace and run without the header, dedupe
# events with their source's file and fd, bad values refused. Every
# trace runs a command of its own and traces only its process tree, on a
# tmpfs of its own.
# shellcheck shell=bash
ev=$(mktemp -d "${TMPDIR:-/tmp}/fs-events.XXXXXX")
mkdir "$ev/m"
ev_mounted=
if mount -t tmpfs -o size=16m folioscope-ev "$ev/m"; then
	ev_mounted=1
	head -c 8000000 /dev/urandom >"$ev/m/f"
fi

# The workload: CMD lines on stdin, one call each, run in one process.
#   pread OFF LEN | wronly (a read of an O_WRONLY fd: EBADF)
#   efault LEN (a read into an unmapped buffer: EFAULT) | loop N LEN
#   sleep S (the workload spans several -i intervals)
#   await FILE N TEXT (stays until N lines of FILE hold TEXT, 30 s at
#   most: trace names an event's file from the process's open fds, which
#   go when it exits)
# It prints "OFF LEN RET" per call issued (RET -errno on failure).
cat >"$ev/wl.py" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
path = sys.argv[1]
fd = os.open(path, os.O_RDONLY)
wfd = os.open(path, os.O_WRONLY)
out = []
def call(f, off, ln, buf):
    r = libc.pread(f, buf, ln, ctypes.c_long(off))
    out.append("%d %d %d" % (off, ln, r if r >= 0 else -ctypes.get_errno()))
big = ctypes.create_string_buffer(4 << 20)
for line in sys.stdin:
    w = line.split()
    if w[0] == "pread":
        call(fd, int(w[1]), int(w[2]), big)
    elif w[0] == "wronly":
        call(wfd, 0, int(w[1]), big)
    elif w[0] == "efault":
        call(fd, 0, int(w[1]), ctypes.c_void_p(8))
    elif w[0] == "sleep":
        import time; time.sleep(float(w[1]))
    elif w[0] == "await":
        import time
        text = line.split(None, 3)[3].strip()
        for _ in range(3000):
            try:
                with open(w[1]) as f:
                    if sum(text in l for l in f) >= int(w[2]):
                        break
            except OSError:
                pass
            time.sleep(0.01)
    elif w[0] == "loop":
        for _ in range(int(w[1])):
            call(fd, 0, int(w[2]), big)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY

# ev_trace NAME CALLS ARGS...: trace the workload fed CALLS (a file) with
# ARGS; stdout in $ev/NAME.out, JSON report $ev/NAME.json, its own record
# of the calls in $ev/NAME.calls. Fails if trace does.
ev_trace() {
	local name=$1 calls=$2
	shift 2
	"$FS" trace -t shmem --dev "$ev/m" -j "$ev/$name.json" "$@" -- \
		python3 "$ev/wl.py" "$ev/m/f" "$ev/$name.calls" \
		<"$calls" >"$ev/$name.out" 2>"$ev/$name.err"
}
# ev_events FILE: "OFF LEN RET" per event of a JSON Lines file.
ev_events() {
	jq -r 'select(.type == "event") | "\(.offset) \(.req_bytes) \(.ret)"' "$1"
}

if [ -z "$ev_mounted" ]; then
	skip "events" "cannot mount a tmpfs at $ev/m"
else
	# ---- --events all: one event per call, as issued ----
	{
		echo "pread 0 4096"; echo "pread 4096 100"; echo "pread 12345 3000"
		echo "pread 1048576 65536"; echo "pread 7999990 4096"
		echo "pread 8000000 10"; echo "wronly 50"; echo "await $ev/all.out 7 shmem  syscall"
	} >"$ev/all.in"
	if ev_trace all "$ev/all.in" --events all --events-json "$ev/all.jsonl"; then
		expect_eq "events all: one event per call, offsets, lengths and results as issued" \
			"$(ev_events "$ev/all.jsonl")" "$(cat "$ev/all.calls")"
		expect_eq "events all: the events counter is the calls counter" \
			"$(jq -r '[.targets.shmem.calls, .targets.shmem.counters.events, .targets.shmem.counters.events_lost] | @tsv' "$ev/all.json")" \
			"7	7	0"
		expect_eq "events all: a line per event under the header" \
			"$(grep -c ' shmem  syscall ' "$ev/all.out")" 7
		expect_match "events all: header says what the syscall level does not see" \
			"$(cat "$ev/all.out")" '^# shmem via syscall does not see: folio sizes, copy chunks'
		expect_eq "events all: results OK, SHORT (past EOF) and EBADF" \
			"$(jq -r 'select(.type == "event") | .result' "$ev/all.jsonl" | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ')" \
			"EBADF=1 OK=4 SHORT=2"
		expect_eq "events all: the file's path resolved, folios not claimed" \
			"$(jq -r 'select(.type == "event") | "\(.file.path) \(.folios) \(.chunks)"' "$ev/all.jsonl" | sort -u)" \
			"$ev/m/f null null"
		expect_eq "events all: JSON summary line" \
			"$(jq -c 'select(.type == "summary")' "$ev/all.jsonl")" \
			'{"type":"summary","target":"shmem","events":7,"events_lost":0}'
		expect_match "events all: the events' last line says events lost" \
			"$(cat "$ev/all.out")" '^shmem: events 7, events lost 0$'
		expect_match "events all: the text report says events lost" \
			"$(cat "$ev/all.out")" '^  events 7, events lost 0$'
	else
		bad "events all" "trace failed: $(cat "$ev/all.err")"
	fi

	# ---- --events-json into a FIFO: lines as they come ----
	mkfifo "$ev/fifo"
	cat "$ev/fifo" >"$ev/stream.jsonl" &
	cpid=$!
	if ev_trace fifo "$ev/all.in" --events all --events-json "$ev/fifo" -q; then
		wait "$cpid"
		expect_eq "events --events-json FIFO: the same events, streamed" \
			"$(ev_events "$ev/stream.jsonl")" "$(cat "$ev/fifo.calls")"
		expect_eq "events --events-json FIFO: no temp file beside it" \
			"$(find "$ev" -maxdepth 1 -name '.fifo.folioscope-*' | wc -l)" 0
	else
		kill "$cpid" 2>/dev/null
		bad "events --events-json FIFO" "trace failed: $(cat "$ev/fifo.err")"
	fi

	# ---- run: events of the workload's own reads ----
	if "$FS" run shmem-read --size 64K --bs 16K --offset 4096 --events all \
		--events-json "$ev/run.jsonl" -j "$ev/run.json" >"$ev/run.out" 2>&1; then
		expect_eq "events run shmem-read: one event per read the workload made" \
			"$(jq -r 'select(.type == "event") | "\(.offset) \(.req_bytes)"' "$ev/run.jsonl" | head -4 | paste -sd,)" \
			"4096 16384,20480 16384,36864 16384,53248 16384"
		expect_eq "events run shmem-read: events = calls = the workload's calls" \
			"$(jq -s 'map(select(.type == "event")) | length' "$ev/run.jsonl") $(jq -r '[.targets.shmem.calls, .targets.shmem.counters.events, .workload.calls] | @tsv' "$ev/run.json" 2>&1)" \
			"$(jq -r .targets.shmem.calls "$ev/run.json") $(jq -r '[.targets.shmem.calls, .targets.shmem.calls, .targets.shmem.calls] | @tsv' "$ev/run.json")"
	else
		bad "events run shmem-read" "run failed: $(head -c 600 "$ev/run.out")"
	fi

	# ---- run -q: the event lines without their header ----
	if "$FS" run shmem-read --size 64K --bs 16K --events all -q -j "$ev/runq.json" \
		>"$ev/runq.out" 2>"$ev/runq.err"; then
		expect_eq "events run -q: no header, one line per call" \
			"$(grep -c 'TIME(s)\|^#' "$ev/runq.out") $(grep -c ' shmem  syscall ' "$ev/runq.out")" \
			"0 $(jq -r .targets.shmem.calls "$ev/runq.json")"
	else
		bad "events run -q" "run failed: $(head -c 600 "$ev/runq.err")"
	fi

	# ---- run: the events thread sleeps until events come or the
	# workload ends (one wait over a run that selects none), not on a
	# timer (a wait every 50 ms: 12 to 14 over this run under strace) ----
	if command -v strace >/dev/null; then
		env "$NOLSAN" strace -f -qq -o "$ev/runwaits" \
			-e trace=poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,nanosleep,clock_nanosleep \
			"$FS" run shmem-read --size 128M --bs 64K --slower-than 1h \
			>"$ev/runw.out" 2>&1
		expect_eq "events run: exit 0, one wait (woken at the workload's end)" \
			"$? $(grep -c . "$ev/runwaits") $(grep -c 'ppoll(.*NULL' "$ev/runwaits")" "0 1 1"
	else
		skip "events run: the events thread's waits" "needs strace"
	fi

	# ---- -q: no header ----
	if ev_trace quiet "$ev/all.in" --events all -q; then
		expect_eq "events -q: no header, the same 7 lines" \
			"$(grep -c 'TIME(s)\|^#' "$ev/quiet.out") $(grep -c ' shmem  syscall ' "$ev/quiet.out")" "0 7"
	else
		bad "events -q" "trace failed: $(cat "$ev/quiet.err")"
	fi

	# ---- --errors: exactly the failing calls (and short reads) ----
	{
		echo "pread 0 4096"; echo "wronly 10"; echo "pread 8192 4096"
		echo "efault 4096"; echo "pread 7999000 4096"; echo "pread 0 100"
		echo "wronly 20"
	} >"$ev/err.in"
	if ev_trace err "$ev/err.in" --errors --events-json "$ev/err.jsonl"; then
		expect_eq "events --errors: the failing and short calls only" \
			"$(ev_events "$ev/err.jsonl")" \
			"$(awk '$3 < 0 || $3 < $2' "$ev/err.calls")"
		expect_eq "events --errors: their results" \
			"$(jq -r 'select(.type == "event") | "\(.result) \(.errno)"' "$ev/err.jsonl" | paste -sd,)" \
			"EBADF 9,EFAULT 14,SHORT null,EBADF 9"
		expect_eq "events --errors: counters" \
			"$(jq -r '[.targets.shmem.calls, .targets.shmem.errors, .targets.shmem.counters.events] | @tsv' "$ev/err.json")" \
			"7	3	4"
	else
		bad "events --errors" "trace failed: $(cat "$ev/err.err")"
	fi

	# ---- --slower-than T: the latency histogram's count at or above T ----
	# T is a bucket boundary (2^k ns): every bucket is wholly above or
	# below it. 4 KiB and 3 MiB reads mixed.
	t=65536
	for _ in $(seq 40); do echo "pread 0 4096"; echo "pread 4096 3145728"; done >"$ev/slow.in"
	if ev_trace slow "$ev/slow.in" --slower-than "${t}ns" --events-json "$ev/slow.jsonl"; then
		want=$(jq -r --argjson t "$t" '[.targets.shmem.histograms.latency_ns.buckets[] | select(.lo >= $t) | .count] | add // 0' "$ev/slow.json")
		expect_eq "events --slower-than ${t}ns: as many events as latency_ns counts at or above it" \
			"$(jq -s 'map(select(.type == "event")) | length' "$ev/slow.jsonl")" "$want"
		expect_eq "events --slower-than: every event at or above the bound" \
			"$(jq -r --argjson t "$t" 'select(.type == "event" and .latency_ns < $t)' "$ev/slow.jsonl")" ""
		if [ "$want" -gt 0 ] && [ "$want" -lt 80 ]; then
			ok "events --slower-than: the bound splits the calls ($want of 80 above)"
		else
			skip "events --slower-than: the bound splits the calls" "$want of 80 calls at or above ${t}ns on this machine"
		fi
	else
		bad "events --slower-than" "trace failed: $(cat "$ev/slow.err")"
	fi

	# ---- a tiny ring and a flood: lost + seen = calls ----
	echo "loop 20000 1" >"$ev/flood.in"
	if ev_trace flood "$ev/flood.in" --events all --events-ring 4K --events-json "$ev/flood.jsonl" -q; then
		read -r calls taken lost < <(jq -r '[.targets.shmem.calls, .targets.shmem.counters.events, .targets.shmem.counters.events_lost] | @tsv' "$ev/flood.json")
		seen=$(jq -s 'map(select(.type == "event")) | length' "$ev/flood.jsonl")
		expect_eq "events flood: the calls made" "$calls" 20000
		expect_eq "events flood: events seen + lost = calls" "$((seen + lost))" "$calls"
		expect_eq "events flood: events seen = the events counter" "$seen" "$taken"
		if [ "$lost" -gt 0 ]; then ok "events flood: a 4K ring lost events ($lost)"; else bad "events flood: a 4K ring lost events" "none lost of $calls"; fi
		expect_match "events flood: losses in the report" "$(cat "$ev/flood.out")" "^shmem: events $seen, events lost $lost\$"
	else
		bad "events flood" "trace failed: $(cat "$ev/flood.err")"
	fi

	# ---- -i: each interval counts the events of its own calls ----
	{ echo "loop 50 1"; echo "sleep 0.5"; echo "loop 50 1"; } >"$ev/iv.in"
	if ev_trace iv "$ev/iv.in" --events all -i 0.2 -q; then
		# A snapshot is not atomic with a program running on another
		# CPU: a call's count and its event's may land on both sides
		# of an interval's end, one call per CPU at most. So after
		# every interval the calls and the events so far differ by at
		# most the CPUs, and the totals are equal.
		expect_eq "events -i: after every interval, events = calls but for one call per CPU at its end; summed, all 100" \
			"$(jq -r --argjson n "$(nproc)" '[foreach (.intervals[].targets.shmem.counters | .calls - .events) as $d (0; . + $d; . < -$n or . > $n)] | map(select(.)) | length' "$ev/iv.json") $(jq -r '[.intervals[].targets.shmem.counters | .calls - .events] | add' "$ev/iv.json") $(jq -r '[.intervals[].targets.shmem.counters.events] | add' "$ev/iv.json")" \
			"0 0 100"
		expect_match "events -i: every interval's text report and the totals have their events line" \
			"$(awk '/^== interval/ { n++ } /^  events [0-9]+, events lost 0$/ { e++ } END { print (e == n + 1 && n > 1) ? "yes" : "no " n " " e }' "$ev/iv.out")" '^yes$'
	else
		bad "events -i" "trace failed: $(cat "$ev/iv.err")"
	fi

	# ---- --sample N: one in N ----
	echo "loop 100 1" >"$ev/sample.in"
	if ev_trace sample "$ev/sample.in" --sample 10 --events-json "$ev/sample.jsonl" -q; then
		n=$(jq -s 'map(select(.type == "event")) | length' "$ev/sample.jsonl")
		# One in 10 per CPU: from 10 (one CPU) to 10 + CPUs - 1.
		if [ "$n" -ge 10 ] && [ "$n" -lt $((10 + $(nproc))) ]; then
			ok "events --sample 10: $n events of 100 calls"
		else
			bad "events --sample 10" "$n events of 100 calls"
		fi
	else
		bad "events --sample" "trace failed: $(cat "$ev/sample.err")"
	fi
fi

# ---- dedupe at the syscall level: one event per destination ----
# run dedupe: 3 FIDEDUPERANGEs of 64 KiB ranges, 2 destinations each,
# one byte differing in the middle of each destination range.
if "$FS" run dedupe --fs btrfs --count 3 --dests 2 --range 64K --differ middle \
	--errors --events-json "$ev/dd.jsonl" -j "$ev/dd.json" >"$ev/dd.out" 2>&1; then
	expect_eq "events dedupe --errors: one DIFFERS event per destination, offsets and length as issued" \
		"$(jq -r 'select(.type == "event") | "\(.offset) \(.dst_offset) \(.req_bytes) \(.result) \(.mechanism)"' "$ev/dd.jsonl")" \
		"$(for i in 0 0 1 1 2 2; do echo "$((i * 65536)) $((i * 65536)) 65536 DIFFERS syscall"; done)"
	expect_eq "events dedupe: calls, differs, events" \
		"$(jq -r '[.targets.dedupe.calls, .targets.dedupe.counters.differs, .targets.dedupe.counters.events] | @tsv' "$ev/dd.json")" \
		"6	6	6"
	# Every event names the source: its file (device and inode) and the
	# ioctl's fd, one and the same file for all six.
	expect_eq "events dedupe: every event has the source's file and fd, one source" \
		"$(jq -r 'select(.type == "event") | [.file.dev, .file.ino, .fd] | map(tostring) | join(" ")' "$ev/dd.jsonl" | grep -cv null | tr -d ' ') $(jq -r 'select(.type == "event") | "\(.file.dev) \(.file.ino) \(.fd)"' "$ev/dd.jsonl" | sort -u | wc -l)" \
		"6 1"
elif grep -qiE 'mkfs|loop|btrfs' "$ev/dd.out"; then
	skip "events dedupe" "run dedupe --fs btrfs cannot run here: $(head -c 300 "$ev/dd.out")"
else
	bad "events dedupe" "run failed: $(head -c 600 "$ev/dd.out")"
fi

# ---- bad values: one line, exit 2 ----
expect_error "events: --slower-than -1" 2 'invalid --slower-than' "$FS" trace --slower-than -1 -d 1
expect_error "events: --slower-than 1parsec" 2 'invalid --slower-than' "$FS" trace --slower-than 1parsec -d 1
expect_error "events: --slower-than 0ms" 2 'invalid --slower-than' "$FS" trace --slower-than 0ms -d 1
expect_error "events: --sample 0" 2 'invalid --sample' "$FS" trace --sample 0 -d 1
expect_error "events: --events some" 2 'invalid --events' "$FS" trace --events some -d 1
expect_error "events: --events-ring 5000" 2 'invalid --events-ring' "$FS" trace --events all --events-ring 5000 -d 1
expect_error "events: --events-json alone" 2 'need --events all' "$FS" trace --events-json /dev/null -d 1
expect_error "events: run --sample 0" 2 'invalid --sample' "$FS" run shmem-read --sample 0

[ -n "$ev_mounted" ] && umount "$ev/m"
rm -rf "$ev"
