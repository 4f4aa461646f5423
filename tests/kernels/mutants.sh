#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The validator's mutation score (make mutants). Builds the base test
# kernel, the KASAN one and one kernel per tests/kernels/mutants/*.patch
# (tests/kernels/build.sh: cached, the patched trees dropped once built),
# boots each once under `folioscope vm --kernel` and runs the jobs below in
# it. A mutant is caught when a job ends with failures (or without a
# verdict); the failure kinds say which check caught it. Both base kernels
# must come out with 0 failures, and the KASAN one must say in its log
# that KASAN is on.
#
#   tests/kernels/mutants.sh [-s SERIES] [-o DIR] [-t] [MUTANT...]
#
#   MUTANT  a patch's name without .patch (default: all); base and kasan
#           run whatever is asked
#   -s      6.1 (default) or 6.12: the kernels are built from Debian's
#           linux-source-SERIES, the mutants are tests/kernels/mutants/
#           (6.1) or tests/kernels/mutants/6.12/ (the same bugs in 6.12's
#           code, each header saying where it differs)
#   -o DIR  keep the reports there: NAME-JOB.json, NAME.log (the VM's
#           output) and results.tsv (NAME, kernel, expected kinds, caught
#           kinds per job); default a temp dir, removed at the end
#   -t      print the table as Markdown as well (README carries it)
#
# Each patch's header says what it breaks (Subject:), its kind (Kind:),
# the verdict kinds that must catch it (Caught-by:, "none" for a mutant
# kept to measure a known blind spot) and, with "Kernel: kasan", that it
# is built on the KASAN kernel. The exit status is 1 when a base kernel
# has failures or a mutant is not caught by what its header says, 0
# otherwise; the score is printed either way.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
FS=${FS:-$repo/build/folioscope}
out=
markdown=
series=6.1
while getopts "s:o:th" o; do
	case $o in
	s) series=$OPTARG ;;
	o) out=$OPTARG ;;
	t) markdown=1 ;;
	*) sed -n '4,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $series in
6.1) mdir=$here/mutants sfx= ;;
6.12) mdir=$here/mutants/6.12 sfx=-6.12 ;;
*) echo "mutants: no series '$series' (want 6.1 or 6.12)" >&2; exit 2 ;;
esac
[ -x "$FS" ] || { echo "mutants: no $FS (make folioscope)" >&2; exit 2; }
if [ -n "$out" ]; then
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	keep=1
else
	out=$(mktemp -d "${TMPDIR:-/tmp}/fs-mutants.XXXXXX")
	keep=
fi

# The jobs every kernel runs: NAME ARGS (folioscope run's options).
jobs=(
	"dedupe dedupe --matrix"
	"shmem shmem-read --matrix"
)
# Random layouts over the same space, where this folioscope has them.
# (The help in a variable: grep -q stops reading at its match, and the
# writer's SIGPIPE would fail the pipe under pipefail.)
run_help=$("$FS" run --help 2>&1)
if grep -q -- '--random' <<<"$run_help"; then
	jobs+=(
		"dedupe-random dedupe --random 16 --seed 1"
		"shmem-random shmem-read --random 64 --seed 1"
	)
else
	echo "mutants: random layouts skipped: this folioscope's run has no --random"
fi
# Sequences of operations, where this folioscope has them.
if grep -q -- '--ops=' <<<"$run_help"; then
	jobs+=("shmem-ops shmem-read --ops 2000 --seed 1"
		"dedupe-ops dedupe --ops 2000 --seed 3")
else
	echo "mutants: sequences of operations skipped: this folioscope's run has no --ops"
fi

