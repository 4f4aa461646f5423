# In-flight tmpfs reads in the guest (6.1), sourced by tests/check.sh.
# One boot runs tests/vm/shinflight-guest.sh.
# shblock (tests/vm/shblock.c) holds 5 threads inside shmem_file_read_iter
# at once (4 KiB reads into userfaultfd-blocked pages); with 2 kretprobe
# instances (FOLIOSCOPE_KRETPROBE_MAXACTIVE=2) 3 returns are missed. Each
# thread then reads 1000 bytes on a second tmpfs mount (left out by
# --dev of the first, so filtered at entry) and 8 KiB once more on the
# first. Exact counts: fentry and the syscall level see all 10 traced
# reads; kprobe sees the 2 + 5 whose exits ran, reports the 3 missed
# returns and the 3 live slots the threads' next traced reads replaced
# as dropped; the filtered reads' exits do not take those slots (their
# 1000 bytes are never counted). The same with the hash store. With each
# first read moved to another CPU while it sleeps (shblock ... migrate),
# fentry with the per-CPU slots (FOLIOSCOPE_INFLIGHT=cpu) still sees every
# read, the records moved with their threads; without that move
# (test-nomigrate) the reads that held the two CPUs' slots are lost.
# shellcheck shell=bash
sout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmshinflight.XXXXXX")
# The helper sits at the same absolute path in the guest (--with), here
# under $TMPDIR (check.sh's is in /tmp), where the guest mounts a tmpfs
# of its own: so this also checks that --with files under /tmp survive it.
if vm_helper tests/vm/shblock.c "$sout/shblock" "vm shmem in-flight"; then
	vm_helper_boot "vm shmem in-flight" "$LOGDIR/vm-shinflight.log" "$sout" \
		"$PWD/tests/vm/shinflight-guest.sh" "$sout/shblock" \
		blk-fentry blk-kprobe blk-kprobe-hash blk-syscall blk-fentry-migrate \
		blk-fentry-nomigrate
	# calls dropped missed bytes req_bytes folio lookups (count) copy
	# chunks (count), and where it attached
	scounts() {
		jq -r '.targets.shmem | "\(.attach.mechanism) \(.attach.symbol): calls \(.calls) dropped \(.counters.dropped) missed \(.counters.missed) bytes \(.histograms.bytes.sum) req \(.histograms.req_bytes.sum) folios \(.histograms.folio_size.count) copies \(.histograms.copy_bytes.count)"' "$sout/$1.json" 2>&1
	}
	rd=shmem_file_read_iter
	# 5 reads of 4 KiB and 5 of 8 KiB: 15 pages, each one lookup and
	# one copy.
	expect_eq "vm shmem in-flight shblock -m fentry: every traced read" \
		"$(scounts blk-fentry)" "fentry $rd: calls 10 dropped 0 missed 0 bytes 61440 req 61440 folios 15 copies 15"
	# The 2 first reads whose exits ran and the 5 second ones. Every
	# traced read's lookups count (the filtered reads' do not); the
	# copy of a read whose exit was missed is closed by nothing.
	expect_eq "vm shmem in-flight shblock -m kprobe, 2 instances: 3 returns missed, 3 slots dropped, filtered exits not counted" \
		"$(scounts blk-kprobe)" "kprobe $rd: calls 7 dropped 3 missed 3 bytes 49152 req 49152 folios 15 copies 12"
	expect_eq "vm shmem in-flight shblock -m kprobe, 2 instances, hash store: the same" \
		"$(scounts blk-kprobe-hash)" "kprobe $rd: calls 7 dropped 3 missed 3 bytes 49152 req 49152 folios 15 copies 12"
	expect_eq "vm shmem in-flight shblock -m syscall: every traced read" \
		"$(jq -r '.targets.shmem | "\(.attach.mechanism): calls \(.calls) dropped \(.counters.dropped) missed \(.counters.missed) bytes \(.histograms.bytes.sum) req \(.histograms.req_bytes.sum)"' "$sout/blk-syscall.json" 2>&1)" \
		"syscall: calls 10 dropped 0 missed 0 bytes 61440 req 61440"
	expect_eq "vm shmem in-flight shblock migrate -m fentry, per-CPU slots: every traced read, moved with its thread" \
		"$(scounts blk-fentry-migrate)" "fentry $rd: calls 10 dropped 0 missed 0 bytes 61440 req 61440 folios 15 copies 15"
	expect_eq "vm shmem in-flight shblock migrate -m fentry, no move (test-nomigrate): the slots' two reads lost" \
		"$(jq -r '.targets.shmem | "calls \(.calls) bytes \(.histograms.bytes.sum)"' "$sout/blk-fentry-nomigrate.json" 2>&1)" \
		"calls 8 bytes 53248"
fi
rm -rf "$sout"
