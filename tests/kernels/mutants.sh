#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The validator's mutation score (make mutants). Builds the base test
# kernel, the KASAN one and one kernel per tests/kernels/mutants/*.patch
# (tests/kernels/build.sh: cached, the patched trees dropped once built),
# boots each once under `folioscope vm --kernel` and validates it there
# (`folioscope validate`, its N and seed fixed below). A mutant is caught
# when a tier ends with failures (or the run without a verdict); the
# failure kinds say which check of which tier caught it. Both base kernels
# must come out with 0 failures, and the KASAN one must say in its log
# that KASAN is on.
#
#   tests/kernels/mutants.sh [-s SERIES] [-o DIR] [-t] [MUTANT...]
#
#   MUTANT  a patch's name without .patch (default: all); base and kasan
#           run whatever is asked, and base+LAST the kernel a mutant with
#           "Applies-after: ... LAST.patch" is built on
#   -s      6.1 (default) or 6.12: the kernels are built from Debian's
#           linux-source-SERIES, the mutants are tests/kernels/mutants/
#           (6.1) or tests/kernels/mutants/6.12/ (the same bugs in 6.12's
#           code, each header saying where it differs)
#   -o DIR  keep the reports there: NAME.json (validate's), NAME.log (the
#           VM's output) and results.tsv (NAME, kernel, expected kinds,
#           caught kinds per tier); default a temp dir, removed at the end
#   -t      print the table as Markdown as well (README carries it)
#
# Each patch's header says what it breaks (Subject:), its kind (Kind:),
# the verdict kinds that must catch it (Caught-by:, "none" for a mutant
# kept to measure a known blind spot: listed, not counted in the score)
# and, with "Kernel: kasan", that it is built on the KASAN kernel. The
# exit status is 1 when a base kernel has failures or a mutant is not
# caught by what its header says, 0 otherwise; the score is printed
# either way.
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

# Every kernel is validated alike: N and the seed fixed and the budget
# ample, so that what runs, and so what it catches, does not depend on the
# machine's speed. (The help in a variable: grep -q stops reading at its
# match, and the writer's SIGPIPE would fail the pipe under pipefail.)
validate=(validate --seed 1 --random 64 --ops 2000 --budget 60m)
tiers=("shmem matrix" "dedupe matrix" "shmem random" "dedupe random" "shmem ops" "dedupe ops" "shmem race" "dedupe race")
help=$("$FS" --help 2>&1)
grep -q '^  validate ' <<<"$help" || { echo "mutants: $FS has no validate" >&2; exit 2; }

# hdr PATCH FIELD: a header field's value.
hdr() { sed -n "s/^$2: //p;/^--- /q" "$1" | head -n 1; }

