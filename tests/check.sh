#!/usr/bin/env bash
# All tests: unit (cmocka, and the harness's self-test), host (BPF load +
# doctor + bad input), VM (real attach paths on Debian's 6.1 cloud kernel,
# the fast ones on its 6.12 too). Last line is the summary CI reads:
# "N passed, N failed, N skipped"; the exit status is non-zero if anything
# failed.
#
#   tests/check.sh [all|novm|unit|host|vm]   a part (default all)
#   tests/check.sh novm-quick                unit + host without the
#                                            suites a sanitizer build
#                                            learns nothing more from
#                                            (CI's SAN tier)
#   tests/check.sh vm-full                   the VM part with --accel,
#                                            trace, progress and compare on
#                                            the further kernels too, and
#                                            the make-kernel suites, built
#                                            if missing (vm:shinline:
#                                            shmem-lookup-inline and
#                                            shmem-lookup-inline-
#                                            addressable)
#   tests/check.sh host:faults               one suite alone (KIND:SUITE,
#                                            tests/KIND/SUITE.sh)
#
# Every cmocka binary and every suite runs in a process of its own under a
# timeout (tests/harness/run.sh): one that crashes, exits early, is killed
# or hangs is a failure named after it, and the rest still runs. Timeouts
# (seconds): CHECK_TIMEOUT per binary (300), CHECK_HOST_TIMEOUT and
# CHECK_VM_TIMEOUT per suite (1800, 7200).
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
# BUILD: the build dir (make SAN=1 uses build/san); novm = unit + host.
BUILD=${BUILD:-build}
want() { [ "$what" == all ] || [ "$what" == "$1" ] ||
	{ [[ "$what" == novm* ]] && [ "$1" != vm ]; } ||
	{ [ "$what" == vm-full ] && [ "$1" == vm ]; }; }
