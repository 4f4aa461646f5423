# folioscope validate (sourced by tests/check.sh): every tier a run of its
# own, merged into one report whose groups are the tiers. On this host: a
# clean run of both workloads' matrices and random layouts, its KTAP read
# by the kernel's parser with the JSON's counts and its JUnit by an XML
# parser; fake kernel bugs (tests/host/progs/fakekernel.c) that every
# shmem tier catches, each with a replay that fails the same way with the
# bug and passes without it; a tier whose run dies is that tier's failure
# and the next tier still runs; compare puts two validations' tiers side
# by side. Run as root.
# shellcheck shell=bash

va=$(mktemp -d "${TMPDIR:-/tmp}/fs-validate.XXXXXX")
# va_run NAME ARGS...: folioscope validate ARGS, JSON, KTAP and JUnit in
# $va/NAME.{json,ktap,xml}, stdout and stderr in NAME.txt and NAME.err,
# status in va_rc. VA_BIN and VA_ENV (env(1) assignments) pick the binary
# and a fake bug.
VA_BIN=$FS
VA_ENV=()
va_run() {
	local name=$1
	shift
	env "${VA_ENV[@]}" timeout 600 "$VA_BIN" validate "$@" -j "$va/$name.json" \
		--ktap "$va/$name.ktap" --junit "$va/$name.xml" \
		>"$va/$name.txt" 2>"$va/$name.err"
	va_rc=$?
}
# va_groups NAME: "name checks failures kinds" per tier of NAME.json.
va_groups() {
	jq -r '.validation.groups[] | "\(.name) \(.checks > 0) \(.failures) \(.kinds | keys | join(","))"' \
		"$va/$1.json" 2>&1
}

# Usage errors: one line, exit 2, before anything runs.
for bad in "--tiers matrix,bogus" "--tiers matrix,,ops" "--tiers matrix," \
	"--only ext4" "--budget 0.5s" "--budget 10" "--random 0" "--ops 1000001" "extra"; do
	# shellcheck disable=SC2086 # the options, word by word
	out=$("$FS" validate $bad 2>&1)
	rc=$?
	expect_eq "validate $bad: exit 2 with one line" "$rc $(wc -l <<<"$out")" "2 1"
done

# Both workloads, two tiers each, on this kernel: one verdict.
va_run clean --seed 7 --budget 30s --tiers matrix,random
expect_eq "validate clean: exit 0" "$va_rc" 0
expect_eq "validate clean: a group per tier, in order, each with checks and no failure" \
	"$(va_groups clean | paste -sd ';')" \
	"shmem matrix true 0 ;dedupe matrix true 0 ;shmem random true 0 ;dedupe random true 0 "
expect_eq "validate clean: the tiers' checks are the run's, seed and tiers kept" \
	"$(jq -r '"\(([.validation.groups[].checks] | add) == .validation.checks) \(.workload.seed) \(.workload.tiers)"' "$va/clean.json" 2>&1)" \
	"true 7 shmem matrix, dedupe matrix, shmem random, dedupe random"
expect_eq "validate clean: each tier's note says what replays it" \
	"$(jq -r '.validation.groups[].note | sub(".*; "; "")' "$va/clean.json" 2>&1 | paste -sd ';')" \
	"folioscope run shmem-read --matrix;folioscope run dedupe --matrix;folioscope run shmem-read --random $(jq -r '.validation.groups[2].note | capture("^(?<n>[0-9]+) layouts").n' "$va/clean.json") --seed 7;folioscope run dedupe --random $(jq -r '.validation.groups[3].note | capture("^(?<n>[0-9]+) layouts").n' "$va/clean.json") --seed 7"
expect_eq "validate clean: a header line per tier, the verdict last" \
	"$(grep -c '^folioscope: validate: tier [1-4] of 4, ' "$va/clean.err") $(tail -1 "$va/clean.err" | cut -d: -f1-3)" \
	"4 folioscope: validate: passed"
