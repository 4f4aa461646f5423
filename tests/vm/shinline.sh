# shmem's folio lookup inlined into the read loop (sourced by
# tests/check.sh): the make-kernel build with
# tests/kernels/patches/shmem-lookup-inline.patch has shmem_get_folio_gfp
# inlined into shmem_file_read_iter, with shmem_get_folio still a symbol
# for its other callers, so a sub-probe on that symbol would count none of
# the read's lookups. With the vmlinux (vm --debuginfo) the sub-probe is
# kprobes at the lookup's inline site, arguments from the DWARF: the
# bytes copied per lookup (copy_bytes, from the entries) match the same
# read on the base build, whose sub-probe is on the shmem_get_folio
# symbol. The folio itself is the read loop's variable, which GCC's
# location list leaves without a location where some exits land: there
# folio_size is not measured, and says why (on the base build it is).
# shellcheck shell=bash
si_bz=$(tests/kernels/build.sh $KBUILD_OPT -n shmem-lookup-inline \
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
	expect_match "vm shinline doctor: the folio is not read at the exits, and why" \
		"$(jq -r '.targets.shmem.sub_inline | "\(.result_at_exits) \(.result_why)"' "$d" 2>&1)" \
		"^false 'foliop', a pointer to the caller's variable, at the exit shmem_file_read_iter\\+0x[0-9a-f]+: "
	j=$si/run.json
	expect_match "vm shinline run: folio_size not measured, with the exit that has no folio" \
		"$(jq -r '.targets.shmem.histograms.folio_size | "\(.measured) \(.why)"' "$j" 2>&1)" \
		"^false sub-probe at inline sites: 'foliop', a pointer to the caller's variable, at the exit shmem_file_read_iter\\+0x[0-9a-f]+: optimised out where the exit lands \\(no location list entry covers it\\)$"
	expect_match "vm shinline run: attach names the lookup's inline site and the DWARF" \
		"$(jq -r '.targets.shmem.attach.reason' "$j" 2>&1)" \
		"; folio lookups: shmem_get_folio_gfp at 1 inline site in shmem_file_read_iter \\(DWARF /usr/lib/debug/boot/vmlinux-[^ ]* \\(distribution path\\)\\), entries only: the folio is not found at the exits;"
	expect_eq "vm shinline run: reads reconcile, no validation failure" \
		"$(jq -r '.workload | "\(.reconcile) \(.validation_failures)"' "$j" 2>&1)" "ok 0"
	# The same read on the base build: its sub-probe on the symbol.
	si_base=$(tests/kernels/build.sh $KBUILD_OPT 2>"$LOGDIR/vm-shinline-base-build.log" | tail -1) || si_base=
	if [ -z "$si_base" ] || [ ! -f "$si_base" ]; then
		skip "vm shinline base" "no base make kernel build: $(tail -1 "$LOGDIR/vm-shinline-base-build.log" 2>/dev/null)"
	else
		if (cd "$si" && "$FS" vm --kernel "$si_base" --timeout 1200 -- \
			run shmem-read --huge always --size 8M --bs 64K -j base.json) >"$LOGDIR/vm-shinline-base.log" 2>&1; then
			ok "vm shinline base: run"
		else
			bad "vm shinline base: run" "see $LOGDIR/vm-shinline-base.log: $(tail -3 "$LOGDIR/vm-shinline-base.log")"
		fi
		jb=$si/base.json
		si_hist='.targets.shmem.histograms.copy_bytes | "\(.measured) \(.count) \(.sum) \([.buckets[] | select(.count > 0) | "\(.lo):\(.count)"] | join(","))"'
		expect_eq "vm shinline base: folio_size measured by the sub-probe on the symbol" \
			"$(jq -r '.targets.shmem.histograms.folio_size | "\(.measured) \(.count > 0)"' "$jb" 2>&1)" "true true"
		expect_eq "vm shinline base: 2048 lookups of 4 KiB copies each for 8 MiB read" \
			"$(jq -r "$si_hist" "$jb" 2>&1)" "true 2048 8388608 4096:2048"
		expect_eq "vm shinline: copy_bytes at the inline site equal the base build's" \
			"$(jq -r "$si_hist" "$j" 2>&1)" "$(jq -r "$si_hist" "$jb" 2>&1)"
	fi
	rm -rf "$si"
fi
