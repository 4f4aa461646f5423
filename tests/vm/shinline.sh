# shmem's folio lookup inlined into the read loop (sourced by
# tests/check.sh): the make-kernel build with
# tests/kernels/patches/shmem-lookup-inline.patch has shmem_get_folio_gfp
# inlined into shmem_file_read_iter, with shmem_get_folio still a symbol
# for its other callers, so a sub-probe on that symbol would count none of
# the read's lookups. With the vmlinux (vm --debuginfo), doctor names the
# inline site and the run marks the histograms the sub-probe fills as not
# measured, with the reason: the site's out-pointer is an implicit pointer
# to the read loop's local, which has no address to read the folio at.
# shellcheck shell=bash
si_bz=$(tests/kernels/build.sh -n shmem-lookup-inline \
	tests/kernels/patches/shmem-lookup-inline.patch 2>"$LOGDIR/vm-shinline-build.log" | tail -1) || si_bz=
if [ -z "$si_bz" ] || [ ! -f "$si_bz" ]; then
	skip "vm shinline" "no make kernel build: $(tail -1 "$LOGDIR/vm-shinline-build.log" 2>/dev/null)"
elif [ ! -f "$(dirname "$si_bz")/linux/vmlinux" ]; then
	skip "vm shinline" "$si_bz has no linux/vmlinux beside it"
else
	si=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmshinl.XXXXXX")
	si_log=$LOGDIR/vm-shinline.log
	si_vmlinux=$(dirname "$si_bz")/linux/vmlinux
	si_script=$PWD/tests/vm/shinline-guest.sh
	expect_eq "vm shinline: the lookup has no symbol of its own, the exported wrapper has" \
		"$(nm "$si_vmlinux" | awk '$3 ~ /^shmem_get_folio/ { print $3 }' | sort | tr '\n' ' ')" \
		"shmem_get_folio "
	if (cd "$si" && "$FS" vm --kernel "$si_bz" --debuginfo --timeout 1200 \
		--exec "$si_script" -- -j doctor.json -j run.json) >"$si_log" 2>&1; then
		ok "vm shinline: guest runs"
	else
		bad "vm shinline: guest runs" "see $si_log: $(tail -3 "$si_log")"
	fi
	for n in doctor run; do
		expect_eq "vm shinline $n: exit" "$(sed -n "s/^== $n exit //p" "$si_log" | tr -d '\r')" 0
	done
	d=$si/doctor.json
	expect_eq "vm shinline doctor: the inlined lookup and its site in the read loop" \
		"$(jq -r '.targets.shmem.sub_inline | "\(.function) \(.usable_sites_in_function) \([.sites[] | select(.caller == "shmem_file_read_iter") | .call_file | split("/") | .[-2:] | join("/")] | join(","))"' "$d" 2>&1)" \
		"shmem_get_folio_gfp 1 mm/shmem.c"
	j=$si/run.json
	why="sub-probe unavailable: shmem_get_folio_gfp is inlined into shmem_file_read_iter; folio not read there: 'foliop' at the inline entry: an implicit pointer to the caller's variable (DW_OP_implicit_pointer), which has no address"
	for h in folio_size copy_bytes; do
		expect_eq "vm shinline run: $h not measured, with the reason" \
			"$(jq -r ".targets.shmem.histograms.$h | \"\(.measured) \(.why)\"" "$j" 2>&1)" \
			"false $why"
	done
	expect_match "vm shinline run: attach says there is no sub-probe and why" \
		"$(jq -r '.targets.shmem.attach.reason' "$j" 2>&1)" \
		"; no sub-probe: shmem_get_folio_gfp is inlined into shmem_file_read_iter; .* \\(1 inline site, DWARF /usr/lib/debug/boot/vmlinux-"
	expect_eq "vm shinline run: reads reconcile, no validation failure" \
		"$(jq -r '.workload | "\(.reconcile) \(.validation_failures)"' "$j" 2>&1)" "ok 0"
	rm -rf "$si"
fi
