# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# What the A/B scripts share (tests/ab/run.sh, tests/ab/claims.sh):
# building a kernel of the series, a guest of folioscope or of the peers,
# runs interleaved between two kernels, the spread of each side's runs,
# a run's validation verdict. The caller sets repo, series, sfx, out, mem,
# runs, FS and summary, and k_base before it interleaves.

die() {
	echo "ab: $*" >&2
	exit 2
}
say() { echo "ab: $*" | tee -a "$summary"; }
kernel() {
	local name=$1 k
	shift
	k=$(tests/kernels/build.sh -s "$series" -n "$name$sfx" "$@" | tail -n 1) ||
		die "kernel $name$sfx failed to build"
	echo "$k"
}
# vm KERNEL LOG ARGS...: folioscope ARGS in a guest, from $out (so -j
# files land there), with the kernel's DWARF when its build left the
# vmlinux beside it. Returns folioscope's exit status.
vm() {
	local k=$1 log=$2 dbg=()
	shift 2
	[ -f "$(dirname "$k")/linux/vmlinux" ] && dbg=(--debuginfo)
	(cd "$out" && "$FS" vm --kernel "$k" --mem "$mem" --timeout 3600 "${dbg[@]}" -- "$@") \
		>"$out/$log" 2>&1
}

# peer KERNEL LOG ARGS...: tests/ab/peers-guest.sh ARGS in a guest, with
# fio and duperemove and their libraries.
peer() {
	local k=$1 log=$2
	shift 2
	(cd "$out" && "$FS" vm --kernel "$k" --mem "$mem" --timeout 3600 \
		--with "$(command -v fio)" --with "$(command -v duperemove)" \
		--exec "$repo/tests/ab/peers-guest.sh" -- "$@") >"$out/$log" 2>&1
}

# interleave NEWKERNEL STEP ARGS...: STEP SIDE I KERNEL ARGS... N times
# on each kernel in turn (base, new, base, new, ...), so that a host busy
# for a while slows both sides alike.
interleave() {
	local knew=$1 step=$2 i side k
	shift 2
	for i in $(seq 1 "$runs"); do
		for side in base new; do
			k=$k_base
			[ $side = new ] && k=$knew
			"$step" "$side" "$i" "$k" "$@"
		done
	done
}

# peer_step SIDE I KERNEL PEER DONE ARGS...: one boot of the peer, log
# PEER-SIDE-I.log; a boot whose log has no line matching DONE (its last
# result) is said with the guest's error.
peer_step() {
	local side=$1 i=$2 k=$3 what=$4 done=$5 log
	shift 5
	log=$out/$what-$side-$i.log
	peer "$k" "$(basename "$log")" "$what" "$@"
	grep -q "$done" "$log" ||
		say "$what $side run $i: $(grep -m1 '^== error' "$log" || tail -n 1 "$log")"
}

# peer_pair PEER NEWKERNEL DONE ARGS...: N interleaved boots of the peer.
peer_pair() {
	local what=$1 knew=$2
	shift 2
	interleave "$knew" peer_step "$what" "$@"
}

