# Live tracing on this host (sourced by tests/check.sh): filters, intervals
# and signals, with readers gated so they run only once the probes are in.
# Every check filters to the test's own readers, so other activity on the
# machine cannot change the counts.
# shellcheck shell=bash
lt=$(mktemp -d /dev/shm/fs-live.XXXXXX)
# Stopped (tests/check.sh's timeout, ^C): its files in /dev/shm go too.
trap 'rm -rf "$lt"; exit 130' INT TERM
head -c 1000000 /dev/urandom >"$lt/a"
head -c 300000 /dev/urandom >"$lt/b"

jbytes() { jq -r '.targets.shmem.histograms.bytes.sum' "$1"; }

# -p: only the first reader counts.
gated_reader "$lt" a cat "$lt/a"; A=$RPID
gated_reader "$lt" b cat "$lt/b"; B=$RPID
if trace_bg "$lt" -t shmem -p "$A" -j "$lt/p.json"; then
	release "$lt" a; release "$lt" b; wait "$A" "$B"; trace_stop
	expect_eq "trace: SIGINT gives the final report and exit 0" "$TRC" 0
	expect_eq "trace -p: only that process's bytes" "$(jbytes "$lt/p.json")" 1000000
else
	bad "trace -p" "did not attach: $(cat "$lt/err")"; kill "$A" "$B"
fi

# --comm: cat counts, dd does not.
gated_reader "$lt" a cat "$lt/a"; A=$RPID
gated_reader "$lt" b dd if="$lt/b" of=/dev/null bs=64k status=none; B=$RPID
if trace_bg "$lt" -t shmem --comm dd -j "$lt/c.json"; then
	release "$lt" a; release "$lt" b; wait "$A" "$B"; trace_stop
	expect_eq "trace --comm dd: only dd's bytes" "$(jbytes "$lt/c.json")" 300000
else
	bad "trace --comm" "did not attach: $(cat "$lt/err")"; kill "$A" "$B"
fi

# -c: a cgroup v2 directory holding the first reader only.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg2" ] && mkdir "$cg2/fs-test-$$" 2>/dev/null; then
	gated_reader "$lt" a cat "$lt/a"; A=$RPID
	gated_reader "$lt" b cat "$lt/b"; B=$RPID
	if echo "$A" >"$cg2/fs-test-$$/cgroup.procs" &&
	   trace_bg "$lt" -t shmem -c "$cg2/fs-test-$$" -j "$lt/g.json"; then
		release "$lt" a; release "$lt" b; wait "$A" "$B"; trace_stop
		expect_eq "trace -c: only the cgroup's bytes" "$(jbytes "$lt/g.json")" 1000000
	else
		bad "trace -c" "could not set up: $(cat "$lt/err" 2>/dev/null)"; kill "$A" "$B"
	fi
	rmdir "$cg2/fs-test-$$"
else
	skip "trace -c" "no writable cgroup v2 hierarchy"
fi

# --dev: the second file on another tmpfs mount.
mkdir "$lt/m"
if mount -t tmpfs -o size=4m folioscope-test "$lt/m"; then
	cp "$lt/b" "$lt/m/b"
	gated_reader "$lt" a cat "$lt/a"; A=$RPID
	gated_reader "$lt" b cat "$lt/m/b"; B=$RPID
	if trace_bg "$lt" -t shmem --dev "$lt/m" -p "$A" -p "$B" -j "$lt/d.json"; then
		release "$lt" a; release "$lt" b; wait "$A" "$B"; trace_stop
		expect_eq "trace --dev: only files on that fs" "$(jbytes "$lt/d.json")" 300000
	else
		bad "trace --dev" "did not attach: $(cat "$lt/err")"; kill "$A" "$B"
	fi
	umount "$lt/m"
fi
rmdir "$lt/m"

