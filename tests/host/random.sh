# Random layouts (sourced by tests/check.sh): run shmem-read --random with
# a fixed seed passes and reconciles; the same seed draws the same
# layouts, another seed others; a printed layout's command runs that one
# layout; and under a fake kernel bug (tests/host/progs/fakekernel.c: a
# read that writes past ret, a dedupe that answers a false SAME) a
# failing layout is shrunk, and its replay command fails the same way
# under the bug and passes without it. Run as root.
# shellcheck shell=bash

rn=$(mktemp -d "${TMPDIR:-/tmp}/fs-random.XXXXXX")
# rn_run NAME ARGS...: folioscope run shmem-read ARGS, JSON in $rn/NAME.json,
# stderr in $rn/NAME.err, status in rn_rc. RN_BIN and RN_ENV (env(1)
# assignments) pick the binary and the fake bug.
RN_BIN=$FS
RN_ENV=()
rn_run() {
	local name=$1
	shift
	env "${RN_ENV[@]}" timeout 300 "$RN_BIN" run shmem-read "$@" \
		-j "$rn/$name.json" >"$rn/$name.txt" 2>"$rn/$name.err"
	rn_rc=$?
}
# rn_layouts NAME: the drawn layouts' lines of run NAME.
rn_layouts() { grep -E '^folioscope: run shmem-read: random layout [0-9]+: ' "$rn/$1.err"; }
# rn_cmd LINE: the options after "folioscope run shmem-read" in LINE.
rn_cmd() { sed -E 's/.*folioscope run shmem-read //' <<<"$1"; }

rn_run seed1 --random 20 --seed 1
expect_eq "random: 20 layouts of seed 1: exit 0, 0 failures, reconciled, mode random" \
	"$rn_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile) \(.workload.mode) \(.workload.random_seed) \(.workload.random_layouts) \(.workload.random_failed)"' "$rn/seed1.json" 2>&1)" \
	"0 0 ok random 1 20 0"
# Every call is checked but a preadv2 refused for its flag (an error,
# a skip); io_uring's reads and the piped calls are checked though the
# syscall level here does not see them.
expect_eq "random: every call checked, calls and bytes are the probes'" \
	"$(jq -r '(.validation.checks > 100) and (.validation.checks == .workload.calls - .targets.shmem.counters.errors + .workload.io_uring_calls + .workload.piped_calls + .workload.loop_calls) and (.workload.io_uring_calls > 0) and (.targets.shmem.counters.calls == .workload.calls) and (.workload.bytes > 0)' "$rn/seed1.json" 2>&1)" \
	true
expect_match "random: the seed is printed" "$(cat "$rn/seed1.err")" \
	'^folioscope: run shmem-read: random: seed 1, 20 layouts$'
expect_eq "random: 20 layouts printed, 0 .. 19" \
	"$(rn_layouts seed1 | sed -E 's/.*random layout ([0-9]+): .*/\1/' | paste -sd ' ')" \
	"$(seq 0 19 | paste -sd ' ')"
rn_run seed1-again --random 20 --seed 1
expect_eq "random: the same seed draws the same layouts" \
	"$rn_rc $(diff <(rn_layouts seed1) <(rn_layouts seed1-again) && echo same)" "0 same"
rn_run seed2 --random 20 --seed 2
expect_eq "random: another seed draws other layouts" \
	"$rn_rc $(diff <(rn_layouts seed1) <(rn_layouts seed2) | grep -c '^<')" "0 20"
# Without --seed: a fresh seed, printed, that draws the same layouts again.
rn_run fresh --random 3
fresh=$(sed -nE 's/^folioscope: run shmem-read: random: seed ([0-9]+), 3 layouts$/\1/p' "$rn/fresh.err")
expect_eq "random: without --seed, the seed drawn is printed and in the JSON" \
	"$rn_rc $([ -n "$fresh" ] && jq -r .workload.random_seed "$rn/fresh.json")" "0 $fresh"
rn_run fresh-again --random 3 --seed "$fresh"
expect_eq "random: the printed seed draws the same 3 layouts" \
	"$rn_rc $(rn_layouts fresh | wc -l) $(diff <(rn_layouts fresh) <(rn_layouts fresh-again) && echo same)" "0 3 same"

