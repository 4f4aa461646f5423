# Signals in the export phase, sourced by tests/check.sh: SIGINT, SIGTERM
# and SIGKILL to `report -o` and `run -j` while their report is written.
# An export writes DIR/.FILE.folioscope-PID.XXXXXX and renames it to
# FILE: whatever the signal, FILE is the old or the new complete report,
# and a temp file a killed export leaves is removed by the next export of
# FILE, which says so. Run as root.
# shellcheck shell=bash

scratch_setup fs-signals-export
se_good=$SCRATCH/good.json
cp tests/fixtures/export-base.json "$se_good"
# The export's rename is held 3 s by strace, so the signal lands while
# the temp file (DIR/.FILE.folioscope-PID.XXXXXX, PID the writer's) is
# complete and not yet renamed. INT/TERM are held until the rename: the
# file is the new one, no temp left, then death by the signal. KILL: the
# old file and the temp; the next export of FILE removes the temp, says
# so, and writes the new file. (env: a background job has SIGINT ignored.)
se_exp=$SCRATCH/exp
mkdir "$se_exp"
# in_export SIG OUT CMD...: CMD with its renames delayed, SIG sent to it
# once OUT's temp file exists; the exit status is CMD's.
in_export() {
	local sig=$1 out=$2 pid tmp
	shift 2
	env --default-signal=INT "$NOLSAN" strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_enter=3000000 "$@" >/dev/null 2>"$se_exp/err" &
	pid=$!
	wait_until 60 compgen -G "$(dirname "$out")/.$(basename "$out").folioscope-*" >/dev/null
	tmp=$(compgen -G "$(dirname "$out")/.$(basename "$out").folioscope-*")
	tmp=${tmp##*.folioscope-}
	kill -"$sig" "${tmp%.*}"
	{ wait "$pid"; } 2>/dev/null
}
se_exp_tmp() { compgen -G "$se_exp/.$1.folioscope-*"; }
if ! strace_delays rename; then
	skip "signals: export phase" "needs strace with syscall delay injection"
else
	"$FS" report --format html -o "$se_exp/old.html" "$se_good"
	"$FS" report --format html -o "$se_exp/new.html" "$se_good" tests/fixtures/export-new.json
	for sig in INT TERM KILL; do
		name="signals: report -o: SIG$sig in the export"
		cp "$se_exp/old.html" "$se_exp/out.html"
		in_export "$sig" "$se_exp/out.html" "$FS" report --format html -o "$se_exp/out.html" \
			"$se_good" tests/fixtures/export-new.json
		expect_eq "$name: dies of it" "$?" "$(sig_code "$sig")"
		if [ "$sig" != KILL ]; then
			expect_eq "$name: the new complete file, no temp left" \
				"$(cmp -s "$se_exp/new.html" "$se_exp/out.html" && echo new) $(se_exp_tmp out.html)" "new "
			continue
		fi
		se_left=$(se_exp_tmp out.html)
		expect_eq "$name: the old complete file and its temp" \
			"$(cmp -s "$se_exp/old.html" "$se_exp/out.html" && echo old) $(grep -c . <<<"$se_left")" "old 1"
		se_err=$("$FS" report --format html -o "$se_exp/out.html" "$se_good" tests/fixtures/export-new.json 2>&1)
		expect_eq "$name: the next export removes the temp, says so in one line" \
			"$se_err" "folioscope: removed '$se_left', left behind by an export that was killed"
		expect_eq "$name: the next export: the new file, no temp left" \
			"$(cmp -s "$se_exp/new.html" "$se_exp/out.html" && echo new) $(se_exp_tmp out.html)" "new "
	done
	# run -j: the same through the deferred signal of run (SIGINT) and
	# after SIGKILL, where the next run removes both its temp dir and
	# the -j temp.
	before=$(leak_state)
	cp "$se_good" "$se_exp/run.json"
	in_export INT "$se_exp/run.json" "$FS" run shmem-read --size 1M -j "$se_exp/run.json"
	expect_eq "signals: run -j: SIGINT in the export: dies of it" "$?" 130
	expect_eq "signals: run -j: SIGINT in the export: the new complete file, no temp, nothing left" \
		"$(jq -r .host.kernel "$se_exp/run.json") $(se_exp_tmp run.json) $(leak_state)" "$(uname -r)  $before"
	cp "$se_good" "$se_exp/run.json"
	in_export KILL "$se_exp/run.json" "$FS" run shmem-read --size 1M -j "$se_exp/run.json"
	expect_eq "signals: run -j: SIGKILL in the export: the old file" \
		"$(cmp -s "$se_good" "$se_exp/run.json" && echo old)" old
	se_left=$(se_exp_tmp run.json)
	se_err=$("$FS" run shmem-read --size 1M -j "$se_exp/run.json" 2>&1 >/dev/null)
	expect_match "signals: run -j: SIGKILL in the export: the next run removes the temp" \
		"$se_err" "^folioscope: removed '$se_left', left behind by an export that was killed$"
	expect_match "signals: run -j: SIGKILL in the export: the next run removes the workload's dir" \
		"$se_err" "^folioscope: run: removed '$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}' \(0 mounts\), left behind by a run that was killed$"
	expect_eq "signals: run -j: SIGKILL in the export: after the next run, no temp, nothing left" \
		"$(se_exp_tmp run.json) $(leak_state)" " $before"
fi
