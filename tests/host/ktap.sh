# KTAP verdicts (sourced by tests/check.sh): `run --ktap` and `compare
# --ktap` read by the kernel's own KTAP parser (kunit_parser.py of
# Debian's linux-source-6.1, tests/lib.sh: kunit_parser_dir), whose
# counts must be the JSON report's: both matrices (dedupe on loop
# filesystems), one layout with the KTAP on stdout and the text on
# stderr, fake kernel bugs (tests/host/progs/fakekernel.c) whose failures
# become "not ok" with their kind and layout, a call that never returns,
# and a comparison with one rule that holds and one that fails. Run as
# root.
# shellcheck shell=bash

kt=$(mktemp -d "${TMPDIR:-/tmp}/fs-ktap.XXXXXX")
# kt_run NAME WORKLOAD ARGS...: folioscope run WORKLOAD ARGS with the KTAP
# in $kt/NAME.ktap and the JSON in $kt/NAME.json (stdout and stderr in
# NAME.txt and NAME.err), status in kt_rc. KT_BIN and KT_ENV (env(1)
# assignments) pick the binary and a fake bug.
KT_BIN=$FS
KT_ENV=()
kt_run() {
	local name=$1
	shift
	env "${KT_ENV[@]}" timeout 300 "$KT_BIN" run "$@" --ktap "$kt/$name.ktap" \
		-j "$kt/$name.json" >"$kt/$name.txt" 2>"$kt/$name.err"
	kt_rc=$?
}
# kt_same NAME: the parser's counts of NAME.ktap are its JSON's.
kt_same() {
	expect_eq "ktap $1: kunit_parser's counts (passed failed crashed skipped errors) = the JSON's" \
		"$(ktap_counts "$kt/$1.ktap" | cut -d' ' -f1-5)" "$(json_ktap_counts "$kt/$1.json")"
}
# kt_status NAME: the status the parser gives the whole of NAME.ktap.
kt_status() { ktap_counts "$kt/$1.ktap" | awk '{ print $6 }'; }
# kt_top NAME: NAME.ktap's top-level result lines.
kt_top() { grep -E '^(not )?ok [0-9]+ ' "$kt/$1.ktap"; }

if ! kunit_parser_dir; then
	skip "ktap: the kernel's KTAP parser" "$KUNIT_WHY"