# Layout 11 of seed 1, replayed: one layout, exactly the one printed.
l11=$(rn_cmd "$(rn_layouts seed1 | grep ' random layout 11: ')")
# shellcheck disable=SC2086 # the options, word by word
rn_run replay11 $l11
expect_eq "random: a layout's command runs that one layout, reconciled" \
	"$rn_rc $(jq -r '"\(.workload.mode) \(.validation.failures) \(.workload.reconcile)"' "$rn/replay11.json" 2>&1)" \
	"0 custom 0 ok"
expect_eq "random: ... with the layout's values" \
	"$(jq -r '.workload | "--huge \(.huge) --fill \(.fill) --size \(.size) --syscall \(.syscall) --iovecs \(.iovecs) --bs \(.bs) --offset \(.offset)\(if .length > 0 then " --length \(.length)" else "" end) --buf-align \(.buf_align) --readers \(.readers)"' "$rn/replay11.json" 2>&1)" \
	"$l11"
expect_eq "random: ... and the calls its length takes (27648 bytes, 27 a call)" \
	"$(jq -r .validation.checks "$rn/replay11.json")" \
	"$(awk -v s="$l11" 'BEGIN { n = split(s, a, " "); for (i = 1; i < n; i++) o[a[i]] = a[i + 1];
		# 12287 + 27648 < size: no call at EOF
		print o["--length"] / o["--bs"] }')"

# A planted failure: a short read that also writes buf[ret] ("past").
if ! fake_shim "$rn"; then
	skip "random: shrinking a fake bug" "$FAKE_WHY"
