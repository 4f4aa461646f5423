# valgrind, sourced by tests/check.sh: no leak and no invalid access in
# doctor, report and compare, on good and on malformed input (the
# dynamically linked build/folioscope-dyn: valgrind cannot follow the
# static binary's libc). Run as root.
# shellcheck shell=bash

scratch_setup fs-valgrind
vg_good=$SCRATCH/good.json
cp tests/fixtures/export-base.json "$vg_good"
printf '{' >"$SCRATCH/open.json"
head -c 3000 "$vg_good" >"$SCRATCH/truncated.json"
vg_dyn=$(dirname "$FS")/folioscope-dyn
if [ -n "${SAN:-}" ]; then
	skip "valgrind" "not with a sanitizer build"
elif ! command -v valgrind >/dev/null || [ ! -x "$vg_dyn" ]; then
	skip "valgrind" "needs valgrind and $vg_dyn (make check builds it)"
else
	vg() {
		local name=$1 log=$LOGDIR/valgrind-$1.log
		shift
		# libbpf hands the kernel bpf_attr unions with padding valgrind
		# calls uninitialised (tests/host/valgrind.supp).
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			--suppressions=tests/host/valgrind.supp \
			--log-file="$log" "$vg_dyn" "$@" >/dev/null 2>&1
		rc=$?
		# Its own note on bpf commands it does not model is no finding;
		# nor is its note (five lines) on the mount API it does not
		# know (fsopen, fsconfig, fsmount: 430-432), which fails with
		# ENOSYS under it, as on a kernel without them.
		sed -i -e '/WARNING: unhandled eBPF command/d' \
			-e '/WARNING: unhandled amd64-linux syscall: 43[0-2]$/,+4d' "$log"
		if [ $rc -ne 99 ] && ! [ -s "$log" ]; then ok "valgrind: $name"; else bad "valgrind: $name" "$(head -n 5 "$log")"; fi
	}
	# As root doctor loads and attaches every step it can; -m syscall
	# keeps that to the syscall-level programs (valgrind is slow).
	vg doctor doctor --json -m syscall
	vg report-html report --format html "$vg_good" tests/fixtures/export-new.json
	vg report-csv report --format csv -o "$SCRATCH/vg.csv" "$vg_good"
	vg report-bad report "$SCRATCH/truncated.json"
	vg compare compare "$vg_good" tests/fixtures/export-new.json -e 'shmem.calls==base' -e 'shmem.latency_ns.p99.9<=base*2'
	vg compare-bad compare "$vg_good" "$SCRATCH/open.json"
	vg compare-picture compare "$vg_good" "$vg_good" --vs tests/fixtures/export-new.json \
		--force -e 'shmem.calls==base' -o "$SCRATCH/vg.svg"
	vg report-heatmap report --format html tests/fuzz/corpus/json/intervals.json
	vg compare-intervals compare tests/fuzz/corpus/json/intervals.json tests/fuzz/corpus/json/intervals.json \
		--vs tests/fuzz/corpus/json/intervals.json tests/fuzz/corpus/json/intervals.json -o "$SCRATCH/vg-iv.svg"
	vg trace-intervals trace -m syscall -t shmem -i 0.3 -d 1 -q -j "$SCRATCH/vg-i.json" --serve 127.0.0.1:0
	# report --serve re-reading its file as it is replaced, broken and
	# rewritten, then stopped by Ctrl-C: the reports it let go are freed.
	if command -v curl >/dev/null; then
		log=$LOGDIR/valgrind-report-serve.log
		cp "$vg_good" "$SCRATCH/follow.json"
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			--suppressions=tests/host/valgrind.supp --log-file="$log" \
			"$vg_dyn" report "$SCRATCH/follow.json" --serve 127.0.0.1:0 >/dev/null 2>"$SCRATCH/follow.err" &
		pid=$!
		if wait_until 120 grep -q 'serving http' "$SCRATCH/follow.err"; then
			url=$(grep -o 'http://[^ ]*/metrics' "$SCRATCH/follow.err")
			url=${url%/metrics}
			curl -sf "$url/report.json" >/dev/null
			cp tests/fixtures/export-new.json "$SCRATCH/follow.tmp" && mv "$SCRATCH/follow.tmp" "$SCRATCH/follow.json"
			vg_k1=$(curl -sf "$url/report.json" | jq -r .host.kernel)
			curl -sf "$url/report.html" >/dev/null
			curl -sf "$url/metrics" >/dev/null
			printf '{' >"$SCRATCH/follow.json"
			curl -sf "$url/report.json" >/dev/null
			cat "$vg_good" >"$SCRATCH/follow.json"
			vg_k2=$(curl -sf "$url/report.json" | jq -r .host.kernel)
		fi
		kill -INT "$pid"
		wait "$pid"
		rc=$?
		if [ $rc -eq 0 ] && ! [ -s "$log" ] &&
			[ "$vg_k1 $vg_k2" = "$(jq -r .host.kernel tests/fixtures/export-new.json) $(jq -r .host.kernel "$vg_good")" ]; then
			ok "valgrind: report-serve re-reading its file"
		else
			bad "valgrind: report-serve re-reading its file" "exit $rc, served '${vg_k1:-} ${vg_k2:-}': $(head -n 5 "$log") $(head -n 3 "$SCRATCH/follow.err")"
		fi
	else
		skip "valgrind: report-serve re-reading its file" "curl not installed"
	fi
fi
