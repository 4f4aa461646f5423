# The folio-lookup sub-probe counts the read's own file only (sourced by
# tests/check.sh): shmem-read --buf-tmpfs reads into buffers mapped from
# another tmpfs file and unmapped before every call, so every read's copy
# faults and looks up the buffer file's folios inside the read. On a
# huge=never mount read at page-aligned positions, the read's own lookups
# are exactly one per 4 KiB page it returns, and so are its copy chunks.
# shellcheck shell=bash
bout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmbuf.XXXXXX")
bscript=$PWD/tests/vm/buftmpfs-guest.sh
bcases="read-fentry read-kprobe readv-fentry read-fentry-hash"
bargs=()
for c in $bcases; do bargs+=(-j "$c.json"); done
if (cd "$bout" && "$FS" vm "${vmargs[@]}" --timeout 900 \
	--exec "$bscript" -- "${bargs[@]}") \
	>"$LOGDIR/vm-buftmpfs.log" 2>&1; then
	ok "vm --buf-tmpfs: guest runs"
else
	bad "vm --buf-tmpfs: guest runs" "see $LOGDIR/vm-buftmpfs.log: $(tail -3 "$LOGDIR/vm-buftmpfs.log")"
fi
for c in $bcases; do
	j=$bout/$c.json
	expect_eq "vm --buf-tmpfs $c: reconciles, no failures, buffers from tmpfs" \
		"$(jq -r '[.workload.reconcile, .workload.validation_failures, .workload.buffers, .workload.bytes] | map(tostring) | join(" ")' "$j" 2>&1)" \
		"ok 0 tmpfs (memfd, MAP_SHARED) 1048576"
	# 256 pages of 4 KiB: one lookup and one copy chunk each.
	expect_eq "vm --buf-tmpfs $c: folio_size counts the read's own folios only" \
		"$(jq -r '.targets.shmem.histograms.folio_size | "\(.count) \(.sum)"' "$j" 2>&1)" \
		"256 1048576"
	expect_eq "vm --buf-tmpfs $c: copy_bytes = one 4 KiB chunk per page read" \
		"$(jq -r '.targets.shmem.histograms.copy_bytes | "\(.count) \(.sum) \([.buckets[] | select(.count > 0) | .lo])"' "$j" 2>&1)" \
		"256 1048576 [4096]"
done
rm -rf "$bout"
