# VM checks (sourced by tests/check.sh): the real attach paths, on the
# Debian 12 cloud kernel `folioscope vm --debian $FS_VM_DEBIAN` boots (6.1
# when unset) or on $FS_VM_KERNEL. The attach plan and one reconciled run
# per target and mechanism run on every kernel; FS_VM_ATTACH_ONLY=1 skips
# the rest (--accel, trace, progress), which does not depend on the kernel.
# shellcheck shell=bash
out=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmtest.XXXXXX")

# What each kernel's plan does (doctor in the VM, KERNEL-NOTES.md): how the
# trampoline treats fentry on the 7-argument __generic_remap_file_range_prep
# (6.1's takes at most 6 arguments: 524; 6.12's takes it), so where auto
# and -m fentry put the dedupe probe; whether xfs puts large folios in the
# page cache. $FS_VM_KERNEL is checked as 6.1.
vmk=${FS_VM_DEBIAN:-6.1}
declare -A vm_prep7_fentry=([6.1]='524|ENOTSUPP' [6.12]='^attached$')
declare -A vm_dd_auto=([6.1]='kprobe __generic_remap_file_range_prep'
	[6.12]='fentry __generic_remap_file_range_prep')
declare -A vm_dd_fentry=([6.1]='fentry generic_remap_file_range_prep'
	[6.12]='fentry __generic_remap_file_range_prep')
declare -A vm_xfs_large=([6.1]=false [6.12]=true)
# Where splice, sendfile and copy_file_range read tmpfs: 6.1 through
# shmem_file_read_iter, 6.12 through shmem_file_splice_read, which the
# function-level plans attach to as well.
declare -A vm_sh_covers=(
	[6.1]='; splice, sendfile and copy_file_range as well \(no shmem_file_splice_read: '
	[6.12]='; splice, sendfile and copy_file_range \(shmem_file_splice_read\)$')

# vm_run LOG ARGS...: run folioscope ARGS in the guest from $out.
vm_run() {
	local log=$1
	shift
	(cd "$out" && "$FS" vm "${vmargs[@]}" -- "$@") >"$LOGDIR/$log" 2>&1
}

vm_run vm-doctor.log doctor --json || true
doc=$(sed -n '/^{/,/^}/p' "$LOGDIR/vm-doctor.log")
if [ -z "$doc" ] || ! jq -e . >/dev/null 2>&1 <<<"$doc"; then
	bad "vm: boot + doctor" "no doctor JSON; see $LOGDIR/vm-doctor.log: $(tail -5 "$LOGDIR/vm-doctor.log")"
else
	ok "vm: boot + doctor"
	krel=$(jq -r .kernel <<<"$doc")
	echo "  guest kernel: $krel"
	expect_eq "vm doctor: compare inlined" "$(jq -r .targets.dedupe.inlined <<<"$doc")" true
	expect_eq "vm doctor: shmem uses fentry" "$(jq -r .targets.shmem.mechanism <<<"$doc")" fentry
	if jq -e '.targets.dedupe.steps[] | select(.symbol=="__generic_remap_file_range_prep" and .mechanism=="fentry")' >/dev/null <<<"$doc"; then
		expect_match "vm doctor: fentry on the 7-arg caller: ${vm_prep7_fentry[$vmk]}" \
			"$(jq -r '.targets.dedupe.steps[] | select(.symbol=="__generic_remap_file_range_prep" and .mechanism=="fentry") | .reason' <<<"$doc")" \
			"${vm_prep7_fentry[$vmk]}"
		expect_eq "vm doctor: dedupe auto = ${vm_dd_auto[$vmk]}" \
			"$(jq -r '.targets.dedupe.mechanism + " " + .targets.dedupe.chosen' <<<"$doc")" \
			"${vm_dd_auto[$vmk]}"
	fi
	expect_match "vm doctor: what the shmem histograms cover on $vmk" \
		"$(jq -r .targets.shmem.covers <<<"$doc")" "${vm_sh_covers[$vmk]}"
	# Every in-flight call is kept in the per-CPU slots on these kernels.
	expect_eq "vm doctor: in-flight calls in per-CPU slots" \
		"$(jq -r '[.targets[].inflight] | unique | join(",")' <<<"$doc")" "per-CPU slots"
fi

