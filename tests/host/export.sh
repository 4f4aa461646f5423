# Export checks (sourced by tests/check.sh): every format from a saved run,
# promtool, a real Prometheus scraping `report --serve`, the HTML report in
# headless Chromium, and bad input. Network traffic stays on 127.0.0.1.
# shellcheck shell=bash

ex_base=tests/fixtures/export-base.json
ex_new=tests/fixtures/export-new.json
ex_dir=$(mktemp -d /tmp/fs-export.XXXXXX)
ex_serve_pid=
ex_prom_pid=

ex_cleanup() {
	# shellcheck disable=SC2086
	[ -n "$ex_chrome_pids" ] && kill $ex_chrome_pids 2>/dev/null && wait $ex_chrome_pids 2>/dev/null
	[ -n "$ex_serve_pid" ] && kill "$ex_serve_pid" 2>/dev/null && wait "$ex_serve_pid" 2>/dev/null
	[ -n "$ex_prom_pid" ] && kill "$ex_prom_pid" 2>/dev/null && wait "$ex_prom_pid" 2>/dev/null
	mountpoint -q "$ex_dir/full" 2>/dev/null && umount "$ex_dir/full"
	rm -rf "$ex_dir"
	ex_serve_pid=
	ex_prom_pid=
	ex_chrome_pids=
}
# Interrupted: still no Prometheus or server left behind.
trap 'ex_cleanup; exit 130' INT TERM


# ex_wait_line FILE REGEX: wait up to 10 s for a line; prints it.
ex_wait_line() {
	for _ in $(seq 100); do
		if grep -Eo -- "$2" "$1" 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	return 1
}

# "TARGET HISTOGRAM LO HI COUNT" for every bucket in a JSON report.
ex_json_rows() {
	jq -r '.targets | to_entries[] | .key as $t | .value.histograms
		| to_entries[] | select(.value.measured) | .key as $h
		| .value.buckets[] | "\($t) \($h) \(.lo) \(.hi) \(.count)"' "$1" | sort
}

# ---- every format, and JSON as the lossless source ----
for fmt in text json csv openmetrics prometheus svg html; do
	if "$FS" report "$ex_base" --format "$fmt" -o "$ex_dir/out.$fmt" 2>"$ex_dir/err" &&
		[ -s "$ex_dir/out.$fmt" ] && [ ! -s "$ex_dir/err" ]; then
		ok "report --format $fmt"
	else
		bad "report --format $fmt" "$(cat "$ex_dir/err")"
	fi
done
expect_eq "json -> json keeps every byte" \
	"$(cmp "$ex_base" "$ex_dir/out.json" 2>&1 && echo same)" same
expect_eq "stdout default is text" \
	"$("$FS" report "$ex_base" | cmp - "$ex_dir/out.text" 2>&1 && echo same)" same
expect_eq "format from -o's extension" \
	"$("$FS" report "$ex_base" -o "$ex_dir/guess.csv" && cmp "$ex_dir/guess.csv" "$ex_dir/out.csv" 2>&1 && echo same)" same
expect_eq "json read from stdin" \
	"$("$FS" report - --format csv <"$ex_base" | cmp - "$ex_dir/out.csv" 2>&1 && echo same)" same
expect_eq "no temp file left beside the outputs" \
	"$(find "$ex_dir" -mindepth 1 -maxdepth 1 -name '*.??????' | wc -l)" 0

