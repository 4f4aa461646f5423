# The validators against fake kernel bugs (sourced by tests/check.sh):
# tests/host/progs/fakekernel.c, preloaded into the dynamic build, turns
# each read of the workload's tmpfs files, each read-back of a way
# through a pipe, or each FIDEDUPERANGE, into one with a bug. Each bug
# must be a failure of its own kind in the text, the JSON
# (validation.cases[].kind) and the exit status, the run must end with a
# verdict, and without a bug the same layouts pass. Run as root.
# shellcheck shell=bash

sf=$(mktemp -d "${TMPDIR:-/tmp}/fs-shfake.XXXXXX")
if ! fake_shim "$sf"; then
	skip "shmem fakes" "$FAKE_WHY"
else
	sf_dyn=$FAKE_DYN
	# sf_run NAME BUG ARGS...: run shmem-read under bug BUG ("" none),
	# JSON in $sf/NAME.json, text in $sf/NAME.txt, status in sf_rc.
	sf_run() {
		local name=$1 bug=$2
		shift 2
		FS_FAKE_READ=$bug LD_PRELOAD=$sf/fakekernel.so timeout 300 \
			"$sf_dyn" run shmem-read "$@" -j "$sf/$name.json" \
			>"$sf/$name.txt" 2>"$sf/$name.err"
		sf_rc=$?
	}
	# sf_expect NAME BUG KIND ARGS...: exit 1, every kept failure of
	# kind KIND, the text names it, the probes still reconcile.
	sf_expect() {
		local name=$1 bug=$2 kind=$3
		shift 3
		sf_run "$name" "$bug" "$@"
		expect_eq "shmem fake $name: exit 1" "$sf_rc" 1
		expect_eq "shmem fake $name: failures, all of kind '$kind'" \
			"$(jq -r '[(.validation.failures > 0), ([.validation.cases[].kind] | unique)] | tostring' "$sf/$name.json" 2>&1)" \
			"[true,[\"$kind\"]]"
		expect_match "shmem fake $name: the text says the kind" \
			"$(cat "$sf/$name.txt")" "^  FAIL \($kind\) huge="
		expect_eq "shmem fake $name: probes reconcile" \
			"$(jq -r .workload.reconcile "$sf/$name.json" 2>&1)" ok
	}

	# A range of holes only ([2M, 3M) of a sparse file): every read
	# returns zeros, so a validator that zeroes its buffer once would
	# see the zeros it left there itself.
	holes=(--huge never --fill sparse --size 5M --offset 2M --length 1M --bs 64K)
	sf_run hole-base "" "${holes[@]}"
	expect_eq "shmem fake: holes without a bug: exit 0, 0 failures of 16 checks" \
		"$sf_rc $(jq -r '"\(.validation.failures) \(.validation.checks)"' "$sf/hole-base.json" 2>&1)" "0 0 16"
	sf_expect hole hole unwritten "${holes[@]}"
	expect_match "shmem fake hole: the byte left is named" \
		"$(jq -r '.validation.cases[0].got' "$sf/hole.json")" \
		'^ret=65536, file offset 2097152: want 0x00, got 0x[0-9a-f]{2} \(not written\)$'

	# A range fallocated and never written reads as zeros; a kernel that
	# hands out a page it did not zero hands out the stale memory the run
	# wrote and freed before the fallocate: a failure of kind stale, with
	# and without KEEP_SIZE, by read and by pread.
	for f in fallocated fallocated-keep-size; do
		fal=(--fill "$f" --huge always --size 3M --bs 64K --syscall pread)
		sf_run "$f-base" "" "${fal[@]}"
		expect_eq "shmem fake: $f without a bug: exit 0, 0 failures of 49 checks" \
			"$sf_rc $(jq -r '"\(.validation.failures) \(.validation.checks)"' "$sf/$f-base.json" 2>&1)" "0 0 49"
		for c in pread read; do
			sf_expect "$f-stale-$c" stale stale "${fal[@]:0:6}" --syscall "$c"
		done
		expect_eq "shmem fake $f-stale-read: the stale bytes named" \
			"$(jq -r '.validation.cases[0].got' "$sf/$f-stale-read.json")" \
			"ret=65536, file offset 0: want 0x00, got 0x53 (stale memory)"
	done

	# --ops names the states a read crossed, and finds stale memory in
	# its files' zero ranges.
	sf_run ops-states "" --ops 300 --seed 1
	expect_eq "shmem fake: --ops without a bug: exit 0, reads over each state counted" \
		"$sf_rc $(jq -r '"\(.validation.failures) \(.workload.ops_reads_hole > 0) \(.workload.ops_reads_fallocated > 0) \(.workload.ops_reads_written > 0)"' "$sf/ops-states.json" 2>&1)" \
		"0 0 true true true"
	sf_run ops-stale stale --ops 300 --seed 1
	expect_eq "shmem fake ops-stale: exit 1, failures of kind stale only" \
		"$sf_rc $(jq -r '[.validation.cases[].kind] | unique | join(",")' "$sf/ops-stale.json" 2>&1)" \
		"1 stale"
	expect_match "shmem fake ops-stale: a read names the states it crossed" \
		"$(jq -r '.validation.cases[0].layout' "$sf/ops-stale.json" 2>&1)" \
		'^ops seed=1 #[0-9]+ read file [0-3] .* over (hole|fallocated|written)(\+(fallocated|written))*$'

	# Reads through a pipe: each call's bytes come back through the
	# pipe, the socket or the output file, checked as a read's are;
	# under the shifted copy every one fails with kind data.
	for c in splice sendfile sendfile-socket copy_file_range; do
		piped=(--huge always --size 3M --offset 4093 --bs 70001 --syscall "$c")
		sf_run "pipe-base-$c" "" "${piped[@]}"
		expect_eq "shmem fake: $c without a bug: exit 0, 0 failures of 47 checks" \
			"$sf_rc $(jq -r '"\(.validation.failures) \(.validation.checks)"' "$sf/pipe-base-$c.json" 2>&1)" "0 0 47"
		FS_FAKE_PIPE=shift sf_expect "pipe-$c" "" data "${piped[@]}"
	done

	# What the ways through a pipe give back, broken: a call that says
	# it moved a byte more than it did (over), a read-back that fails
	# with an errno (error) or without one (noerrno). Each is a failed
	# check of kind read-back with a verdict and a JSON, never a run
	# error, and names the errno the failing call set, or none.
	for how in over error noerrno; do
		for c in splice sendfile sendfile-socket copy_file_range copy_file_range-other-fs copy_file_range-same-file; do
			n=back-$how-$c
			FS_FAKE_BACK=$how sf_run "$n" "" --huge always --size 3M --offset 4093 --bs 70001 --syscall "$c"
			if [ "$sf_rc" == 4 ] && jq -e '.validation.skipped | length == 1' "$sf/$n.json" >/dev/null 2>&1; then
				skip "shmem fake $n" "this kernel does not take $c: $(jq -r '.validation.skipped[0].why' "$sf/$n.json")"
				continue
			fi
			expect_eq "shmem fake $n: exit 1, failures of kind read-back only, reconciled" \
				"$sf_rc $(jq -r '"\(.validation.failures > 40) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile)"' "$sf/$n.json" 2>&1)" \
				"1 true read-back ok"
			expect_match "shmem fake $n: the text says the kind" \
				"$(cat "$sf/$n.txt")" "^  FAIL \(read-back\) huge=always .* call=1 "
			case $how in
			over) want='^ret=70001, 70000 of its bytes came back from the (pipe|socket|output file)$' ;;
			error) want='^ret=70001, (read from the pipe failed: Input/output error|recv from the socket failed: Connection reset by peer|mmap of the output file failed: Cannot allocate memory)$' ;;
			noerrno) want='^ret=70001, (read from the pipe|recv from the socket|mmap of the output file) failed: no errno set$' ;;
			esac
			expect_match "shmem fake $n: what came back, with the failing call's errno" \
				"$(jq -r '.validation.cases[1].got' "$sf/$n.json")" "$want"
		done
	done
	# The matrix on a kernel whose pipe read-back fails: a verdict and a
	# JSON with every check made, the failures named by plan.
	FS_FAKE_BACK=error sf_run back-matrix "" --matrix
	expect_eq "shmem fake back-matrix: exit 1, read-back failures only, every check made" \
		"$sf_rc $(jq -r '"\([.validation.cases[].kind] | unique | join(",")) \(.validation.checks > 14000)"' "$sf/back-matrix.json" 2>&1)" \
		"1 read-back true"
	expect_match "shmem fake back-matrix: the failing plans are the piped ones" \
		"$(jq -r '[.validation.cases[].layout | capture("plan=(?<p>[^ ]+)").p] | unique | join(" ")' "$sf/back-matrix.json" 2>&1)" \
		'^(cfr|sendfile|sendsock|splice)[^ ]*( (cfr|sendfile|sendsock|splice)[^ ]*)*$'
	# And --ops: its piped reads fail the same way, and the failure is
	# shrunk to a replay.
	FS_FAKE_BACK=error sf_run back-ops "" --ops 300 --seed 5
	expect_eq "shmem fake back-ops: exit 1, read-back failures, a JSON" \
		"$sf_rc $(jq -r '[.validation.cases[].kind] | unique | join(",")' "$sf/back-ops.json" 2>&1)" \
		"1 read-back"
	expect_match "shmem fake back-ops: the shrunk replay" \
		"$(cat "$sf/back-ops.err")" \
		'ops: shrunk to [0-9]+ operations in [0-9]+ trials; replay: folioscope run shmem-read --ops 300 --seed 5 --ops-only '

	# A short read at EOF that writes buf[ret]; odd EOF for "pos".
	eof=(--huge never --size 1000001 --bs 64K)
	sf_run eof-base "" "${eof[@]}"
	expect_eq "shmem fake: EOF without a bug: exit 0, 0 failures" \
		"$sf_rc $(jq -r .validation.failures "$sf/eof-base.json" 2>&1)" "0 0"
	sf_expect past past "past ret" "${eof[@]}"
	expect_eq "shmem fake past: the last read, at buffer byte ret" \
		"$(jq -r '.validation.cases[0] | "\(.layout | sub(".* call="; "call=")) \(.got)"' "$sf/past.json")" \
		"call=15 pos=983040 ret=16961, wrote iovec 0 byte 16961 (buffer byte 16961) past ret"
	# The position goes back after the odd last read: a reader that
	# trusted it would read the last byte forever.
	sf_expect pos pos position "${eof[@]}"
	expect_eq "shmem fake pos: named with the position it found" \
		"$(jq -r '.validation.cases[0] | "\(.expected); \(.got)"' "$sf/pos.json")" \
		"file position 1000001 after the call; file position 1000000 (went back or stayed)"
	# Reads that return half of what they should: each a wrong answer,
	# and past the calls the bytes need the layout stops.
	sf_run short short "${eof[@]}"
	expect_eq "shmem fake short: exit 1, wrong answers, then no progress" \
		"$sf_rc $(jq -r '[.validation.cases[].kind] | unique | join(",")' "$sf/short.json" 2>&1)" \
		"1 no progress,wrong answer"
	# The kernel complains while the answers are right: its first
	# complaint is the verdict. Written as a record of user space, which
	# only --kmsg-user counts; a run without it stays clean.
	sf_run warn warn "${eof[@]}" --kmsg-user
	expect_eq "shmem fake warn: exit 1, one failure, of kind 'kernel log'" \
		"$sf_rc $(jq -r '"\(.validation.failures) \(.validation.cases[0].kind) \(.workload.kernel_log)"' "$sf/warn.json" 2>&1)" \
		"1 1 kernel log 1 complaint"
	expect_match "shmem fake warn: the complaint quoted" \
		"$(jq -r '.validation.cases[0].got' "$sf/warn.json")" \
		'^WARNING: CPU: 0 PID: [0-9]+ at mm/shmem.c:2700 shmem_file_read_iter \(folioscope fake\)$'
	expect_match "shmem fake warn: the text verdict" \
		"$(cat "$sf/warn.txt")" '^  FAIL \(kernel log\) the whole run$'
	sf_run warn-user warn "${eof[@]}"
	expect_eq "shmem fake warn: user space records do not count by default" \
		"$sf_rc $(jq -r '"\(.validation.failures) \(.workload.kernel_log)"' "$sf/warn-user.json" 2>&1)" \
		"0 0 clean"
	# A read that never returns: the watchdog names the layout and the
	# kernel stack, and the run ends with a verdict.
	sf_run hang hang "${eof[@]}" --deadline-base 2
	expect_eq "shmem fake hang: exit 1" "$sf_rc" 1
	expect_match "shmem fake hang: the watchdog names layout and stack" \
		"$(cat "$sf/hang.err")" \
		"^folioscope: run shmem-read: timeout: a call of layout 'huge=never file=full size=1000001 .* call=0 pos=0' has not returned after [0-9]+ s \(deadline 2 s\); kernel stack of thread [0-9]+: .*pipe_read"
	expect_match "shmem fake hang: the verdict" \
		"$(cat "$sf/hang.txt")" '^  FAIL \(timeout\) huge=never file=full'
	# The report is written as the run saw it: the timeout its failure,
	# the probes' counts not reconciled (the call is still in flight).
	expect_eq "shmem fake hang: the JSON report, with the timeout" \
		"$(jq -r '"\([.validation.cases[].kind] | join(",")) \(.workload.reconcile)"' "$sf/hang.json" 2>&1)" \
		"timeout skipped: a call never returned"

	# dedupe: a false SAME replaces the destination's data, which is a
	# verdict of its own besides the wrong answer; the probes saw the
	# kernel answer SAME and reconcile.
	dd=(--fs xfs --block-size 1024 --src-off 1024 --dst-off 2048 --range 1024 --count 1 --differ first)
	if ! command -v mkfs.xfs >/dev/null; then
		skip "dedupe fakes" "mkfs.xfs not installed (tests/deps.sh)"
	else
		sf_dd() {
			local name=$1 bug=$2
			shift 2
			FS_FAKE_DEDUPE=$bug LD_PRELOAD=$sf/fakekernel.so timeout 300 \
				"$sf_dyn" run dedupe "$@" -j "$sf/$name.json" \
				>"$sf/$name.txt" 2>"$sf/$name.err"
			sf_rc=$?
		}
		sf_dd dd-base "" "${dd[@]}"
		expect_eq "dedupe fake: without a bug: exit 0, 0 failures, reconciles" \
			"$sf_rc $(jq -r '"\(.validation.failures) \(.workload.differs) \(.workload.reconcile)"' "$sf/dd-base.json" 2>&1)" "0 0 1 ok"
		sf_dd dd-clone clone "${dd[@]}"
		expect_eq "dedupe fake clone: exit 1, a wrong answer and data changed, reconciles" \
			"$sf_rc $(jq -r '"\([.validation.cases[].kind] | join(",")) \(.workload.same) \(.workload.reconcile)"' "$sf/dd-clone.json" 2>&1)" \
			"1 wrong answer,data changed 1 ok"
		expect_eq "dedupe fake clone: the re-read names the replaced bytes" \
			"$(jq -r '.validation.cases[1] | "\(.layout | sub(".* reread="; "reread=")) \(.got)"' "$sf/dd-clone.json" 2>&1)" \
			"reread=dst 1 bytes replaced in [2048, 2048]; at 2048: want 0x13, got 0xec"
		expect_match "dedupe fake clone: the text says data changed" \
			"$(cat "$sf/dd-clone.txt")" '^  FAIL \(data changed\) fs=xfs bs=1024 .* reread=dst$'
		# The watchdog ends the run while a call is stuck, so the run's
		# temp dir stays (a stuck call may hold its mount); it lands in
		# a TMPDIR of its own, and the next run there removes it.
		mkdir "$sf/hang-tmp"
		TMPDIR=$sf/hang-tmp sf_dd dd-hang hang "${dd[@]}" --deadline-base 2
		expect_eq "dedupe fake hang: exit 1" "$sf_rc" 1
		expect_match "dedupe fake hang: the watchdog names layout and stack" \
			"$(cat "$sf/dd-hang.err")" \
			"^folioscope: run dedupe: timeout: a call of layout 'fs=xfs bs=1024 case=custom src_off=1024 .*' has not returned after [0-9]+ s \(deadline 2 s\); kernel stack of thread [0-9]+: .*pipe_read"
		expect_match "dedupe fake hang: the verdict" \
			"$(cat "$sf/dd-hang.txt")" '^  FAIL \(timeout\) fs=xfs bs=1024'
		expect_eq "dedupe fake hang: the JSON report, with the timeout" \
			"$(jq -r '"\([.validation.cases[].kind] | join(",")) \(.workload.reconcile)"' "$sf/dd-hang.json" 2>&1)" \
			"timeout skipped: a call never returned"
		expect_eq "dedupe fake hang: its temp dir is left" \
			"$(find "$sf/hang-tmp" -mindepth 1 -maxdepth 1 -name 'folioscope-dedupe-*' | wc -l)" 1
		TMPDIR=$sf/hang-tmp sf_dd dd-after "" "${dd[@]}"
		expect_match "dedupe fake hang: the next run removes the temp dir left" \
			"$sf_rc $(cat "$sf/dd-after.err")" \
			"^0 folioscope: run: removed '$sf/hang-tmp/folioscope-dedupe-[^']*' \\(0 mounts\\), left behind by a run that was killed"
		expect_eq "dedupe fake hang: nothing left after the next run" \
			"$(find "$sf/hang-tmp" -mindepth 1 | wc -l)" 0
	fi
fi
rm -rf "$sf"