# check_run NAME JSON TARGET: the probes saw exactly what the workload did
# on TARGET (dedupe or shmem).
check_run() {
	local name=$1 j=$2 tgt=$3
	if ! jq -e . "$j" >/dev/null 2>&1; then
		bad "$name" "no JSON written"; return 1
	fi
	expect_eq "$name: calls seen = calls made" \
		"$(jq -r ".targets.$tgt.calls" "$j")" "$(jq -r .workload.calls "$j")"
	expect_eq "$name: bytes summed = bytes moved" \
		"$(jq -r ".targets.$tgt.histograms.bytes.sum" "$j")" "$(jq -r .workload.bytes "$j")"
	expect_eq "$name: validation failures" "$(jq -r .workload.validation_failures "$j")" 0
	expect_eq "$name: reconcile" "$(jq -r .workload.reconcile "$j")" ok
}

# folio sizes seen, as a sorted list of bucket lo values with counts > 0
folio_sizes() {
	jq -r "[.targets.$2.histograms.folio_size.buckets[] | select(.count>0) | .lo] | map(tostring) | join(\",\")" "$1"
}

for mode in auto fentry kprobe; do
	j=shmem-always-$mode.json
	vm_run "vm-shmem-always-$mode.log" run shmem-read --huge always --size 8M --bs 64K -m "$mode" -j "$j"
	if check_run "vm shmem huge=always -m $mode" "$out/$j" shmem; then
		expect_eq "vm shmem huge=always -m $mode: mechanism" \
			"$(jq -r .targets.shmem.attach.mechanism "$out/$j")" \
			"$([ $mode == kprobe ] && echo kprobe || echo fentry)"
		expect_eq "vm shmem huge=always -m $mode: folio sizes" "$(folio_sizes "$out/$j" shmem)" 2097152
		# 6.1 copies a page at a time (the second seed changes that).
		expect_eq "vm shmem huge=always -m $mode: copy chunks are pages" \
			"$(jq -r '[.targets.shmem.histograms.copy_bytes.buckets[] | select(.count>0) | .lo] | max' "$out/$j")" 4096
		# One chunk per page of the 8 MiB, each counted once.
		expect_eq "vm shmem huge=always -m $mode: copy chunks count and sum" \
			"$(jq -r '.targets.shmem.histograms.copy_bytes | "\(.count) \(.sum)"' "$out/$j")" "2048 8388608"
	fi
done

j=shmem-never.json
# -o to a device node (a /dev/null of our own): written in place, not
# replaced by a regular file.
mknod "$out/null" c 1 3
vm_run vm-shmem-never.log run shmem-read --huge never --size 8M --bs 64K -j "$j" -o null --format text
if check_run "vm shmem huge=never" "$out/$j" shmem; then
	expect_eq "vm shmem huge=never: folio sizes" "$(folio_sizes "$out/$j" shmem)" 4096
fi
expect_eq "vm: -o to a device node leaves the node" "$(stat -c %F "$out/null")" "character special file"

# What the read's entry takes from the iocb and the iterator, at fentry
# (BTF loads; the user address of a ubuf iterator through the embedded
# iovec from 6.4) and at kprobe (one probe read of each struct's head):
# 4 KiB reads at every page of a 1 MiB file and one at its end (257),
# into a buffer 5 bytes past a page, by pread (a ubuf iterator) and by
# readv of 3 iovecs (an iovec array). Buffer alignment 1 for every read,
# every request 4 KiB, and the positions' alignments as 0..1 MiB's pages
# have them (one at 0, half of the rest at 4 KiB, a quarter at 8 KiB...).
align_sig() {
	jq -c '.targets.shmem | [.calls,
		[.histograms.buf_align.buckets[] | select(.count > 0) | [.lo, .count]],
		[.histograms.req_bytes.buckets[] | select(.count > 0) | [.lo, .count]],
		[.histograms.pos_align.buckets[] | select(.count > 0) | [.lo, .count]]]' "$1" 2>&1
}
want_pos='[0,1]'
for ((a = 4096, n = 128; a <= 1048576; a *= 2, n = n > 1 ? n / 2 : 1)); do
	want_pos+=",[$a,$n]"
