# Each trace filter in the guest, at the function level (sourced by
# tests/check.sh): of two readers only the filtered one counts. A reader
# also counts exec's own small reads of busybox (< 4 KiB) where the filter
# lets the exec'ing process through, hence the ranges.
# shellcheck shell=bash
fout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmfilters.XXXXXX")
fscript=$PWD/tests/vm/filters-guest.sh
# in_range NAME JSON LO: the file's bytes sum is in [LO, LO + 4096).
in_range() {
	local sum
	sum=$(jq -r .targets.shmem.histograms.bytes.sum "$fout/$2" 2>/dev/null)
	expect_eq "$1" "$([ -n "$sum" ] && [ "$sum" -ge "$3" ] && [ "$sum" -lt $(($3 + 4096)) ] &&
		echo yes || echo "no (${sum:-no JSON}, want $3..$(($3 + 4095)))")" yes
}
if (cd "$fout" && "$FS" vm "${vmargs[@]}" --timeout 400 --with "$GUEST_LIB" \
	--exec "$fscript" -- "$GUEST_LIB" -j p.json \
	-j comm.json -j cg.json -j dev.json -j fsx.json -j fst.json -j bycg.json) \
	>"$LOGDIR/vm-filters.log" 2>&1; then
	in_range "vm trace -p: only that process" p.json 1000000
	in_range "vm trace --comm dd: only dd" comm.json 300000
	in_range "vm trace -c: only the cgroup's process" cg.json 1000000
	# --by cgroup: each row's bytes are its own reader's (and exec's).
	for row in "/t/x 1000000" "/t/y/in 300000"; do
		read -r c want <<<"$row"
		sum=$(jq -r --arg c "$c" '.cgroups[] | select(.cgroup == $c) | .targets.shmem.histograms.bytes.sum' "$fout/bycg.json" 2>/dev/null)
		expect_eq "vm trace --by cgroup: row $c holds its reader's bytes" \
			"$([ -n "$sum" ] && [ "$sum" -ge "$want" ] && [ "$sum" -lt $((want + 4096)) ] &&
				echo yes || echo "no (${sum:-no row}, want $want..$((want + 4095)))")" yes
	done
	# The copies a row's reads made (a sub-probe's, on folio lookups)
	# are its own: the row its calls' entry chose.
	expect_eq "vm trace --by cgroup: each row's copy chunks add up to its bytes" \
		"$(jq -c '[.cgroups[] | (.targets.shmem.histograms | [.copy_bytes.sum == .bytes.sum, .lookups_per_call.count == .bytes.count])] | unique' "$fout/bycg.json" 2>/dev/null)" '[[true,true]]'
	expect_eq "vm trace --by cgroup: two rows, no other" \
		"$(jq -c '[.cgroups[] | .cgroup] | sort' "$fout/bycg.json" 2>/dev/null)" '["/t/x","/t/y/in"]'
	in_range "vm trace --dev: only files on that fs" dev.json 300000
	expect_eq "vm trace --fs xfs: no tmpfs reads" \
		"$(jq -r .targets.shmem.calls "$fout/fsx.json" 2>/dev/null)" 0
	in_range "vm trace --fs tmpfs: both readers" fst.json 1300000
	expect_eq "vm trace filters: function level" \
		"$(jq -r .targets.shmem.attach.mechanism "$fout/p.json" 2>/dev/null)" fentry
else
	bad "vm trace filters" "see $LOGDIR/vm-filters.log: $(tail -3 "$LOGDIR/vm-filters.log")"
fi
cp "$fout"/*.json "$LOGDIR/" 2>/dev/null
rm -rf "$fout"