# --fs: xfs sees none of these tmpfs reads, tmpfs all of them.
for fs in xfs tmpfs; do
	gated_reader "$lt" a cat "$lt/a"; A=$RPID
	gated_reader "$lt" b cat "$lt/b"; B=$RPID
	if trace_bg "$lt" -t shmem --fs $fs -p "$A" -p "$B" -j "$lt/f.json"; then
		release "$lt" a; release "$lt" b; wait "$A" "$B"; trace_stop
		expect_eq "trace --fs $fs" "$(jbytes "$lt/f.json")" \
			"$([ $fs == xfs ] && echo 0 || echo 1300000)"
	else
		bad "trace --fs $fs" "did not attach: $(cat "$lt/err")"; kill "$A" "$B"
	fi
done

# -i: three readers take turns, each once the reports show its
# predecessor's reads closed in an interval: each reader's bytes are in
# intervals of their own (so at least 3 intervals have reads), and the
# intervals add up to the totals exactly.
lt_intervals() { grep -c '^== interval' "$lt/out"; }
lt_has_intervals() { [ "$(lt_intervals)" -ge "$1" ]; }
# lt_closed: waits until two more interval reports are out, returns the
# count then. The first may have been collected before the last read it
# follows; the second was collected after the first was written.
lt_closed() {
	local n
	n=$(lt_intervals)
	wait_until 30 lt_has_intervals $((n + 2)) || return 1
	lt_intervals
}
head -c 200000 /dev/urandom >"$lt/c"
gated_reader "$lt" a cat "$lt/a"; A=$RPID
gated_reader "$lt" b cat "$lt/b"; B=$RPID
gated_reader "$lt" c cat "$lt/c"; C=$RPID
if trace_bg "$lt" -t shmem -i 0.2 -p "$A" -p "$B" -p "$C" -j "$lt/i.json"; then
	# Interval report numbers after which a, b, c had all read.
	release "$lt" a; wait "$A"; ia=$(lt_closed)
	release "$lt" b; wait "$B"; ib=$(lt_closed)
	release "$lt" c; wait "$C"; ic=$(lt_closed)
	trace_stop
	lt_iv=$(interval_rows "$lt/out")
	expect_eq "trace -i: each reader's bytes in its own intervals (a, b, c, after)" \
		"$(interval_sum "$lt_iv" 3 0 "$ia") $(interval_sum "$lt_iv" 3 "$ia" "$ib") $(interval_sum "$lt_iv" 3 "$ib" "$ic") $(interval_sum "$lt_iv" 3 "$ic" 1000000)" \
		"1000000 300000 200000 0"
	expect_eq "trace -i: at least 3 intervals with reads" \
		"$(awk '$2 > 0 { n++ } END { print (n >= 3) ? "yes" : "no (" n + 0 ")" }' <<<"$lt_iv")" yes
	expect_eq "trace -i: interval calls add up to the totals" "$(interval_sum "$lt_iv" 2 0 1000000)" \
		"$(jq -r .targets.shmem.calls "$lt/i.json")"
	expect_eq "trace -i: interval bytes add up to the totals" "$(interval_sum "$lt_iv" 3 0 1000000)" 1500000
	expect_eq "trace -i: totals" "$(jbytes "$lt/i.json")" 1500000
else
	bad "trace -i" "did not attach: $(cat "$lt/err")"; kill "$A" "$B" "$C"
fi
# --serve while tracing: /metrics holds the counts since the start.
if command -v curl >/dev/null; then
	gated_reader "$lt" a cat "$lt/a"; A=$RPID
	if trace_bg "$lt" -t shmem -p "$A" --serve 127.0.0.1:0 -j "$lt/s.json"; then
		url=$(grep -o 'http://[^ ]*/metrics' "$lt/err")
		release "$lt" a; wait "$A"
		m=$(curl -s "$url")
		trace_stop
		expect_eq "trace --serve: bytes sum scraped while tracing" \
			"$(awk '/^folioscope_shmem_bytes_sum/ { print $2 }' <<<"$m")" 1000000
		expect_eq "trace --serve: calls scraped = calls in the final JSON" \
			"$(awk '/^folioscope_shmem_calls_total/ { print $2 }' <<<"$m")" \
			"$(jq .targets.shmem.calls "$lt/s.json")"
	else
		bad "trace --serve" "did not attach: $(cat "$lt/err")"; kill "$A"
	fi