done
want_align="[257,[[1,257]],[[4096,257]],[$want_pos]]"
# The same reads with each way the programs read kernel memory
# (FOLIOSCOPE_READS): probe reads, and the bpf_rdonly_cast twins' guarded
# loads, which kernels from 6.2 take by default; on 6.1 the kernel
# refuses the twins, so the step loads again with probe reads, and doctor
# says why.
alargs=()
for mode in fentry kprobe; do
	for sc in pread "readv --iovecs 3"; do
		alargs+=(run shmem-read --huge never --size 1M --bs 4K --buf-align 5
			-m "$mode" --syscall $sc -j "align-$mode-${sc%% *}.json" :::)
	done
	for r in probe cast; do
		alargs+=("FOLIOSCOPE_READS=$r" run shmem-read --huge never --size 1M
			--bs 4K --buf-align 5 -m "$mode" --syscall pread -j "align-$mode-$r.json" :::)
	done
	alargs+=(doctor -m "$mode" ::: FOLIOSCOPE_READS=probe doctor -m "$mode" :::
		FOLIOSCOPE_READS=cast doctor -m "$mode" :::)
done
vm_jobs "$out" "$LOGDIR/vm-align.log" "$LOGDIR/vm-align.err" 600 "${alargs[@]}"
for mode in fentry kprobe; do
	for sc in pread readv probe cast; do
		what="by $sc"
		case $sc in probe | cast) what="by pread, FOLIOSCOPE_READS=$sc" ;; esac
		expect_eq "vm shmem-read -m $mode $what, buffer 5 bytes past a page: buffer and position alignments, request sizes" \
			"$(align_sig "$out/align-$mode-$sc.json")" "$want_align"
	done
done
# Jobs 0-6 per mode: the reads, then doctor as it is, with probe reads
# and with the twins. Whether the kernel has the kfunc: its version, from
# doctor.
kver=$(vm_job_out "$LOGDIR/vm-align.log" 4 | sed -n 's/^kernel: *\([0-9]*\.[0-9]*\).*/\1/p')
kmaj=${kver%%.*} kmin=${kver#*.}
if [ -n "$kver" ] && { [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 2 ]; }; }; then
	reads_want=("guarded loads (bpf_rdonly_cast)" "probe reads (FOLIOSCOPE_READS=probe)"
		"guarded loads (bpf_rdonly_cast)")
else
	reads_want=("probe reads (no kfunc bpf_rdonly_cast in the kernel's BTF)"
		"probe reads (FOLIOSCOPE_READS=probe)"
		"probe reads (the bpf_rdonly_cast twins failed to load: load failed: ")
