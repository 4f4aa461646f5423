# The fleet dashboard (contrib/grafana/folioscope.json) on a real
# Prometheus (sourced by tests/check.sh): two `trace --serve --by cgroup`
# exporters, each filtered to cgroups of gated readers of its own so its
# counts are exact, a `report --serve` of a saved validating run and one
# of a saved fentry trace (where copy sizes are measured), all scraped
# every second.
# Once the readers are done and every exporter has been scraped since,
# every panel query must return data that agrees with the exporters' own
# /metrics (tests/host/grafana-check.py), and a dashboard with one metric
# name misspelt must fail on that panel. Network traffic stays on
# 127.0.0.1.
# shellcheck shell=bash
# shellcheck disable=SC2153 # RPID and TPID are tests/lib.sh's

gf=$(mktemp -d /dev/shm/fs-grafana.XXXXXX)
gf_dash=contrib/grafana/folioscope.json
gf_check=tests/host/grafana-check.py
gf_prom_pid=
gf_serve_pid=
gf_serve2_pid=
gf_cg=
gf_trace_pids=()
gf_readers=()

gf_cleanup() {
	local p
	for p in "${gf_readers[@]}" "${gf_trace_pids[@]}" $gf_serve_pid $gf_serve2_pid $gf_prom_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -n "$gf_cg" ] && rmdir "$gf_cg"/a "$gf_cg"/b "$gf_cg"/c "$gf_cg" 2>/dev/null
	gf_cg=
	gf_readers=()
	gf_trace_pids=()
	gf_serve_pid=
	gf_serve2_pid=
	gf_prom_pid=
	rm -rf "$gf"
}
trap 'gf_cleanup; exit 130' INT TERM
trap gf_cleanup EXIT


# gf_port FILE: the port of the "serving http://127.0.0.1:PORT/metrics"
# line in FILE, once there (10 s at most).
gf_has_url() { grep -Eq 'serving http://127\.0\.0\.1:[0-9]+/metrics' "$1" 2>/dev/null; }
gf_port() {
	wait_until 10 gf_has_url "$1" &&
		grep -Eo 'http://127\.0\.0\.1:[0-9]+/metrics' "$1" | head -n 1 | sed 's|.*:\([0-9]*\)/metrics|\1|'
}

# promv QUERY: the values of an instant query, "LABEL... VALUE" sorted
# ('instance' label, then value), nothing on error.
promv() {
	curl -sf "$gf_api/query" --data-urlencode "query=$1" 2>/dev/null |
		jq -r '.data.result[] | [.metric.instance // "", .value[1]] | join(" ")' | sort
}
# gf_scraped_since T: every exporter has a sample of a scrape that began
# after T (seconds since the epoch), so it holds what they served then.
gf_scraped_since() {
	[ "$(promv "count(timestamp(folioscope_target_attached{job=\"folioscope\"}) > $1)" | cut -d' ' -f2)" \
		== "$(($(promv 'count(folioscope_target_attached{job="folioscope"})' | cut -d' ' -f2) + 0))" ] &&
		[ "$(promv 'count(count by (instance) (folioscope_target_attached{job="folioscope"}))' | cut -d' ' -f2)" == 4 ]
}
# gf_exporter_sum NAME: NAME's value summed over every series of the
# exporters' own /metrics (curl's view).
gf_exporter_sum() {
	local u
	for u in "${gf_urls[@]}"; do curl -sf "$u"; done |
		awk -v n="$1" '$1 ~ "^" n "({|$)" { s += $NF } END { printf "%.0f\n", s }'
}
# gf_checker_results OUT: the checker's lines as this suite's results.
gf_checker_results() {
	local what name why
	while IFS=$'\t' read -r what name why; do
		case $what in
		ok) ok "grafana: $name" ;;
		skip) skip "grafana: $name" "$why" ;;
		*) bad "grafana: $name" "$why" ;;
		esac
	done <"$1"
}

gf_py=$(command -v /usr/bin/python3 python3 | head -n 1)
if ! command -v prometheus >/dev/null || ! command -v curl >/dev/null ||
	! command -v jq >/dev/null || [ -z "$gf_py" ]; then
	skip "grafana: dashboard on Prometheus" "prometheus, curl, jq or python3 not installed (tests/deps.sh)"
	return 0
fi
expect_eq "grafana: the dashboard is JSON with schemaVersion and its variables" \
	"$(jq -c '[.schemaVersion >= 36, ([.templating.list[].name] | sort)]' "$gf_dash" 2>&1)" \
	'[true,["cgroup","datasource","instance"]]'

# The per-cgroup panels need exporters with --by cgroup and readers in
# cgroups of their own (a cgroup v2 hierarchy this test can write).
gf_cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
gf_cg=
gf_skips=()
if [ -n "$gf_cg2" ] && mkdir "$gf_cg2/fs-grafana-$$" 2>/dev/null; then
	gf_cg=$gf_cg2/fs-grafana-$$
	mkdir "$gf_cg/a" "$gf_cg/b" "$gf_cg/c"
