# How tests/check.sh runs what it counts: cmocka binaries and the bash
# suites, each in its own process under a timeout, so that a crash, an
# exit or a hang is a failure with a name and the rest still runs.
# Sourced after tests/lib.sh (ok/bad/skip, PASS/FAIL/SKIP).
# shellcheck shell=bash

# Per cmocka binary, per host suite, per VM suite (seconds). Generous:
# only a hang should reach them.
CHECK_TIMEOUT=${CHECK_TIMEOUT:-300}
CHECK_HOST_TIMEOUT=${CHECK_HOST_TIMEOUT:-1800}
CHECK_VM_TIMEOUT=${CHECK_VM_TIMEOUT:-7200}
# After the timeout's SIGTERM (suites clean up on it), SIGKILL this later.
CHECK_KILL_AFTER=${CHECK_KILL_AFTER:-30}

# Set by the INT/TERM/HUP trap tests/check.sh installs: the job running
# now is stopped too (timeout runs it in its own process group, which a
# terminal's ^C does not reach).
check_child=
check_interrupted=
check_on_signal() {
	check_interrupted=1
	[ -n "$check_child" ] && kill -TERM "$check_child" 2>/dev/null
}

# check_wait: wait for $check_child, even across a trapped signal;
# its status in check_rc.
check_wait() {
	wait "$check_child"
	check_rc=$?
	# A trapped signal ends 'wait' early; the job, told to stop, still
	# has to be reaped for its real status.
	while [ -n "$check_interrupted" ] && kill -0 "$check_child" 2>/dev/null; do
		wait "$check_child"
		check_rc=$?
	done
	check_child=
}

# check_reason RC LIMIT ELAPSED: why a job under 'timeout -k' ended badly.
# timeout exits 124 when its SIGTERM ended the job, 137 when it had to
# send SIGKILL as well; a job killed by a signal has 128 + it.
check_reason() {
	local rc=$1 limit=$2 elapsed=$3
	if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$elapsed" -ge "$limit" ]; }; then
		echo "timed out after ${limit}s"
	elif [ "$rc" -gt 128 ]; then
		echo "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
	else
		echo "exit $rc"
	fi
}

# run_cmocka BIN: each test counted once, from cmocka's per-test lines
# between "Running N test(s)." and "N test(s) run." (the summary after
# them lists failed and skipped tests again). The binary is a failure of
# its own when it exits with anything but its failed-test count, dies of
# a signal, or outlives CHECK_TIMEOUT; one that runs no test (and does
# not print "skipped: why") fails too.
run_cmocka() {
	local bin=$1 name out t0 counts p f s open running reason
	name=$(basename "$bin")
	out=$(mktemp "${TMPDIR:-/tmp}/cmocka.XXXXXX")
	t0=$SECONDS
	timeout -k "$CHECK_KILL_AFTER" "$CHECK_TIMEOUT" "$bin" >"$out" 2>&1 </dev/null &
	check_child=$!
	check_wait
	grep -E '^\[ +(OK|FAILED|SKIPPED|ERROR) +\] [^-]|^skipped:' "$out" | sed "s|^|  $name: |"
	# "P F S OPEN RUNNING": results, whether a run section is still
	# open at the end, and the test that was running then.
	counts=$(awk '
		/^\[=+\] (.*: )?Running [0-9]+ test\(s\)\./ { open = 1; cur = ""; next }
		/^\[=+\] (.*: )?[0-9]+ test\(s\) run\./ { open = 0; next }
		/^skipped:/ && !open { s++; next }
		!open { next }
		/^\[ RUN +\] / { cur = $0; sub(/^\[ RUN +\] /, "", cur); next }
		/^\[ +OK +\] / { p++; cur = ""; next }
		/^\[ +SKIPPED +\] / { s++; cur = ""; next }
		/^\[ +FAILED +\] / { f++; cur = ""; next }
		/^\[ +ERROR +\] / && !/^\[ +ERROR +\] --- / { f++; cur = ""; next }
		END { printf "%d %d %d %d %s\n", p, f, s, open, cur == "" ? "-" : cur }' "$out")
	read -r p f s open running <<<"$counts"
	PASS=$((PASS + p))
	FAIL=$((FAIL + f))
	SKIP=$((SKIP + s))
	if [ "$check_rc" -ne 0 ] && { [ "$check_rc" -ne "$f" ] || [ "$open" -ne 0 ]; }; then
		reason=$(check_reason "$check_rc" "$CHECK_TIMEOUT" $((SECONDS - t0)))
		[ "$running" != - ] && reason+=" (in $running)"
		bad "$name" "$reason; output: $(tail -n 3 "$out" | tr '\n' ' ')"
	elif [ "$open" -ne 0 ]; then
		bad "$name" "exit 0 with its tests unfinished (in $running)"
	elif [ $((p + f + s)) -eq 0 ]; then
		bad "$name" "ran no test: $(head -c 300 "$out")"
	fi
	rm -f "$out"
}

# run_suite KIND:NAME FILE LIMIT: source FILE (with tests/lib.sh) in a
# bash of its own (set -u and pipefail, as check.sh) under a LIMIT-second
# timeout. Its ok/bad/skip go to a
# tally file (CHECK_TALLY) as they happen, so they count even if it dies
# later; it is a failure of its own ("suite KIND:NAME") unless it reached
# its end: a crash, an exit, a kill or a timeout.
run_suite() {
	local name=$1 file=$2 limit=$3 tally t0 reason
	tally=$(mktemp "${TMPDIR:-/tmp}/tally.XXXXXX")
	t0=$SECONDS
	CHECK_TALLY=$tally timeout -k "$CHECK_KILL_AFTER" "$limit" \
		bash -c 'set -uo pipefail; . tests/lib.sh; . "$0"; echo end >>"$CHECK_TALLY"' "$file" </dev/null &
	check_child=$!
	check_wait
	PASS=$((PASS + $(grep -cx P "$tally")))
	FAIL=$((FAIL + $(grep -cx F "$tally")))
	SKIP=$((SKIP + $(grep -cx S "$tally")))
	if ! grep -qx end "$tally"; then
		if [ "$check_rc" -eq 0 ]; then
			reason="exit 0 before its end"
		else
			reason=$(check_reason "$check_rc" "$limit" $((SECONDS - t0)))
			[ "$check_rc" -lt 124 ] && reason+=" before its end"
		fi
		bad "suite $name" "$reason"
	elif [ "$check_rc" -ne 0 ]; then
		bad "suite $name" "$(check_reason "$check_rc" "$limit" $((SECONDS - t0))) after its end"
	fi
	rm -f "$tally"
	# Where the time goes, for keeping the CI tier short.
	[ -n "${LOGDIR:-}" ] && echo "$((SECONDS - t0)) $name" >>"$LOGDIR/suite-times"
}