fi
reads_env=("" ", FOLIOSCOPE_READS=probe" ", FOLIOSCOPE_READS=cast")
for i in 0 1; do
	mode=$([ $i == 0 ] && echo fentry || echo kprobe)
	for k in 0 1 2; do
		want=${reads_want[$k]}
		expect_eq "vm doctor -m $mode${reads_env[$k]} on ${kver:-?}: how both targets read kernel memory" \
			"$(vm_job_out "$LOGDIR/vm-align.log" $((i * 7 + 4 + k)) | sed -n 's/^  kernel reads: //p' |
				cut -c1-${#want} | sort -u)" "$want"
	done
done

for mode in auto fentry kprobe; do
	j=dedupe-btrfs-$mode.json
	vm_run "vm-dedupe-btrfs-$mode.log" run dedupe --fs btrfs --count 32 --range 128K -m "$mode" -j "$j"
	if check_run "vm dedupe btrfs -m $mode" "$out/$j" dedupe; then
		expect_eq "vm dedupe btrfs -m $mode: inlined compare reported" \
			"$(jq -r .targets.dedupe.attach.inlined "$out/$j")" true
		declare -A vm_want=([auto]=${vm_dd_auto[$vmk]} [fentry]=${vm_dd_fentry[$vmk]}
			[kprobe]='kprobe __generic_remap_file_range_prep')
		expect_eq "vm dedupe btrfs -m $mode: caller named" \
			"$(jq -r '.targets.dedupe.attach.mechanism + " " + .targets.dedupe.attach.symbol' "$out/$j")" \
			"${vm_want[$mode]}"
		expect_eq "vm dedupe btrfs -m $mode: same" "$(jq -r .targets.dedupe.counters.same "$out/$j")" 32
		expect_eq "vm dedupe btrfs -m $mode: folios read (2 per 4K chunk)" \
			"$(jq -r .targets.dedupe.histograms.folio_size.count "$out/$j")" $((32 * 2 * 32))
	fi
done

# The syscall-level plan, forced, on a kernel where it is not needed: it
# must count the same calls and bytes as the function-level ones.
for wl in "shmem-read --size 4M --bs 64K" "dedupe --count 8 --range 64K"; do
	name=${wl%% *}
	tgt=$([ "$name" == dedupe ] && echo dedupe || echo shmem)
	j=$name-syscall.json
	# shellcheck disable=SC2086
	vm_run "vm-$name-syscall.log" run $wl -m syscall -j "$j"
	if check_run "vm $name -m syscall" "$out/$j" "$tgt"; then
		expect_eq "vm $name -m syscall: mechanism" \
			"$(jq -r ".targets.$tgt.attach.mechanism" "$out/$j")" syscall
		# Debian's kernels have per-syscall tracepoints.
		expect_eq "vm $name -m syscall: on the per-syscall tracepoints" \
			"$(jq -r ".targets.$tgt.attach.symbol" "$out/$j")" syscalls
	fi
done

# --lean: where the exit alone sees the call (fentry's fexit) it is all
# that is attached, and it counts what the entry would have: the same
# calls, bytes, request sizes and positions as without --lean, for a
# sendfile (a splice read) and 64 KiB read()s of a tmpfs file, and the
# same calls, verdicts, bytes and offsets for 12 dedupes on btrfs, 4 of
# them differing, at the prep and at vfs_dedupe_file_range_one; only the
# latency is left out. With kprobes the entry stays, and so does latency.
lscript=$PWD/tests/vm/lean-guest.sh
# lean_sig JSON: what --lean must count as the full trace does.
lean_sig() {
	jq -r '.targets.shmem | [.calls, .counters.errors, .histograms.bytes.sum,
		(.histograms.req_bytes.buckets | tostring),
		(.histograms.pos_align.buckets | tostring)] | @tsv' "$1" 2>&1
}
if (cd "$out" && "$FS" vm "${vmargs[@]}" --timeout 600 --exec "$lscript" -- \
	-j lean-fentry.json -j full-fentry.json -j lean-kprobe.json -j full-kprobe.json \
	-j dd-lean-fentry.json -j dd-full-fentry.json -j dd1-lean-fentry.json) \
	>"$LOGDIR/vm-lean.log" 2>&1; then
	ok "vm trace --lean: guest runs"
else
	bad "vm trace --lean: guest runs" "see $LOGDIR/vm-lean.log: $(tail -3 "$LOGDIR/vm-lean.log")"
fi
for m in fentry kprobe; do
	sum=$(jq -r .targets.shmem.histograms.bytes.sum "$out/full-$m.json" 2>/dev/null)
	expect_eq "vm trace -m $m: the file sent and read, plus < 4 KiB of exec's reads" \
		"$([ -n "$sum" ] && [ "$sum" -ge 2000000 ] && [ "$sum" -lt 2004096 ] && echo yes || echo "no (${sum:-no JSON})")" yes
	expect_eq "vm trace --lean -m $m: calls, errors, bytes, request sizes and positions as without --lean" \
		"$(lean_sig "$out/lean-$m.json")" "$(lean_sig "$out/full-$m.json")"
done
expect_eq "vm trace --lean -m fentry: the exits alone, no call kept in flight" \
	"$(jq -r '.targets.shmem.attach.reason | test("in-flight calls: none \\(--lean: each call counted at its exit\\)")' "$out/lean-fentry.json" 2>&1)" true
expect_eq "vm trace --lean -m fentry: latency left out, and why" \
	"$(jq -r '.targets.shmem.histograms.latency_ns | "\(.measured) \(.why)"' "$out/lean-fentry.json" 2>&1)" \
	"false left out by --lean: each call is counted at its exit alone, with no clock"
expect_eq "vm trace --lean -m kprobe: latency kept (a kretprobe sees no arguments)" \
	"$(jq -r '.targets.shmem.histograms.latency_ns | "\(.measured) \(.count)"' "$out/lean-kprobe.json" 2>&1)" \
	"true $(jq -r .targets.shmem.calls "$out/lean-kprobe.json" 2>&1)"