else
	gf_skips=(--skip 'folioscope_cgroup_=no writable cgroup v2 hierarchy for the readers')
	skip "grafana: exporters with --by cgroup" "no writable cgroup v2 hierarchy: the per-cgroup queries are skipped below"
fi

head -c 1000000 /dev/urandom >"$gf/a"
head -c 300000 /dev/urandom >"$gf/b"
head -c 200000 /dev/urandom >"$gf/c"

# The validating run the report exporter serves: dedupe's, so that the
# dedupe panels have data too (the trace exporters read tmpfs only).
if ! "$FS" run dedupe -j "$gf/val.json" >"$gf/run.out" 2>&1; then
	bad "grafana: run dedupe -j (the served validation)" "$(tail -n 3 "$gf/run.out")"
	return 0
fi

# Exporter 1: a cat of a and a dd of b in 4 KiB blocks; exporter 2: a cat
# of c. Each only sees its own readers: by their cgroups (a and b, c),
# else by pid.
mkdir "$gf/e1" "$gf/e2"
gated_reader "$gf" a1 cat "$gf/a"; A1=$RPID
gated_reader "$gf" a2 dd if="$gf/b" of=/dev/null bs=4k status=none; A2=$RPID
gated_reader "$gf" b1 cat "$gf/c"; B1=$RPID
gf_readers=("$A1" "$A2" "$B1")
gf_ports=()
for e in e1 e2; do
	if [ -n "$gf_cg" ] && [ $e == e1 ]; then
		filt=(-c "$gf_cg/a" -c "$gf_cg/b" --by cgroup)
	elif [ -n "$gf_cg" ]; then
		filt=(-c "$gf_cg/c" --by cgroup)
	elif [ $e == e1 ]; then
		filt=(-p "$A1" -p "$A2")
	else
		filt=(-p "$B1")
	fi
	if ! trace_bg "$gf/$e" "${filt[@]}" --serve 127.0.0.1:0; then
		bad "grafana: trace --serve ($e) attaches" "$(cat "$gf/$e/err")"
		return 0
	fi
	gf_trace_pids+=("$TPID")
	gf_ports+=("$(gf_port "$gf/$e/err")")
done
# A cgroup's series begin at its first call, and rate() counts nothing
# before a series' first sample: a first read in each cgroup (1000 bytes)
# and a FIDEDUPERANGE in c (tmpfs refuses it: a call and an error) before
# the first scrape, so the readers' calls land between two samples.
gf_warm=0
if [ -n "$gf_cg" ]; then
	head -c 1000 /dev/urandom >"$gf/w"
	for c in a b c; do
		sh -c 'echo $$ >"$0/cgroup.procs" && exec cat "$1" >/dev/null' "$gf_cg/$c" "$gf/w"
	done
	sh -c 'echo $$ >"$0/cgroup.procs" && exec xfs_io -c "dedupe $1 0 0 4096" "$1"' \
		"$gf_cg/c" "$gf/w" >/dev/null 2>&1
	echo "$A1" >"$gf_cg/a/cgroup.procs"
	echo "$A2" >"$gf_cg/b/cgroup.procs"
	echo "$B1" >"$gf_cg/c/cgroup.procs"
	gf_warm=1000
fi
"$FS" report "$gf/val.json" --serve 127.0.0.1:0 2>"$gf/serve.err" &
gf_serve_pid=$!
gf_ports+=("$(gf_port "$gf/serve.err")")
# A host whose kernel lets fentry attach, where the folio sizes and copy
# chunks are measured (this one's syscall level cannot): a saved trace
# from Debian 6.1, served as it is.
"$FS" report tests/fixtures/export-new.json --serve 127.0.0.1:0 2>"$gf/serve2.err" &
gf_serve2_pid=$!
gf_ports+=("$(gf_port "$gf/serve2.err")")
gf_urls=()
for p in "${gf_ports[@]}"; do gf_urls+=("http://127.0.0.1:$p/metrics"); done
expect_eq "grafana: four exporters serving" "${#gf_ports[@]} $(printf '%s\n' "${gf_ports[@]}" | grep -c '^[0-9][0-9]*$')" "4 4"

pport=$(free_port)
gf_api="http://127.0.0.1:$pport/api/v1"
prom_start "$gf" "$pport" 300 "$LOGDIR/grafana-prometheus.log" \
	"${gf_ports[@]/#/127.0.0.1:}"
gf_prom_pid=$PROM_PID

# A scrape of every exporter before the readers run, so every rate has a
# sample on each side of the reads.
if ! wait_until 60 gf_scraped_since 0; then
	bad "grafana: Prometheus scrapes the four exporters" "not within 60 s: $(tail -n 3 "$LOGDIR/grafana-prometheus.log")"
	return 0
fi
ok "grafana: Prometheus scrapes the four exporters"
for r in a1 a2 b1; do release "$gf" "$r"; done
wait "$A1" "$A2" "$B1"
gf_readers=()
# Prometheus may move a sample's timestamp up to 2 ms towards the
# schedule (its timestamp tolerance): a margin past that.
gf_end=$(date +%s.%N | awk '{ printf "%.3f", $1 + 0.01 }')
if ! wait_until 30 gf_scraped_since "$gf_end"; then
	bad "grafana: a scrape of every exporter after the readers ended" "not within 30 s"
	return 0