# The full VM tier builds the `make kernel` kernels its suites boot.
if [ "$what" == vm-full ]; then export FS_KERNEL_BUILD=1; fi
. tests/lib.sh
. tests/harness/run.sh
# The suites run in processes of their own: what they read from here.
CHECK_FAILURES=$LOGDIR/failures
export BUILD FS LOGDIR CHECK_FAILURES
rm -f "$LOGDIR/suite-times" "$LOGDIR"/vm-*/suite-times "$CHECK_FAILURES"
host_suites=(checks export grafana live syscalls events docs peers badinput signals signals-attach signals-export signals-vm hostile-dir valgrind killns faults fakes ktap validate random ops kfacts store-lean bench profile install deb dwarf)
# Not in novm-quick: SIGKILL leaves a sanitizer no exit to check, and
# strace's holds turn LeakSanitizer off; under ASan they only take longer
# (3.5 of its 10 minutes). make check SAN=1 runs them.
host_quick_out=(killns signals-attach)
vm_suites=(checks accel fetch validation killns compare peers filters events kfacts store-lean buftmpfs inflight shinflight dwarf dwarfbuilt splice)
# Only in the full VM tier: shinline builds and boots a test kernel of
# its own; random runs 256 random layouts of three seeds (15 minutes),
# ops 2000 operations of four sequences.
vm_full_suites=(shinline random ops)
# The suites that boot `make kernel` builds: vm-full runs them on the 6.12
# series as well.
vm_kernel_suites=(dwarfbuilt shinline)
if [[ "$what" == *:* ]]; then
	kind=${what%%:*}
	suite=${what#*:}
	if [[ ! "$kind" =~ ^(host|vm)$ ]] || [ ! -f "tests/$kind/$suite.sh" ] ||
		[[ "$suite" == *-guest ]]; then
		echo "check.sh: no suite '$what' (want host:SUITE or vm:SUITE, tests/KIND/SUITE.sh)" >&2
		exit 2
	fi
elif [[ ! "$what" =~ ^(all|novm|novm-quick|unit|host|vm|vm-full)$ ]]; then
	echo "check.sh: unknown part '$what' (want all, novm, novm-quick, unit, host, vm, vm-full or KIND:SUITE)" >&2
	exit 2
fi
# This run's own TMPDIR: workloads' images, mounts and temp dirs land here,
# which is all leak_state looks at.
check_tmp=$(mktemp -d /tmp/fs-check.XXXXXX)
chmod 755 "$check_tmp"
export TMPDIR=$check_tmp
trap 'rm -rf "$check_tmp"' EXIT
trap check_on_signal INT TERM HUP
[ -n "${SAN:-}" ] && rm -f "$LOGDIR"/san.*
# Every guest kernel death a vm meets, even one it boots past, is a line
# here (src/vm/vm.c) and a failure below: a flaky guest is not hidden.
export FOLIOSCOPE_VM_DEATH_LOG=$LOGDIR/vm-deaths
rm -f "$FOLIOSCOPE_VM_DEATH_LOG"

# suites KIND NAME...: tests/KIND/NAME.sh each, until one is interrupted.
suites() {
	local kind=$1 s limit
	shift
	limit=$([ "$kind" == vm ] && echo "$CHECK_VM_TIMEOUT" || echo "$CHECK_HOST_TIMEOUT")
	for s in "$@"; do
		[ -n "$check_interrupted" ] && return
		run_suite "${CHECK_TAG:-}$kind:$s" "tests/$kind/$s.sh" "$limit"
	done
}

if [[ "$what" == *:* ]]; then
	echo "== $what"
	suites "$kind" "$suite"
fi
if want unit; then
	echo "== unit"
	for t in "$BUILD"/tests/test_*; do
		[ -n "$check_interrupted" ] || run_cmocka "$t"
	done
	# Not inside the self-test's own run of this script.
	[ -n "$check_interrupted" ] || [ -n "${CHECK_SELFTEST_NESTED:-}" ] ||
		run_suite harness:selftest tests/harness/selftest.sh "$CHECK_HOST_TIMEOUT"
fi
if want host; then
	echo "== host ($(uname -r))"
	for t in "$BUILD"/host-tests/test_*; do
		[ -n "$check_interrupted" ] || run_cmocka "$t"
	done
	run_host=()
	for s in "${host_suites[@]}"; do
		if [ "$what" == novm-quick ] && [[ " ${host_quick_out[*]} " == *" $s "* ]]; then
			skip "host:$s" "not in the quick tier (tests/check.sh novm runs it)"
		else
			run_host+=("$s")
		fi
	done
	suites host "${run_host[@]}"
fi
if want vm; then
	echo "== vm"
	suites vm "${vm_suites[@]}"
	if [ "$what" == vm-full ]; then suites vm "${vm_full_suites[@]}"; fi
	# The suites that boot `make kernel` builds, on a 6.12 build too
	# (built if missing): names tagged "[k6.12] ", logs in
	# $LOGDIR/vm-k6.12/.
	if [ "$what" == vm-full ] && [ -z "$check_interrupted" ]; then
		echo "== vm (test kernel 6.12)"
		mkdir -p "$LOGDIR/vm-k6.12"
		FS_KERNEL_SERIES=6.12 FS_VM_KERNEL= CHECK_TAG="[k6.12] " \
			LOGDIR=$LOGDIR/vm-k6.12 suites vm "${vm_kernel_suites[@]}"
	fi
	# Debian's other kernels (VM_DEBIAN_MORE, default 6.12; empty: none),
	# each in a pass of its own: names tagged "[6.12] ", logs in
	# $LOGDIR/vm-6.12/. In make check the attach plan, one reconciled run
	# per target and mechanism and the validation matrix (checks.sh with
	# FS_VM_ATTACH_ONLY); vm-full adds --accel, trace, progress and compare.
	more=(checks validation)
	attach_only=1
	if [ "$what" == vm-full ]; then
		more+=(accel compare ops)
		attach_only=
	fi
	for d in ${VM_DEBIAN_MORE-6.12}; do
		[ -n "$check_interrupted" ] && break
		echo "== vm (Debian $d)"
		vm_start=$SECONDS
		mkdir -p "$LOGDIR/vm-$d"
		FS_VM_KERNEL= FS_VM_MODULES= FS_VM_DEBIAN=$d FS_VM_ATTACH_ONLY=$attach_only \
			CHECK_TAG="[$d] " LOGDIR=$LOGDIR/vm-$d suites vm "${more[@]}"
		echo "  Debian $d: $((SECONDS - vm_start)) s"
	done
fi
if want vm || [[ "$what" == vm:* ]]; then
	if [ -s "$FOLIOSCOPE_VM_DEATH_LOG" ]; then
		while read -r line; do bad "vm: a guest's kernel died" "$line"; done <"$FOLIOSCOPE_VM_DEATH_LOG"
	else
		ok "vm: no guest's kernel died"
	fi
fi
# make SAN=1: every ASan/UBSan report is a file (log_path) and a failure.
if [ -n "${SAN:-}" ]; then
	if ls "$LOGDIR"/san.* >/dev/null 2>&1; then
		for f in "$LOGDIR"/san.*; do bad "sanitizer report" "$f: $(grep -m1 -E 'ERROR|runtime error' "$f")"; done
	else
		ok "no ASan/UBSan reports"
	fi
fi
[ -n "$check_interrupted" ] && bad "check.sh" "interrupted"
summary
