# The syscall level on this host (sourced by tests/check.sh): what it
# decodes and what it counts apart (32-bit tasks, iovecs past the limit),
# offset 0's alignment slot in every format, and -i's intervals adding up
# to the totals while the traced process keeps reading. Every trace is
# filtered to the test's own processes.
# shellcheck shell=bash
sc=$(mktemp -d /dev/shm/fs-sys.XXXXXX)
head -c 10000 /dev/urandom >"$sc/f"

# sc_j FILE JQ: one value of a JSON report.
sc_j() { jq -r "$2" "$1"; }

# ---- 32-bit (compat) tasks: counted apart, never decoded as x86-64 ----
if gcc -m32 -static -nostdlib -ffreestanding -fno-pic -fno-stack-protector \
	-O2 tests/host/progs/compat32.c -o "$sc/compat32" 2>"$sc/cc.err" &&
	"$sc/compat32" "$sc/f"; then
	gated_reader "$sc" c "$sc/compat32" "$sc/f"; C=$RPID
	if trace_bg "$sc" -p "$C" -j "$sc/c.json"; then
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