fi
ok "grafana: a scrape of every exporter after the readers ended"

# What the readers read, exactly, per trace exporter; the rest of the
# numbers are the exporters' own, which Prometheus must hold as well.
i1=127.0.0.1:${gf_ports[0]}
i2=127.0.0.1:${gf_ports[1]}
i3=127.0.0.1:${gf_ports[2]}
i4=127.0.0.1:${gf_ports[3]}
expect_eq "grafana: Prometheus has each trace exporter's bytes (its readers' files)" \
	"$(promv 'folioscope_shmem_bytes_sum{job="folioscope"}' | grep -v -e "^$i3 " -e "^$i4 ")" \
	"$(printf '%s %d\n%s %d\n' "$i1" $((1300000 + 2 * gf_warm)) "$i2" $((200000 + gf_warm)) | sort)"
if [ -n "$gf_cg" ]; then
	gf_base=${gf_cg#"$gf_cg2"}
	expect_eq "grafana: Prometheus has each cgroup's bytes (its reader's and its first read)" \
		"$(curl -sf "$gf_api/query" --data-urlencode 'query=sum by (cgroup) (folioscope_cgroup_shmem_bytes_sum)' |
			jq -r '.data.result[] | "\(.metric.cgroup) \(.value[1])"' | sort)" \
		"$(printf '%s/a 1001000\n%s/b 301000\n%s/c 201000\n' "$gf_base" "$gf_base" "$gf_base" | sort)"
fi
expect_eq "grafana: sum over instances of shmem calls = the exporters' sum" \
	"$(promv 'sum(folioscope_shmem_calls_total)' | cut -d' ' -f2)" "$(gf_exporter_sum folioscope_shmem_calls_total)"
expect_eq "grafana: the served validation: passed, with the run's checks" \
	"$(promv 'folioscope_validation_passed' | cut -d' ' -f2) $(promv 'folioscope_validation_checks_total' | cut -d' ' -f2)" \
	"1 $(jq .validation.checks "$gf/val.json")"

gf_exp=(--exporter "$i1=${gf_urls[0]}" --exporter "$i2=${gf_urls[1]}" --exporter "$i3=${gf_urls[2]}" --exporter "$i4=${gf_urls[3]}")
"$gf_py" "$gf_check" "$gf_dash" "$gf_api" 5m "${gf_exp[@]}" "${gf_skips[@]}" >"$gf/check.out" 2>"$gf/check.err"
gf_rc=$?
gf_checker_results "$gf/check.out"
expect_eq "grafana: checker: a result per panel target" \
	"$(grep -vc $'^[a-zA-Z]*\tvariable ' "$gf/check.out")" \
	"$(jq '[.panels[].targets[]?.expr] | length' "$gf_dash")"
expect_eq "grafana: checker: exit status 1 exactly when a check failed, no errors" \
	"$gf_rc $(cat "$gf/check.err")" "$(grep -q '^FAIL' "$gf/check.out" && echo 1 || echo 0) "

# The checker catches a broken dashboard: one metric misspelt, that
# panel (and no other) failing, by title and query.
jq '(.panels[] | select(.title == "shmem calls and errors per instance") | .targets[0].expr) |=
	sub("folioscope_shmem_calls_total"; "folioscope_shmem_cals_total")' "$gf_dash" >"$gf/broken.json"
"$gf_py" "$gf_check" "$gf/broken.json" "$gf_api" 5m "${gf_exp[@]}" "${gf_skips[@]}" >"$gf/broken.out" 2>&1
gf_rc=$?
expect_eq "grafana: checker fails a dashboard with a misspelt metric, on that panel only" \
	"$gf_rc $(grep '^FAIL' "$gf/broken.out")" \
	"1 FAIL	shmem calls and errors per instance: sum by (instance) (rate(folioscope_shmem_cals_total{instance=~\"\$instance\"}[\$__rate_interval]))	no data"

# ... and a Prometheus that holds numbers the exporters do not: told of
# the first two exporters only, the checker sees the third's series as
# extra and sums that are not the exporters'.
"$gf_py" "$gf_check" "$gf_dash" "$gf_api" 5m "${gf_exp[@]:0:4}" "${gf_skips[@]}" >"$gf/two.out" 2>&1
gf_rc=$?
expect_eq "grafana: checker fails where Prometheus and the exporters disagree" \
	"$gf_rc $(grep -c $'^FAIL\tdedupe compare latency: .*series differ from the exporters' "$gf/two.out") $(grep -c $'^FAIL\tValidation verdict: .*series differ: Prometheus only' "$gf/two.out")" \
	"1 1 1"

for TPID in "${gf_trace_pids[@]}"; do
	trace_stop
	expect_eq "grafana: trace --serve stops on SIGINT with 0" "$TRC" 0
done
gf_trace_pids=()
gf_cleanup
trap - INT TERM EXIT
