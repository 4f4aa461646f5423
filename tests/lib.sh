# Shared by the shell test suites: counting, assertions, leak checks.
# shellcheck shell=bash
FS=${FS:-$PWD/build/folioscope}
PASS=${PASS:-0}
FAIL=${FAIL:-0}
SKIP=${SKIP:-0}
LOGDIR=${LOGDIR:-$PWD/build/test-logs}
mkdir -p "$LOGDIR"

# CHECK_TAG prefixes every name while a suite runs once more on another
# kernel ("[6.12] "), so its results stay apart from the first pass's.
ok() { PASS=$((PASS + 1)); printf 'ok      %s%s\n' "${CHECK_TAG:-}" "$1"; }
bad() { FAIL=$((FAIL + 1)); printf 'FAIL    %s%s: %s\n' "${CHECK_TAG:-}" "$1" "$2"; }
skip() { SKIP=$((SKIP + 1)); printf 'skip    %s%s: %s\n' "${CHECK_TAG:-}" "$1" "$2"; }

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi
}

# expect_match NAME TEXT REGEX
expect_match() {
	if grep -Eq -- "$3" <<<"$2"; then ok "$1"; else bad "$1" "'$3' not in: $(head -c 600 <<<"$2")"; fi
}

# State that must be identical before and after a failing command: the
# mounts and loop devices of files under $TMPDIR and folioscope's temp
# dirs there. tests/check.sh gives each run its own TMPDIR, so other
# folioscope runs on the same machine do not show up here.
leak_state() {
	local t=${TMPDIR:-/tmp}
	{ grep -hsF "$t/" /proc/mounts /sys/block/loop*/loop/backing_file
	  compgen -G "$t/folioscope-*"; } | sort
}

# expect_error NAME EXIT_CODE REGEX CMD...: exits with EXIT_CODE (or any
# non-zero with '!'), prints exactly one line on stderr matching REGEX,
# and leaves no mount, loop device or temp dir behind.
expect_error() {
	local name=$1 code=$2 re=$3 before after err rc
	shift 3
	before=$(leak_state)
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	after=$(leak_state)
	if [ "$code" == '!' ] && [ $rc -eq 0 ]; then
		bad "$name" "exit 0, want non-zero"; return
	elif [ "$code" != '!' ] && [ $rc -ne "$code" ]; then
		bad "$name" "exit $rc, want $code (stderr: $err)"; return
	fi
	if [ "$(grep -c . <<<"$err")" -ne 1 ]; then
		bad "$name" "want one stderr line, got: $err"; return
	fi
	if ! grep -Eq -- "$re" <<<"$err"; then
		bad "$name" "stderr '$err' does not match '$re'"; return
	fi
	if [ "$before" != "$after" ]; then
		bad "$name" "left behind: $(diff <(echo "$before") <(echo "$after") | tail -n +2)"; return
	fi
	ok "$name"
}

summary() {
	echo
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
}