expect_match "validate clean: the ways into a read no tier reached" \
	"$(jq -r '"\(.workload.ways_reached) of \(.workload.ways): \(.workload.ways_missed)"' "$va/clean.json" 2>&1)" \
	'^1[0-4] of 14: [a-z_, -]+$'
expect_match "validate clean: the text report ends with the tiers' verdicts" \
	"$(sed -n '/^verdicts:/,$p' "$va/clean.txt" | paste -sd '|')" \
	'^verdicts:\|  ok   shmem matrix     [0-9]+ checks, 0 failures; in [0-9]+ s; folioscope run shmem-read --matrix\|.*\|  ok   dedupe random    [0-9]+ checks, 0 failures; [0-9]+ layouts in [0-9]+ s; folioscope run dedupe --random [0-9]+ --seed 7$'
if kunit_parser_dir; then
	expect_eq "validate clean: kunit_parser's counts = the JSON's" \
		"$(ktap_counts "$va/clean.ktap" | cut -d' ' -f1-5)" "$(json_ktap_counts "$va/clean.json")"
else
	skip "validate clean: the kernel's KTAP parser" "$KUNIT_WHY"
fi
expect_eq "validate clean: KTAP, a test per tier, reconcile last" \
	"$(grep -E '^(not )?ok [0-9]+ ' "$va/clean.ktap" | grep -v ' # SKIP ' | paste -sd ';')" \
	"ok 1 shmem matrix;ok 2 dedupe matrix;ok 3 shmem random;ok 4 dedupe random;ok $(grep -cE '^(not )?ok [0-9]+ ' "$va/clean.ktap") reconcile"
junit_suites() {
	python3 -c '
import sys, xml.etree.ElementTree as ET
for s in ET.parse(sys.argv[1]).getroot():
    p = {e.get("name"): e.get("value") for e in s.iter("property")}
    print(s.get("name"), s.get("failures"), p.get("checks", "-"))' "$1" 2>&1
}
expect_eq "validate clean: JUnit, a testsuite per tier with its checks" \
	"$(junit_suites "$va/clean.xml" | grep -v '^skipped ' | paste -sd ';')" \
	"$(jq -r '[(.validation.groups[] | "\(.name) 0 \(.checks)"), "reconcile 0 -"] | join(";")' "$va/clean.json")"

# A fake kernel bug, caught by every shmem tier, each tier's replay
# failing the same way with it and passing without it.
if ! fake_shim "$va"; then
	skip "validate: fake kernel bugs" "$FAKE_WHY"
