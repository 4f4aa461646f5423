# The validator against kernels with deliberate bugs (sourced by
# tests/check.sh; `make test-mutants`, not part of make check: it builds
# small 6.1 test kernels, about 15 minutes for the first one on 2 cores,
# then minutes each, cached, and a KASAN one, 25-40 minutes). Each kernel
# boots once under `folioscope vm --kernel` and runs the layouts that must
# catch its bug; every check must come out as its own failure kind, the
# run must end with a verdict, and the base kernel must give 0 failures on
# all of them. Then the mutation score (tests/kernels/mutants.sh, make
# mutants) over every tests/kernels/mutants/*.patch: each caught by the
# kinds its Caught-by: header names (or surviving where it says none), the
# base and KASAN kernels clean.
#
#   base               tests/kernels/build.sh, no patch
#   mut-hole-stale     tests/kernels/mutants/shmem-hole-stale.patch
#   mut-past-ret       tests/kernels/mutants/shmem-past-ret.patch
#   mut-pos-back       tests/kernels/mutants/shmem-pos-back.patch
#   mut-trunc-tail     tests/kernels/mutants/shmem-trunc-tail.patch
#   mut-dd-same-folio  tests/kernels/mutants/dedupe-same-folio.patch
#   seed-dedupe        tests/kernels/patches/dedupe-wordwise.patch
#
# mut-trunc-tail is seen only by a sequence of operations (--ops), which
# truncates into what it wrote and grows the file again; seed-dedupe by
# dedupe's sequence too, through its staged dedupes; on
# mut-dd-same-folio the matrix's same-page layout never returns (decoys
# runs the xfs bs=1024 matrix): the run's watchdog turns it into a
# "timeout" verdict, its report still reaches the host and the guest
# powers off although the task stays stuck in the kernel; the job runner
# never prints that job's exit, and the jobs after it never run.
#
# MUTANTS="base mut-past-ret ..." runs a subset of the first part and
# leaves the score out.
# shellcheck shell=bash
mu=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmmut.XXXXXX")
jobs_guest=$PWD/tests/vm/jobs-guest.sh
mu_all="base mut-hole-stale mut-past-ret mut-pos-back mut-trunc-tail mut-dd-same-folio seed-dedupe"

# The layouts: NAME ARGS (a workload's options).
mu_jobs=(
	"holes shmem-read --huge never --fill sparse --size 5M --offset 2M --length 1M --bs 64K"
	"eof shmem-read --huge never --size 1000001 --bs 64K"
	"eof-readv shmem-read --huge always --size 3000001 --bs 96K --syscall readv --iovecs 3"
	"decoys dedupe --matrix --fs xfs --block-size 1024"
	"ops shmem-read --ops 2000 --seed 1"
	"same-page dedupe --fs xfs --block-size 1024 --src-off 0 --range 1024 --count 1 --same-file --dst-off 2048"
	"dd-ops dedupe --ops 2000 --seed 1"
)
# And the whole shmem-read matrix on these kernels: on mut-pos-back a
# reader that trusted the file position would never end.
mu_matrix="base mut-pos-back"


# mu_patch NAME: the patch a kernel is built with ("" for base).
mu_patch() {
	case $1 in
	base) echo "" ;;
	seed-dedupe) echo tests/kernels/patches/dedupe-wordwise.patch ;;
	mut-dd-*) echo "tests/kernels/mutants/dedupe-${1#mut-dd-}.patch" ;;
	*) echo "tests/kernels/mutants/shmem-${1#mut-}.patch" ;;
	esac
}


# mu_kind K JOB: the failure kinds of job JOB on kernel K, sorted, or
# "none" (0 failures), or "no-json".
mu_kind() {
	local j=$mu/$1-$2.json
	jq -e .validation "$j" >/dev/null 2>&1 || { echo no-json; return; }
	jq -r 'if .validation.failures == 0 then "none" else ([.validation.cases[].kind] | unique | join(",")) end' "$j"
}

