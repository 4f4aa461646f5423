#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Runs contrib/lava's job with the real LAVA dispatcher (lava-run) on this
# host, offline, and holds its per-case results to folioscope's JSON:
#
#   contrib/lava/run-job.sh BZIMAGE NAME [--expect-fail] [FOLIOSCOPE-ARGS...]
#
# BZIMAGE: a test kernel built with contrib/lava/lava.fragment
# (tests/kernels/build.sh -f contrib/lava/lava.fragment ...). ARGS default
# to "run dedupe --matrix". Needs root: lava-dispatcher from Debian 12
# (apt-get install lava-dispatcher, about 250 packages) and lava-server's
# device-type templates (its .deb, unpacked, not installed). Work and logs
# in build/lava/NAME/. libguestfs (the overlay disk) runs its appliance
# under TCG: nested KVM breaks it here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
kernel=$(readlink -f "$1") name=$2
shift 2
expect=
[ "${1:-}" != --expect-fail ] || { expect=--expect-fail; shift; }
[ $# -gt 0 ] || set -- run dedupe --matrix
args="$*"
command -v lava-run >/dev/null || { echo "run-job: no lava-run: apt-get install lava-dispatcher" >&2; exit 2; }
top=$repo/build/lava
work=$top/$name
rm -rf "$work"
mkdir -p "$work/out"

types=$top/lava-server/usr/share/lava-server/device-types
if [ ! -d "$types" ]; then
	(cd "$top" && apt-get download lava-server >/dev/null) &&
		dpkg-deb -x "$top"/lava-server_*.deb "$top/lava-server"
fi
"$here/render-device.py" "$types" "$here/qemu-tcg.jinja2" >"$work/device.yaml"
"$here/make-ramdisk.sh" "$repo/build/folioscope" "$work/ramdisk.cpio.gz"

# The test definition as it is in this tree, committed or not.
git init -q "$work/testdef"
mkdir -p "$work/testdef/contrib/lava"
cp "$here/folioscope.yaml" "$here/ktap-to-lava.sh" "$work/testdef/contrib/lava/"
git -C "$work/testdef" add -A
git -C "$work/testdef" -c user.name=check-lava -c user.email=check-lava@localhost \
	commit -q -m "contrib/lava as tested"
rev=$(git -C "$work/testdef" rev-parse HEAD)

sed -e "s|@KERNEL@|$kernel|" -e "s|@RAMDISK@|$work/ramdisk.cpio.gz|" \
	-e "s|@REPO@|$work/testdef|" -e "s|@REVISION@|$rev|" \
	-e "s|@NAME@|$name|" -e "s|@ARGS@|$args|" \
	"$here/qemu-job.yaml.in" >"$work/job.yaml"
echo "run-job: lava-run on $kernel ($name): $args; log $work/lava-run.log" >&2
rc=0
LIBGUESTFS_BACKEND_SETTINGS=force_tcg lava-run --job-id 1 --output-dir "$work/out" \
	--device "$work/device.yaml" "$work/job.yaml" >"$work/lava-run.log" 2>&1 || rc=$?
echo "run-job: lava-run exit $rc" >&2
"$here/check-results.py" "$work/lava-run.log" $expect
