# Per-call events in the guest (6.1) at fentry and kprobe, sourced by
# tests/check.sh. One boot runs tests/vm/events-guest.sh: --events all on
# dd's reads of known offsets and lengths gives one event per read as
# issued, with the folios the read met; --slower-than T (T = 2^20 ns, a
# latency bucket boundary) on 4 KiB and 3 MiB reads gives as many events
# as the latency histogram counts at or above T, each at or above it;
# --errors on run dedupe --matrix (btrfs: differing and failing layouts)
# gives exactly the DIFFERS and failed compares, as many as the
# workload's own truth; --slower-than T on that matrix (warm and cold
# files) as many events as the histogram counts at or above T; a 4K ring
# flooded with 16384 reads: events seen + events lost = calls.
# shellcheck shell=bash
vout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmevents.XXXXXX")
vnames=(all-fentry all-kprobe slow-fentry slow-kprobe dd-fentry dd-kprobe
	dderr-fentry dderr-kprobe ddslow-fentry ddslow-kprobe flood-fentry flood-kprobe)
vargs=()
for n in "${vnames[@]}"; do vargs+=(-j "$n.json"); done
vlog=$LOGDIR/vm-events.log
vscript=$PWD/tests/vm/events-guest.sh
if (cd "$vout" && "$FS" vm "${vmargs[@]}" --timeout 1800 \
	--exec "$vscript" -- "${vargs[@]}") >"$vlog" 2>&1; then
	ok "vm events: guest runs"
else
	bad "vm events: guest runs" "see $vlog: $(tail -3 "$vlog")"
fi
# vev NAME: the case's events, one JSON object per line.
vev() { sed -n "s/^EV $1 //p" "$vlog" | tr -d '\r' | jq -c 'select(.type == "event")'; }
# The reads dd makes: bs=4096 skip=3 count=8, bs=1M skip=3 count=2.
want_all=$( (for i in $(seq 3 10); do echo "$((i * 4096)) 4096 4096"; done
	echo "3145728 1048576 1048576"; echo "4194304 1048576 1048576"))
