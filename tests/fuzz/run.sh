#!/usr/bin/env bash
# Bounded libFuzzer runs: tests/fuzz/run.sh [-o DIR] [-t SECONDS] TARGET...
# Each target starts from its committed corpus (tests/fuzz/corpus/TARGET,
# read only) and the inputs it found before (DIR/work-TARGET); a crash,
# leak or UB report is kept as DIR/crash-TARGET-* and fails the run. Add a
# crash's input to tests/fuzz/corpus/TARGET/ once fixed: it then runs as
# a regression test at every start. Last line: "fuzz: N targets, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
out=build/fuzz
secs=15
while getopts o:t: o; do
	case $o in
	o) out=$OPTARG ;;
	t) secs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- json rule parse dwarf
failed=0
for t in "$@"; do
	bin=$out/fuzz_$t
	work=$out/work-$t
	mkdir -p "$work"
	# The JSON reader takes up to 16 MiB; fuzzing stays at small inputs.
	if "$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=2 \
		-artifact_prefix="$out/crash-$t-" "$work" "tests/fuzz/corpus/$t" \
		>"$out/log-$t" 2>&1; then
		echo "fuzz $t: ok, $(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$out/log-$t" | grep -oE '[0-9]+$') runs in ${secs}s"
	else
		failed=$((failed + 1))
		echo "fuzz $t: FAILED, see $out/log-$t:"
		grep -m3 -E 'ERROR|runtime error|Test unit written' "$out/log-$t"
	fi
done
echo "fuzz: $# targets, $failed failed"
[ "$failed" -eq 0 ]
