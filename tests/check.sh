#!/usr/bin/env bash
# All tests: unit (cmocka), host (BPF load + doctor + bad input), VM
# (real attach paths on Debian's 6.1 cloud kernel, the fast ones on its
# 6.12 too). Last line is the summary CI reads: "N passed, N failed".
# "vm-full" is the VM part with --accel, trace, progress and compare on
# the further kernels ($VM_DEBIAN_MORE) as well.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
# BUILD: the build dir (make SAN=1 uses build/san); novm = unit + host.
BUILD=${BUILD:-build}
want() { [ "$what" == all ] || [ "$what" == "$1" ] ||
	{ [ "$what" == novm ] && [ "$1" != vm ]; } ||
	{ [ "$what" == vm-full ] && [ "$1" == vm ]; }; }
. tests/lib.sh
# This run's own TMPDIR: workloads' images, mounts and temp dirs land here,
# which is all leak_state looks at.
check_tmp=$(mktemp -d /tmp/fs-check.XXXXXX)
chmod 755 "$check_tmp"
export TMPDIR=$check_tmp
trap 'rm -rf "$check_tmp"' EXIT
[ -n "${SAN:-}" ] && rm -f "$LOGDIR"/san.*

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

if want unit; then
	echo "== unit"
	for t in "$BUILD"/tests/test_*; do run_cmocka "$t"; done
fi
if want host; then
	echo "== host ($(uname -r))"
	for t in "$BUILD"/host-tests/test_*; do run_cmocka "$t"; done
	. tests/host/checks.sh
	. tests/host/export.sh
	. tests/host/live.sh
	. tests/host/peers.sh
	. tests/host/reliability.sh
	. tests/host/faults.sh
	. tests/host/kfacts.sh
	. tests/host/perf.sh
	. tests/host/bench.sh
fi
if want vm; then
	echo "== vm"
	. tests/vm/checks.sh
	. tests/vm/validation.sh
	. tests/vm/compare.sh
	. tests/vm/peers.sh
	. tests/vm/filters.sh
	. tests/vm/kfacts.sh
	. tests/vm/perf.sh
	# Debian's other kernels (VM_DEBIAN_MORE, default 6.12; empty: none),
	# each in a pass of its own: names tagged "[6.12] ", logs in
	# $LOGDIR/vm-6.12/. In make check the attach plan, one reconciled run
	# per target and mechanism and the validation matrix; vm-full adds
	# --accel, trace, progress and compare.
	vm_saved=("${FS_VM_KERNEL:-}" "${FS_VM_MODULES:-}" "$LOGDIR")
	FS_VM_KERNEL= FS_VM_MODULES=
	[ "$what" == vm-full ] || FS_VM_ATTACH_ONLY=1
	for FS_VM_DEBIAN in ${VM_DEBIAN_MORE-6.12}; do
		echo "== vm (Debian $FS_VM_DEBIAN)"
		vm_start=$SECONDS
		CHECK_TAG="[$FS_VM_DEBIAN] "
		LOGDIR=${vm_saved[2]}/vm-$FS_VM_DEBIAN
		mkdir -p "$LOGDIR"
		. tests/vm/checks.sh
		. tests/vm/validation.sh
		[ "$what" == vm-full ] && . tests/vm/compare.sh
		echo "  Debian $FS_VM_DEBIAN: $((SECONDS - vm_start)) s"
	done
	FS_VM_KERNEL=${vm_saved[0]} FS_VM_MODULES=${vm_saved[1]}
	LOGDIR=${vm_saved[2]} CHECK_TAG= FS_VM_DEBIAN= FS_VM_ATTACH_ONLY=
fi
# make SAN=1: every ASan/UBSan report is a file (log_path) and a failure.
if [ -n "${SAN:-}" ]; then
	if ls "$LOGDIR"/san.* >/dev/null 2>&1; then
		for f in "$LOGDIR"/san.*; do bad "sanitizer report" "$f: $(grep -m1 -E 'ERROR|runtime error' "$f")"; done
	else
		ok "no ASan/UBSan reports"
	fi
fi
summary