else
	ok "ktap: the kernel's KTAP parser ($KUNIT_DIR)"

	# shmem-read's matrix: a test per huge= mode and read pattern, a
	# skipped one per plan the kernel refuses, reconcile last.
	kt_run shmem shmem-read --matrix
	expect_eq "ktap shmem matrix: exit 0" "$kt_rc" 0
	kt_same shmem
	expect_eq "ktap shmem matrix: the parser's verdict" "$(kt_status shmem)" SUCCESS
	expect_eq "ktap shmem matrix: a test per huge= mode and pattern that ran" \
		"$(kt_top shmem | grep -cE '^ok [0-9]+ tmpfs huge=(always|within_size|advise|never) plan=[a-z0-9-]+$')" \
		"$(jq -r '4 * (.workload.plans - (.validation.skipped // [] | length))' "$kt/shmem.json")"
	expect_eq "ktap shmem matrix: a SKIP per layout skipped, with the JSON's why" \
		"$(sed -n 's/^ok [0-9]* \(.*\) # SKIP \(.*\)$/\1: \2/p' "$kt/shmem.ktap")" \
		"$(jq -r '.validation.skipped // [] | .[] | "\(.layout): \(.why)"' "$kt/shmem.json")"
	expect_match "ktap shmem matrix: the plan, then the groups' subtests" \
		"$(head -7 "$kt/shmem.ktap" | paste -sd '|')" \
		"^KTAP version 1\|1\.\.[0-9]+\|# folioscope .* run shmem-read on Linux .*\|# passed: [0-9]+ checks.*\|  KTAP version 1\|  # Subtest: tmpfs huge=always plan=seq-64k\|  1\.\.[0-9]+$"
	expect_eq "ktap shmem matrix: reconcile is the last test" \
		"$(kt_top shmem | tail -1)" "ok $(kt_top shmem | wc -l) reconcile"

	# --ktap -: stdout is the KTAP alone, the report goes to stderr.
	one=(shmem-read --huge never --size 1M --bs 64K)
	timeout 300 "$FS" run "${one[@]}" --ktap - -j "$kt/stdout.json" \
		>"$kt/stdout.ktap" 2>"$kt/stdout.err"
	expect_eq "ktap --ktap -: exit 0, stdout starts with the version line" \
		"$? $(head -1 "$kt/stdout.ktap")" "0 KTAP version 1"
	expect_eq "ktap --ktap -: no report on stdout" \
		"$(grep -c '^validation:' "$kt/stdout.ktap")" 0
	expect_match "ktap --ktap -: the report on stderr" \
		"$(cat "$kt/stdout.err")" '^validation: [0-9]+ checks, 0 failures$'
	kt_same stdout
	expect_eq "ktap --ktap -: one layout is one group, its mount" \
		"$(kt_top stdout)" "$(printf 'ok 1 tmpfs huge=never\nok 2 reconcile')"
	expect_error "ktap: --ktap - and -j - both write stdout: exit 2" 2 \
		'^folioscope: run: --ktap - and -j - both write stdout$' \
		"$FS" run "${one[@]}" --ktap - -j -
	expect_error "ktap: an unwritable --ktap is refused before the run" 1 \
		"^folioscope: cannot write '$kt/none/x.ktap': No such file or directory$" \
		"$FS" run "${one[@]}" --ktap "$kt/none/x.ktap"

	# dedupe's matrix on loop filesystems: a test per filesystem and
	# block size, the coverage's groups.
	if ! command -v mkfs.xfs >/dev/null || ! command -v mkfs.btrfs >/dev/null; then
		skip "ktap dedupe matrix" "mkfs.xfs or mkfs.btrfs not installed (tests/deps.sh)"
	else
		kt_run dedupe dedupe --matrix
		expect_eq "ktap dedupe matrix: exit 0" "$kt_rc" 0
		kt_same dedupe
		expect_eq "ktap dedupe matrix: a test per filesystem and block size, the coverage's groups" \
			"$(kt_top dedupe | sed -n 's/^ok [0-9]* \(.* bs=[0-9]*\)$/\1/p')" \
			"$(jq -r '.coverage[].group' "$kt/dedupe.json")"
	fi

	# A failing check is a failed subtest with its kind and layout (what
	# it expected and got before it), and its group fails with the first.
	if ! fake_shim "$kt"; then
		skip "ktap fakes" "$FAKE_WHY"
	else
		KT_BIN=$FAKE_DYN
		holes=(shmem-read --huge never --fill sparse --size 5M --offset 2M --length 1M --bs 64K)
		KT_ENV=(FS_FAKE_READ=hole LD_PRELOAD="$kt/fakekernel.so")
		kt_run hole "${holes[@]}"
		expect_eq "ktap fake hole: exit 1, the parser's verdict" "$kt_rc $(kt_status hole)" "1 FAILURE"
		kt_same hole
		expect_match "ktap fake hole: the group fails with the kind and layout" \
			"$(kt_top hole | head -1)" \
			'^not ok 1 tmpfs huge=never # unwritten: huge=never file=sparse size=5242880 plan=custom .* call=0 pos=2097152 \(and [0-9]+ more failures?\)$'
		expect_match "ktap fake hole: a failed subtest per failure, after what it expected and got" \
			"$(grep -A1 -m1 '^  # expected: ' "$kt/hole.ktap" | paste -sd '|')" \
			'^  # expected: ret=65536, .*; got: ret=65536, file offset 2097152: want 0x00, got 0x[0-9a-f]{2} \(not written\)\|  not ok 1 check 1 # unwritten: huge=never file=sparse .* call=0 pos=2097152$'
		expect_eq "ktap fake hole: as many failed subtests as the JSON's failures" \
			"$(grep -c '^  not ok ' "$kt/hole.ktap")" "$(jq -r .validation.failures "$kt/hole.json")"

		# The kernel log's complaint is a check of no group.
		eof=(shmem-read --huge never --size 1000001 --bs 64K)
		KT_ENV=(FS_FAKE_READ=warn LD_PRELOAD="$kt/fakekernel.so")
		kt_run warn "${eof[@]}" --kmsg-user
		kt_same warn
		expect_eq "ktap fake warn: the complaint is a test of its own" \
			"$(kt_top warn)" \
			"$(printf 'ok 1 tmpfs huge=never\nnot ok 2 the whole run # kernel log: the whole run\nok 3 reconcile')"

		# A call that never returns: the watchdog's report has its KTAP.
		KT_ENV=(FS_FAKE_READ=hang LD_PRELOAD="$kt/fakekernel.so")
		kt_run hang "${eof[@]}" --deadline-base 2
		expect_eq "ktap fake hang: exit 1" "$kt_rc" 1
		kt_same hang
		expect_match "ktap fake hang: the timeout fails its group, reconcile is skipped" \
			"$(kt_top hang | paste -sd '|')" \
			'^not ok 1 tmpfs huge=never # timeout: huge=never file=full .* call=0 pos=0\|ok 2 reconcile # SKIP a call never returned$'

		if ! command -v mkfs.xfs >/dev/null; then
			skip "ktap dedupe fake" "mkfs.xfs not installed (tests/deps.sh)"
		else
			KT_ENV=(FS_FAKE_DEDUPE=clone LD_PRELOAD="$kt/fakekernel.so")
			kt_run clone dedupe --fs xfs --block-size 1024 --src-off 1024 --dst-off 2048 \
				--range 1024 --count 1 --differ first
			expect_eq "ktap dedupe fake clone: exit 1, the parser's verdict" \
				"$kt_rc $(kt_status clone)" "1 FAILURE"
			kt_same clone
			expect_match "ktap dedupe fake clone: the wrong answer and the data changed, each a failed subtest" \
				"$(grep '^  not ok ' "$kt/clone.ktap" | paste -sd '|')" \
				'^  not ok 1 check 1 # wrong answer: fs=xfs bs=1024 case=custom .*\|  not ok 2 check 2 # data changed: fs=xfs bs=1024 .* reread=dst$'
			expect_match "ktap dedupe fake clone: its group fails with the first" \
				"$(kt_top clone | head -1)" \
				'^not ok 1 xfs bs=1024 # wrong answer: fs=xfs bs=1024 case=custom .* \(and 1 more failure\)$'
		fi
	fi

	# compare: a test per rule, one that holds and one that fails.
	timeout 300 "$FS" run "${one[@]}" -j "$kt/base.json" >/dev/null 2>&1
	timeout 300 "$FS" compare "$kt/base.json" "$kt/stdout.json" \
		-e 'validation.failures==0' -e 'validation.checks>1000000' \
		--ktap - >"$kt/cmp.ktap" 2>"$kt/cmp.err"
	expect_eq "ktap compare: exit 1 (a rule failed), the parser's counts" \
		"$? $(ktap_counts "$kt/cmp.ktap")" "1 1 1 0 0 0 FAILURE"
	expect_match "ktap compare: ok and not ok with the values compared" \
		"$(kt_top cmp | paste -sd '|')" \
		'^ok 1 validation\.failures==0 # new 0 == 0\|not ok 2 validation\.checks>1000000 # new [0-9]+, not > 1000000$'
	expect_match "ktap compare: the rules' text on stderr" \
		"$(cat "$kt/cmp.err")" '^1 of 2 rules hold$'
	expect_error "ktap: compare --ktap without a rule: exit 2" 2 \
		'^folioscope: compare: --ktap writes a test per --expect rule: give one$' \
		"$FS" compare "$kt/base.json" "$kt/stdout.json" --ktap "$kt/none.ktap"
fi
rm -rf "$kt"
