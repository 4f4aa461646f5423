# Real fio and duperemove under `trace -- CMD` in the guest (sourced by
# tests/check.sh): only CMD and its descendants count, and calls and bytes
# equal what the tools report, at the function level (fentry/kprobe).
# shellcheck shell=bash
pout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmpeers.XXXXXX")
pscript=$PWD/tests/vm/peers-guest.sh
if (cd "$pout" && "$FS" vm "${vmargs[@]}" --exec "$pscript" \
	--with "$(command -v fio)" --with "$(command -v duperemove)" -- \
	-j t64.json -j f64.json -j t4.json -j f4.json -j td.json -o dup.log) \
	>"$LOGDIR/vm-peers.log" 2>&1; then
	for bs in 64 4; do
		expect_eq "vm trace -- fio bs=${bs}k: calls, bytes = fio's reads" \
			"$(jq -r '"\(.targets.shmem.calls) \(.targets.shmem.histograms.bytes.sum)"' "$pout/t$bs.json")" \
			"$(jq -r '.jobs[0].read | "\(.total_ios) \(.io_bytes)"' "$pout/f$bs.json")"
	done
	want=$(sed -nE 's/.*Dedupe ([0-9]+) extents .* with target: \(([0-9]+), ([0-9]+)\).*/\1 \3/p' "$pout/dup.log" |
		awk '{ n += $1; b += $1 * $2 } END { print n + 0, b + 0 }')
	expect_eq "vm trace -- duperemove -d: calls, bytes = its dedupes" \
		"$(jq -r '"\(.targets.dedupe.calls) \(.targets.dedupe.histograms.bytes.sum)"' "$pout/td.json")" "$want"
	expect_eq "vm trace -- duperemove -d: function level" \
		"$(jq -r .targets.dedupe.attach.mechanism "$pout/td.json")" kprobe
else
	bad "vm trace -- fio/duperemove" "see $LOGDIR/vm-peers.log: $(tail -3 "$LOGDIR/vm-peers.log")"
fi
rm -rf "$pout"
