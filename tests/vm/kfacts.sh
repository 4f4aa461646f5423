# Kernel facts and concurrent instances in the guest (issue 8), sourced by
# tests/check.sh after tests/vm/filters.sh. Readers are gated until the
# probes are in. A reader's count includes exec's own small reads of
# busybox (< 4 KiB) where a filter lets the exec'ing process through,
# hence the ranges.
# shellcheck shell=bash
kout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmkfacts.XXXXXX")
kdir=$PWD/tests/vm
# kf_range NAME VALUE LO: VALUE is in [LO, LO + 4096).
kf_range() {
	expect_eq "$1" "$([ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -lt $(($3 + 4096)) ] &&
		echo yes || echo "no (${2:-none}, want $3..$(($3 + 4095)))")" yes
}
# kf_proc JSON PID FIELD: that process's entry's shmem FIELD (jq path).
kf_proc() {
	jq -r --argjson p "$2" ".processes[] | select(.pid == \$p) | .targets.shmem.$3" "$kout/$1" 2>/dev/null
}

# ---- two instances at once: filters of one never hide or double the other's ----
if (cd "$kout" && "$FS" vm "${vmargs[@]}" --timeout 400 --exec "$kdir/kfacts-two-guest.sh" \
	-- -j all.json -j one.json -o pids.txt) >"$LOGDIR/vm-kfacts-two.log" 2>&1; then
	read -r kA kB <"$kout/pids.txt"
	expect_eq "vm two traces: both at the function level" \
		"$(jq -r .targets.shmem.attach.mechanism "$kout/all.json" "$kout/one.json" 2>&1 | tr '\n' ' ')" \
		"fentry fentry "
	kf_range "vm two traces: unfiltered one has reader A's bytes" "$(kf_proc all.json "$kA" histograms.bytes.sum)" 1000000
	kf_range "vm two traces: unfiltered one has reader B's bytes" "$(kf_proc all.json "$kB" histograms.bytes.sum)" 300000
	expect_eq "vm two traces: unfiltered total >= both readers" \
		"$(jq -r '.targets.shmem.histograms.bytes.sum >= 1300000' "$kout/all.json" 2>&1)" true
	kf_range "vm two traces: -p A one has only A's bytes" \
		"$(jq -r .targets.shmem.histograms.bytes.sum "$kout/one.json" 2>/dev/null)" 1000000
	expect_eq "vm two traces: -p A bytes = A's bytes in the unfiltered one" \
		"$(jq -r .targets.shmem.histograms.bytes.sum "$kout/one.json" 2>&1)" \
		"$(kf_proc all.json "$kA" histograms.bytes.sum)"
	expect_eq "vm two traces: -p A calls = A's calls in the unfiltered one" \
		"$(jq -r .targets.shmem.calls "$kout/one.json" 2>&1)" "$(kf_proc all.json "$kA" calls)"
else
	bad "vm two traces" "see $LOGDIR/vm-kfacts-two.log: $(tail -3 "$LOGDIR/vm-kfacts-two.log")"
fi

rm -rf "$kout"
