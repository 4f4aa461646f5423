# The harness's own test (sourced by tests/check.sh's unit part): fake
# cmocka binaries and fake suites that pass, fail, crash, exit early and
# hang, run through tests/harness/run.sh (HARNESS_RUN: another runner to
# judge) in a bash of their own; the counts and the failures it names
# must be exactly what each fake did.
# shellcheck shell=bash
st=$(mktemp -d "${TMPDIR:-/tmp}/fs-selftest.XXXXXX")
st_run=${HARNESS_RUN:-$PWD/tests/harness/run.sh}

# st_bin NAME BODY: a fake test binary, a sh script.
st_bin() {
	mkdir -p "$st/build/tests"
	printf '#!/bin/sh\n%s\n' "$2" >"$st/build/tests/$1"
	chmod +x "$st/build/tests/$1"
}
# st_suite NAME BODY: a fake suite, tests/KIND/NAME.sh style.
st_suite() { printf '%s\n' "$2" >"$st/$1.sh"; }

# st_harness CMDS: CMDS (run_cmocka, run_suite calls) in a fresh bash
# (set -u and pipefail, as check.sh) with its own counts and no tally of
# this suite's, 1 s timeouts; prints what the harness printed, then its
# summary line and exit status.
st_harness() {
	env -u CHECK_TALLY CHECK_TIMEOUT=1 CHECK_KILL_AFTER=1 TMPDIR="$st" bash -c \
		'set -uo pipefail; . tests/lib.sh; . "$0"; PASS=0 FAIL=0 SKIP=0; eval "$1"; summary; echo "status $?"' \
		"$st_run" "$1" 2>&1
}
# st_expect NAME CMDS SUMMARY FAILS: SUMMARY is the summary line; FAILS
# the FAIL lines, exactly ('' for none), in order.
st_expect() {
	local out
	out=$(st_harness "$2")
	expect_eq "harness: $1: counts" "$(grep -E '^[0-9]+ passed' <<<"$out")" "$3"
	expect_eq "harness: $1: failures named" "$(grep '^FAIL ' <<<"$out" | sed -E 's/; output: .*//')" "$4"
	expect_eq "harness: $1: exit status" "$(grep '^status ' <<<"$out")" \
		"status $([ "${3#*passed, }" == "0 failed${3#*failed}" ] && echo 0 || echo 1)"
}

st_head='echo "[==========] Running 2 test(s)."'
st_ok='echo "[ RUN      ] t_one"; echo "[       OK ] t_one"'
st_end='echo "[==========] 2 test(s) run."; echo "[  PASSED  ] 2 test(s)." >&2'

# ---- cmocka binaries ----
st_bin test_pass "$st_head; $st_ok
echo '[ RUN      ] t_two'; echo '[       OK ] t_two'; $st_end"
st_expect "binary that passes" "run_cmocka $st/build/tests/test_pass" \
	"2 passed, 0 failed, 0 skipped" ""

st_bin test_abort "$st_head; $st_ok
echo '[ RUN      ] t_two'; kill -ABRT \$\$"
st_expect "binary that passes one test, then aborts" "run_cmocka $st/build/tests/test_abort" \
	"1 passed, 1 failed, 0 skipped" "FAIL    test_abort: killed by SIGABRT (in t_two)"

st_bin test_exit1 "$st_head; $st_ok
echo '[ RUN      ] t_two'; echo '[       OK ] t_two'; $st_end; exit 1"
st_expect "binary that exits 1 after its OK lines" "run_cmocka $st/build/tests/test_exit1" \
	"2 passed, 1 failed, 0 skipped" "FAIL    test_exit1: exit 1"

# cmocka's output for a failed test: its line, then the summary lists it
# again (on stderr). One failure, and exit 1 is cmocka's failure count.
st_bin test_fail1 "$st_head; $st_ok
echo '[ RUN      ] t_two'; echo '[  ERROR   ] --- 0x1 != 0x2' >&2
echo '[   LINE   ] --- t.c:7: error: Failure!' >&2; echo '[  FAILED  ] t_two'
echo '[==========] 2 test(s) run.'; echo '[  PASSED  ] 1 test(s).' >&2
echo '[  FAILED  ] 1 test(s), listed below:' >&2; echo '[  FAILED  ] t_two' >&2
echo >&2; echo ' 1 FAILED TEST(S)' >&2; exit 1"
st_expect "binary with one failed test" "run_cmocka $st/build/tests/test_fail1" \
	"1 passed, 1 failed, 0 skipped" ""

st_bin test_hang "$st_head; $st_ok
echo '[ RUN      ] t_two'; exec sleep 1000"
st_expect "binary that hangs" "run_cmocka $st/build/tests/test_hang" \
	"1 passed, 1 failed, 0 skipped" "FAIL    test_hang: timed out after 1s (in t_two)"
# One that ignores the timeout's SIGTERM gets SIGKILL: still a timeout.
st_bin test_hang_term "trap '' TERM; $st_head; $st_ok
echo '[ RUN      ] t_two'; sleep 1000"
st_expect "binary that hangs and ignores SIGTERM" "run_cmocka $st/build/tests/test_hang_term" \
	"1 passed, 1 failed, 0 skipped" "FAIL    test_hang_term: timed out after 1s (in t_two)"

st_bin test_silent "exit 0"
st_expect "binary that prints nothing" "run_cmocka $st/build/tests/test_silent" \
	"0 passed, 1 failed, 0 skipped" "FAIL    test_silent: ran no test: "

st_bin test_skipped "echo 'skipped: needs root'"
st_expect "binary that skips itself" "run_cmocka $st/build/tests/test_skipped" \
	"0 passed, 0 failed, 1 skipped" ""

# A real cmocka binary: one test passes, one fails, one skips.
if command -v cc >/dev/null && [ -f /usr/include/cmocka.h ]; then
	cat >"$st/real.c" <<'C'
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
static void t_pass(void **s) { (void)s; }
static void t_fail(void **s) { (void)s; assert_int_equal(1, 2); }
static void t_skip(void **s) { (void)s; skip(); }
int main(void)
{
	const struct CMUnitTest t[] = { cmocka_unit_test(t_pass),
		cmocka_unit_test(t_fail), cmocka_unit_test(t_skip) };
	return cmocka_run_group_tests(t, NULL, NULL);
}
C
	if cc -o "$st/build/tests/test_real" "$st/real.c" -lcmocka 2>"$st/cc.err"; then
		st_expect "real cmocka binary: pass, fail, skip" "run_cmocka $st/build/tests/test_real" \
			"1 passed, 1 failed, 1 skipped" ""
	else
		bad "harness: real cmocka binary" "does not build: $(head -3 "$st/cc.err")"
	fi
else
	skip "harness: real cmocka binary" "needs cc and cmocka.h"
fi

# ---- suites ----
# Only the hanging suite needs the 1 s limit; the others end on their own,
# and get 60 s so that a loaded machine cannot turn them into timeouts.
st_suite good 'ok one; (ok "from a subshell"); skip three "why"; bad four "a failed check"'
st_expect "suite that ends" "run_suite fake:good $st/good.sh 60" \
	"2 passed, 1 failed, 1 skipped" "FAIL    four: a failed check"
st_suite exit3 'ok one; exit 3; ok never'
st_expect "suite that exits 3 midway" "run_suite fake:exit3 $st/exit3.sh 60" \
	"1 passed, 1 failed, 0 skipped" "FAIL    suite fake:exit3: exit 3 before its end"
st_suite exit0 'ok one; exit 0; ok never'
st_expect "suite that exits 0 midway" "run_suite fake:exit0 $st/exit0.sh 60" \
	"1 passed, 1 failed, 0 skipped" "FAIL    suite fake:exit0: exit 0 before its end"
st_suite killed 'ok one; kill -KILL $BASHPID; ok never'
st_expect "suite that is killed" "run_suite fake:killed $st/killed.sh 60" \
	"1 passed, 1 failed, 0 skipped" "FAIL    suite fake:killed: killed by SIGKILL"
st_suite hang 'ok one; sleep 1000; ok never'
st_expect "suite that hangs" "run_suite fake:hang $st/hang.sh 1" \
	"1 passed, 1 failed, 0 skipped" "FAIL    suite fake:hang: timed out after 1s"
# None of them stops the next.
st_expect "suites after failing ones still run" \
	"run_suite fake:exit3 $st/exit3.sh 60; run_suite fake:killed $st/killed.sh 60
	 run_suite fake:hang $st/hang.sh 1; run_suite fake:good $st/good.sh 60" \
	"5 passed, 4 failed, 1 skipped" "FAIL    suite fake:exit3: exit 3 before its end
FAIL    suite fake:killed: killed by SIGKILL
FAIL    suite fake:hang: timed out after 1s
FAIL    four: a failed check"

# ---- tests/check.sh itself, on the fake binaries ----
if [ -z "${HARNESS_RUN:-}" ]; then
	mkdir -p "$st/only-abort/tests"
	cp "$st/build/tests/test_pass" "$st/build/tests/test_abort" "$st/only-abort/tests/"
	# CHECK_SELFTEST_NESTED: not this self-test again inside. Not as a
	# sanitizer run (SAN), with logs of its own: the nested run must not
	# add its sanitizer check or remove the outer run's reports.
	out=$(env -u CHECK_TALLY -u SAN LOGDIR="$st/logs" BUILD="$st/only-abort" \
		CHECK_SELFTEST_NESTED=1 tests/check.sh unit 2>&1)
	rc=$?
	expect_eq "harness: check.sh unit: last line, exit status" "$(tail -n 1 <<<"$out") $rc" \
		"3 passed, 1 failed, 0 skipped 1"
	expect_match "harness: check.sh unit: the abort named" "$out" \
		'^FAIL    test_abort: killed by SIGABRT \(in t_two\)'
	out=$(tests/check.sh host:no-such-suite 2>&1)
	expect_eq "harness: check.sh host:no-such-suite refused" "$? $out" \
		"2 check.sh: no suite 'host:no-such-suite' (want host:SUITE or vm:SUITE, tests/KIND/SUITE.sh)"
fi
rm -rf "$st"
