# The compare's inline site on a make-kernel build (sourced by
# tests/check.sh; tests/vm/dwarf.sh does the same on Debian's kernels):
# vm --kernel BZIMAGE --debuginfo hands in the
# vmlinux built with it (build.sh's linux/vmlinux beside the bzImage), at
# the same distribution path. One boot measures the matrix at the inline
# site, then again at the caller with that vmlinux moved away
# (tests/vm/dwarf-built-guest.sh). Both runs check against the workload's
# ground truth; the inline one's calls are the compares, the caller's the
# prep calls (errors included). The build is of FS_KERNEL_SERIES (6.1
# unless set: make check-vm-full runs this on 6.12 too), which decides
# the compare's call line and the caller's plan without the DWARF: 6.1's
# trampoline refuses the caller's seven arguments, 6.12's takes them.
# shellcheck shell=bash
case ${FS_KERNEL_SERIES:-6.1} in
6.12) vb_line=341 vb_caller=fentry vb_loop=true ;;
*) vb_line=335 vb_caller=kprobe vb_loop=false ;;
esac
vb_bz=${FS_VM_KERNEL:-}
if [ -z "$vb_bz" ]; then
	vb_bz=$(tests/kernels/build.sh $KBUILD_OPT 2>"$LOGDIR/vm-dwarf-build.log" | tail -1) || vb_bz=
fi
if [ -z "$vb_bz" ] || [ ! -f "$vb_bz" ]; then
	skip "vm dwarf built" "no make kernel build: $(tail -1 "$LOGDIR/vm-dwarf-build.log" 2>/dev/null)"
elif [ ! -f "$(dirname "$vb_bz")/linux/vmlinux" ]; then
	skip "vm dwarf built" "$vb_bz has no linux/vmlinux beside it"
else
	vb=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmdwarfb.XXXXXX")
	vb_log=$LOGDIR/vm-dwarf-built.log
	vb_vmlinux=$(dirname "$vb_bz")/linux/vmlinux
	vb_script=$PWD/tests/vm/dwarf-built-guest.sh
	if (cd "$vb" && "$FS" vm --kernel "$vb_bz" --debuginfo --timeout 1200 \
		--exec "$vb_script" -- \
		-j doctor.json -j inline.json -j caller.json) >"$vb_log" 2>&1; then
		ok "vm dwarf built: guest runs"
	else
		bad "vm dwarf built: guest runs" "see $vb_log: $(tail -3 "$vb_log")"
	fi
	for n in doctor inline caller; do
		expect_eq "vm dwarf built $n: exit" "$(sed -n "s/^== $n exit //p" "$vb_log" | tr -d '\r')" 0
	done
	inl='.targets.dedupe.inline'
	expect_eq "vm dwarf built: DWARF is the build's vmlinux, at the distribution path" \
		"$(jq -r "$inl | \"\(.source) \(.build_id == .kernel_build_id) \(.build_id)\"" "$vb/doctor.json" 2>&1)" \
		"distribution path true $(readelf -n "$vb_vmlinux" | awk '/Build ID:/ { print $3; exit }')"
	expect_eq "vm dwarf built: the compare's one inline site" \
		"$(jq -r "[$inl.sites[] | \"\(.caller) \(.call_file):\(.call_line)\"] | join(\",\")" "$vb/doctor.json" 2>&1)" \
		"__generic_remap_file_range_prep fs/remap_range.c:$vb_line"
	# 6.12's compare starts with its loop's head (the build has no
	# DW_AT_entry_pc; the first range with a parameter's location is
	# where each chunk comes back to): one call per arrival before an
	# exit, or each chunk would be a call of its own.
	expect_eq "vm dwarf built: the site's entry is a loop's head ($vb_loop)" \
		"$(jq -r "$inl.sites[0].entry_loop != null" "$vb/doctor.json" 2>&1)" "$vb_loop"
	dd='.targets.dedupe'
	j=$vb/inline.json
	expect_eq "vm dwarf built inline: mechanism, site count" \
		"$(jq -r "$dd.attach | \"\(.mechanism) \(.symbol) \(.inline_sites)\"" "$j" 2>&1)" \
		"kprobe-inline $(jq -r "$inl.sites[0].entry" "$vb/doctor.json" 2>&1) 1"
	expect_inline_compare "vm dwarf built inline" "$j"
	expect_eq "vm dwarf built inline: every call timed, at the site and at its caller" \
		"$(jq -r "[$dd.histograms.latency_ns.count, $dd.histograms.caller_latency_ns.count] == [$dd.counters.calls, $dd.counters.calls]" "$j" 2>&1)" true
	echo "vm dwarf built: kernel $(jq -r .host.kernel "$j") inline plan: calls $(jq -r "$dd.counters.calls" "$j"), p50 bucket from $(jq -r "$JQ_P50 $dd.histograms.latency_ns | p50" "$j") ns, total $(jq -r "$dd.histograms.latency_ns.sum" "$j") ns; its caller in the same run: p50 bucket from $(jq -r "$JQ_P50 $dd.histograms.caller_latency_ns | p50" "$j") ns, total $(jq -r "$dd.histograms.caller_latency_ns.sum" "$j") ns" >>"$vb_log"
	c=$vb/caller.json
	expect_eq "vm dwarf built caller: without the vmlinux the plan is the caller's $vb_caller" \
		"$(jq -r "$dd.attach | \"\(.mechanism) \(.symbol)\"" "$c" 2>&1)" \
		"$vb_caller __generic_remap_file_range_prep"
	expect_eq "vm dwarf built caller: its caller_latency_ns is not measured, with the reason" \
		"$(jq -r "$dd.histograms.caller_latency_ns | \"\(.measured) \(.why)\"" "$c" 2>&1)" \
		"false measured at inline sites only (the kprobe-inline step)"
	echo "vm dwarf built: kernel $(jq -r .host.kernel "$c") caller plan (a second run): calls $(jq -r "$dd.counters.calls" "$c"), p50 bucket from $(jq -r "$JQ_P50 $dd.histograms.latency_ns | p50" "$c") ns, total $(jq -r "$dd.histograms.latency_ns.sum" "$c") ns" >>"$vb_log"
	expect_eq "vm dwarf built caller: reconciles, same SAME/DIFFERS and bytes as at the inline site" \
		"$(jq -r "\"\(.workload.reconcile) \(.workload.validation_failures) \($dd.counters.same) \($dd.counters.differs) \($dd.histograms.bytes.sum)\"" "$c" 2>&1)" \
		"ok 0 $(jq -r "\"\($dd.counters.same) \($dd.counters.differs) \($dd.histograms.bytes.sum)\"" "$j" 2>&1)"
	rm -rf "$vb"
fi
