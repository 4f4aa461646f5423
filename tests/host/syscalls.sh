# The syscall level on this host (sourced by tests/check.sh): which
# tracepoints it attaches to (the per-syscall ones, the raw pair when
# they are excluded) and that both count exactly; what it decodes and
# what it counts apart (32-bit tasks, iovecs past the limit),
# offset 0's alignment slot in every format, and -i's intervals adding up
# to the totals while the traced process keeps reading. Every trace is
# filtered to the test's own processes.
# shellcheck shell=bash
sc=$(mktemp -d /dev/shm/fs-sys.XXXXXX)
head -c 10000 /dev/urandom >"$sc/f"

# sc_j FILE JQ: one value of a JSON report.
sc_j() { jq -r "$2" "$1"; }

# ---- which tracepoints: links of the tracer, counts on both ----
# sc_links PID: "LINK_TYPE TP_NAME PROG_NAME" of each BPF link PID holds,
# sorted, from /proc/PID/fdinfo (its own links only, not other users').
sc_links() {
	local f t n id
	for f in /proc/"$1"/fdinfo/*; do
		t=$(sed -n 's/^link_type:[[:space:]]*//p' "$f" 2>/dev/null)
		[ -n "$t" ] || continue
		n=$(sed -n 's/^tp_name:[[:space:]]*//p' "$f")
		id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f")
		echo "$t ${n:--} $(bpftool prog show id "$id" 2>/dev/null |
			sed -n 's/.* name \([^ ]*\) .*/\1/p')"
	done | sort
}
sc_sys_reader() { # a reader of every traced kind on $1, plus bystanders
	# preadv and preadv2 by number (x86-64): a libc may make either
	# one of the other.
	gated_reader "$sc" "$2" python3 -c '
import ctypes, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
z = os.open("/dev/zero", os.O_RDONLY)
# An O_PATH descriptor of the tmpfs file, read first: refused before any
# read_iter (EBADF), not counted, and nothing to learn the f_op of
# regular tmpfs files from.
op = os.open(sys.argv[1], os.O_PATH)
try:
    os.read(op, 10)
    sys.exit(1)
except OSError:
    pass
for _ in range(3):
    os.getppid()
    os.pread(z, 4096, 0)
os.read(fd, 100)
os.pread(fd, 200, 0)
os.readv(fd, [bytearray(300)])
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for nr, n in ((295, 400), (327, 500)):
    b = ctypes.create_string_buffer(n)
    iov = iovec(ctypes.addressof(b), n)
    if libc.syscall(ctypes.c_long(nr), ctypes.c_long(fd), ctypes.byref(iov),
                    ctypes.c_long(1), ctypes.c_long(0), ctypes.c_long(0),
                    ctypes.c_long(0)) != n:
        sys.exit(1)
# After the reads of a tmpfs file, which taught the programs the f_op of
# regular tmpfs files: a device node and a fifo on tmpfs are not
# counted, a memfd (a regular tmpfs file too) is.
os.pread(z, 4096, 0)
fifo = os.path.join(os.path.dirname(sys.argv[1]), "fifo")
os.mkfifo(fifo)
p = os.open(fifo, os.O_RDWR)
os.write(p, b"x" * 10)
os.read(p, 10)
m = os.memfd_create("m")
os.write(m, b"y" * 600)
if os.pread(m, 600, 0) != b"y" * 600:
    sys.exit(1)
os.unlink(fifo)
' "$1"
}
if command -v bpftool >/dev/null; then
	# Per-syscall tracepoints where the kernel has them; the raw pair
	# when they are excluded (as on a kernel without them).
	# rawtask: the raw pair whose exit reads the syscall's number from
	# the task's saved registers, as on kernels without bpf_rdonly_cast
	# (before 6.2); rawhelper: with a helper, as before 5.15.
	# lean: --lean on the per-syscall tracepoints, whose exits alone
	# count each read, from the registers the task entered with; leanev:
	# --lean with events, which need the entries (and latency) again.
	# Both pairs of the per-syscall tracepoints of trace -t all, and
	# each target's program that moves a migrating thread's record out
	# of its CPU's slot (none where --lean keeps no record).
	sc_mig="raw_tracepoint sched_migrate_task inflight_migrate,"
	sc_tp_links="perf sys_enter_ioctl tp_enter_dd,perf sys_enter_pread64 tp_enter_sh,perf sys_enter_preadv tp_enter_sh,perf sys_enter_preadv2 tp_enter_sh,perf sys_enter_read tp_enter_sh3,perf sys_enter_readv tp_enter_sh3,perf sys_exit_ioctl tp_exit_dd,perf sys_exit_pread64 tp_exit_sh,perf sys_exit_preadv tp_exit_sh,perf sys_exit_preadv2 tp_exit_sh,perf sys_exit_read tp_exit_sh,perf sys_exit_readv tp_exit_sh,$sc_mig$sc_mig"
	for sc_mode in tp raw rawtask rawhelper lean leanev; do
		SC_EXCLUDE= SC_SYSRAW= SC_LEAN=
		case $sc_mode in raw | rawtask | rawhelper) SC_EXCLUDE=syscalls ;; esac
		[ $sc_mode = rawtask ] && SC_SYSRAW=task
		[ $sc_mode = rawhelper ] && SC_SYSRAW=helper
		[ $sc_mode = lean ] && SC_LEAN=--lean
		[ $sc_mode = leanev ] && SC_LEAN="--lean --events all"
		sc_sys_reader "$sc/f" "r$sc_mode"; R=$RPID
		# shellcheck disable=SC2086 # SC_LEAN: no option or one
		if FOLIOSCOPE_EXCLUDE=$SC_EXCLUDE FOLIOSCOPE_SYSRAW=$SC_SYSRAW \
			trace_bg "$sc" -t all -p "$R" $SC_LEAN -j "$sc/$sc_mode.json"; then
			links=$(sc_links "$TPID")
			release "$sc" "r$sc_mode"; wait "$R"; trace_stop
			if [ $sc_mode = tp ]; then
				expect_eq "syscall level: links on the reads' and ioctl's own tracepoints only, and the migration programs" \
					"$(echo "$links" | tr '\n' ',')" \
					"$sc_tp_links"
				expect_eq "syscall level: report names the per-syscall tracepoints" \
					"$(sc_j "$sc/tp.json" '[.targets.shmem.attach.symbol, .targets.dedupe.attach.symbol] | @tsv')" \
					"syscalls	syscalls"
				expect_match "syscall level: the reason says why they" \
					"$(sc_j "$sc/tp.json" .targets.shmem.attach.reason)" \
					'per-syscall tracepoints sys_enter/sys_exit_\{read,pread64,readv,preadv,preadv2\}, so other syscalls run no program of ours'
			elif [ $sc_mode = lean ]; then
				expect_eq "syscall level --lean: the reads' exit tracepoints alone (ioctl's pair and the one migration program are dedupe's)" \
					"$(echo "$links" | tr '\n' ',')" \
					"perf sys_enter_ioctl tp_enter_dd,perf sys_exit_ioctl tp_exit_dd,perf sys_exit_pread64 tp_exit_sh,perf sys_exit_preadv tp_exit_sh,perf sys_exit_preadv2 tp_exit_sh,perf sys_exit_read tp_exit_sh,perf sys_exit_readv tp_exit_sh,$sc_mig"
				expect_eq "syscall level --lean: the positions read at the exit are the ones the entries saw" \
					"$(sc_j "$sc/lean.json" '.targets.shmem.histograms.pos_align | [.count, .sum, (.buckets | tostring)] | @tsv')" \
					"$(sc_j "$sc/tp.json" '.targets.shmem.histograms.pos_align | [.count, .sum, (.buckets | tostring)] | @tsv')"
				expect_eq "syscall level --lean: request sizes as the entries saw them" \
					"$(sc_j "$sc/lean.json" '.targets.shmem.histograms.req_bytes | .buckets | tostring')" \
					"$(sc_j "$sc/tp.json" '.targets.shmem.histograms.req_bytes | .buckets | tostring')"
				expect_eq "syscall level --lean: no latency, and why" \
					"$(sc_j "$sc/lean.json" '.targets.shmem.histograms.latency_ns | "\(.measured) \(.why // .reason)"')" \
					"false left out by --lean: each call is counted at its exit alone, with no clock"
				expect_match "syscall level --lean: the reason says no call is kept in flight" \
					"$(sc_j "$sc/lean.json" .targets.shmem.attach.reason)" \
					'in-flight calls: none \(--lean: each call counted at its exit\)'
			elif [ $sc_mode = leanev ]; then
				expect_eq "syscall level --lean --events all: the entries attached again" \
					"$(echo "$links" | tr '\n' ',')" \
					"$sc_tp_links"
				expect_eq "syscall level --lean --events all: latency measured, each read timed" \
					"$(sc_j "$sc/leanev.json" '.targets.shmem.histograms.latency_ns | "\(.measured) \(.count)"')" "true 6"
			elif [ $sc_mode = rawtask ]; then
				expect_eq "syscall level, raw fallback, FOLIOSCOPE_SYSRAW=task: the exit that reads the task's saved registers" \
					"$(echo "$links" | tr '\n' ',')" \
					"$sc_mig${sc_mig}raw_tracepoint sys_enter sys_enter_all,raw_tracepoint sys_exit sys_exit_task,"
			elif [ $sc_mode = rawhelper ]; then
				expect_eq "syscall level, raw fallback, FOLIOSCOPE_SYSRAW=helper: the exit that reads with a helper" \
					"$(echo "$links" | tr '\n' ',')" \
					"$sc_mig${sc_mig}raw_tracepoint sys_enter sys_enter_all,raw_tracepoint sys_exit sys_exit_helper,"
			else
				expect_eq "syscall level, raw fallback: one raw sys_enter and one sys_exit program for both targets (and the migration programs)" \
					"$(echo "$links" | tr '\n' ',')" \
					"$sc_mig${sc_mig}raw_tracepoint sys_enter sys_enter_all,raw_tracepoint sys_exit sys_exit_all,"
				expect_eq "syscall level, raw fallback: report names the raw pair" \
					"$(sc_j "$sc/raw.json" .targets.shmem.attach.symbol)" "sys_enter/sys_exit"
				expect_match "syscall level, raw fallback: the reason says why" \
					"$(sc_j "$sc/raw.json" .targets.shmem.attach.reason)" \
					"syscall syscalls: 'syscalls' excluded by FOLIOSCOPE_EXCLUDE"
			fi
			# One of each read on the tmpfs file (/dev/shm): 100 +
			# 200 + 300 + 400 + 500 bytes, and 600 of the memfd;
			# getppid, /dev/zero and the fifo are no reads of
			# tmpfs files, and nothing is a dedupe.
			expect_eq "syscall level ($sc_mode): each read counted once, bytes exact" \
				"$(sc_j "$sc/$sc_mode.json" '[.targets.shmem.calls, .targets.shmem.histograms.bytes.sum, .targets.shmem.histograms.req_bytes.sum, .targets.shmem.counters.dropped, .targets.dedupe.calls] | @tsv')" \
				"6	2100	2100	0	0"
		else
			bad "syscall level ($sc_mode)" "did not attach: $(cat "$sc/err")"; kill "$R"
		fi
	done
	SC_EXCLUDE=
	# -t shmem: nothing of dedupe's is attached.
	gated_reader "$sc" s true; S=$RPID
	if FOLIOSCOPE_EXCLUDE=$SC_EXCLUDE trace_bg "$sc" -t shmem -p "$S"; then
		expect_eq "trace -t shmem: no dedupe program attached" \
			"$(sc_links "$TPID" | grep -c '_dd$')" 0
		expect_match "trace -t shmem: its own are" "$(sc_links "$TPID")" 'tp_exit_sh'
		release "$sc" s; wait "$S"; trace_stop
	else
		bad "trace -t shmem links" "did not attach: $(cat "$sc/err")"; kill "$S"
	fi
else
	skip "syscall level: which tracepoints" "no bpftool to name the programs"
fi
# doctor names the plan and why.
out=$("$FS" doctor 2>&1)
expect_match "doctor: would use the per-syscall tracepoints" "$out" \
	'would use: syscall on syscalls'
expect_match "doctor: because: why" "$out" \
	'because: syscall-level on the per-syscall tracepoints sys_enter/sys_exit_ioctl, so other syscalls run no program of ours'
out=$(FOLIOSCOPE_EXCLUDE=syscalls "$FS" doctor 2>&1)
expect_match "doctor, per-syscall tracepoints excluded: the raw pair" "$out" \
	'would use: syscall on sys_enter/sys_exit'
expect_match "doctor, per-syscall tracepoints excluded: because" "$out" \
	"because: syscall-level on the raw tracepoints sys_enter/sys_exit, which run on every syscall.*syscall syscalls: 'syscalls' excluded by FOLIOSCOPE_EXCLUDE"
# Workloads with ground truth, on both: counts reconcile.
for sc_mode in tp raw; do
	SC_EXCLUDE=
	[ $sc_mode = raw ] && SC_EXCLUDE=syscalls
	for w in shmem-read dedupe; do
		if FOLIOSCOPE_EXCLUDE=$SC_EXCLUDE "$FS" run "$w" -j "$sc/w.json" >/dev/null 2>"$sc/w.err"; then
			t=shmem
			[ $w = dedupe ] && t=dedupe
			expect_eq "run $w, syscall level ($sc_mode): reconciles" \
				"$(jq -r "[.targets.$t.attach.symbol, .workload.reconcile] | join(\" \")" "$sc/w.json")" \
				"$([ $sc_mode = tp ] && echo syscalls || echo sys_enter/sys_exit) ok"
		else
			bad "run $w ($sc_mode)" "$(tail -n 3 "$sc/w.err")"
		fi
	done
done

# ---- 32-bit (compat) tasks: counted apart, never decoded as x86-64 ----
# The raw pair sees them; the per-syscall tracepoints are not run for
# them (the kernel skips a 32-bit task's syscalls there).
SC_EXCLUDE=syscalls
if gcc -m32 -static -nostdlib -ffreestanding -fno-pic -fno-stack-protector \
	-O2 tests/host/progs/compat32.c -o "$sc/compat32" 2>"$sc/cc.err" &&
	"$sc/compat32" "$sc/f"; then
	gated_reader "$sc" c "$sc/compat32" "$sc/f"; C=$RPID
	if FOLIOSCOPE_EXCLUDE=$SC_EXCLUDE trace_bg "$sc" -p "$C" -j "$sc/c.json"; then
		release "$sc" c; wait "$C"; trace_stop
		expect_eq "syscall level: a 32-bit lseek and read are no reads" \
			"$(sc_j "$sc/c.json" '[.targets.shmem.calls, .targets.shmem.histograms.req_bytes.count] | @tsv')" \
			"0	0"
		expect_eq "syscall level: 32-bit lseek (x86-64 readv's number) and read counted as skipped compat" \
			"$(sc_j "$sc/c.json" .targets.shmem.counters.compat_skipped)" 2
		expect_eq "syscall level: a 32-bit lchown (x86-64 ioctl's number) and ioctl are no dedupes" \
			"$(sc_j "$sc/c.json" '[.targets.dedupe.calls, .targets.dedupe.counters.compat_skipped] | @tsv')" \
			"0	2"
		expect_match "syscall level: text report says what it skipped" \
			"$("$FS" report "$sc/c.json")" \
			'32-bit \(compat\) syscalls skipped: 2, not decoded'
	else
		bad "syscall level: compat" "did not attach: $(cat "$sc/err")"; kill "$C"
	fi
else
	skip "syscall level: compat" "cannot build or run a static 32-bit program (no IA32 emulation?): $(head -c 300 "$sc/cc.err")"
fi
SC_EXCLUDE=

# ---- readv past FS_MAX_IOVECS: counted, req_bytes partial ----
maxiov=$(awk '$1 == "#define" && $2 == "FS_MAX_IOVECS" { print $3 }' bpf/shared.h)
mkdir "$sc/m"
if mount -t tmpfs -o size=1m folioscope-test "$sc/m"; then
	cp "$sc/f" "$sc/m/f"
	gated_reader "$sc" v python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
n = int(sys.argv[2])
for k in (n, n + 6):
    os.lseek(fd, 0, os.SEEK_SET)
    os.readv(fd, [bytearray(100) for _ in range(k)])
' "$sc/m/f" "$maxiov"; V=$RPID
	if trace_bg "$sc" -t shmem --dev "$sc/m" -p "$V" -j "$sc/v.json"; then
		release "$sc" v; wait "$V"; trace_stop
		# A readv of exactly the limit and one of 6 more, 100 bytes each.
		expect_eq "syscall level: readv calls, bytes returned" \
			"$(sc_j "$sc/v.json" '[.targets.shmem.calls, .targets.shmem.histograms.bytes.sum] | @tsv')" \
			"2	$((maxiov * 200 + 600))"
		expect_eq "syscall level: readv past $maxiov iovecs counted as such" \
			"$(sc_j "$sc/v.json" .targets.shmem.counters.iov_beyond)" 1
		expect_eq "syscall level: req_bytes sums the first $maxiov iovecs of each" \
			"$(sc_j "$sc/v.json" .targets.shmem.histograms.req_bytes.sum)" $((maxiov * 200))
		expect_match "syscall level: text report says req_bytes is partial" \
			"$("$FS" report "$sc/v.json")" \
			"iovecs beyond $maxiov: 1 calls counted, req_bytes partial"
	else
		bad "syscall level: readv iovecs" "did not attach: $(cat "$sc/err")"; kill "$V"
	fi
	expect_error "run --iovecs: the shared limit" 2 "at most $maxiov\\)" \
		"$FS" run shmem-read --syscall readv --iovecs $((maxiov + 1))
	umount "$sc/m"
else
	skip "syscall level: readv iovecs" "cannot mount tmpfs"
fi
rmdir "$sc/m"

# ---- a read at offset 0: the slot labelled offset 0, in every format ----
gated_reader "$sc" z dd if="$sc/f" of=/dev/null bs=4096 count=1 status=none; Z=$RPID
if trace_bg "$sc" -t shmem -p "$Z" -j "$sc/z.json"; then
	release "$sc" z; wait "$Z"; trace_stop
	expect_eq "offset 0: json: pos_align bucket 0 holds it, the 2 MiB one nothing" \
		"$(sc_j "$sc/z.json" '[.targets.shmem.histograms.pos_align.buckets[] | [.lo, .hi, .count]] | tostring')" \
		"[[0,0,1]]"
	"$FS" report "$sc/z.json" --format text -o "$sc/z.txt"
	expect_eq "offset 0: text: the 'offset 0' row counts it" \
		"$(awk '/^  pos_align/ { on = 1; next } /^  [a-z_]+ \(/ { on = 0 }
			on && /offset 0 :/ { print $4 }' "$sc/z.txt")" 1
	"$FS" report "$sc/z.json" --format csv -o "$sc/z.csv"
	expect_eq "offset 0: csv: the 0..0 row" \
		"$(grep '^shmem,pos_align,' "$sc/z.csv" | tr -d '\r')" "shmem,pos_align,0,0,1"
	"$FS" report "$sc/z.json" --format openmetrics -o "$sc/z.om"
	expect_eq "offset 0: openmetrics: le=0 holds it, help says bucket 0 is offset 0" \
		"$(grep -E '^folioscope_shmem_pos_align_bytes_bucket\{.*le="0"\}' "$sc/z.om" | awk '{ print $2 }') $(grep -c '^# HELP folioscope_shmem_pos_align_bytes .*bucket 0 is offset 0' "$sc/z.om")" \
		"1 1"
	for fmt in svg html; do
		"$FS" report "$sc/z.json" --format $fmt -o "$sc/z.$fmt"
		expect_eq "offset 0: $fmt: the bar titled offset 0 counts it, labelled so" \
			"$(grep -c '<title>offset 0: 1</title>' "$sc/z.$fmt") $(grep -c '>offset 0</text>' "$sc/z.$fmt")" \
			"1 1"
	done
else
	bad "offset 0" "did not attach: $(cat "$sc/err")"; kill "$Z"
fi

# ---- -i: intervals add up to the totals while reads go on past the end ----
# A reader that never stops on its own: one-byte preads in a loop.
gated_reader "$sc" i python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
while True:
    os.pread(fd, 1, 0)
' "$sc/f"; I=$RPID
# sc_calls: the calls of every interval report so far, summed.
sc_calls() {
	awk '/^== interval/ { on = 1 } /^== totals/ { on = 0 }
		on && /counters:  calls/ { gsub(",", ""); s += $3 } END { print s + 0 }' "$sc/out"
}
sc_has_calls() { [ "$(sc_calls)" -gt 0 ]; }
if trace_bg "$sc" -t shmem -i 0.2 -p "$I" -j "$sc/i.json"; then
	release "$sc" i
	wait_until 10 sc_has_calls
	trace_stop
	# Alive and not a zombie: it was reading while trace took its last
	# snapshots.
	running=$(grep -qE '^State:[[:space:]]+[RS]' "/proc/$I/status" 2>/dev/null && echo yes || echo no)
	kill "$I" 2>/dev/null; wait "$I" 2>/dev/null
	expect_eq "trace -i: the reader was still reading at the end" "$running" yes
	expect_eq "trace -i: intervals add up to the totals with reads past the end" \
		"$(sc_calls)" "$(sc_j "$sc/i.json" .targets.shmem.calls)"
else
	bad "trace -i past the end" "did not attach: $(cat "$sc/err")"; kill "$I"
fi

rm -rf "$sc"
