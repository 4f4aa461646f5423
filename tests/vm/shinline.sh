# shmem's folio lookup inlined into the read loop (sourced by
# tests/check.sh), on two make-kernel builds, each run compared with the
# same read on the base build, whose sub-probe is on the shmem_get_folio
# symbol.
#
# tests/kernels/patches/shmem-lookup-inline.patch has shmem_get_folio_gfp
# inlined into shmem_file_read_iter, with shmem_get_folio still a symbol
# for its other callers, so a sub-probe on that symbol would count none of
# the read's lookups. With the vmlinux (vm --debuginfo) the sub-probe is
# kprobes at the lookup's inline site, arguments from the DWARF: the
# bytes copied per lookup (copy_bytes, from the entries) match the base
# build's. The folio itself is the read loop's variable, which GCC's
# location list leaves without a location where some exits land: there
# folio_size is not measured, and says why.
#
# tests/kernels/patches/shmem-lookup-inline-addressable.patch is the same
# inlining with the loop's folio kept in the frame (its address escapes):
# the lookup's foliop is the address frame base + offset, which the CFI
# locates at every exit, so the folio is read there and folio_size equals
# the base build's, as copy_bytes does.
# shellcheck shell=bash
si=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmshinl.XXXXXX")
si_script=$PWD/tests/vm/shinline-guest.sh
si_hist='.targets.shmem.histograms.copy_bytes | "\(.measured) \(.count) \(.sum) \([(.buckets // [])[] | select(.count > 0) | "\(.lo):\(.count)"] | join(","))"'
si_fhist='.targets.shmem.histograms.folio_size | "\(.measured) \(.count) \(.sum) \([(.buckets // [])[] | select(.count > 0) | "\(.lo):\(.count)"] | join(","))"'
si_site='.targets.shmem.sub_inline | "\(.function) \(.usable_sites_in_function) \([.sites[] | select(.caller == "shmem_file_read_iter") | .call_file | split("/") | .[-2:] | join("/")] | join(","))"'

# The same read on the base build, which both inline builds are compared
# with: jb is its report, "" when there is none.
jb=
si_base=$(tests/kernels/build.sh $KBUILD_OPT 2>"$LOGDIR/vm-shinline-base-build.log" | tail -1) || si_base=
if [ -z "$si_base" ] || [ ! -f "$si_base" ]; then
	skip "vm shinline base" "no base make kernel build: $(tail -1 "$LOGDIR/vm-shinline-base-build.log" 2>/dev/null)"
else
	if (cd "$si" && "$FS" vm --kernel "$si_base" --timeout 1200 -- \
		run shmem-read --huge always --size 8M --bs 64K -j base.json) >"$LOGDIR/vm-shinline-base.log" 2>&1; then
		ok "vm shinline base: run"
		jb=$si/base.json
	else
		bad "vm shinline base: run" "see $LOGDIR/vm-shinline-base.log: $(tail -3 "$LOGDIR/vm-shinline-base.log")"
	fi
	if [ -n "$jb" ]; then
		expect_eq "vm shinline base: folio_size measured by the sub-probe on the symbol" \
			"$(jq -r '.targets.shmem.histograms.folio_size | "\(.measured) \(.count > 0)"' "$jb" 2>&1)" "true true"
		expect_eq "vm shinline base: 2048 lookups of 4 KiB copies each for 8 MiB read" \
			"$(jq -r "$si_hist" "$jb" 2>&1)" "true 2048 8388608 4096:2048"
	fi
fi

# si_boot NAME PATCH DIR: builds (or finds) the kernel NAME with PATCH and
# runs tests/vm/shinline-guest.sh on it with its vmlinux, the reports in
# DIR; sets si_vmlinux, returns non-zero after saying why it skipped.
si_boot() {
	local name=$1 patch=$2 dir=$3 bz log=$LOGDIR/vm-$1.log

	bz=$(tests/kernels/build.sh $KBUILD_OPT -n "$name" "$patch" \
		2>"$LOGDIR/vm-$name-build.log" | tail -1) || bz=
	if [ -z "$bz" ] || [ ! -f "$bz" ]; then
		skip "vm $name" "no make kernel build: $(tail -1 "$LOGDIR/vm-$name-build.log" 2>/dev/null)"
		return 1
	fi
	si_vmlinux=$(dirname "$bz")/linux/vmlinux
	if [ ! -f "$si_vmlinux" ]; then
		skip "vm $name" "$bz has no linux/vmlinux beside it"
		return 1
	fi
	expect_eq "vm $name: the lookup has no symbol of its own, the exported wrapper has" \
		"$(nm "$si_vmlinux" | awk '$3 ~ /^shmem_get_folio/ { print $3 }' | sort | tr '\n' ' ')" \
		"shmem_get_folio "
	mkdir -p "$dir"
	if (cd "$dir" && "$FS" vm --kernel "$bz" --debuginfo --timeout 1200 \
		--exec "$si_script" -- -j doctor.json -j run.json) >"$log" 2>&1; then
		ok "vm $name: guest runs"
	else
		bad "vm $name: guest runs" "see $log: $(tail -3 "$log")"
	fi
	for n in doctor run; do
		expect_eq "vm $name $n: exit" "$(sed -n "s/^== $n exit //p" "$log" | tr -d '\r')" 0
	done
}

