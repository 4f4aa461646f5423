# In-flight calls and the vfs_dedupe_file_range_one step in the guest
# (6.1), sourced by tests/check.sh. One boot runs tests/vm/inflight-guest.sh.
# - ddblock (tests/vm/ddblock.c) holds 5 threads inside
#   vfs_dedupe_file_range_one at once; with 2 kretprobe instances
#   (FOLIOSCOPE_KRETPROBE_MAXACTIVE=2) 3 returns are missed. Each thread
#   then dedupes on a second filesystem (xfs, left out by --fs btrfs,
#   so filtered at entry) and once more on the first. Exact counts: fentry sees all
#   10 traced calls; kprobe sees the 2 + 5 whose exits ran, reports the
#   3 missed returns (kprobe_profile) and the 3 live slots the threads'
#   next traced calls replaced as dropped; the filtered calls' exits do
#   not take those slots. The same with the hash store; with the
#   kernel's default instances, max(10, 2 x possible CPUs), and 12
#   threads the misses are read back too (libbpf's perf-PMU kretprobes
#   would hide them).
# - run dedupe --matrix at vfs_dedupe_file_range_one (the preps
#   excluded) reconciles at fentry and kprobe; a length clamped to 0 is
#   a call with nothing compared.
# - a killed run's kprobe events are removed by the next run, which
#   leaves none of its own.
# - folio_size counts each folio once per call (xfs, 1 KiB blocks,
#   offsets 1 KiB and 2 KiB into a page: pages are compared in pieces).
# shellcheck shell=bash
iout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vminflight.XXXXXX")
# The helper sits at the same absolute path in the guest (--with), here
# under $TMPDIR (check.sh's is in /tmp), where the guest mounts a tmpfs
# of its own: so this also checks that --with files under /tmp survive it.
if vm_helper tests/vm/ddblock.c "$iout/ddblock" "vm in-flight"; then
	vm_helper_boot "vm in-flight" "$LOGDIR/vm-inflight.log" "$iout" \
		"$PWD/tests/vm/inflight-guest.sh" "$iout/ddblock" \
		blk-fentry blk-kprobe blk-kprobe-hash blk-kprobe-default \
		one-matrix-fentry one-matrix-kprobe one-zero folio-xfs
	# calls same dropped missed bytes, and where it attached
	icounts() {
		jq -r '.targets.dedupe | "\(.attach.mechanism) \(.attach.symbol): calls \(.calls) same \(.counters.same) dropped \(.counters.dropped) missed \(.counters.missed) bytes \(.histograms.bytes.sum)"' "$iout/$1.json" 2>&1
	}
	one=vfs_dedupe_file_range_one
	expect_eq "vm in-flight ddblock -m fentry: every traced call" \
		"$(icounts blk-fentry)" "fentry $one: calls 10 same 10 dropped 0 missed 0 bytes 655360"
	expect_eq "vm in-flight ddblock -m kprobe, 2 instances: 3 returns missed, 3 slots dropped" \
		"$(icounts blk-kprobe)" "kprobe $one: calls 7 same 7 dropped 3 missed 3 bytes 458752"
	expect_eq "vm in-flight ddblock -m kprobe, 2 instances, hash store: the same" \
		"$(icounts blk-kprobe-hash)" "kprobe $one: calls 7 same 7 dropped 3 missed 3 bytes 458752"
	# 12 threads, the kernel's default instances.
	cpus=$(sed -n 's/^== possible cpus //p' "$LOGDIR/vm-inflight.log" |
		awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }')
	ma=$((2 * ${cpus:-0} > 10 ? 2 * ${cpus:-0} : 10))
	lost=$((12 > ma ? 12 - ma : 0))
	expect_eq "vm in-flight ddblock -m kprobe, 12 threads, default instances ($ma): $lost missed, $lost dropped" \
		"$(icounts blk-kprobe-default)" \
		"kprobe $one: calls $((24 - lost)) same $((24 - lost)) dropped $lost missed $lost bytes $(((24 - lost) * 65536))"
	expect_match "vm in-flight: kprobes are tracefs events (no 'not counted' note)" \
		"$(jq -r '.targets.dedupe.attach.reason' "$iout/blk-kprobe.json" 2>&1)" \
		'in-flight calls: per-CPU slots$'
	for m in fentry kprobe; do
		j=$iout/one-matrix-$m.json
		if ! jq -e .workload "$j" >/dev/null 2>&1; then
			bad "vm dedupe --matrix at $one -m $m" "no JSON; see $LOGDIR/vm-inflight.log"
			continue
		fi
		expect_eq "vm dedupe --matrix at $one -m $m: attach" \
			"$(jq -r '.targets.dedupe.attach | "\(.mechanism) \(.symbol)"' "$j" 2>&1)" "$m $one"
		expect_eq "vm dedupe --matrix at $one -m $m: reconcile, validation" \
			"$(jq -r '"\(.workload.reconcile) \(.workload.validation_failures) \(.validation.failures)"' "$j" 2>&1)" "ok 0 0"
		expect_eq "vm dedupe --matrix at $one -m $m: calls seen = destinations of ioctls that ran" \
			"$(jq -r '.targets.dedupe.calls' "$j" 2>&1)" \
			"$(jq -r '.workload.same + .workload.differs + .workload.errors - .workload.ioctl_errors' "$j" 2>&1)"
		expect_eq "vm dedupe --matrix at $one -m $m: SAME, DIFFERS, errors = the kernel's answers" \
			"$(jq -r '.targets.dedupe.counters | "\(.same) \(.differs) \(.errors)"' "$j" 2>&1)" \
			"$(jq -r '.workload | "\(.same) \(.differs) \(.errors - .ioctl_errors)"' "$j" 2>&1)"
		expect_eq "vm dedupe --matrix at $one -m $m: nothing dropped or missed" \
			"$(jq -r '.targets.dedupe.counters | "\(.dropped) \(.missed)"' "$j" 2>&1)" "0 0"
	done
	expect_eq "vm kprobe events: a gone run's removed, none left behind" \
		"$(sed -n 's/^== events \(.*\)/\1/p' "$LOGDIR/vm-inflight.log" | tr '\n' ' ')" \
		"before 1 run exit 0 after 0 "
	j=$iout/one-zero.json
	expect_eq "vm dedupe at $one, length clamped to 0: 4 calls, nothing compared, the ioctl says SAME" \
		"$(jq -r '"\(.targets.dedupe.calls) \(.targets.dedupe.counters.same) \(.targets.dedupe.histograms.bytes.count) \(.targets.dedupe.histograms.bytes.sum) \(.workload.same) \(.workload.bytes_deduped) \(.workload.reconcile)"' "$j" 2>&1)" \
		"4 0 0 0 4 12000 ok"
	# Source [1 KiB, 65 KiB) and destination [2 KiB, 66 KiB): 17 pages
	# each, per call; compared in pieces that end at either side's page
	# end, so most pages are looked up twice.
	j=$iout/folio-xfs.json
	expect_eq "vm dedupe xfs 1K blocks: each folio once per call" \
		"$(jq -r '"\(.targets.dedupe.calls) \(.targets.dedupe.histograms.folio_size.count) \(.targets.dedupe.histograms.folio_size.sum)"' "$j" 2>&1)" \
		"2 68 $((68 * 4096))"
fi
rm -rf "$iout"