# ---- slow starters first: report --serve, Prometheus scraping it ----
# (checked below, after the quick checks have given them time)
ex_prom=
if command -v prometheus >/dev/null && command -v curl >/dev/null; then
	ex_prom=yes
	"$FS" report "$ex_base" --serve 127.0.0.1:0 2>"$ex_dir/serve.err" &
	ex_serve_pid=$!
	url=$(ex_wait_line "$ex_dir/serve.err" 'http://127\.0\.0\.1:[0-9]+/metrics')
	port=${url##*:}
	port=${port%%/*}
	pport=$(free_port)
	api="http://127.0.0.1:$pport/api/v1"
	if [ -n "$url" ]; then
		prom_start "$ex_dir" "$pport" 120 "$LOGDIR/prometheus.log" "127.0.0.1:$port"
		ex_prom_pid=$PROM_PID
	fi
fi

# Chromium takes seconds to start: render in the background meanwhile,
# one profile each (a profile is locked by its browser).
ex_chrome_pids=
ex_chromium() {
	local name=$1
	shift
	timeout 100 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$ex_dir/chrome-$name" \
		--host-resolver-rules='MAP * ~NOTFOUND' "$@" 2>>"$LOGDIR/chromium.log" &
	ex_chrome_pids="$ex_chrome_pids $!"
}
# compare's picture: a rule that holds, one that fails (the fixtures'
# copy_bytes p50 is 64 KiB), and two runs per side for the spread.
ex_rules=(-e 'validation.failures==0' -e 'shmem.copy_bytes.p50>=1M')
"$FS" compare "$ex_base" "$ex_new" --force "${ex_rules[@]}" -o "$ex_dir/cmp.html" >"$ex_dir/cmp.out" 2>&1
ex_cmp_rc=$?
# Base's two runs differ, new's do not: run-to-run noise on base only.
"$FS" compare "$ex_base" "$ex_new" --vs "$ex_new" "$ex_new" --force -o "$ex_dir/cmp2.html" >"$ex_dir/cmp2.out" 2>&1
if command -v chromium >/dev/null; then
	"$FS" report "$ex_base" "$ex_new" -o "$ex_dir/ab.html"
	rm -f "$LOGDIR/report.png" "$LOGDIR/compare.png" "$LOGDIR/chromium.log"
	ex_chromium dom --dump-dom "file://$ex_dir/out.html" >"$ex_dir/dom.html"
	ex_chromium dom-ab --dump-dom "file://$ex_dir/ab.html" >"$ex_dir/dom-ab.html"
	ex_chromium png --window-size=1000,5200 --screenshot="$LOGDIR/report.png" \
		"file://$ex_dir/out.html" >/dev/null
	ex_chromium dom-cmp --dump-dom "file://$ex_dir/cmp.html" >"$ex_dir/dom-cmp.html"
	ex_chromium dom-cmp2 --dump-dom "file://$ex_dir/cmp2.html" >"$ex_dir/dom-cmp2.html"
	ex_chromium png-cmp --window-size=1000,5200 --screenshot="$LOGDIR/compare.png" \
		"file://$ex_dir/cmp.html" >/dev/null
fi

# ---- CSV parses back to the JSON numbers (Python's RFC 4180 reader) ----
# Debian's python3 where there is one: a pyenv shim takes seconds to start.
ex_py=$(command -v /usr/bin/python3 python3 | head -n 1)
csv_rows=$("$ex_py" - "$ex_dir/out.csv" <<'EOF'
import csv, sys
with open(sys.argv[1], newline='') as f:
    rows = list(csv.reader(f))
if rows[0] != ['target', 'histogram', 'lo', 'hi', 'count']:
    sys.exit('bad header: %r' % rows[0])
for r in rows[1:]:
    print(' '.join(r))
EOF
)
expect_eq "csv: CRLF records" "$(head -c 30 "$ex_dir/out.csv" | od -c | grep -c '\\r  \\n')" 1
expect_eq "csv parses back to the JSON buckets" "$(sort <<<"$csv_rows")" "$(ex_json_rows "$ex_base")"

# ---- promtool ----
# `promtool check metrics` lints the Prometheus 0.0.4 text format (what
# curl gets from /metrics); it cannot read OpenMetrics counters (no _total
# on the family), which the Prometheus scrape below parses instead.
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$ex_dir/out.prometheus" 2>&1)
	expect_eq "promtool check metrics accepts --format prometheus" "$?:$out" "0:"
else
	skip "promtool check metrics" "promtool not installed (tests/deps.sh)"
fi
expect_eq "openmetrics ends with # EOF" "$(tail -n 1 "$ex_dir/out.openmetrics")" "# EOF"

# ---- the server, and what Prometheus made of it ----
if [ -n "$ex_prom" ]; then
	if [ -z "$url" ]; then
		bad "report --serve starts" "$(cat "$ex_dir/serve.err")"
	else
		ok "report --serve starts"
		out=$(curl -sf "$url" | promtool check metrics 2>&1)
		expect_eq "promtool accepts /metrics as curl gets it" "$?:$out" "0:"
		expect_eq "/metrics for Prometheus is OpenMetrics" \
			"$(curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0' "$url" | cmp - "$ex_dir/out.openmetrics" 2>&1 && echo same)" same
		expect_error "--serve: port in use" 1 \
			"cannot serve on 127\.0\.0\.1:$port: Address already in use" \
			"$FS" report "$ex_base" --serve "127.0.0.1:$port"

		# promq QUERY [LABEL,...] -> "LABELS... VALUE" lines, sorted.
		promq() {
			curl -sf "$api/query" --data-urlencode "query=$1" |
				jq -r --arg l "${2:-le}" '.data.result[]
					| [.metric[($l | split(","))[]], .value[1]] | join(" ")' | sort
		}
		got=
		for _ in $(seq 150); do
			got=$(promq 'folioscope_shmem_bytes_count' __name__ 2>/dev/null)
			[ -n "$got" ] && break
			sleep 0.2
		done
		if [ -z "$got" ]; then
			bad "prometheus scrapes /metrics" "no sample after 30 s: $(tail -n 5 "$LOGDIR/prometheus.log")"
		else
			ok "prometheus scrapes /metrics"
			expect_eq "prometheus: scrape healthy" \
				"$(curl -sf "$api/targets" | jq -r '.data.activeTargets[0] | "\(.health) \(.lastError)"')" "up "
			# Every bucket of every bytes histogram: the cumulative JSON
			# counts at each bucket's top (log2) or value (alignment),
			# and +Inf = count. Prometheus has all slots; compare those.
			want=$(jq -r '.targets | to_entries[] | .key as $t | .value.histograms
				| to_entries[] | select(.value.measured and .value.unit == "bytes")
				| ("folioscope_\($t)_\(.key)" + (if .key | endswith("bytes") then "" else "_bytes" end)) as $n
				| .value | (if .kind == "align" then "lo" else "hi" end) as $k
				| (reduce .buckets[] as $b ({c: 0, o: []};
					.c += $b.count | .o += ["\($n)_bucket \($b[$k]) \(.c)"]) | .o[]),
				  "\($n)_bucket +Inf \(.count)"' "$ex_base" | sort)
			have=$(promq '{__name__=~"folioscope_.+_bytes_bucket"}' __name__,le |
				awk 'NR == FNR { w[$1 " " $2]; next } ($1 " " $2) in w' <(echo "$want") - | sort)
			expect_eq "prometheus: bytes histograms have the JSON's bucket counts" "$have" "$want"
			expect_eq "prometheus: counters equal the JSON's" \
				"$(promq '{__name__=~"folioscope_.+_total"}' __name__)" \
				"$(jq -r '.targets | to_entries[] | .key as $t | .value.counters | to_entries[]
					| "folioscope_\($t)_\(.key)_total \(.value)"' "$ex_base" | sort)"
			expect_eq "prometheus: latency in seconds" \
				"$(promq 'folioscope_shmem_latency_seconds_count' __name__ | cut -d' ' -f2)" \
				"$(jq -r '.targets.shmem.histograms.latency_ns.count' "$ex_base")"
			expect_eq "prometheus: not measured is 0 with the reason" \
				"$(promq 'folioscope_measured{target="dedupe",histogram="folio_size"}' reason)" \
				"$(jq -r '.targets.dedupe.histograms.folio_size.why' "$ex_base") 0"
			# The unit only exists in OpenMetrics: proof the scrape used it.
			expect_eq "prometheus: parsed OpenMetrics (# UNIT kept)" \
				"$(curl -sf "$api/metadata?metric=folioscope_shmem_bytes" | jq -r '.data.folioscope_shmem_bytes[0] | "\(.type) \(.unit)"')" \
				"histogram bytes"
		fi
		kill "$ex_prom_pid" 2>/dev/null
		wait "$ex_prom_pid" 2>/dev/null
		ex_prom_pid=
	fi
	kill -TERM "$ex_serve_pid" 2>/dev/null
	wait "$ex_serve_pid"
	expect_eq "report --serve stops on SIGTERM with 0" "$?" 0
	ex_serve_pid=
else
	skip "prometheus scrape" "prometheus or curl not installed (tests/deps.sh)"
fi

# ---- HTML in headless Chromium (started above, in the background) ----
if [ -n "$ex_chrome_pids" ]; then
	ex_chrome_rc=
	for pid in $ex_chrome_pids; do
		wait "$pid"
		ex_chrome_rc="$ex_chrome_rc $?"
	done
	ex_chrome_pids=
	expect_eq "chromium: every run exits 0" "$ex_chrome_rc" " 0 0 0 0 0 0"
	charts=$(jq '[.targets[].histograms[] | select(.measured)] | length' "$ex_base")
	dom=$(cat "$ex_dir/dom.html")
	expect_eq "chromium: one chart per measured histogram" \
		"$(grep -o '<figure class="chart"' <<<"$dom" | wc -l)" "$charts"
	expect_eq "chromium: every chart has bars" \
		"$(grep -o '<figure class="chart".*</figure>' <<<"$(tr -d '\n' <<<"$dom" | sed 's|</figure>|</figure>\n|g')" |
			grep -vc '<rect class="bar"')" 0
	expect_match "chromium: validation verdict shown" "$dom" 'class="pass verdict">passed'
	expect_eq "chromium: A/B has a chart per histogram measured in either" \
		"$(grep -o '<figure class="chart"' "$ex_dir/dom-ab.html" | wc -l)" \
		"$(jq -s '[.[].targets | to_entries[] | .key as $t | .value.histograms
			| to_entries[] | select(.value.measured) | "\($t)/\(.key)"] | unique | length' "$ex_base" "$ex_new")"
	if [ -s "$LOGDIR/report.png" ]; then
		ok "chromium: screenshot in $LOGDIR/report.png"
	else
		bad "chromium: screenshot" "none written; see $LOGDIR/chromium.log"
	fi
	# compare's page: one chart per histogram measured on both sides,
	# both sides in each, every bar's fraction and height the JSON's.
	ex_cmp=$("$ex_py" tests/host/picdom.py ab "$ex_dir/dom-cmp.html" "$ex_base" "$ex_new")
	expect_eq "compare page: one chart per histogram measured on both sides" \
		"$(grep -c ' bars=' <<<"$ex_cmp")" \
		"$(jq -s '[.[].targets | to_entries[] | .key as $t | .value.histograms
			| to_entries[] | select(.value.measured) | "\($t)/\(.key)"] | group_by(.) | map(select(length == 2)) | length' "$ex_base" "$ex_new")"
	expect_eq "compare page: both sides in every chart" "$(grep -c ' sides=base,new ' <<<"$ex_cmp")" \
		"$(grep -c ' bars=' <<<"$ex_cmp")"
	expect_eq "compare page: bar fractions and heights are the JSON's" \
		"$(grep -v ' fraction-errors=0 height-errors=0$' <<<"$ex_cmp" | grep -v '^rule ')" ""
	expect_eq "compare page: the rules with their verdicts, a failed one marked" \
		"$(grep '^rule ' <<<"$ex_cmp")" \
		"rule pass ok validation.failures==0: new 0 == 0
rule fail FAIL shmem.copy_bytes.p50>=1M: new 65536 >= 1048576"
	expect_eq "compare -o: exit 1 for the failed rule, the text still on stdout" \
		"$ex_cmp_rc $(grep -c 'FAIL  shmem.copy_bytes.p50>=1M' "$ex_dir/cmp.out")" "1 1"
	expect_eq "compare page, two runs a side: a min..max whisker per bar" \
		"$(grep -o '<path class="spread"' "$ex_dir/dom-cmp2.html" | wc -l)" \
		"$(grep -o '<rect class="bar"' "$ex_dir/dom-cmp2.html" | wc -l)"
	# Beside each chart the run-to-run Cramér's V; where the text has
	# it (the sides are not identical), the same values.
	ex_noise=$(grep -o 'class="noise"[^>]*>[^<]*' "$ex_dir/dom-cmp2.html" | sed "s/.*>//; s/&#39;/'/g")
	expect_eq "compare page: a run-to-run noise line per chart" \
		"$(grep -c '^run to run: Cramér' <<<"$ex_noise")" \
		"$(grep -o '<figure class="ab-chart"' "$ex_dir/dom-cmp2.html" | wc -l)"
	expect_eq "compare page: the run-to-run noise is the text's" \
		"$(grep -v ' 0\.000 among base runs, 0\.000 among' <<<"$ex_noise" | sort)" \
		"$(grep -o 'run to run: .*' "$ex_dir/cmp2.out" | sort)"
	expect_eq "compare page, one run a side: the noise says it is not measured" \
		"$(grep -o 'run to run: [^<]*' "$ex_dir/dom-cmp.html" | sort -u)" \
		"run to run: not measured (1 base run, 1 new run; it takes 2 or more per side)"
	if [ -s "$LOGDIR/compare.png" ]; then
		ok "chromium: compare screenshot in $LOGDIR/compare.png"
	else
		bad "chromium: compare screenshot" "none written; see $LOGDIR/chromium.log"
	fi
else
	skip "html in chromium" "chromium not installed (tests/deps.sh)"
fi

# ---- a real run: -o gives what report gives from the run's -j ----
for fmt in openmetrics csv; do
	if "$FS" run shmem-read --size 4M -j "$ex_dir/run-$fmt.json" \
		-o "$ex_dir/run.$fmt" --format "$fmt" >"$ex_dir/run.out" 2>&1; then
		expect_eq "run -o $fmt = report of its -j" \
			"$("$FS" report "$ex_dir/run-$fmt.json" --format "$fmt" | cmp - "$ex_dir/run.$fmt" 2>&1 && echo same)" same
	else
		skip "run -o $fmt = report of its -j" "run shmem-read failed here: $(tail -n 1 "$ex_dir/run.out")"
	fi
done

# A validating run's folioscope_validation_* families pass promtool too.
if command -v promtool >/dev/null && [ -s "$ex_dir/run-csv.json" ]; then
	"$FS" report "$ex_dir/run-csv.json" --format prometheus >"$ex_dir/run.prom"
	out=$(promtool check metrics <"$ex_dir/run.prom" 2>&1)
	expect_eq "promtool accepts a validating run's validation families" \
		"$?:$out $(grep -c '^folioscope_validation_passed{' "$ex_dir/run.prom") $(grep -c '^folioscope_validation_checks_total{' "$ex_dir/run.prom")" "0: 1 1"
else
	skip "promtool: a validating run's families" "promtool not installed or no run above"
fi

# ---- trace's filters: in the JSON, on every page, in compare ----
ex_f=$ex_dir/filtered.json
"$FS" trace -q --comm cat --fs tmpfs -p $$ -j "$ex_f" -- cat /dev/null >/dev/null 2>"$ex_dir/trace-f.err"
expect_eq "trace -j: the filters given, in the JSON" "$(jq -c .filters "$ex_f" 2>&1)" \
	"{\"pids\":[$$],\"comm\":\"cat\",\"fs\":\"tmpfs\",\"command\":\"cat /dev/null\"}"
ex_ftext="pid $$; comm cat; fs tmpfs; command cat /dev/null"
expect_eq "report: the filters read back into the JSON" \
	"$("$FS" report "$ex_f" --format json | jq -c .filters)" "$(jq -c .filters "$ex_f")"
expect_eq "report text: a filters line" "$("$FS" report "$ex_f" | grep '^filters:')" "filters: $ex_ftext"
expect_eq "report text: no filters line for an unfiltered run" "$("$FS" report "$ex_base" | grep -c '^filters:')" 0
expect_eq "report html: a filters row in the facts" \
	"$("$FS" report "$ex_f" --format html | grep -o '<tr><th>filters</th><td>[^<]*</td>')" \
	"<tr><th>filters</th><td>$ex_ftext</td>"
expect_eq "report html: filters none when unfiltered" \
	"$("$FS" report "$ex_base" --format html | grep -o '<tr><th>filters</th><td>[^<]*</td>')" \
	"<tr><th>filters</th><td>none</td>"
expect_eq "report svg: a filters line" \
	"$("$FS" report "$ex_f" --format svg | grep -o '>filters: [^<]*')" ">filters: $ex_ftext"
# Another boot's pid is the same filter; another task name is not.
jq '.filters.pids = [4242]' "$ex_f" >"$ex_dir/f-pid.json"
jq '.filters.comm = "dd"' "$ex_f" >"$ex_dir/f-comm.json"
"$FS" compare "$ex_f" --vs "$ex_dir/f-pid.json" -o "$ex_dir/f-cmp.svg" >"$ex_dir/f-cmp.out" 2>&1
expect_eq "compare: runs that differ only in pids compare" "$?" 0
expect_eq "compare svg: each side's filters" \
	"$(grep -o '>[a-z]* filters: [^<]*' "$ex_dir/f-cmp.svg")" \
	">base filters: $ex_ftext
>new filters: pid 4242; comm cat; fs tmpfs; command cat /dev/null"
expect_eq "compare text: each side's filters" "$(grep 'filters:' "$ex_dir/f-cmp.out")" \
	"base filters: $ex_ftext
new filters:  pid 4242; comm cat; fs tmpfs; command cat /dev/null"
expect_error "compare: a filtered run against an unfiltered one" 2 \
	"runs differ: filters \\($ex_ftext\\) in $ex_f but \\(none\\) in $ex_base" \
	"$FS" compare "$ex_f" "$ex_base"
expect_error "compare: runs of another task name" 2 \
	"runs differ: filters \\($ex_ftext\\) in $ex_f but \\(pid $$; comm dd; " \
	"$FS" compare "$ex_f" "$ex_dir/f-comm.json"
jq '.filters.pids = ["x"]' "$ex_f" >"$ex_dir/f-bad.json"
expect_error "report: a filter of the wrong type" 1 \
	"invalid report '$ex_dir/f-bad.json': filters\\.pids\\[0\\]: expected a non-negative integer" \
	"$FS" report "$ex_dir/f-bad.json" --format html
jq '.filters.user = "root"' "$ex_f" >"$ex_dir/f-unknown.json"
expect_error "report: an unknown filter" 1 \
	"invalid report '$ex_dir/f-unknown.json': filters\\.user: unknown filter" \
	"$FS" report "$ex_dir/f-unknown.json"

# ---- compare's picture from bad input: a line, or an honest empty chart ----
jq 'del(.targets.dedupe)' "$ex_new" >"$ex_dir/shmem-only.json"
jq '.targets.shmem.histograms.latency_ns |= (.count = 0 | .sum = 0 | .buckets = [])' \
	"$ex_base" >"$ex_dir/no-latency.json"
"$FS" compare "$ex_base" "$ex_dir/shmem-only.json" --force -o "$ex_dir/one.svg" >/dev/null 2>&1
expect_eq "compare svg: a target traced on one side is one line" \
	"$(grep -o 'dedupe: traced on base only, nothing to compare' "$ex_dir/one.svg")" \
	"dedupe: traced on base only, nothing to compare"
expect_eq "compare svg: well-formed XML" \
	"$("$ex_py" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1]); print("ok")' "$ex_dir/one.svg" 2>&1)" ok
"$FS" compare "$ex_dir/no-latency.json" "$ex_dir/no-latency.json" --format html >"$ex_dir/empty.html"
expect_eq "compare html: an empty histogram is an empty chart that says so" \
	"$(grep -c '<figure class="ab-chart" data-target="shmem" data-histogram="latency_ns"' "$ex_dir/empty.html") $(grep -c 'no events on either side' "$ex_dir/empty.html")" "1 1"
# Events on one side only: the chart draws that side, the test says why
# it has nothing to test; not measured on one side: one line, the reason.
jq '.targets.shmem.histograms.latency_ns |= (.count = 0 | .sum = 0 | .buckets = [])' \
	"$ex_new" >"$ex_dir/new-no-latency.json"
"$FS" compare "$ex_base" "$ex_dir/new-no-latency.json" --force -o "$ex_dir/half.html" >/dev/null 2>&1
ex_half=$(tr -d '\n' <"$ex_dir/half.html" | grep -o '<figure class="ab-chart" data-target="shmem" data-histogram="latency_ns">.*' | sed 's|</figure>.*||')
expect_eq "compare html: events on one side only: its bars, nothing to test" \
	"$(grep -o 'data-side="base"[^>]*data-count="[1-9]' <<<"$ex_half" | wc -l | tr -d ' ') $(grep -o 'data-side="new"[^>]*data-count="[1-9]' <<<"$ex_half" | wc -l | tr -d ' ') $(grep -c 'G-test: nothing to test (a side has no events)' <<<"$ex_half")" \
	"$(jq '[.targets.shmem.histograms.latency_ns.buckets[] | select(.count > 0)] | length' "$ex_base") 0 1"
jq '.targets.shmem.histograms.bytes |= {unit, kind, measured: false, why: "a reason of the test"}' \
	"$ex_new" >"$ex_dir/new-nm.json"
"$FS" compare "$ex_base" "$ex_dir/new-nm.json" --force -o "$ex_dir/nm.svg" >/dev/null 2>&1
expect_eq "compare svg: not measured on one side is one line with the reason" \
	"$(grep -o '>shmem bytes: not measured[^<]*' "$ex_dir/nm.svg") $(grep -c 'data-target="shmem" data-histogram="bytes"' "$ex_dir/nm.svg")" \
	">shmem bytes: not measured on new: a reason of the test 0"
expect_error "compare: one run and no other" 2 "compare: want BASE.json NEW.json" \
	"$FS" compare "$ex_base" -o "$ex_dir/alone.html"
expect_eq "compare: one run and no other: no page" "$(find "$ex_dir" -name 'alone.html*' | wc -l)" 0
# Heatmaps from bad input: intervals that do not add up, or that miss a
# target, are one line and no page; intervals with no events are empty
# heatmaps that say so.
ex_iv=tests/fuzz/corpus/json/intervals.json
jq '.intervals[0].targets.dedupe.counters.calls += 1' "$ex_iv" >"$ex_dir/iv-sum.json"
for fmt in html svg; do
	expect_error "report $fmt: intervals that do not add up" 1 \
		"invalid report '$ex_dir/iv-sum.json': intervals: do not add up to the totals: dedupe\\.calls: intervals [0-9]+, totals [0-9]+" \
		"$FS" report "$ex_dir/iv-sum.json" -o "$ex_dir/iv-sum.$fmt"
done
jq 'del(.intervals[1].targets.shmem)' "$ex_iv" >"$ex_dir/iv-miss.json"
expect_error "report: an interval without a traced target" 1 \
	"invalid report '$ex_dir/iv-miss.json': intervals\\[1\\]\\.targets\\.shmem: missing" \
	"$FS" report "$ex_dir/iv-miss.json" -o "$ex_dir/iv-miss.html"
expect_eq "heatmaps from bad input: no page written" "$(find "$ex_dir" -name 'iv-*.html*' -o -name 'iv-*.svg*' | wc -l)" 0
jq 'walk(if type == "object" and has("buckets") then (.buckets = [] | .count = 0 | .sum = 0) else . end)
	| walk(if type == "object" and has("counters") then (.counters |= map_values(0)) else . end)
	| .targets |= map_values(.calls = 0 | .errors = 0)' "$ex_iv" >"$ex_dir/iv-none.json"
"$FS" report "$ex_dir/iv-none.json" -o "$ex_dir/none.svg"
expect_eq "heatmap svg: intervals with no events, an empty heatmap per histogram that says so" \
	"$(grep -c '<svg class="heatmap"' "$ex_dir/none.svg") $(awk '/<svg class="heatmap"/ { h = 1 } h && /class="empty"[^>]*>no events</ { n++; h = 0 } END { print n + 0 }' "$ex_dir/none.svg") $("$ex_py" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1]); print("xml-ok")' "$ex_dir/none.svg" 2>&1)" \
	"$(jq '[.targets[].histograms[] | select(.measured)] | length' "$ex_iv") $(jq '[.targets[].histograms[] | select(.measured)] | length' "$ex_iv") xml-ok"
expect_error "compare: a picture is html or svg" 2 "a comparison draws as html or svg, not csv" \
	"$FS" compare "$ex_base" "$ex_new" --force -o "$ex_dir/c.csv"

# ---- bad input: one line, non-zero exit, no partial file ----
expect_error "report: unknown format" 2 "unknown format 'xml' \(text, json" \
	"$FS" report "$ex_base" --format xml
expect_error "trace: unknown format" 2 "unknown format 'xml'" "$FS" trace --format xml -d 1
expect_error "report: format not told by the name" 2 "cannot tell the format of '$ex_dir/out.data'" \
	"$FS" report "$ex_base" -o "$ex_dir/out.data"
expect_error "report: unwritable output" 1 \
	"cannot write '/nonexistent/dir/r.csv': No such file or directory" \
	"$FS" report "$ex_base" -o /nonexistent/dir/r.csv
expect_error "trace: unwritable -o, before tracing" 1 \
	"cannot write '/nonexistent/dir/r.om': No such file or directory" \
	"$FS" trace -o /nonexistent/dir/r.om -d 1
expect_error "report: two runs in csv" 2 "two reports need --format svg or html" \
	"$FS" report "$ex_base" "$ex_new" --format csv
printf '{"schema": "folioscope/1", "tool": {' >"$ex_dir/bad.json"
expect_error "report: malformed JSON" 1 "invalid report '$ex_dir/bad.json': malformed JSON" \
	"$FS" report "$ex_dir/bad.json" -o "$ex_dir/bad.csv"
expect_eq "malformed JSON: no output file" "$(find "$ex_dir" -name 'bad.csv*' | wc -l)" 0
expect_error "report: missing report" 1 "cannot read '$ex_dir/none.json': No such file" \
	"$FS" report "$ex_dir/none.json"
expect_error "--serve: not loopback" 1 "cannot serve on 0\.0\.0\.0:0: not a loopback address" \
	"$FS" report "$ex_base" --serve 0.0.0.0:0
expect_error "--serve: bad address" 1 "cannot serve on 127\.0\.0\.1: expected PORT" \
	"$FS" report "$ex_base" --serve 127.0.0.1
# A file system that fills up mid-write: the old file stays, no temp left.
mkdir "$ex_dir/full"
if mount -t tmpfs -o size=16k fs-export-full "$ex_dir/full" 2>/dev/null; then
	echo old >"$ex_dir/full/r.html"
	expect_error "report: disk full" 1 "cannot write '$ex_dir/full/r.html': No space left on device" \
		"$FS" report "$ex_base" -o "$ex_dir/full/r.html"
	expect_eq "disk full: old file kept, nothing else" \
		"$(ls "$ex_dir/full"):$(cat "$ex_dir/full/r.html")" "r.html:old"
	umount "$ex_dir/full"
else
	skip "report: disk full" "cannot mount a tmpfs here"
fi

# A device or a FIFO as the output file is written in place: a temp
# renamed over it would put a regular file where /dev/null was.
mknod "$ex_dir/null" c 1 3
mkfifo "$ex_dir/fifo"
jq -r .schema <"$ex_dir/fifo" >"$ex_dir/fifo.out" &
ex_fifo_reader=$!
"$FS" report "$ex_base" --format json -o "$ex_dir/null"
expect_eq "report -o a device node: exit 0, the node still a device" \
	"$? $(stat -c %F "$ex_dir/null")" "0 character special file"
"$FS" report "$ex_base" --format json -o "$ex_dir/fifo"
expect_eq "report -o a FIFO: exit 0, still a FIFO" "$? $(stat -c %F "$ex_dir/fifo")" "0 fifo"
wait "$ex_fifo_reader"
expect_eq "report -o a FIFO: its reader gets the report" "$(cat "$ex_dir/fifo.out")" "folioscope/1"

ex_cleanup
trap - INT TERM