# dd_sig JSON: what --lean must count of the dedupes as the full trace.
dd_sig() {
	jq -r '.targets.dedupe | [.calls, .counters.same, .counters.differs,
		.counters.errors, .histograms.bytes.sum,
		(.histograms.src_align.buckets | tostring),
		(.histograms.dst_align.buckets | tostring)] | @tsv' "$1" 2>&1
}
expect_eq "vm trace -t dedupe -m fentry: 12 dedupes of 64 KiB, 4 differing" \
	"$(jq -r '.targets.dedupe | "\(.calls) \(.counters.same) \(.counters.differs) \(.histograms.bytes.sum)"' \
		"$out/dd-full-fentry.json" 2>&1)" "12 8 4 $((12 * 65536))"
expect_eq "vm trace -t dedupe --lean -m fentry: calls, verdicts, bytes and offsets as without --lean" \
	"$(dd_sig "$out/dd-lean-fentry.json")" "$(dd_sig "$out/dd-full-fentry.json")"
expect_eq "vm trace -t dedupe --lean -m fentry: the exit alone, at the prep" \
	"$(jq -r '.targets.dedupe.attach | (.symbol | test("generic_remap_file_range_prep$")),
		(.reason | test("in-flight calls: none \\(--lean: each call counted at its exit\\)"))' \
		"$out/dd-lean-fentry.json" 2>&1 | tr '\n' ' ')" "true true "
# vfs_dedupe_file_range_one returns the length its filesystem deduped,
# the prep's clamped length: the same figures at either.
expect_eq "vm trace -t dedupe --lean -m fentry, the preps excluded: at vfs_dedupe_file_range_one's exit alone, counted as at the prep" \
	"$(jq -r '.targets.dedupe.attach | "\(.mechanism) \(.symbol) \(.reason | test("in-flight calls: none"))"' \
		"$out/dd1-lean-fentry.json" 2>&1) $(dd_sig "$out/dd1-lean-fentry.json")" \
	"fentry vfs_dedupe_file_range_one true $(dd_sig "$out/dd-full-fentry.json")"
expect_eq "vm trace -t dedupe --lean -m fentry: latency left out, and why" \
	"$(jq -r '.targets.dedupe.histograms.latency_ns | "\(.measured) \(.why)"' "$out/dd-lean-fentry.json" 2>&1)" \
	"false left out by --lean: each call is counted at its exit alone, with no clock"

# xfs with 1 KiB blocks: 6.12's xfs caches written data in large folios,
# which the compare reads a page at a time; 6.1's only in 4 KiB ones.
j=dedupe-xfs.json
vm_run vm-dedupe-xfs.log run dedupe --fs xfs --block-size 1024 --count 16 --range 64K -j "$j"
if check_run "vm dedupe xfs 1K blocks" "$out/$j" dedupe; then
	expect_eq "vm dedupe xfs 1K blocks: folios larger than 4 KiB read" \
		"$(jq -r '[.targets.dedupe.histograms.folio_size.buckets[] | select(.count > 0 and .lo > 4096)] | length > 0' "$out/$j")" \
		"${vm_xfs_large[$vmk]}"
	# Each folio counts once per call: with 4 KiB folios that is every
	# page of both ranges (16 x 2 per call); larger folios count fewer
	# times, never more than the pages, and the folios counted (a size
	# is its bucket's lo) still cover both ranges of every call.
	fcount=$(jq -r .targets.dedupe.histograms.folio_size.count "$out/$j")
	fcover=$(jq -r '[.targets.dedupe.histograms.folio_size.buckets[] | .count * .lo] | add' "$out/$j")
	if [ "${vm_xfs_large[$vmk]}" == true ]; then
		expect_eq "vm dedupe xfs 1K blocks: folios counted once per call ($fcount), covering both ranges ($fcover bytes)" \
			"$([ "$fcount" -le $((16 * 2 * 16)) ] && [ "$fcount" -ge $((16 * 2)) ] &&
				[ "$fcover" -ge $((16 * 2 * 65536)) ] && echo yes || echo no)" yes
	else
		expect_eq "vm dedupe xfs 1K blocks: folios read (2 per 4K chunk)" "$fcount" $((16 * 2 * 16))
	fi
fi