t=1048576
for m in fentry kprobe; do
	expect_eq "vm events all -m $m: exit" "$(sed -n "s/^== all-$m exit //p" "$vlog" | tr -d '\r')" 0
	expect_eq "vm events all -m $m: one event per read, offsets and lengths as issued" \
		"$(vev "all-$m" | jq -r '"\(.offset) \(.req_bytes) \(.ret)"')" "$want_all"
	expect_eq "vm events all -m $m: the mechanism, the calls counter" \
		"$(vev "all-$m" | jq -r .mechanism | sort -u) $(jq -r '[.targets.shmem.calls, .targets.shmem.counters.events, .targets.shmem.counters.events_lost] | @tsv' "$vout/all-$m.json" 2>&1)" \
		"$m 10	10	0"
	# huge=never: a 4 KiB read meets one 4 KiB folio, a 1 MiB read 256.
	expect_eq "vm events all -m $m: folios met per read" \
		"$(vev "all-$m" | jq -r '"\(.folios.min) \(.folios.max) \(.folios.count)"' | sort | uniq -c | awk '{print $1 "x" $2 "-" $3 "/" $4}' | paste -sd' ')" \
		"8x4096-4096/1 2x4096-4096/256"
	expect_eq "vm events slower-than -m $m: exit" "$(sed -n "s/^== slow-$m exit //p" "$vlog" | tr -d '\r')" 0
	want=$(jq -r --argjson t "$t" '[.targets.shmem.histograms.latency_ns.buckets[] | select(.lo >= $t) | .count] | add // 0' "$vout/slow-$m.json" 2>&1)
	expect_eq "vm events --slower-than ${t}ns -m $m: as many events as latency_ns counts at or above it" \
		"$(vev "slow-$m" | wc -l)" "$want"
	expect_eq "vm events --slower-than -m $m: every event at or above the bound" \
		"$(vev "slow-$m" | jq -r --argjson t "$t" 'select(.latency_ns < $t) | .latency_ns')" ""
	# run dedupe --count 4 --range 64K: ranges at 0, 64K, 128K, 192K of
	# the source, each against the same offset of a second file.
	expect_eq "vm events dedupe -m $m: run exits 0" "$(sed -n "s/^== dd-$m exit //p" "$vlog" | tr -d '\r')" 0
	expect_eq "vm events dedupe -m $m: one SAME event per compare, offsets and length as issued" \
		"$(vev "dd-$m" | jq -r '"\(.offset) \(.dst_offset) \(.req_bytes) \(.result)"')" \
		"$(for i in 0 1 2 3; do echo "$((i * 65536)) $((i * 65536)) 65536 SAME"; done)"
	expect_eq "vm events dedupe -m $m: events = calls, folios seen" \
		"$(jq -r '[.targets.dedupe.calls, .targets.dedupe.counters.events] | @tsv' "$vout/dd-$m.json" 2>&1) $(vev "dd-$m" | jq -r '.folios.count > 0' | sort -u)" \
		"4	4 true"
	echo "  (slow-$m: $want of $(jq -r .targets.shmem.calls "$vout/slow-$m.json" 2>&1) calls at or above ${t}ns)"

	# --errors on the matrix: the DIFFERS events are the workload's
	# DIFFERS, the failed ones the failures this level counted (it
	# reconciles with the workload), and nothing else.
	expect_eq "vm events dedupe --errors -m $m: run exits 0, reconciled" \
		"$(sed -n "s/^== dderr-$m exit //p" "$vlog" | tr -d '\r') $(jq -r .workload.reconcile "$vout/dderr-$m.json" 2>&1)" "0 ok"
	expect_eq "vm events dedupe --errors -m $m: DIFFERS events = the workload's differs, failed = errors counted, no other" \
		"$(vev "dderr-$m" | jq -r 'if .result == "DIFFERS" then "differs" elif .errno != null then "errors" else .result end' | sort | uniq -c | awk '{ print $2 "=" $1 }' | paste -sd' ')" \
		"$(jq -r '.targets.dedupe.counters as $c | [if .workload.differs > 0 then "differs=\(.workload.differs)" else empty end, if $c.errors > 0 then "errors=\($c.errors)" else empty end] | join(" ")' "$vout/dderr-$m.json" 2>&1)"
	expect_eq "vm events dedupe --errors -m $m: differs counted = the workload's, events counter = lines" \
		"$(jq -r '[.targets.dedupe.counters.differs, .targets.dedupe.counters.events] | @tsv' "$vout/dderr-$m.json" 2>&1)" \
		"$(jq -r .workload.differs "$vout/dderr-$m.json" 2>&1)	$(vev "dderr-$m" | wc -l)"
	# --slower-than T on warm and cold compares.
	expect_eq "vm events dedupe --slower-than -m $m: exit" "$(sed -n "s/^== ddslow-$m exit //p" "$vlog" | tr -d '\r')" 0
	want=$(jq -r --argjson t "$t" '[.targets.dedupe.histograms.latency_ns.buckets[] | select(.lo >= $t) | .count] | add // 0' "$vout/ddslow-$m.json" 2>&1)
	expect_eq "vm events dedupe --slower-than ${t}ns -m $m: as many events as latency_ns counts at or above it" \
		"$(vev "ddslow-$m" | wc -l)" "$want"
	expect_eq "vm events dedupe --slower-than -m $m: every event at or above the bound" \
		"$(vev "ddslow-$m" | jq -r --argjson t "$t" 'select(.latency_ns < $t) | .latency_ns')" ""
	echo "  (ddslow-$m: $want of $(jq -r .targets.dedupe.calls "$vout/ddslow-$m.json" 2>&1) compares at or above ${t}ns)"
	# The flood: what the ring took and what it had no room for are
	# every call, each event a line.
	expect_eq "vm events flood -m $m: exit" "$(sed -n "s/^== flood-$m exit //p" "$vlog" | tr -d '\r')" 0
	expect_eq "vm events flood -m $m: events seen + events lost = calls, events counted = lines" \
		"$(jq -r '.targets.shmem.counters | "\(.events + .events_lost) \(.events)"' "$vout/flood-$m.json" 2>&1)" \
		"$(jq -r .targets.shmem.calls "$vout/flood-$m.json" 2>&1) $(sed -n "s/^EVN flood-$m //p" "$vlog" | tr -d '\r')"
	echo "  (flood-$m: $(jq -r '.targets.shmem.counters | "\(.events) seen, \(.events_lost) lost"' "$vout/flood-$m.json" 2>&1) of $(jq -r .targets.shmem.calls "$vout/flood-$m.json" 2>&1) calls)"
done
rm -rf "$vout"
