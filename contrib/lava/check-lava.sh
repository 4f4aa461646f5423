#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check-lava: contrib/lava's job under the real LAVA dispatcher on the
# 6.1 test kernel and on the dedupe-src-poff mutant, both built with
# contrib/lava/lava.fragment (a virtio disk and ext2 for LAVA's overlay);
# each run's cases held to folioscope's JSON (run-job.sh). Installs
# lava-dispatcher from Debian when lava-run is missing (about 250 packages).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if ! command -v lava-run >/dev/null; then
	echo "check-lava: installing lava-dispatcher (apt-get, about 250 packages)" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q lava-dispatcher >"${TMPDIR:-/tmp}/check-lava-apt.log" 2>&1
fi
build() { "$repo/tests/kernels/build.sh" -f "$here/lava.fragment" "$@" | tail -n 1; }
base=$(build -n lava-base)
mutant=$(build -d -n lava-mut-dedupe-src-poff "$repo/tests/kernels/mutants/dedupe-src-poff.patch")
for k in "$base" "$mutant"; do
	[ -f "$k" ] || { echo "check-lava: kernel not built: '$k'" >&2; exit 1; }
done
st=0
"$here/run-job.sh" "$base" lava-base || st=1
"$here/run-job.sh" "$mutant" lava-mut-dedupe-src-poff --expect-fail || st=1
echo "check-lava: $([ $st = 0 ] && echo passed || echo FAILED)"
exit $st
