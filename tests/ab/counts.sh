#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Check counts of two folioscope builds on the same kernels (`make counts
# BASE=OLD-BINARY`): what a change of the workloads' code that should not
# change their behaviour is held to.
#
#   tests/ab/counts.sh [--kernels "6.1 6.12"] [--host] [--out DIR] BASE NEW
#
# Runs six jobs with each build: both workloads' matrices, `--random 64
# --seed 1` and `--ops 2000 --seed 1`, in one boot per build and kernel
# (Debian's cloud kernels; --kernels "" for none), and with --host on the
# running kernel too. Per job it prints the checks, failures and skips of
# each build and every KTAP test (a group of layouts) whose number of
# checks differs; a job that differs is a "DIFFERS" line. Exit 0 when
# every job of both builds ended and all counts are equal, 1 when some
# differ, 2 when a job could not be run. A build's results are kept under
# DIR (default build/counts) by the build's hash and kernel, so a second
# comparison against the same BASE runs only NEW.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
kernels="6.1 6.12"
host=
out=build/counts

die() {
	echo "counts: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=${2-}; shift 2 ;;
	--host) host=1; shift ;;
	--out) out=${2:-}; shift 2 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || die "usage: tests/ab/counts.sh [--kernels LIST] [--host] [--out DIR] BASE NEW"
base=$(realpath "$1") || die "no build $1"
new=$(realpath "$2") || die "no build $2"
[ -x "$base" ] && [ -x "$new" ] || die "BASE and NEW must be folioscope binaries"
command -v jq >/dev/null || die "needs jq (make deps)"

jobs=(
	"shmem-read --matrix"
	"dedupe --matrix"
	"shmem-read --random 64 --seed 1"
	"dedupe --random 64 --seed 1"
	"shmem-read --ops 2000 --seed 1"
	"dedupe --ops 2000 --seed 1"
)

# One KTAP line per top-level test: its name and its number of subtests.
ktap_groups() {
	awk '/^  1\.\.[0-9]+$/ { n = substr($1, 4) }
	     /^(not )?ok [0-9]+ / { sub(/^(not )?ok [0-9]+ /, ""); sub(/ #.*/, "");
				    print $0 "\t" (n == "" ? 0 : n); n = "" }' "$1"
}

# run_set WHERE BIN DIR: the jobs with BIN, in a VM on Debian's WHERE or on
# this host (WHERE "host"), their JSON and KTAP in DIR.
run_set() {
	local where=$1 bin=$2 dir=$3 args=() i=0 j
	[ -f "$dir/done" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	for j in "${jobs[@]}"; do
		# shellcheck disable=SC2206 # the job's words
		args+=(run $j -q -j "job$i.json" --ktap "job$i.ktap" :::)
		i=$((i + 1))
	done
	if [ "$where" == host ]; then
		i=0
		for j in "${jobs[@]}"; do
			# shellcheck disable=SC2086 # the job's words
			(cd "$dir" && "$bin" run $j -q -j "job$i.json" --ktap "job$i.ktap") \
				>"$dir/job$i.out" 2>"$dir/job$i.err"
			echo "== job $i exit $?" >>"$dir/vm.log"
			i=$((i + 1))
		done
	else
		(cd "$dir" && "$bin" vm --debian "$where" --timeout 7200 \
			--exec "$repo/tests/vm/jobs-guest.sh" -- "${args[@]}") \
			>"$dir/vm.log" 2>"$dir/vm.err"
	fi
	# Kept when every job ended (a job's status line is its end).
	[ "$(grep -c '^== job [0-9]* exit' "$dir/vm.log")" -eq ${#jobs[@]} ] &&
		touch "$dir/done"
}

# The results' folder of build BIN at PLACE.
set_dir() {
	echo "$out/$1/$(sha256sum "$2" | cut -c1-12)"
}

rc=0
places=()
[ -n "$host" ] && places+=(host)
for k in $kernels; do places+=("$k"); done
[ ${#places[@]} -gt 0 ] || die "nothing to run: --kernels is empty and no --host"
for p in "${places[@]}"; do
	start=$SECONDS
	bdir=$(set_dir "$p" "$base")
	ndir=$(set_dir "$p" "$new")
	run_set "$p" "$base" "$bdir"
	[ "$1" == "$2" ] || run_set "$p" "$new" "$ndir"
	echo "== $p ($((SECONDS - start)) s; base $bdir, new $ndir)"
	for i in "${!jobs[@]}"; do
		line=()
		for d in "$bdir" "$ndir"; do
			side=$([ "$d" == "$bdir" ] && echo base || echo new)
			st=$(sed -n "s/^== job $i exit \([0-9]*\).*/\1/p" "$d/vm.log")
			if ! jq -e .validation "$d/job$i.json" >/dev/null 2>&1; then
				echo "  ${jobs[$i]}: $side: no report (exit ${st:-none}); see $d"
				rc=2
				line+=("-")
				continue
			fi
			line+=("$(jq -r '"\(.validation.checks) checks, \(.validation.failures) failures, \(.validation.skipped // [] | length) skips"' "$d/job$i.json")")
			ktap_groups "$d/job$i.ktap" >"$d/job$i.groups"
		done
		if [ "${line[0]}" == "-" ] || [ "${line[1]}" == "-" ]; then
			continue
		fi
		if [ "${line[0]}" == "${line[1]}" ] &&
			cmp -s "$bdir/job$i.groups" "$ndir/job$i.groups"; then
			echo "  ${jobs[$i]}: same: ${line[0]} in $(wc -l <"$bdir/job$i.groups") KTAP tests"
			continue
		fi
		echo "  ${jobs[$i]}: DIFFERS: base ${line[0]}; new ${line[1]}"
		diff "$bdir/job$i.groups" "$ndir/job$i.groups" | sed -n 's/^[<>]/    &/p' | head -20
		[ $rc -eq 0 ] && rc=1
	done
done
exit $rc