# A mutant of a patched kernel says so ("Applies-after: a.patch b.patch",
# patches of tests/kernels/patches/ for 6.1, of patches/6.12/ for 6.12):
# it is built on them, and so is a base row of its own, "base+LAST" (LAST
# the last of them without .patch), which must come out clean like the
# base kernel. stack[NAME]: the patches a row builds on.
pdir=$here/patches
[ "$series" == 6.1 ] || pdir=$here/patches/$series
declare -A stack=()
after() {
	local p
	for p in $(hdr "$1" Applies-after); do
		printf '%s ' "$pdir/$p"
	done
}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	names=(base kasan)
	for p in "$mdir"/*.patch; do
		a=$(hdr "$p" Applies-after)
		if [ -n "$a" ]; then
			b=base+$(basename "${a##* }" .patch)
			if [ -z "${stack[$b]:-}" ]; then
				names+=("$b")
				stack[$b]=$(after "$p")
			fi
		fi
		names+=("$(basename "$p" .patch)")
	done
fi
# Rows named on the command line: a base+LAST row's stack from the first
# mutant on it.
for n in "${names[@]}"; do
	if [[ "$n" != base+* ]] || [ -n "${stack[$n]:-}" ]; then
		continue
	fi
	for p in "$mdir"/*.patch; do
		a=$(hdr "$p" Applies-after)
		if [ -n "$a" ] && [ "base+$(basename "${a##* }" .patch)" == "$n" ]; then
			stack[$n]=$(after "$p")
			break
		fi
	done
	[ -n "${stack[$n]:-}" ] || { echo "mutants: no mutant applies after ${n#base+}" >&2; exit 2; }
done


# kinds NAME TIER: the tier's failure kinds with their counts ("wrong
# answer x12, data changed x3"), "none" for 0 failures, "no verdict"
# without a report, "not run" for a tier the report does not have.
kinds() {
	local j=$out/$1.json
	jq -e .validation.groups "$j" >/dev/null 2>&1 || { echo "no verdict"; return; }
	jq -r --arg t "$2" '[.validation.groups[] | select(.name == $t)] |
		if length == 0 then "not run" elif .[0].failures == 0 then "none" else
		(.[0].kinds | to_entries | map("\(.key) x\(.value)") | join(", ")) end' "$j"
}

printf '%s\t%s\t%s\t%s' name kernel expected verdict >"$out/results.tsv"
for t in "${tiers[@]}"; do printf '\t%s' "$t" >>"$out/results.tsv"; done
echo >>"$out/results.tsv"
status=0
total=0
caught=0
for n in "${names[@]}"; do
	patch=
	kasan=
	expected=none
	before=()
	case $n in
	base) ;;
	kasan) kasan=-k ;;
	base+*)
		# shellcheck disable=SC2206 # paths without blanks
		before=(${stack[$n]})
		;;
	*)
		patch=$mdir/$n.patch
		if [ ! -r "$patch" ]; then
			echo "mutants: no $patch" >&2
			status=1
			continue
		fi
		[ "$(hdr "$patch" Kernel)" != kasan ] || kasan=-k
		expected=$(hdr "$patch" Caught-by)
		# shellcheck disable=SC2207 # paths without blanks
		before=($(after "$patch"))
		# A known blind spot (Caught-by: none) is listed, not counted.
		[ "$expected" == none ] || total=$((total + 1))
		;;
	esac
	kernel=$([ -n "$kasan" ] && echo kasan || echo plain)
	# shellcheck disable=SC2086
	if ! bz=$("$here/build.sh" -s "$series" $kasan -d -n "mut-$n$sfx" "${before[@]}" $patch 2>"$out/$n.build.log" | tail -n 1) ||
		[ ! -f "$bz" ]; then
		echo "mutants: $n: kernel not built: $(tail -n 1 "$out/$n.build.log")"
		printf '%s\t%s\t%s\t%s\n' "$n" "$kernel" "$expected" "not built" >>"$out/results.tsv"
		status=1
		continue
	fi
	start=$SECONDS
	# jobs-guest.sh: the KASAN boot line first, then validate.
	(cd "$out" && "$FS" vm --kernel "$bz" --timeout 3000 --exec "$repo/tests/vm/jobs-guest.sh" \
		-- "${validate[@]}" -j "$out/$n.json" :::) >"$out/$n.log" 2>&1
	verdict=
	got=()
	any=
	for t in "${tiers[@]}"; do
		k=$(kinds "$n" "$t")
		got+=("$k")
		[ "$k" == none ] || any=1
	done
	if [ -n "$kasan" ] && ! grep -q '^== kasan: .*KernelAddressSanitizer initialized' "$out/$n.log"; then
		verdict="KASAN not on"
		status=1
	elif [ -z "$patch" ]; then
		# base, kasan and base+LAST rows
		verdict=$([ -z "$any" ] && echo clean || echo "FAILURES")
		[ -z "$any" ] || status=1
	elif [ -n "$any" ]; then
		[ "$expected" == none ] || caught=$((caught + 1))
		verdict=caught
		[ "$expected" != none ] || verdict="caught (a blind spot no more: update Caught-by)"
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
	elif [ "$expected" == none ]; then
		verdict="survived (a known blind spot, not counted)"
	else
		verdict=survived
		status=1
	fi
	{
		printf '%s\t%s\t%s\t%s' "$n" "$kernel" "$expected" "$verdict"
		printf '\t%s' "${got[@]}"
		echo
	} >>"$out/results.tsv"
	echo "mutants: $n ($kernel kernel, $((SECONDS - start)) s in the VM): $verdict; $(
		i=0
		for t in "${tiers[@]}"; do
			printf '%s%s: %s' "$([ $i -gt 0 ] && echo '; ')" "$t" "${got[$i]}"
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
		for t in "${tiers[@]}"; do printf ' %s |' "$t"; done
		printf ' result |\n|---|---|---|---|'
		for t in "${tiers[@]}"; do printf -- '---|'; done
		printf -- '---|\n'
		tail -n +2 "$out/results.tsv" | while IFS=$'\t' read -r n kernel expected verdict rest; do
			kind=-
			bug="none (the base kernel)"
			[ "$n" != kasan ] || bug="none (the base kernel with KASAN)"
			[[ "$n" != base+* ]] || bug="none (the base kernel with ${n#base+}.patch and what it applies after)"
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
