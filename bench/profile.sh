#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench-profile: where each traced call's instructions go, by
# function and by line of folioscope's BPF source, in guests of Debian's
# kernels under tcg-icount, where an instruction is 8 ns of the guest's
# clock (bench/README.md, "Profile").
#
#   bench/profile.sh [--kernels "6.1 6.12"] [-o MARKDOWN]
#
# qemu runs with bench/profile/insncount.so; bench/measure.sh --profile
# runs one loop per variant and target between two runs of the marker;
# bench/profile/attribute.py joins the counts with the guest's symbols
# and the programs' line info.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${OUT:-build}/bench
P=$B/profile
KERNELS="6.1 6.12"
MD=bench/results-profile.md
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) KERNELS=$2; shift ;;
	-o) MD=$2; shift ;;
	*) echo "profile.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
# A private copy, as bench/run.sh's: the guest runs this build.
cp "${OUT:-build}/folioscope" "$P/folioscope"
QEMU=$(command -v "${FOLIOSCOPE_QEMU:-qemu-system-x86_64}")
MARK=$(nm "$P/mark" | awk '$3 == "_start" { print $1 }')
VARIANTS="folioscope-fentry folioscope-lean-fentry floorall-fentry"
VARIANTS="$VARIANTS folioscope-kprobe folioscope-lean-kprobe floorall-kprobe"
mds=()
for k in $KERNELS; do
	scope=vm-$k
	echo "== profile: Debian 12's $k cloud kernel under tcg-icount"
	# vm runs FOLIOSCOPE_QEMU with its own arguments: this adds the plugin.
	printf '#!/bin/sh\nexec %s "$@" -plugin %s,out=%s,mark=%s\n' \
		"$QEMU" "$PWD/$P/insncount.so" "$PWD/$P/$scope.counts" "$MARK" \
		>"$P/qemu-$k"
	chmod +x "$P/qemu-$k"
	rm -f "$P/$scope.counts"
	with=()
	for f in preadloop dedupeloop benchfloor benchtool profile/jitlines profile/mark; do
		with+=(--with "$PWD/$B/$f")
	done
	FOLIOSCOPE_QEMU=$P/qemu-$k "$P/folioscope" vm -v --debian "$k" \
		--accel tcg-icount --mem 3072 --timeout 1500 "${with[@]}" \
		--exec bench/measure.sh -- --scope "$scope" --rounds 1 \
		--tools "$PWD/$B" --fs /bin/folioscope --bt "$PWD/bench/bpftrace" \
		--mechs "fentry kprobe" --variants "$VARIANTS" \
		--profile "$PWD/$P/mark" --pread-calls 4000 --dedupe-calls 400 \
		-o "$PWD/$P/$scope.raw" 2>"$P/$scope.console" ||
		{ echo "profile: the $k guest failed (console: $P/$scope.console)" >&2; exit 1; }
	# Debian's python3, which python3-capstone is for.
	/usr/bin/python3 bench/profile/attribute.py "$P/$scope.raw" "$P/$scope.counts" \
		>"$P/$scope.md"
	mds+=("$P/$scope.md")
done
{
	echo "# Where a traced call's instructions go"
	echo
	echo "Made by \`make bench-profile\` on $(date -u +%Y-%m-%d), folioscope $(git describe --always --dirty 2>/dev/null || echo '?')."
	echo "Guests under tcg-icount: one instruction is 8 ns of the guest's clock."
	for f in "${mds[@]}"; do
		echo
		cat "$f"
	done
} >"$MD"
echo "profile: $MD written"