for k in ${MUTANTS:-$mu_all}; do
	patch=$(mu_patch "$k")
	# shellcheck disable=SC2086
	if ! bz=$(tests/kernels/build.sh -d -n "$k" $patch 2>"$mu/build-$k.log" | tail -1) || [ ! -f "$bz" ]; then
		skip "vm mutants $k" "kernel not built: $(tail -1 "$mu/build-$k.log")"
		continue
	fi
	jobs=("${mu_jobs[@]}")
	[[ " $mu_matrix " == *" $k "* ]] && jobs+=("matrix shmem-read --matrix")
	args=()
	for job in "${jobs[@]}"; do
		read -r name wargs <<<"$job"
		# shellcheck disable=SC2206
		args+=(run $wargs -j "$mu/$k-$name.json" :::)
	done
	start=$SECONDS
	(cd "$mu" && "$FS" vm --kernel "$bz" --timeout 3000 --exec "$jobs_guest" -- "${args[@]}") \
		>"$LOGDIR/vm-mutants-$k.log" 2>&1
	vmrc=$?
	echo "  $k: $((SECONDS - start)) s in the VM, vm exit $vmrc; log $LOGDIR/vm-mutants-$k.log"
	i=0
	stuck=
	for job in "${jobs[@]}"; do
		read -r name _ <<<"$job"
		rc=$(sed -n "s/^== job $i exit \([0-9]*\).*/\1/p" "$LOGDIR/vm-mutants-$k.log")
		kinds=$(mu_kind "$k" "$name")
		echo "    $k $name: exit ${rc:-none}, failure kinds: $kinds"
		# What each kernel must show on each layout.
		want=none
		case $k:$name in
		mut-hole-stale:holes) want=unwritten ;;
		mut-past-ret:eof | mut-past-ret:eof-readv) want="past ret" ;;
		mut-pos-back:eof | mut-pos-back:eof-readv | mut-pos-back:matrix) want=position ;;
		seed-dedupe:decoys) want="data changed,wrong answer" ;;
		# The staged dedupes of a sequence (xfs with 2048-byte
		# blocks): a false DIFFERS, and a false SAME whose dedupe
		# the reads after it find.
		seed-dedupe:dd-ops) want="data,wrong answer" ;;
		mut-trunc-tail:ops) want=data ;;
		mut-dd-same-folio:decoys) want=timeout ;;
		mut-dd-same-folio:*) [ "$stuck" ] && want=no-json ;;
		esac
		expect_eq "vm mutants $k $name: failure kinds" "$kinds" "$want"
		if [ "$want" == timeout ]; then
			# The call never returned: no exit line, but the report,
			# and the guest powered off with the run's status.
			expect_eq "vm mutants $k $name: no exit (stuck), the report arrived, vm exit 1" \
				"${rc:-none} $(jq -r .workload.reconcile "$mu/$k-$name.json" 2>&1) $vmrc" \
				"none skipped: a call never returned 1"
			expect_match "vm mutants $k $name: the watchdog names the stuck call and its stack" \
				"$(cat "$LOGDIR/vm-mutants-$k.log")" \
				"timeout: a call of layout 'fs=xfs bs=1024 case=same-page .*kernel stack of thread [0-9]+: folio_wait_bit_common"
			stuck=1
			i=$((i + 1))
			continue
		fi
		if [ "$want" == no-json ]; then
			expect_eq "vm mutants $k $name: never ran, after the stuck job" "${rc:-none}" none
			i=$((i + 1))
			continue
		fi
		expect_eq "vm mutants $k $name: exit status" "${rc:-none}" \
			"$([ "$want" == none ] && echo 0 || echo 1)"
		if [ "$kinds" != no-json ]; then
			expect_eq "vm mutants $k $name: probes reconcile, kernel log clean" \
				"$(jq -r '"\(.workload.reconcile) \(.workload.kernel_log)"' "$mu/$k-$name.json")" "ok clean"
		fi
		i=$((i + 1))
	done
	if [ "$k" == seed-dedupe ] && [ -f "$mu/$k-decoys.json" ]; then
		# Every decoy layout fools the seed's word loop: a false SAME
		# whose re-read finds the destination's bytes replaced.
		expect_eq "vm mutants seed-dedupe: data changed on every decoy layout" \
			"$(jq -r '[.validation.cases[] | select(.kind == "data changed") | .layout | capture("case=(?<c>[^ ]*)").c] | unique | join(" ")' "$mu/$k-decoys.json")" \
			"decoy-2nd-half decoy-first decoy-last-word decoy-middle decoy-pages"
	fi
done

if [ -z "${MUTANTS:-}" ]; then
	start=$SECONDS
	FS=$FS tests/kernels/mutants.sh -t -o "$mu/score" >"$LOGDIR/vm-mutants-score.log" 2>&1
	rc=$?
	echo "  score: $((SECONDS - start)) s; log $LOGDIR/vm-mutants-score.log"
	sed -n 's/^mutation score/  mutation score/p' "$LOGDIR/vm-mutants-score.log"
	rows=0
	while IFS=$'\t' read -r n _ expected verdict _; do
		rows=$((rows + 1))
		want=caught
		case $n in
		base | kasan) want=clean ;;
		*) [ "$expected" != none ] || want=survived ;;
		esac
		expect_eq "vm mutants score $n" "$verdict" "$want"
	done < <(tail -n +2 "$mu/score/results.tsv" 2>/dev/null)
	expect_eq "vm mutants score: kernels (base, kasan, every patch)" "$rows" \
		"$((2 + $(find tests/kernels/mutants -name '*.patch' | wc -l)))"
	expect_eq "vm mutants score: exit status" "$rc" 0
	# The KASAN mutant's answers are all right: only the kernel log check
	# sees its out-of-bounds read.
	if [ -f "$mu/score/dedupe-kasan-peek-dedupe.json" ]; then
		expect_eq "vm mutants score: dedupe-kasan-peek fails on the kernel log alone" \
			"$(jq -r '[.validation.cases[].kind] | unique | join(",")' "$mu/score/dedupe-kasan-peek-dedupe.json")" \
			"kernel log"
		expect_eq "vm mutants score: dedupe-kasan-peek quotes KASAN's report" \
			"$(jq -r '.validation.cases[] | select(.kind == "kernel log") | .got' "$mu/score/dedupe-kasan-peek-dedupe.json" |
				grep -c 'BUG: KASAN: slab-out-of-bounds in vfs_dedupe_file_range')" 1
	fi
fi
rm -rf "$mu"