# spread NAME UNIT BASE NEW: one line from each side's values (one per
# line): its median (one slow run, common under TCG on a shared host,
# moves a mean of three a lot), its runs' range, the change of the
# medians, and whether the ranges are apart.
spread() {
	{ printf '%s\n' "$3" | grep .; echo --; printf '%s\n' "$4" | grep .; } |
		awk -v name="$1" -v unit="$2" '
		function median(side,   i, j, t, m, a) {
			m = n[side]
			for (i = 1; i <= m; i++) a[i] = v[side, i]
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		BEGIN { side = 0 }
		$0 == "--" { side = 1; next }
		{ x = $0 + 0; v[side, ++n[side]] = x
		  if (n[side] == 1 || x < lo[side]) lo[side] = x
		  if (n[side] == 1 || x > hi[side]) hi[side] = x }
		END {
			if (!n[0] || !n[1]) { printf "  %s: not measured\n", name; exit }
			b = median(0); w = median(1)
			sep = (hi[0] < lo[1] || hi[1] < lo[0]) ? "runs separate" : "runs overlap"
			printf "  %s: base median %.6g %s (%d runs, %.6g..%.6g), new median %.6g (%d runs, %.6g..%.6g), change %+.1f%%, %s\n",
				name, b, unit, n[0], lo[0], hi[0], w, n[1], lo[1], hi[1],
				b ? (w - b) * 100 / b : 0, sep
		}'
}

# run_step SIDE I KERNEL TAG ARGS...: one run of ARGS, JSON in
# TAG-SIDE-I.json. A run that wrote no JSON is an error; a run that exits
# 1 (a validation failure) is a finding.
run_step() {
	local side=$1 i=$2 k=$3 tag=$4 st
	shift 4
	vm "$k" "$tag-$side-$i.log" "$@" -j "$tag-$side-$i.json"
	st=$?
	if ! jq -e . "$out/$tag-$side-$i.json" >/dev/null 2>&1; then
		tail -n 5 "$out/$tag-$side-$i.log" >&2
		die "$tag $side run $i wrote no report (exit $st), see $out/$tag-$side-$i.log"
	fi
	echo "ab: $tag $side run $i/$runs: exit $st" >&2
}

# run_pair TAG NEWKERNEL ARGS...: N interleaved runs of ARGS on base and
# new.
run_pair() {
	local tag=$1 knew=$2
	shift 2
	interleave "$knew" run_step "$tag" "$@"
}

# validate_pair TAG NEWKERNEL ARGS...: `folioscope validate ARGS` once on
# the base kernel and once on NEWKERNEL (a verdict each, not a measure:
# not interleaved), JSON in TAG-SIDE.json, then the two side by side
# (compare, TAG-compare.txt): each tier's verdict on each kernel. Returns
# 1 when the base kernel's validation fails, 2 when a side wrote no
# report.
validate_pair() {
	local tag=$1 knew=$2 side k st=0
	shift 2
	for side in base new; do
		k=$k_base
		[ $side = new ] && k=$knew
		echo "ab: $tag: validate $* on $side" >&2
		vm "$k" "$tag-$side.log" validate "$@" -j "$tag-$side.json"
		if ! jq -e .validation "$out/$tag-$side.json" >/dev/null 2>&1; then
			say "$tag $side: validate wrote no report (see $out/$tag-$side.log)"
			st=2
			continue
		fi
		say "$tag $side: $(tail -n 1 "$out/$tag-$side.log")"
		[ $side = new ] || [ "$(jq -r .validation.failures "$out/$tag-$side.json")" = 0 ] || st=1
	done
	[ $st = 2 ] && return 2
	"$FS" compare "$out/$tag-base.json" "$out/$tag-new.json" --force \
		>"$out/$tag-compare.txt" 2>&1
	sed -n '/^  tier /,/^$/p' "$out/$tag-compare.txt" | tee -a "$summary"
	return $st
}

# compare_pair TAG RULES...: compare all base runs with all new runs.
compare_pair() {
	local tag=$1 st
	shift
	"$FS" compare "$out/$tag"-base-*.json --vs "$out/$tag"-new-*.json "$@" \
		-o "$out/$tag-compare.html" >"$out/$tag-compare.txt" 2>&1
	st=$?
	cat "$out/$tag-compare.txt"
	return $st
}

# Validation verdict of one run: failures/checks, from the model's
# validation object when the report has it, else the workload's value;
# then the failures the report lists (its first 64) by kind, a wrong
# answer by which way it went: a SAME for differing data is a range the
# kernel shared, the DIFFERS for identical data a missed one.
verdict() {
	jq -r 'def way: if .kind != "wrong answer" then .kind
			elif (.got | startswith("SAME")) then "differing data answered SAME"
			elif (.got | startswith("DIFFERS")) then "identical data answered DIFFERS"
			else .kind end;
	       if .validation then "\(.validation.failures) failures in \(.validation.checks) checks" +
			(if (.validation.cases // []) == [] then ""
			 else " (" + ([.validation.cases[] | way] | group_by(.) |
				map("\(length) \(.[0])") | join(", ")) +
				(if .validation.failures > (.validation.cases | length)
				 then ", of the first \(.validation.cases | length)" else "" end) + ")" end)
	       else "\(.workload.validation_failures // "?") failures" end' "$1"
}

# The headline lines: copy sizes, then latency with its run-to-run noise.
key_lines() {
	sed -n "/^  $2 /,/^\$/p" "$1" | grep -E '^    (p50|max) |G-test|run to run|identical on both sides'
}

