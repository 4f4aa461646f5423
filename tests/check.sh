#!/usr/bin/env bash
# All tests: unit (cmocka), host (BPF load + doctor + bad input), VM
# (real attach paths on Debian's 6.1 cloud kernel). Last line is the
# summary CI reads: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
. tests/lib.sh

# cmocka binaries: count their own test results.
run_cmocka() {
	local bin=$1 out n
	out=$("$bin" 2>&1)
	echo "$out" | grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|skipped:' | sed "s|^|  $(basename "$bin"): |"
	n=$(grep -cE '^\[ +OK +\]' <<<"$out")
	PASS=$((PASS + n))
	n=$(grep -cE '^\[ +FAILED +\] [a-z_]' <<<"$out")
	FAIL=$((FAIL + n))
	if grep -q '^skipped:' <<<"$out"; then SKIP=$((SKIP + 1)); fi
	if ! grep -qE '^\[ +(OK|FAILED) +\]|^skipped:' <<<"$out"; then
		bad "$(basename "$bin")" "ran no test: $out"
	fi
}

if [ "$what" == all ] || [ "$what" == unit ]; then
	echo "== unit"
	for t in build/tests/test_*; do run_cmocka "$t"; done
fi
if [ "$what" == all ] || [ "$what" == host ]; then
	echo "== host ($(uname -r))"
	for t in build/host-tests/test_*; do run_cmocka "$t"; done
	. tests/host/checks.sh
	. tests/host/export.sh
	. tests/host/live.sh
fi
if [ "$what" == all ] || [ "$what" == vm ]; then
	echo "== vm"
	. tests/vm/checks.sh
	. tests/vm/validation.sh
fi
summary