else
	dyn=$FAKE_DYN
	RN_BIN=$dyn
	RN_ENV=(FS_FAKE_READ=past LD_PRELOAD="$rn/fakekernel.so")
	rn_run past --random 20 --seed 1
	nfail=$(jq -r .workload.random_failed "$rn/past.json" 2>&1)
	expect_eq "random past: exit 1, failures of kind 'past ret' only, reconciled" \
		"$rn_rc $(jq -r '"\(.validation.failures > 0) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile)"' "$rn/past.json" 2>&1)" \
		"1 true past ret ok"
	nshrunk=$((nfail < 4 ? nfail : 4))
	expect_eq "random past: one FAILED line per failed layout, the first $nshrunk of $nfail shrunk to a replay" \
		"$(grep -c ' FAILED (past ret): folioscope run shmem-read ' "$rn/past.err") $(grep -c ' shrunk in [0-9]* trials; replay: folioscope run shmem-read ' "$rn/past.err")" \
		"$nfail $nshrunk"
	expect_eq "random past: the report keeps the replays the run printed" \
		"$(jq -r '.validation.replays[].command' "$rn/past.json" 2>&1)" \
		"$(grep ' shrunk in [0-9]* trials; replay: ' "$rn/past.err" | sed 's/.*; replay: //')"
	# The first failed layout: as drawn, and shrunk.
	drawn=$(rn_cmd "$(grep -m1 ' FAILED (past ret): ' "$rn/past.err")")
	shrunk=$(rn_cmd "$(grep -m1 ' replay: ' "$rn/past.err")")
	idx=$(grep -m1 ' FAILED (past ret): ' "$rn/past.err" | sed -E 's/.*random layout ([0-9]+) .*/\1/')
	expect_eq "random past: the failed layout is the one drawn as layout $idx" \
		"$drawn" "$(rn_cmd "$(rn_layouts past | grep " random layout $idx: ")")"
	expect_match "random past: its failed checks name it (plan=random-$idx)" \
		"$(jq -r '.validation.cases[0].layout' "$rn/past.json")" "^huge=[a-z_]+ file=[a-z]+ size=[0-9]+ plan=random-$idx syscall="
	# opt NAME OPTIONS: the value of --NAME in OPTIONS (0 if absent).
	opt() { awk -v k="--$1" '{ for (i = 1; i < NF; i++) if ($i == k) v = $(i + 1) } END { print v + 0 }' <<<"$2"; }
	expect_eq "random past: shrunk to a smaller layout (size, bs, readers, iovecs no larger, size or bs smaller)" \
		"$(awk -v a="$(opt size "$drawn") $(opt bs "$drawn") $(opt readers "$drawn") $(opt iovecs "$drawn")" \
			-v b="$(opt size "$shrunk") $(opt bs "$shrunk") $(opt readers "$shrunk") $(opt iovecs "$shrunk")" \
			'BEGIN { split(a, x, " "); split(b, y, " ");
				print (y[1] <= x[1] && y[2] <= x[2] && y[3] <= x[3] && y[4] <= x[4] && (y[1] < x[1] || y[2] < x[2])) }')" 1
	# shellcheck disable=SC2086
	rn_run replay-past $shrunk
	expect_eq "random past: the replay command fails the same way, one layout" \
		"$rn_rc $(jq -r '"\(.workload.mode) \([.validation.cases[].kind] | unique | join(",")) \(.workload.reconcile)"' "$rn/replay-past.json" 2>&1)" \
		"1 custom past ret ok"
	RN_ENV=()
	# shellcheck disable=SC2086
	rn_run replay-nobug $shrunk
	expect_eq "random past: the shrunk layout passes without the bug" \
		"$rn_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile)"' "$rn/replay-nobug.json" 2>&1)" \
		"0 0 ok"

	# dedupe: a destination at another in-page offset than its source
	# gets the source cloned onto it first ("clone"): a false SAME.
	if ! command -v mkfs.xfs >/dev/null; then
		skip "random dedupe: shrinking a fake bug" "mkfs.xfs not installed (tests/deps.sh)"
	else
		# rn_dd NAME BUG ARGS...: run dedupe under fake BUG ("" none).
		rn_dd() {
			local name=$1 bug=$2
			shift 2
			FS_FAKE_DEDUPE=$bug LD_PRELOAD=$rn/fakekernel.so timeout 300 \
				"$dyn" run dedupe "$@" -j "$rn/$name.json" \
				>"$rn/$name.txt" 2>"$rn/$name.err"
			rn_rc=$?
		}
		rn_dd dd-clone clone --fs xfs --random 4 --seed 7
		expect_eq "random dedupe clone: exit 1, false SAMEs with data changed, reconciled" \
			"$rn_rc $(jq -r '"\([.validation.cases[].kind] | unique | join(",")) \(.workload.random_failed > 0) \(.workload.reconcile)"' "$rn/dd-clone.json" 2>&1)" \
			"1 data changed,wrong answer true ok"
		ddrawn=$(grep -m1 ' FAILED (wrong answer): ' "$rn/dd-clone.err" | sed -E 's/.*folioscope run dedupe //')
		ddshrunk=$(grep -m1 ' replay: ' "$rn/dd-clone.err" | sed -E 's/.*folioscope run dedupe //')
		expect_eq "random dedupe clone: shrunk to a shorter range, no more ranges or destinations" \
			"$(awk -v a="$(opt range "$ddrawn") $(opt count "$ddrawn") $(opt dests "$ddrawn")" \
				-v b="$(opt range "$ddshrunk") $(opt count "$ddshrunk") $(opt dests "$ddshrunk")" \
				'BEGIN { split(a, x, " "); split(b, y, " "); print (y[1] > 0 && y[1] < x[1] && y[2] <= x[2] && y[3] <= x[3]) }')" 1
		# shellcheck disable=SC2086
		rn_dd dd-replay clone $ddshrunk
		expect_eq "random dedupe clone: the replay command fails the same way, one layout" \
			"$rn_rc $(jq -r '"\(.workload.mode) \(.validation.cases[0].kind) \(.workload.cases)"' "$rn/dd-replay.json" 2>&1)" \
			"1 custom wrong answer 1"
		# shellcheck disable=SC2086
		rn_dd dd-nobug "" $ddshrunk
		expect_eq "random dedupe clone: the shrunk layout passes without the bug" \
			"$rn_rc $(jq -r '"\(.validation.failures) \(.workload.reconcile)"' "$rn/dd-nobug.json" 2>&1)" \
			"0 0 ok"
	fi
fi

# Usage errors: --random draws its own layouts.
for bad_args in "--random 2 --matrix" "--random 2 --bs 4096" "--seed 3" "--random 0" "--random 257" "--random 2 --seed x" "--random 2 --stop-after 1" "--random 2 --inject-wrong-expectation"; do
	# shellcheck disable=SC2086
	"$FS" run shmem-read $bad_args >"$rn/usage.out" 2>&1
	expect_eq "random: 'run shmem-read $bad_args' is a usage error (exit 2)" "$?" 2
done
rm -rf "$rn"
