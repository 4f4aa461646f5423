# Inline sites in the guest (sourced by tests/check.sh): vm --debuginfo
# puts the Debian kernel's -dbg vmlinux at the guest's distribution path,
# and doctor there finds it, matches its build ID with the running
# kernel's and lists the compare's inline site; run dedupe --matrix then
# measures the compare at that site. The first run fetches the
# -dbg package of the kernel the suites boot into the cache (~300 MB,
# once; a few seconds from Debian's mirror here, then about a minute to
# unpack), as the kernel itself is fetched; later runs reuse it. Which
# file is checked comes from the cache after the run.
# shellcheck shell=bash
vd=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmdwarf.XXXXXX")
vd_cache=${FOLIOSCOPE_CACHE:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/folioscope}}
vd_cache=${vd_cache:-$HOME/.cache/folioscope}
# The compare's call line: KERNEL-NOTES.md for 6.1, readelf for 6.12.
case "${FS_VM_DEBIAN:-6.1}" in
6.12) vd_series=6.12. vd_line=341 ;;
*) vd_series=6.1.0- vd_line=335 ;;
esac
# The newest complete cached kernel of the series: the one vm boots when
# apt has nothing newer.
vd_rel=$(find "$vd_cache/kernels" -maxdepth 2 -name .folioscope-complete \
	-path "*/linux-image-$vd_series*" 2>/dev/null | sed -E 's|.*/linux-image-([^/]*)/.*|\1|' |
	sort -V | tail -1)
vd_vmlinux=$vd_cache/debuginfo/linux-image-$vd_rel-dbg/usr/lib/debug/boot/vmlinux-$vd_rel
if [ -n "${FS_VM_KERNEL:-}" ]; then
	skip "vm dwarf: doctor with vm --debuginfo" "FS_VM_KERNEL is not a Debian kernel with a -dbg package"
elif [ -z "$vd_rel" ]; then
	bad "vm dwarf: doctor with vm --debuginfo" "no complete cached Debian ${FS_VM_DEBIAN:-6.1} kernel (the suites before this one fetch it)"
elif "$FS" vm "${vmargs[@]}" --debuginfo --timeout 900 -- doctor -J \
	>"$vd/d.json" 2>"$LOGDIR/vm-dwarf.log"; then
	expect_eq "vm dwarf: the -dbg vmlinux is in the cache" "$([ -s "$vd_vmlinux" ] && echo yes)" yes
	inl='.targets.dedupe.inline'
	expect_eq "vm dwarf: the guest runs the cached kernel" "$(jq -r .kernel "$vd/d.json")" "$vd_rel"
	expect_eq "vm dwarf: DWARF found at the distribution path" \
		"$(jq -r "$inl | \"\(.source) \(.dwarf)\"" "$vd/d.json")" \
		"distribution path /usr/lib/debug/boot/vmlinux-$vd_rel"
	expect_eq "vm dwarf: its build ID is the running kernel's" \
		"$(jq -r "$inl.build_id == $inl.kernel_build_id and ($inl.build_id | length) == 40" "$vd/d.json")" true
	expect_eq "vm dwarf: build ID of the cached file" "$(jq -r "$inl.build_id" "$vd/d.json")" \
		"$(readelf -n "$vd_vmlinux" | awk '/Build ID:/ { print $3; exit }')"
	expect_eq "vm dwarf: the compare's one inline site" \
		"$(jq -r "[$inl.sites[] | \"\(.caller) \(.call_file):\(.call_line)\"] | join(\",\")" "$vd/d.json")" \
		"__generic_remap_file_range_prep fs/remap_range.c:$vd_line"
	expect_eq "vm dwarf: its parameters" \
		"$(jq -r "[$inl.sites[0].params[].name] | join(\" \")" "$vd/d.json")" \
		"src srcoff dest dstoff len is_same"
	# The read loop inlines the exported shmem_get_folio, which still
	# calls the worker: the sub-probe stays on the worker's symbol, which
	# sees every lookup with its folio, not at the wrapper's inline site.
	expect_eq "vm dwarf: shmem's lookups are probed on the worker's symbol, not inline" \
		"$(jq -r '.targets.shmem.sub_inline' "$vd/d.json")" null
else
	bad "vm dwarf: doctor with vm --debuginfo" "see $LOGDIR/vm-dwarf.log: $(tail -3 "$LOGDIR/vm-dwarf.log")"
fi

# The validation matrix measured at the compare's inline site: kprobes at
# its entry and exit targets, arguments fetched where the DWARF puts them
# (expect_inline_compare), and every call timed.
if [ -z "${FS_VM_KERNEL:-}" ] && [ -n "$vd_rel" ]; then
	if (cd "$vd" && "$FS" vm "${vmargs[@]}" --debuginfo --timeout 900 -- \
		run dedupe --matrix -j inline.json) >"$LOGDIR/vm-dwarf-inline.log" 2>&1; then
		ok "vm dwarf: run dedupe --matrix at the inline site"
	else
		bad "vm dwarf: run dedupe --matrix at the inline site" "see $LOGDIR/vm-dwarf-inline.log: $(tail -3 "$LOGDIR/vm-dwarf-inline.log")"
	fi
	j=$vd/inline.json
	dd='.targets.dedupe'
	expect_eq "vm dwarf inline: mechanism and the site's entry" \
		"$(jq -r "$dd.attach | \"\(.mechanism) \(.symbol)\"" "$j" 2>&1)" \
		"kprobe-inline $(jq -r '.targets.dedupe.inline.sites[0].entry' "$vd/d.json" 2>&1)"
	expect_eq "vm dwarf inline: the report names the site count and the DWARF" \
		"$(jq -r "$dd.attach.reason | split(\": kprobes at\")[0]" "$j" 2>&1)" \
		"kprobe-inline on vfs_dedupe_file_range_compare's inline sites: 1 inline site from DWARF (/usr/lib/debug/boot/vmlinux-$vd_rel (distribution path))"
	expect_eq "vm dwarf inline: attach names the site count and the DWARF" \
		"$(jq -r "$dd.attach | \"\(.inline_sites) \(.dwarf)\"" "$j" 2>&1)" \
		"1 /usr/lib/debug/boot/vmlinux-$vd_rel (distribution path)"
	expect_match "vm dwarf inline: the verdict's source" "$(jq -r "$dd.attach.reason" "$j" 2>&1)" \
		"SAME/DIFFERS and errors from the caller's return \\('is_same' at the inline entry: "
	expect_inline_compare "vm dwarf inline" "$j"
	expect_eq "vm dwarf inline: every call timed, all histograms measured" \
		"$(jq -r "[($dd.histograms.latency_ns.count == $dd.counters.calls), ($dd.histograms.caller_latency_ns.count == $dd.counters.calls), ([$dd.histograms[] | select(.measured == false)] | length)] | map(tostring) | join(\" \")" "$j" 2>&1)" \
		"true true 0"
fi
rm -rf "$vd"
