#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# folioscope's KTAP as LAVA test cases (busybox sh and awk are enough):
#
#   ktap-to-lava.sh [--all] KTAP [REPORT.json]
#
# Every top-level KTAP test (a group of layouts for `run`, a tier for
# `validate`, reconcile, each skipped layout) becomes
#   lava-test-case NAME --result pass|fail|skip
# with, when it has subtests, the count of its passing ones as
# --measurement N --units checks. Its failed and skipped subtests (the
# checks that failed) become cases of their own, named PARENT.check_N, a
# failed one PARENT.check_N.KIND (wrong_answer, data_changed...); --all adds the passing ones too (tens of
# thousands for a whole validation: slow on a DUT, heavy in LAVA's log).
# Names keep [A-Za-z0-9._-], everything else becomes _; a name met twice
# (one layout of --random per test) gets .N, its test number, appended.
#
# With REPORT.json (folioscope's -j), histogram summaries as measurements:
# p50/p99 of each target's latency_ns and p50 of copy_bytes, estimated from
# the log2 buckets as `compare` does (log-uniform inside a bucket), from
# `folioscope report --format csv`. Unmeasured histograms are left out.
#
# Without lava-test-case in PATH (outside LAVA) the commands are printed.
set -eu
all=
[ "${1:-}" != --all ] || { all=1; shift; }
[ $# -ge 1 ] || { sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
ktap=$1
json=${2:-}
FOLIOSCOPE=${FOLIOSCOPE:-folioscope}
if command -v lava-test-case >/dev/null 2>&1; then
	tc() { lava-test-case "$@"; }
else
	tc() { echo lava-test-case "$@"; }
fi

# One line per case: NAME RESULT [MEASUREMENT UNITS].
awk -v all="$all" '
function clean(s) { gsub(/[^A-Za-z0-9._-]/, "_", s); return s }
function emit(name, res, meas) {
	if (seen[name]++) name = name "." num
	print name, res, meas
}
{
	line = $0
	match(line, /^ */)
	depth = RLENGTH / 2
	line = substr(line, RLENGTH + 1)
}
line ~ /^# Subtest: / { sub_name[depth] = substr(line, 12); next }
line ~ /^(not )?ok [0-9]+/ {
	res = (line ~ /^not /) ? "fail" : "pass"
	sub(/^(not )?ok /, "", line)
	num = line; sub(/ .*/, "", num)
	desc = line; sub(/^[0-9]+ ?/, "", desc)
	dir = ""
	if ((i = index(desc, " # ")) > 0) { dir = substr(desc, i + 3); desc = substr(desc, 1, i - 1) }
	if (dir ~ /^SKIP/) res = "skip"
	if (depth == 0) {
		m = (depth + 1 in passed) ? passed[depth + 1] " checks" : ""
		delete passed[depth + 1]
		emit(clean(desc), res, m)
	} else {
		# A subtest: its parent is named by the "# Subtest:" line above.
		if (res == "pass") passed[depth]++
		# A failure names its kind: "check_3.wrong_answer".
		kind = dir; sub(/:.*/, "", kind)
		if (res == "fail" && kind != "") desc = desc "." kind
		if (res != "pass" || all == "1")
			emit(clean(sub_name[depth]) "." clean(desc), res, "")
	}
}' "$ktap" | while read -r name res meas units; do
	if [ -n "$meas" ]; then
		tc "$name" --result "$res" --measurement "$meas" --units "$units"
	else
		tc "$name" --result "$res"
	fi
done

[ -n "$json" ] || exit 0
"$FOLIOSCOPE" report "$json" --format csv | awk -F, '
NR > 1 && $5 > 0 { k = $1 "." $2; n[k]++; lo[k, n[k]] = $3; hi[k, n[k]] = $4; c[k, n[k]] = $5; tot[k] += $5 }
# 2^f for f in [0, 1] by its series: busybox awk may lack exp() and log().
function pow2(f,   x, s, t, i) {
	x = f * 0.6931471805599453; s = 1; t = 1
	for (i = 1; i < 16; i++) { t *= x / i; s += t }
	return s
}
function q(k, p,   rank, cum, i, f, v) {
	rank = p * tot[k]; cum = 0
	for (i = 1; i <= n[k]; i++) {
		if (cum + c[k, i] >= rank || i == n[k]) {
			if (lo[k, i] == 0) return 0
			f = (rank - cum) / c[k, i]; if (f > 1) f = 1
			v = lo[k, i] * pow2(f)
			return v > hi[k, i] ? hi[k, i] : v
		}
		cum += c[k, i]
	}
}
END {
	for (k in tot) {
		split(k, t, ".")
		if (t[2] == "latency_ns") {
			printf "%s.p50 %.0f ns\n", k, q(k, 0.5)
			printf "%s.p99 %.0f ns\n", k, q(k, 0.99)
		} else if (t[2] == "copy_bytes")
			printf "%s.p50 %.0f bytes\n", k, q(k, 0.5)
	}
}' | sort | while read -r name meas units; do
	tc "$name" --result pass --measurement "$meas" --units "$units"
done
