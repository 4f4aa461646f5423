# Kernel facts and concurrent instances in the guest, sourced by
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
if (cd "$kout" && "$FS" vm "${vmargs[@]}" --timeout 400 --with "$GUEST_LIB" \
	--exec "$kdir/kfacts-two-guest.sh" -- "$GUEST_LIB" -j all.json -j one.json -o pids.txt) >"$LOGDIR/vm-kfacts-two.log" 2>&1; then
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

# ---- kernel BTF hidden (tmpfs over /sys/kernel/btf), then --btf a copy ----
if (cd "$kout" && "$FS" vm "${vmargs[@]}" --timeout 400 --exec "$kdir/kfacts-btf-guest.sh" \
	-- -o dnone.txt -o rnone.txt -o dbtf.txt -j rbtf.json) >"$LOGDIR/vm-kfacts-btf.log" 2>&1; then
	expect_match "vm no BTF: doctor says so and names --btf" "$(cat "$kout/dnone.txt")" \
		'^BTF: +no \(no /sys/kernel/btf/vmlinux; give --btf FILE\)'
	expect_match "vm no BTF: doctor picks nothing for shmem" "$(sed -n '/^shmem/,$p' "$kout/dnone.txt")" \
		'would use: nothing'
	expect_eq "vm no BTF: run refuses, exit 1" "$(head -1 "$kout/rnone.txt")" "exit 1"
	expect_eq "vm no BTF: run refuses with one line naming --btf" \
		"$(tail -n +2 "$kout/rnone.txt" | grep -c .) $(tail -n +2 "$kout/rnone.txt" | grep -c 'give --btf FILE')" "1 1"
	expect_match "vm --btf copy: doctor plans from it" "$(cat "$kout/dbtf.txt")" \
		'^BTF: +/tmp/vmlinux.btf \(--btf\); the kernel.s own: no'
	expect_match "vm --btf copy: fentry refused (no kernel BTF for its target id)" \
		"$(sed -n '/^shmem/,$p' "$kout/dbtf.txt")" 'fentry +shmem_file_read_iter +fentry needs the kernel.s own BTF'
	expect_match "vm --btf copy: doctor would use kprobe" "$(sed -n '/^shmem/,$p' "$kout/dbtf.txt")" \
		'would use: kprobe on shmem_file_read_iter'
	# libbpf resolves kfuncs in the kernel's own BTF only: the objects'
	# build that names none, with probe reads (on 6.12 too, whose BTF
	# copy has bpf_rdonly_cast).
	expect_eq "vm --btf copy: both targets read kernel memory by probe reads, and say why" \
		"$(sed -n 's/^  kernel reads: //p' "$kout/dbtf.txt" | sort -u)" \
		"probe reads (no BTF of the kernel's own: libbpf resolves no kfunc)"
	expect_eq "vm --btf copy: run attaches kprobe on the function" \
		"$(jq -r '.targets.shmem.attach | "\(.mechanism) \(.symbol)"' "$kout/rbtf.json" 2>&1)" \
		"kprobe shmem_file_read_iter"
	expect_eq "vm --btf copy: run reconciles, 4 MiB, no failed check" \
		"$(jq -r '[.workload.reconcile, .targets.shmem.histograms.bytes.sum, .validation.failures] | join(" ")' "$kout/rbtf.json" 2>&1)" \
		"ok 4194304 0"
	expect_eq "vm --btf copy: calls = the workload's calls" \
		"$(jq -r '.targets.shmem.calls == .workload.calls' "$kout/rbtf.json" 2>&1)" true
else
	bad "vm BTF hidden" "see $LOGDIR/vm-kfacts-btf.log: $(tail -3 "$LOGDIR/vm-kfacts-btf.log")"
fi

# ---- kprobe blacklist: the real one, without debugfs, and one naming the target ----
if (cd "$kout" && "$FS" vm "${vmargs[@]}" --timeout 400 --exec "$kdir/kfacts-bl-guest.sh" \
	-- -o real.txt -o nodbg.txt -o listed.txt -o rlisted.txt -j rauto.json) \
	>"$LOGDIR/vm-kfacts-bl.log" 2>&1; then
	kn=$(sed -n 's/^kprobe blacklist: \([0-9]*\) functions.*/\1/p' "$kout/real.txt")
	expect_match "vm blacklist: read from debugfs" "$(cat "$kout/real.txt")" \
		'^kprobe blacklist: [1-9][0-9]* functions, from /sys/kernel/debug/kprobes/blacklist$'
	expect_match "vm blacklist: debugfs unmounted, read through a private mount" "$(cat "$kout/nodbg.txt")" \
		"^kprobe blacklist: $kn functions, from /sys/kernel/debug/kprobes/blacklist \\(debugfs mounted privately"
	expect_match "vm blacklist: listed target refused for kprobe" "$(sed -n '/^shmem/,$p' "$kout/listed.txt")" \
		"-- kprobe +shmem_file_read_iter +'shmem_file_read_iter' is in the kprobe blacklist"
	expect_match "vm blacklist: -m kprobe has nothing left" "$(sed -n '/^shmem/,$p' "$kout/listed.txt")" \
		'would use: nothing'
	expect_eq "vm blacklist: run -m kprobe exits 1 with one line" \
		"$(head -1 "$kout/rlisted.txt") $(tail -n +2 "$kout/rlisted.txt" | grep -c .)" "exit 1 1"
	expect_match "vm blacklist: the line says why" "$(tail -n +2 "$kout/rlisted.txt")" \
		"shmem: cannot attach with --mode kprobe: kprobe shmem_file_read_iter: 'shmem_file_read_iter' is in the kprobe blacklist"
	expect_eq "vm blacklist: auto still uses fentry and reconciles" \
		"$(jq -r '[.targets.shmem.attach.mechanism, .workload.reconcile, .targets.shmem.histograms.bytes.sum] | join(" ")' "$kout/rauto.json" 2>&1)" \
		"fentry ok 4194304"
else
	bad "vm blacklist" "see $LOGDIR/vm-kfacts-bl.log: $(tail -3 "$LOGDIR/vm-kfacts-bl.log")"
fi

# ---- --user on a kernel with unprivileged_bpf_disabled set ----
if (cd "$kout" && "$FS" vm "${vmargs[@]}" --timeout 300 --exec "$kdir/kfacts-user-guest.sh" \
	-- -j user.json -o ids.txt) >"$LOGDIR/vm-kfacts-user.log" 2>&1; then
	expect_eq "vm trace --user nobody: runs as nobody once attached (unprivileged_bpf_disabled $(sed -n 3p "$kout/ids.txt"))" \
		"$(sed -n '1,2p;4p' "$kout/ids.txt" | tr '\n' '|')" \
		"Uid: 65534 65534 65534 65534|Gid: 65534 65534 65534 65534|trace exit 0|"
	kf_range "vm trace --user nobody: the reader's bytes in the final report" \
		"$(jq -r .targets.shmem.histograms.bytes.sum "$kout/user.json" 2>/dev/null)" 1000000
else
	bad "vm trace --user" "see $LOGDIR/vm-kfacts-user.log: $(tail -3 "$LOGDIR/vm-kfacts-user.log")"
fi

rm -rf "$kout"