if si_boot "$(kname shinline)" "$(kpatch shmem-lookup-inline)" "$si/inline"; then
	d=$si/inline/doctor.json
	j=$si/inline/run.json
	expect_eq "vm shinline doctor: the inlined lookup and its site in the read loop" \
		"$(jq -r "$si_site" "$d" 2>&1)" "shmem_get_folio_gfp 1 mm/shmem.c"
	expect_match "vm shinline doctor: the folio is not read at the exits, and why" \
		"$(jq -r '.targets.shmem.sub_inline | "\(.result_at_exits) \(.result_why)"' "$d" 2>&1)" \
		"^false 'foliop', a pointer to the caller's variable, at the exit shmem_file_read_iter\\+0x[0-9a-f]+: "
	expect_match "vm shinline run: folio_size not measured, with the exit that has no folio" \
		"$(jq -r '.targets.shmem.histograms.folio_size | "\(.measured) \(.why)"' "$j" 2>&1)" \
		"^false sub-probe at inline sites: 'foliop', a pointer to the caller's variable, at the exit shmem_file_read_iter\\+0x[0-9a-f]+: optimised out where the exit lands \\(no location list entry covers it\\)$"
	expect_match "vm shinline run: attach names the lookup's inline site and the DWARF" \
		"$(jq -r '.targets.shmem.attach.reason' "$j" 2>&1)" \
		"; folio lookups: shmem_get_folio_gfp at 1 inline site in shmem_file_read_iter \\(DWARF /usr/lib/debug/boot/vmlinux-[^ ]* \\(distribution path\\)\\), entries only: the folio is not found at the exits;"
	expect_eq "vm shinline run: reads reconcile, no validation failure" \
		"$(jq -r '.workload | "\(.reconcile) \(.validation_failures)"' "$j" 2>&1)" "ok 0"
	if [ -n "$jb" ]; then
		expect_eq "vm shinline: copy_bytes at the inline site equal the base build's" \
			"$(jq -r "$si_hist" "$j" 2>&1)" "$(jq -r "$si_hist" "$jb" 2>&1)"
	fi
fi

if si_boot "$(kname shinline-addressable)" "$(kpatch shmem-lookup-inline-addressable)" "$si/addr"; then
	d=$si/addr/doctor.json
	j=$si/addr/run.json
	sa='.targets.shmem.sub_inline.sites[] | select(.caller == "shmem_file_read_iter")'
	expect_eq "vm shinline-addressable doctor: the inlined lookup and its site in the read loop" \
		"$(jq -r "$si_site" "$d" 2>&1)" "shmem_get_folio_gfp 1 mm/shmem.c"
	# foliop is the folio's address in the frame (DW_OP_fbreg,
	# DW_OP_stack_value), the site stores through it, and every exit
	# finds the folio in memory at that frame offset.
	expect_match "vm shinline-addressable doctor: foliop is the address of the loop's folio in the frame, stored through" \
		"$(jq -r "$sa"' | .params[] | select(.name == "foliop") | "\(.location) \(.stored_through)"' "$d" 2>&1)" \
		"^value frame base-[0-9]+ \\(rsp\\+[0-9]+\\) true$"
	expect_eq "vm shinline-addressable doctor: every exit has the folio in memory at that frame offset" \
		"$(jq -r "$sa"' | ([.params[] | select(.name == "foliop") | .location | sub("^value "; "memory at ")] | .[0]) as $f | [.exits[] | .result == $f] | "\(length > 0) \(all)"' "$d" 2>&1)" \
		"true true"
	expect_eq "vm shinline-addressable doctor: the folio is read at the exits" \
		"$(jq -r '.targets.shmem.sub_inline | "\(.result_at_exits) \(.result_why)"' "$d" 2>&1)" "true null"
	expect_match "vm shinline-addressable run: attach reads the folio at the lookup's exits" \
		"$(jq -r '.targets.shmem.attach.reason' "$j" 2>&1)" \
		"; folio lookups: shmem_get_folio_gfp at 1 inline site in shmem_file_read_iter \\(DWARF /usr/lib/debug/boot/vmlinux-[^ ]* \\(distribution path\\)\\), the folio read at the exits;"
	expect_eq "vm shinline-addressable run: reads reconcile, no validation failure" \
		"$(jq -r '.workload | "\(.reconcile) \(.validation_failures)"' "$j" 2>&1)" "ok 0"
	expect_match "vm shinline-addressable run: folio_size measured" \
		"$(jq -r "$si_fhist" "$j" 2>&1)" "^true [1-9]"
	if [ -n "$jb" ]; then
		expect_eq "vm shinline-addressable: folio_size at the inline exits equals the base build's" \
			"$(jq -r "$si_fhist" "$j" 2>&1)" "$(jq -r "$si_fhist" "$jb" 2>&1)"
		expect_eq "vm shinline-addressable: copy_bytes at the inline site equal the base build's" \
			"$(jq -r "$si_hist" "$j" 2>&1)" "$(jq -r "$si_hist" "$jb" 2>&1)"
	fi
fi
# The reports stay beside the logs, for what the checks compared.
for f in base.json inline/doctor.json inline/run.json addr/doctor.json addr/run.json; do
	if [ -f "$si/$f" ]; then cp "$si/$f" "$LOGDIR/vm-shinline-${f//\//-}"; fi
done
rm -rf "$si"