else
	skip "trace --serve" "curl not installed"
fi

# -P: one entry per process; past 64 processes, the "other" bucket.
gated_reader "$lt" a cat "$lt/a"; A=$RPID
gated_reader "$lt" b cat "$lt/b"; B=$RPID
if trace_bg "$lt" -t shmem -P -p "$A" -p "$B" -j "$lt/P.json"; then
	release "$lt" a; release "$lt" b; wait "$A" "$B"; trace_stop
	expect_eq "trace -P: bytes per process" \
		"$(jq -c '[.processes[] | [.pid, .comm, .targets.shmem.histograms.bytes.sum]] | sort' "$lt/P.json")" \
		"$(jq -nc --argjson a "$A" --argjson b "$B" '[[$a, "cat", 1000000], [$b, "cat", 300000]] | sort')"
else
	bad "trace -P" "did not attach: $(cat "$lt/err")"; kill "$A" "$B"
fi
head -c 5000 /dev/urandom >"$lt/s"
"$FS" trace -t shmem -P -q -j "$lt/P70.json" -- sh -c \
	'for i in $(seq 70); do cat "$0" >/dev/null; done' "$lt/s" >/dev/null 2>&1
expect_eq "trace -P: 64 processes, then other" \
	"$(jq -c '[([.processes[] | select(.other | not)] | length), ([.processes[] | select(.other)] | length)]' "$lt/P70.json")" "[64,1]"
expect_eq "trace -P: processes add up to the totals" \
	"$(jq '[.processes[].targets.shmem.calls] | add' "$lt/P70.json")" \
	"$(jq '.targets.shmem.calls' "$lt/P70.json")"
expect_eq "trace -P: every cat read its file" \
	"$(jq '.targets.shmem.histograms.bytes.sum' "$lt/P70.json")" 350000

# -T, -q, -v: a timestamp before every report; nothing on stderr with -q;
# libbpf's messages only with -v.
"$FS" trace -t shmem -d 0.5 -i 0.2 -T >"$lt/T.out" 2>/dev/null
expect_eq "trace -T: a timestamp line before every report" \
	"$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$' "$lt/T.out") $(grep -c '^== ' "$lt/T.out")" \
	"$(grep -c '^== ' "$lt/T.out") $(grep -c '^== ' "$lt/T.out")"
expect_eq "trace -q: nothing on stderr" \
	"$("$FS" trace -t shmem -q -- cat "$lt/b" 2>&1 >/dev/null | wc -l)" 0
expect_eq "trace: tracing message without -q" \
	"$("$FS" trace -t shmem -- cat "$lt/b" 2>&1 >/dev/null | grep -c "tracing 'cat'")" 1
expect_eq "trace -v: libbpf messages / none without -v" \
	"$("$FS" trace -t shmem -d 0.1 -v 2>&1 >/dev/null | grep -c '^libbpf: ' | sed 's/^0$/none/;s/^[1-9][0-9]*$/some/') $("$FS" trace -t shmem -d 0.1 2>&1 >/dev/null | grep -c '^libbpf: ')" \
	"some 0"

# Progress: on a terminal `run` shows its phases on one line it
# rewrites; with stderr redirected there is none of it.
script -qec "$FS run shmem-read --size 1M >/dev/null" "$lt/tty.log" >/dev/null 2>&1
expect_match "run: progress on a terminal" "$(tr '\r' '\n' <"$lt/tty.log")" \
	'^folioscope: run: running shmem-read and checking its answers\.\.\.'
"$FS" run shmem-read --size 1M >/dev/null 2>"$lt/redir.err"
expect_eq "run: no progress when stderr is redirected" \
	"$(grep -c -e $'\r' -e 'checking its answers' "$lt/redir.err")" 0

rm -rf "$lt"
trap - INT TERM