else
	VA_BIN=$FAKE_DYN
	VA_ENV=(FS_FAKE_READ=stale LD_PRELOAD="$va/fakekernel.so")
	va_run stale --only shmem --seed 3 --budget 20s
	expect_eq "validate stale: exit 1, every tier failed, by stale memory only" \
		"$va_rc $(va_groups stale | paste -sd ';')" \
		"1 shmem matrix true $(jq -r '.validation.groups[0].failures' "$va/stale.json") stale;shmem random true $(jq -r '.validation.groups[1].failures' "$va/stale.json") stale;shmem ops true $(jq -r '.validation.groups[2].failures' "$va/stale.json") stale;shmem race true $(jq -r '.validation.groups[3].failures' "$va/stale.json") stale"
	expect_eq "validate stale: failures in every tier, counted by kind" \
		"$(jq -r '[.validation.groups[] | (.failures > 0 and .kinds.stale == .failures)] | all' "$va/stale.json" 2>&1) $(jq -r '.validation.kinds.stale == .validation.failures' "$va/stale.json" 2>&1)" \
		"true true"
	expect_eq "validate stale: a replay per tier" \
		"$(jq -r '[.validation.replays[].group] | unique | join(",")' "$va/stale.json" 2>&1)" \
		"shmem matrix,shmem ops,shmem race,shmem random"
	expect_eq "validate stale: the verdict" "$(tail -1 "$va/stale.err" | cut -d: -f1-3)" \
		"folioscope: validate: FAILED"
	for tier in "shmem random" "shmem ops" "shmem race"; do
		cmd=$(jq -r --arg t "$tier" '[.validation.replays[] | select(.group == $t)][0].command' "$va/stale.json")
		# shellcheck disable=SC2086 # the replay, word by word
		set -- ${cmd#folioscope }
		env "${VA_ENV[@]}" timeout 300 "$FAKE_DYN" "$@" -j "$va/replay.json" >/dev/null 2>&1
		rc=$?
		expect_eq "validate stale: $tier's replay fails the same way with the bug ($cmd)" \
			"$rc $(jq -r '[.validation.cases[].kind] | unique | join(",")' "$va/replay.json" 2>&1)" "1 stale"
		timeout 300 "$FS" "$@" >/dev/null 2>&1
		expect_eq "validate stale: $tier's replay passes without it" "$?" 0
	done
	if kunit_parser_dir; then
		expect_eq "validate stale: kunit_parser's counts = the JSON's" \
			"$(ktap_counts "$va/stale.ktap" | cut -d' ' -f1-5)" "$(json_ktap_counts "$va/stale.json")"
	fi

	# A run that dies without a report is its tier's failure, and the
	# next tier runs.
	VA_ENV=(FS_FAKE_READ=crash LD_PRELOAD="$va/fakekernel.so")
	va_run crash --only shmem --tiers matrix,ops --seed 1 --budget 10s
	expect_eq "validate crash: exit 1, both tiers run, each one 'no verdict'" \
		"$va_rc $(jq -r '[.validation.groups[] | "\(.name) \(.checks) \(.failures) \(.kinds | keys | join(","))"] | join(";")' "$va/crash.json" 2>&1)" \
		"1 shmem matrix 1 1 no verdict;shmem ops 1 1 no verdict"
	expect_eq "validate crash: what it got, and the run that replays it" \
		"$(jq -r '.validation.cases[] | "\(.group): \(.got): \(.layout)"' "$va/crash.json" 2>&1 | paste -sd ';')" \
		"shmem matrix: no report: killed by signal 9: folioscope run shmem-read --matrix;shmem ops: no report: killed by signal 9: folioscope run shmem-read --ops 100000 --seed 1 --time-limit $(grep -oE -- '--time-limit [0-9]+[a-z]+' "$va/crash.err" | cut -d' ' -f2)"
	expect_match "validate crash: KTAP, the tier not ok with its kind" \
		"$(grep -E '^not ok 1 ' "$va/crash.ktap")" '^not ok 1 shmem matrix # no verdict: folioscope run shmem-read --matrix$'

	# Two validations side by side: the tiers' verdicts.
	VA_ENV=()
	VA_BIN=$FS
	va_run base --only shmem --tiers matrix --budget 10s
	cmp=$("$FS" compare "$va/base.json" "$va/stale.json" 2>&1)
	expect_eq "validate: compare refuses runs of other tiers" "$?" 2
	VA_BIN=$FAKE_DYN
	VA_ENV=(FS_FAKE_READ=stale LD_PRELOAD="$va/fakekernel.so")
	va_run new --only shmem --tiers matrix --budget 10s
	cmp=$("$FS" compare "$va/base.json" "$va/new.json" --expect 'validation.failures==0' 2>&1)
	rc=$?
	expect_match "validate: compare puts the tiers side by side, the rule fails" \
		"$rc $(grep -E '^  (tier|shmem matrix) ' <<<"$cmp" | paste -sd '|')" \
		"^1   tier +base +new\|  shmem matrix +ok, [0-9]+ checks +FAIL [0-9]+ of [0-9]+ \(stale x[0-9]+\)$"
fi
rm -rf "$va"
