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

# -c: cgroup v2 trees. Readers in cgroup X, in a cgroup below Y, and one
# outside both; --by cgroup: each cgroup's row holds exactly its own
# readers' calls and bytes (dd's reads: one per 64 KiB block and the
# read at EOF).
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cgt=$cg2/fs-test-$$
if [ -n "$cg2" ] && mkdir "$cgt" 2>/dev/null && mkdir -p "$cgt/x" "$cgt/y/in"; then
	gated_reader "$lt" a cat "$lt/a"; A=$RPID
	gated_reader "$lt" b cat "$lt/b"; B=$RPID
	gated_reader "$lt" c cat "$lt/b"; C=$RPID
	if echo "$A" >"$cgt/x/cgroup.procs" && echo "$B" >"$cgt/y/in/cgroup.procs" &&
	   trace_bg "$lt" -t shmem -c "$cgt/x" -c "$cgt/y" -j "$lt/g.json"; then
		release "$lt" a; release "$lt" b; release "$lt" c; wait "$A" "$B" "$C"; trace_stop
		expect_eq "trace -c X -c Y: the bytes of X's reader and of the one below Y" \
			"$(jbytes "$lt/g.json")" 1300000
		expect_eq "trace -c X -c Y: the filters as given" \
			"$(jq -r .filters.cgroup "$lt/g.json")" "$cgt/x, $cgt/y"
	else
		bad "trace -c" "could not set up: $(cat "$lt/err" 2>/dev/null)"; kill "$A" "$B" "$C"
	fi
	# Two readers in x, one in y/in, one outside: rows x and y/in only.
	gated_reader "$lt" a dd if="$lt/a" of=/dev/null bs=64k; A=$RPID
	gated_reader "$lt" b dd if="$lt/b" of=/dev/null bs=64k; B=$RPID
	gated_reader "$lt" c dd if="$lt/b" of=/dev/null bs=32k; C=$RPID
	gated_reader "$lt" d dd if="$lt/a" of=/dev/null bs=64k; D=$RPID
	if echo "$A" >"$cgt/x/cgroup.procs" && echo "$B" >"$cgt/x/cgroup.procs" &&
	   echo "$C" >"$cgt/y/in/cgroup.procs" &&
	   trace_bg "$lt" -t shmem --by cgroup -c "$cgt" -j "$lt/byc.json"; then
		release "$lt" a; release "$lt" b; release "$lt" c; release "$lt" d
		wait "$A" "$B" "$C" "$D"; trace_stop
		base=${cgt#"$cg2"}
		# 1000000 B in 64 KiB reads: 16 and EOF's; 300000 B: 5 + 1;
		# 300000 B in 32 KiB reads: 10 + 1.
		expect_eq "trace --by cgroup: each cgroup's calls and bytes are its readers'" \
			"$(jq -c '[.cgroups[] | [.cgroup, .other, .targets.shmem.calls, .targets.shmem.histograms.bytes.sum]] | sort' "$lt/byc.json")" \
			"$(jq -nc --arg x "$base/x" --arg y "$base/y/in" '[[$x, false, 23, 1300000], [$y, false, 11, 300000]] | sort')"
		expect_eq "trace --by cgroup: rows add up to the totals" \
			"$(jq '[.cgroups[].targets.shmem.calls] | add' "$lt/byc.json")" \
			"$(jq '.targets.shmem.calls' "$lt/byc.json")"
		expect_eq "trace --by cgroup: the ids are the directories' handles" \
			"$(jq -c '[.cgroups[] | .id] | sort' "$lt/byc.json")" \
			"$(for d in x y/in; do python3 -c 'import os,sys; print(os.stat(sys.argv[1]).st_ino)' "$cgt/$d"; done | sort -n | jq -sc .)"
		expect_eq "trace --by cgroup: report reads the rows back (the same JSON)" \
			"$("$FS" report "$lt/byc.json" --format json | jq -cS .)" "$(jq -cS . "$lt/byc.json")"
		"$FS" report "$lt/byc.json" --format openmetrics >"$lt/byc.om"
		expect_eq "trace --by cgroup: the export's series per cgroup" \
			"$(grep '^folioscope_cgroup_shmem_calls_total' "$lt/byc.om" | sed 's/.*cgroup="\([^"]*\)"} /\1 /' | sort)" \
			"$(printf '%s 23\n%s 11\n' "$base/x" "$base/y/in" | sort)"
	else
		bad "trace --by cgroup" "could not set up: $(cat "$lt/err" 2>/dev/null)"; kill "$A" "$B" "$C" "$D"
	fi
	# 70 cgroups, one reader each: 64 rows, then "other" holding 6.
	head -c 5000 /dev/urandom >"$lt/s"
	"$FS" trace -t shmem --by cgroup -q -j "$lt/c70.json" -- sh -c '
		for i in $(seq 70); do
			mkdir "$0/m$i"
			sh -c "echo \$\$ >\"\$0/cgroup.procs\"; exec cat \"\$1\"" "$0/m$i" "$1" >/dev/null
		done' "$cgt" "$lt/s" >/dev/null 2>"$lt/err"
	expect_eq "trace --by cgroup: 64 rows, then other holding the 6 others" \
		"$(jq -c '[([.cgroups[] | select(.other | not)] | length), [.cgroups[] | select(.other) | .keys.shmem, .keys_full.shmem]]' "$lt/c70.json")" \
		"[64,[6,false]]"
	expect_eq "trace --by cgroup: every cat read its file" \
		"$(jq '[.cgroups[].targets.shmem.histograms.bytes.sum] | add' "$lt/c70.json")" 350000
	for i in $(seq 70); do rmdir "$cgt/m$i" 2>/dev/null; done
	rmdir "$cgt/y/in" "$cgt/y" "$cgt/x" "$cgt"
else
	skip "trace -c, --by cgroup" "no writable cgroup v2 hierarchy"
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
	# -j keeps every interval: the same calls and bytes as the text
	# reports, in order, and every bucket and counter adds up.
	expect_eq "trace -i -j: the JSON's intervals are the text's" \
		"$(jq -r '.intervals | to_entries[] | "\(.key + 1) \(.value.targets.shmem.counters.calls) \(.value.targets.shmem.histograms.bytes.sum)"' "$lt/i.json")" \
		"$lt_iv"
	expect_eq "trace -i -j: interval buckets add up to the totals" \
		"$(jq -c '[.intervals[].targets.shmem.histograms | to_entries[]
			| select(.value.measured) | .key as $h | .value.buckets[]
			| select(.count > 0) | {h: $h, lo, count}]
			| group_by([.h, .lo]) | map([.[0].h, .[0].lo, (map(.count) | add)])' "$lt/i.json")" \
		"$(jq -c '[.targets.shmem.histograms | to_entries[] | select(.value.measured)
			| .key as $h | .value.buckets[] | select(.count > 0) | [$h, .lo, .count]]
			| sort' "$lt/i.json")"
	expect_eq "trace -i -j: intervals are consecutive" \
		"$(jq '[.intervals as $i | range(1; $i | length) | select($i[.].start_ms != $i[. - 1].end_ms)] | length' "$lt/i.json")" 0
	expect_eq "report reads the intervals back, byte for byte" \
		"$("$FS" report "$lt/i.json" --format json | cmp - "$lt/i.json" 2>&1 && echo same)" same
else
	bad "trace -i" "did not attach: $(cat "$lt/err")"; kill "$A" "$B" "$C"
fi
# A heatmap of known phases: 4 KiB reads, then (once their interval has
# closed) 64 KiB reads. Each interval's busiest bytes bucket, read back
# from the page Chromium rendered, switches where the text reports do.
gated_reader "$lt" a dd if="$lt/a" of=/dev/null bs=4k status=none; A=$RPID
gated_reader "$lt" b dd if="$lt/a" of=/dev/null bs=64k status=none; B=$RPID
if trace_bg "$lt" -i 0.2 -p "$A" -p "$B" -j "$lt/h.json" -o "$lt/h.html"; then
	release "$lt" a; wait "$A"; ia=$(lt_closed)
	release "$lt" b; wait "$B"; lt_closed >/dev/null
	trace_stop
	# "N 4096" or "N 65536" per interval with reads, from the text.
	want=$(interval_rows "$lt/out" | awk -v ia="$ia" '$2 > 0 { print $1, ($1 <= ia ? 4096 : 65536) }')
	expect_eq "heatmap run: reads in both phases" "$(cut -d' ' -f2 <<<"$want" | sort -un | tr '\n' ' ')" "4096 65536 "
	if command -v chromium >/dev/null; then
		timeout 100 chromium --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update \
			--disable-sync --no-first-run --user-data-dir="$lt/chrome" \
			--host-resolver-rules='MAP * ~NOTFOUND' --dump-dom \
			"file://$lt/h.html" >"$lt/h.dom" 2>>"$LOGDIR/chromium-live.log"
		rm -rf "$lt/chrome"
		timeout 100 chromium --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update \
			--disable-sync --no-first-run --user-data-dir="$lt/chrome" \
			--host-resolver-rules='MAP * ~NOTFOUND' --window-size=1000,4000 \
			--screenshot="$LOGDIR/heatmap.png" "file://$lt/h.html" \
			>/dev/null 2>>"$LOGDIR/chromium-live.log"
		rm -rf "$lt/chrome"
		expect_eq "heatmap: the switch from 4 KiB to 64 KiB reads at interval $ia" \
			"$(python3 tests/host/picdom.py heatmap "$lt/h.dom" shmem bytes | grep -v ' -$')" "$want"
		expect_eq "heatmap: one per measured histogram, a column per interval" \
			"$(grep -o '<svg class="heatmap"[^>]*data-intervals="[0-9]*"' "$lt/h.dom" | grep -o '[0-9]*"$' | sort -u | tr -d '"') $(grep -c '<figure class="heatmap" data-target="shmem"' "$lt/h.dom")" \
			"$(jq '.intervals | length' "$lt/h.json") $(jq '[.targets.shmem.histograms[] | select(.measured)] | length' "$lt/h.json")"
		if [ -s "$LOGDIR/heatmap.png" ]; then
			ok "heatmap: screenshot in $LOGDIR/heatmap.png"
		else
			bad "heatmap: screenshot" "none written; see $LOGDIR/chromium-live.log"
		fi
	else
		skip "heatmap in chromium" "chromium not installed (tests/deps.sh)"
	fi
	"$FS" report "$lt/h.json" -o "$lt/h.svg"
	expect_eq "heatmap svg: the same cells as the page" \
		"$(grep -o '<rect class="cell"[^>]*data-count="[0-9]*"' "$lt/h.svg" | md5sum)" \
		"$(grep -o '<rect class="cell"[^>]*data-count="[0-9]*"' "$lt/h.html" | md5sum)"
	jq 'del(.intervals)' "$lt/h.json" >"$lt/noiv.json"
	"$FS" report "$lt/noiv.json" -o "$lt/noiv.html"
	expect_eq "report without intervals: no heatmap, the facts say none" \
		"$(grep -c '<figure class="heatmap"' "$lt/noiv.html") $(grep -c 'none (trace -i SECONDS -j FILE keeps them)' "$lt/noiv.html")" "0 1"
else
	bad "trace -i heatmap" "did not attach: $(cat "$lt/err")"; kill "$A" "$B"
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

# --serve with -i: a live page and JSON of the intervals closed so far,
# which add up (report reads the JSON back) and hold the reader's bytes.
if command -v curl >/dev/null; then
	gated_reader "$lt" a cat "$lt/a"; A=$RPID
	if trace_bg "$lt" -i 0.2 -p "$A" --serve 127.0.0.1:0; then
		url=$(grep -o 'http://[^ ]*/metrics' "$lt/err")
		url=${url%/metrics}
		release "$lt" a; wait "$A"; n=$(lt_closed)
		curl -sf "$url/report.json" >"$lt/live.json"
		curl -sf "$url/report.html" >"$lt/live.html"
		trace_stop
		expect_eq "trace -i --serve: /report.json reads back, with the bytes read" \
			"$("$FS" report "$lt/live.json" --format json | cmp - "$lt/live.json" 2>&1 && echo same) $(jbytes "$lt/live.json")" \
			"same 1000000"
		expect_eq "trace -i --serve: /report.json has the intervals closed so far" \
			"$(jq '.intervals | length >= '"$n" "$lt/live.json")" true
		expect_eq "trace -i --serve: /report.html reloads itself, heatmaps drawn" \
			"$(grep -c '<meta http-equiv="refresh" content="1">' "$lt/live.html") $(grep -c '<figure class="heatmap" data-target="shmem" data-histogram="bytes">' "$lt/live.html")" "1 1"
	else
		bad "trace -i --serve" "did not attach: $(cat "$lt/err")"; kill "$A"
	fi
	# Without a file to fill, the live page keeps the last 600.
	if trace_bg "$lt" -i 0.01 -p $$ --serve 127.0.0.1:0; then
		url=$(grep -o 'http://[^ ]*/metrics' "$lt/err")
		wait_until 120 lt_has_intervals 620
		curl -sf "${url%/metrics}/report.json" >"$lt/live600.json"
		trace_stop
		expect_eq "trace -i --serve: the live page keeps the last 600 intervals" \
			"$(jq '[(.intervals | length), (.intervals[0].start_ms > 0)]' -c "$lt/live600.json")" "[600,true]"
	else
		bad "trace -i --serve, 600 intervals" "did not attach: $(cat "$lt/err")"
	fi
fi
# report --serve follows its file: a trace writing the same -j FILE
# elsewhere shows up at the next fetch; a file that cannot be read keeps
# the last good report served, with one error line per change.
if command -v curl >/dev/null; then
	"$FS" trace -t shmem -q -j "$lt/follow.json" -- cat "$lt/a" >/dev/null 2>&1
	"$FS" report "$lt/follow.json" --serve 127.0.0.1:0 2>"$lt/follow.err" &
	RS=$!
	if wait_until 10 grep -q 'serving http' "$lt/follow.err"; then
		furl=$(grep -o 'http://[^ ]*/metrics' "$lt/follow.err")
		furl=${furl%/metrics}
		served() { curl -sf "$furl/report.json" | jq -r "$1"; }
		expect_eq "report --serve: the file's run" "$(served .targets.shmem.histograms.bytes.sum)" 1000000
		"$FS" trace -t shmem -q -j "$lt/follow.json" -- cat "$lt/b" >/dev/null 2>&1
		expect_eq "report --serve: a trace replaced the file, its run served" \
			"$(served .targets.shmem.histograms.bytes.sum) $(served .filters.command)" "300000 cat $lt/b"
		expect_eq "report --serve: the page is the new run's and reloads itself" \
			"$(curl -sf "$furl/report.html" | grep -c -e '<meta http-equiv="refresh" content="2">' -e "<td>command cat $lt/b</td>")" 2
		expect_eq "report --serve: /metrics follows the file" \
			"$(curl -sf "$furl/metrics" | awk '/^folioscope_shmem_bytes_sum/ { print $2 }')" 300000
		ctype() { curl -sf -o /dev/null -w '%{content_type}' "$@"; }
		expect_eq "report --serve: each URL's content type" \
			"$(ctype "$furl/metrics"); $(ctype -H 'Accept: application/openmetrics-text' "$furl/metrics"); $(ctype "$furl/report.html"); $(ctype "$furl/report.json")" \
			"text/plain; version=0.0.4; charset=utf-8; application/openmetrics-text; version=1.0.0; charset=utf-8; text/html; charset=utf-8; application/json; charset=utf-8"
		printf '{"schema": ' >"$lt/follow.json"
		expect_eq "report --serve: an unreadable file leaves the last good run served" \
			"$(served .targets.shmem.histograms.bytes.sum) $(served .targets.shmem.histograms.bytes.sum)" "300000 300000"
		expect_eq "report --serve: one error line for the unreadable file" \
			"$(grep -c "invalid report '$lt/follow.json': malformed JSON" "$lt/follow.err") $(grep -vc 'serving http' "$lt/follow.err")" "1 1"
		# Rewritten in place (same inode): read again too.
		cat tests/fixtures/export-base.json >"$lt/follow.json"
		expect_eq "report --serve: a file rewritten in place is read again" \
			"$(served .host.kernel) $(served .targets.shmem.histograms.bytes.sum)" \
			"$(jq -r .host.kernel tests/fixtures/export-base.json) $(jbytes tests/fixtures/export-base.json)"
	else
		bad "report --serve of a trace's file" "did not start: $(cat "$lt/follow.err")"
	fi
	kill "$RS" 2>/dev/null
	wait "$RS" 2>/dev/null
else
	skip "report --serve follows its file" "curl not installed"
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

# A reader busy through the attach (dd reading holes, a read(2) every
# microsecond or two): the exits go in before the entries, so no read is
# seen entering without its return, and none of the reader's later reads
# finds a record left behind (each such read counts dropped).
truncate -s 64G "$lt/holes"
dd if="$lt/holes" of=/dev/null bs=4k status=none &
R=$!
if trace_bg "$lt" -t shmem -p "$R" -j "$lt/busy.json"; then
	trace_stop
	kill "$R"
	expect_eq "trace attached through a busy reader: its reads counted, none dropped" \
		"$(jq -r '.targets.shmem | "\(.calls > 1000) \(.counters.dropped)"' "$lt/busy.json" 2>&1)" "true 0"
else
	bad "trace through a busy reader" "did not attach: $(cat "$lt/err")"; kill "$R"
fi
wait "$R" 2>/dev/null
rm -f "$lt/holes"

rm -rf "$lt"
trap - INT TERM