if [ -z "${FS_VM_ATTACH_ONLY:-}" ]; then
	# trace -- CMD: only CMD's process is traced. The guest's root is tmpfs,
	# so cat reading a file there goes through shmem_file_read_iter; exec of
	# the (static) busybox adds a few small kernel reads of its ELF headers.
	j=trace-cat.json
	vm_run vm-trace-cat.log trace -t shmem -j "$j" -- /bin/busybox cat /bin/folioscope
	if jq -e . "$out/$j" >/dev/null 2>&1; then
		size=$(stat -c %s "$FS")
		sum=$(jq -r .targets.shmem.histograms.bytes.sum "$out/$j")
		expect_eq "vm trace -- cat: bytes cover the file, plus < 4K of exec reads" \
			"$([ "$sum" -ge "$size" ] && [ "$sum" -lt $((size + 4096)) ] && echo yes || echo "no ($sum vs $size)")" yes
	else
		bad "vm trace -- cat" "no JSON; see $LOGDIR/vm-trace-cat.log"
	fi

	# trace -i in the guest (function level): readers of 1000000, 300000 and
	# 200000 bytes take turns, each once two more interval reports are out
	# after the one before it ended (tests/vm/interval-guest.sh): each reader's
	# bytes sit in intervals of their own (plus < 4K of its exec's reads), so
	# at least 3 intervals have reads, and the intervals add up to the totals.
	j=trace-interval.json
	ivscript=$PWD/tests/vm/interval-guest.sh
	rm -f "$out/iv.txt" "$out/iv.marks"
	if (cd "$out" && "$FS" vm "${vmargs[@]}" --timeout 400 --with "$GUEST_LIB" \
		--exec "$ivscript" -- "$GUEST_LIB" -j "$j" -o iv.txt -o iv.marks) \
		>"$LOGDIR/vm-trace-interval.log" 2>&1 && jq -e . "$out/$j" >/dev/null 2>&1; then
		iv=$(interval_rows "$out/iv.txt")
		# ia ib ic: interval reports out once a's, b's, c's reads were closed.
		read -r ia ib ic <<<"$(awk '{ printf "%s ", $2 }' "$out/iv.marks")"
		# in_bytes LO HI SIZE: the intervals LO < N <= HI hold SIZE bytes (and
		# < 4K of exec's reads).
		in_bytes() {
			local b
			b=$(interval_sum "$iv" 3 "$1" "$2")
			[ "$b" -ge "$3" ] && [ "$b" -lt $(($3 + 4096)) ] && echo ok || echo "$b"
		}
		expect_eq "vm trace -i: each reader's bytes in its own intervals (a, b, c, after)" \
			"$(in_bytes 0 "${ia:-0}" 1000000) $(in_bytes "${ia:-0}" "${ib:-0}" 300000) $(in_bytes "${ib:-0}" "${ic:-0}" 200000) $(interval_sum "$iv" 3 "${ic:-0}" 1000000)" \
			"ok ok ok 0"
		expect_eq "vm trace -i: at least 3 intervals with reads" \
			"$(awk '$2 > 0 { n++ } END { print (n >= 3) ? "yes" : "no (" n + 0 ")" }' <<<"$iv")" yes
		expect_eq "vm trace -i: interval calls add up to the totals" "$(interval_sum "$iv" 2 0 1000000)" \
			"$(jq -r .targets.shmem.calls "$out/$j")"
		expect_eq "vm trace -i: interval bytes add up to the totals" "$(interval_sum "$iv" 3 0 1000000)" \
			"$(jq -r .targets.shmem.histograms.bytes.sum "$out/$j")"
		expect_eq "vm trace -i: function level" "$(jq -r .targets.shmem.attach.mechanism "$out/$j")" fentry
	else
		bad "vm trace -i" "no JSON; see $LOGDIR/vm-trace-interval.log: $(tail -3 "$LOGDIR/vm-trace-interval.log")"
	fi

	# --comm in the guest: dd (a busybox link named dd) counts, cat does not.
	j=trace-comm.json
	vm_run vm-trace-comm.log trace -t shmem --comm dd -j "$j" -- /bin/busybox sh -c \
		'/bin/busybox ln -s /bin/busybox /tmp/dd; /bin/busybox cat /bin/folioscope >/dev/null; /tmp/dd if=/bin/folioscope of=/dev/null bs=65536 2>/dev/null'
	if jq -e . "$out/$j" >/dev/null 2>&1; then
		size=$(stat -c %s "$FS")
		sum=$(jq -r .targets.shmem.histograms.bytes.sum "$out/$j")
		expect_eq "vm trace --comm dd: dd's reads only (one file, not two)" \
			"$([ "$sum" -ge "$size" ] && [ "$sum" -lt $((size + 4096)) ] && echo yes || echo "no ($sum vs $size)")" yes
	else
		bad "vm trace --comm" "no JSON; see $LOGDIR/vm-trace-comm.log"
	fi

	# -P in the guest: cat and dd get an entry each, and the entries add up to
	# the totals. (Exec's own small reads land on the child before it execs.)
	j=trace-procs.json
	vm_run vm-trace-procs.log trace -t shmem -P -j "$j" -- /bin/busybox sh -c \
		'/bin/busybox ln -s /bin/busybox /tmp/dd; /bin/busybox cat /bin/folioscope >/dev/null; /tmp/dd if=/bin/folioscope of=/dev/null bs=65536 2>/dev/null'
	if jq -e . "$out/$j" >/dev/null 2>&1; then
		size=$(stat -c %s "$FS")
		expect_eq "vm trace -P: process entries add up to the totals" \
			"$(jq '[.processes[].targets.shmem.calls] | add' "$out/$j")" \
			"$(jq '.targets.shmem.calls' "$out/$j")"
		expect_eq "vm trace -P: two processes each read the whole file" \
			"$(jq --argjson s "$size" '[.processes[] | .targets.shmem.histograms.bytes.sum | select(. >= $s and . < $s + 4096)] | length' "$out/$j")" 2
	else
		bad "vm trace -P" "no JSON; see $LOGDIR/vm-trace-procs.log"
	fi

	# Progress: on a terminal `vm` says it is booting, then erases
	# the line, and the guest's run shows its steps as it would here;
	# redirected (every vm_run above) neither prints such a line.
	script -qec "cd $out && $FS vm ${vmargs[*]} -- run shmem-read --size 1M --huge never >/dev/null" \
		"$out/tty.log" >/dev/null 2>&1
	expect_match "vm: boot progress on a terminal" "$(tr '\r' '\n' <"$out/tty.log")" \
		'^folioscope: vm: booting '
	expect_match "vm: the guest's progress on a terminal, erased as here" \
		"$(tr '\r' '\n' <"$out/tty.log")" $'^folioscope: run: running shmem-read .*\\.\\.\\.\033\\[K'
	expect_eq "vm: no boot progress when stderr is redirected" \
		"$(grep -c 'folioscope: vm: booting ' "$LOGDIR/vm-doctor.log")" 0

	# Whole lines: the guest writes long lines to stdout and stderr at
	# once, both sent to one host file; each line arrives whole, and
	# no escape reaches a file (the guest's stderr is a serial tty).
	lines_guest=$PWD/tests/vm/lines-guest.sh
	(cd "$out" && "$FS" vm "${vmargs[@]}" --exec "$lines_guest") >"$LOGDIR/vm-lines.log" 2>&1
	expect_eq "vm: whole lines: 200 of each writer's lines, each whole" \
		"$(grep -cE '^out [0-9]{3} x{3000}$' "$LOGDIR/vm-lines.log") $(grep -cE '^err [0-9]{3} x{3000}$' "$LOGDIR/vm-lines.log")" "200 200"
	expect_eq "vm: whole lines: no other line holds their text" \
		"$(grep -E '(out|err) [0-9]{3} x' "$LOGDIR/vm-lines.log" | grep -cvE '^(out|err) [0-9]{3} x{3000}$')" 0
	expect_match "vm: whole lines: the guest's notices are there" \
		"$(cat "$LOGDIR/vm-lines.log")" "^folioscope: run shmem-read: random: seed 1, 2 layouts\$"
	expect_eq "vm: no escape or carriage return in a redirected log" \
		"$(grep -c $'[\033\r]' "$LOGDIR/vm-lines.log")" 0

	# Orphans exiting while /init waits for the command's status, and
	# while it sends an output file and the status, send PID 1 a
	# SIGCHLD each; the file and the status still arrive.
	rc=0 orphans_guest=$PWD/tests/vm/orphans-guest.sh
	(cd "$out" && "$FS" vm "${vmargs[@]}" --exec "$orphans_guest" -- -o orphans.out) \
		>"$LOGDIR/vm-orphans.log" 2>&1 || rc=$?
	expect_eq "vm: orphans exiting under /init: the command's exit status (7)" "$rc" 7
	expect_eq "vm: orphans exiting under /init: the output file whole" \
		"$(cksum <"$out/orphans.out" 2>&1)" \
		"$(for i in $(seq 0 63); do printf '%04d%4092s' "$i" x; done | cksum)"
fi

rm -rf "$out"