# hdr PATCH FIELD: a header field's value.
hdr() { sed -n "s/^$2: //p;/^--- /q" "$1" | head -n 1; }

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	names=(base kasan)
	for p in "$mdir"/*.patch; do
		names+=("$(basename "$p" .patch)")
	done
fi


# kinds NAME JOB: the job's failure kinds with their counts ("wrong answer
# x12, data changed x3"), "none" for 0 failures, "no verdict" without a
# report.
kinds() {
	local j=$out/$1-$2.json
	jq -e .validation "$j" >/dev/null 2>&1 || { echo "no verdict"; return; }
	jq -r 'if .validation.failures == 0 then "none" else
		([.validation.cases[].kind] | group_by(.) |
		 map("\(.[0]) x\(length)") | join(", ")) end' "$j"
}

printf '%s\t%s\t%s\t%s' name kernel expected verdict >"$out/results.tsv"
for job in "${jobs[@]}"; do printf '\t%s' "${job%% *}" >>"$out/results.tsv"; done
echo >>"$out/results.tsv"
status=0
total=0
caught=0
for n in "${names[@]}"; do
	patch=
	kasan=
	expected=none
	case $n in
	base) ;;
	kasan) kasan=-k ;;
	*)
		patch=$mdir/$n.patch
		if [ ! -r "$patch" ]; then
			echo "mutants: no $patch" >&2
			status=1
			continue
		fi
		[ "$(hdr "$patch" Kernel)" != kasan ] || kasan=-k
		expected=$(hdr "$patch" Caught-by)
		total=$((total + 1))
		;;
	esac
	kernel=$([ -n "$kasan" ] && echo kasan || echo plain)
	# shellcheck disable=SC2086
	if ! bz=$("$here/build.sh" -s "$series" $kasan -d -n "mut-$n$sfx" $patch 2>"$out/$n.build.log" | tail -n 1) ||
		[ ! -f "$bz" ]; then
		echo "mutants: $n: kernel not built: $(tail -n 1 "$out/$n.build.log")"
		printf '%s\t%s\t%s\t%s\n' "$n" "$kernel" "$expected" "not built" >>"$out/results.tsv"
		status=1
		continue
	fi
	args=()
	for job in "${jobs[@]}"; do
		read -r jname jargs <<<"$job"
		# shellcheck disable=SC2206
		args+=(run $jargs -j "$out/$n-$jname.json" :::)
	done
	start=$SECONDS
	(cd "$out" && "$FS" vm --kernel "$bz" --timeout 3000 --exec "$repo/tests/vm/jobs-guest.sh" -- "${args[@]}") \
		>"$out/$n.log" 2>&1
	verdict=
	got=()
	any=
	for job in "${jobs[@]}"; do
		k=$(kinds "$n" "${job%% *}")
		got+=("$k")
		[ "$k" == none ] || any=1
	done
	if [ -n "$kasan" ] && ! grep -q '^== kasan: .*KernelAddressSanitizer initialized' "$out/$n.log"; then
		verdict="KASAN not on"
		status=1
	elif [ -z "$patch" ]; then
		verdict=$([ -z "$any" ] && echo clean || echo "FAILURES")
		[ -z "$any" ] || status=1
	elif [ -n "$any" ]; then
		caught=$((caught + 1))
		verdict=caught
		# Every kind the header names must be among those seen.
		IFS=, read -ra want <<<"$expected"
		for w in "${want[@]}"; do
			w=${w# }
			[ "$w" != none ] || continue
			seen=
			for g in "${got[@]}"; do
				[[ ", $g" != *", $w x"* ]] || seen=1
			done
			if [ -z "$seen" ]; then
				verdict="caught, not by $w"
				status=1
			fi
		done
	else
		verdict=survived
		[ "$expected" == none ] || status=1
	fi
	{
		printf '%s\t%s\t%s\t%s' "$n" "$kernel" "$expected" "$verdict"
		printf '\t%s' "${got[@]}"
		echo
	} >>"$out/results.tsv"
	echo "mutants: $n ($kernel kernel, $((SECONDS - start)) s in the VM): $verdict; $(
		i=0
		for job in "${jobs[@]}"; do
			printf '%s%s: %s' "$([ $i -gt 0 ] && echo '; ')" "${job%% *}" "${got[$i]}"
			i=$((i + 1))
		done)"
done

echo
column -t -s "$(printf '\t')" "$out/results.tsv"
echo
echo "mutation score ($series): $caught/$total caught"
if [ -n "$markdown" ]; then
	echo
	# The table README carries: kind and bug from each patch's header.
	{
		printf '| mutant | kind | bug | kernel |'
		for job in "${jobs[@]}"; do printf ' %s |' "${job#* }"; done
		printf ' result |\n|---|---|---|---|'
		for job in "${jobs[@]}"; do printf -- '---|'; done
		printf -- '---|\n'
		tail -n +2 "$out/results.tsv" | while IFS=$'\t' read -r n kernel expected verdict rest; do
			kind=-
			bug="none (the base kernel)"
			[ "$n" != kasan ] || bug="none (the base kernel with KASAN)"
			if [ -r "$mdir/$n.patch" ]; then
				kind=$(hdr "$mdir/$n.patch" Kind)
				bug=$(hdr "$mdir/$n.patch" Subject | sed 's/^\[TEST MUTANT\] //')
			fi
			printf '| %s | %s | %s | %s |' "$n" "$kind" "$bug" "$kernel"
			IFS=$'\t' read -ra cols <<<"$rest"
			for c in "${cols[@]}"; do printf ' %s |' "$c"; done
			printf ' %s |\n' "$verdict"
		done
	}
fi
[ -n "$keep" ] || rm -rf "$out"
exit $status
