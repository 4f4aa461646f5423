# VM validation checks (sourced by tests/check.sh): on Debian 12's 6.1
# kernel (Debian's $FS_VM_DEBIAN, or $FS_VM_KERNEL) the default matrices of both workloads pass
# with 0 failures in kprobe and fentry modes (the decoy layouts, poisoned
# buffers and position checks included), the kernel log stays clean, the
# probes see exactly what the workloads did, and a deliberately wrong expectation is reported as a
# failure with its layout. Six random dedupe layouts of a fixed seed pass
# too, and are the layouts the host draws from that seed; 64 of seed 1
# of each workload are set up (one at a time: together they would not
# fit the guest) and pass; so do 300 operations of a sequence of each
# (tests/vm/ops.sh runs 2000 of several seeds in make check-vm-full), and
# 1000 with three readers racing them (--jobs 4); the zero-ranges of
# dedupe's done on btrfs and xfs. On Debian's 6.1 and 6.12 each run skips
# exactly the plans and ways that kernel refuses, nothing it lacks
# (valskips). Staged dedupes with all ranges in the source's page meet one
# folio a compare, those in pages of their own two. The
# kprobe matrices and the wrong expectations also write KTAP, which the
# kernel's own parser reads with the JSON's counts. All runs share one
# boot when `folioscope vm` has --exec; otherwise each gets its own.
# Last, `validate` of dedupe's matrix and four random layouts: a group
# per tier, its JSON, KTAP and JUnit back on the host.
# shellcheck shell=bash
valout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmval.XXXXXX")
vallog=$LOGDIR/vm-validation.log
# The guest's stderr on its own: its lines keep their order only among
# themselves (stdout comes on another serial port).
valerr=$LOGDIR/vm-validation.err

# NAME EXIT ARGS: the exit status each run must have.
valjobs=(
	"dedupe-kprobe 0 run dedupe --matrix -m kprobe"
	"dedupe-fentry 0 run dedupe --matrix -m fentry"
	"shmem-kprobe 0 run shmem-read --matrix -m kprobe"
	"shmem-fentry 0 run shmem-read --matrix -m fentry"
	"dedupe-random 0 run dedupe --random 6 --seed 7 -m kprobe"
	"shmem-ops 0 run shmem-read --ops 300 --seed 1"
	"dedupe-ops 0 run dedupe --ops 300 --seed 3"
	"shmem-race 0 run shmem-read --ops 1000 --seed 1 --jobs 4"
	"dedupe-wrong 1 run dedupe --fs xfs --block-size 1024 --src-off 1024 --dst-off 2048 --range 3072 --count 1 --inject-wrong-expectation"
	"shmem-wrong 1 run shmem-read --huge always --size 3M --bs 64K --inject-wrong-expectation"
	"dedupe-nolf 0 run dedupe --matrix --fs xfs --block-size 1024 --no-large-folio-layouts"
	"validate-dedupe 0 validate --only dedupe --tiers matrix,random --random 4 --seed 7 -m kprobe --budget 1m"
	"dedupe-onepage 0 run dedupe --ops 300 --seed 3 --ops-only 180,209,247 -m kprobe"
	"dedupe-twopage 0 run dedupe --ops 300 --seed 3 --ops-only 50,123 -m kprobe"
)
# Readers racing dedupe's sequence, on 6.12 too: the zeros pipes and
# sockets keep there (vm:splice) are the ones the racing check accepts
# for those ways (docs/validation.md).
valjobs+=("dedupe-race 0 run dedupe --ops 1000 --seed 3 --jobs 4")
# 64 random layouts of each workload: on the first kernel of make check
# (the others' pass, FS_VM_ATTACH_ONLY, is kept short), on every kernel
# of make check-vm-full.
if [ -z "${FS_VM_ATTACH_ONLY:-}" ]; then
	valjobs+=("dedupe-random64 0 run dedupe --random 64 --seed 1"
		"shmem-random64 0 run shmem-read --random 64 --seed 1")
fi
# A racing reader stuck in the kernel: the run's watchdog gives the
# verdict with that thread's stack, the report reaches the host and the
# guest powers off, so it is the last job.
valjobs+=("shmem-stuck 1 run shmem-read --ops 300 --seed 1 --jobs 2 --deadline-base 2 --inject-stuck-reader")
declare -A valrc=()
# The runs that also write KTAP ($valout/NAME.ktap).
valktap=" dedupe-kprobe shmem-kprobe dedupe-wrong shmem-wrong validate-dedupe "
# val_files NAME: the report files' options of job NAME, in valfiles
# (validate's JUnit too, $valout/NAME.xml).
val_files() {
	valfiles=(-j "$valout/$1.json")
	[[ "$valktap" != *" $1 "* ]] || valfiles+=(--ktap "$valout/$1.ktap")
	[[ "$1" != validate-* ]] || valfiles+=(--junit "$valout/$1.xml")
}

valstart=$SECONDS
# The help in a variable: grep -q stops reading at its match, and the
# writer's SIGPIPE would fail the pipe under pipefail.
vm_help=$("$FS" vm --help 2>/dev/null)
if grep -q -- '--exec' <<<"$vm_help"; then
	# One boot: tests/vm/jobs-guest.sh runs each job in turn.
	valargs=()
	for job in "${valjobs[@]}"; do
		read -r name _ args <<<"$job"
		val_files "$name"
		# shellcheck disable=SC2206
		valargs+=($args "${valfiles[@]}" :::)
	done
	vm_jobs "$valout" "$vallog" "$valerr" 900 "${valargs[@]}"
	i=0
	for job in "${valjobs[@]}"; do
		read -r name _ <<<"$job"
		valrc[$name]=$(vm_job_rc "$vallog" "$i")
		i=$((i + 1))
	done
else
	: >"$vallog"
	: >"$valerr"
	i=0
	for job in "${valjobs[@]}"; do
		read -r name _ args <<<"$job"
		val_files "$name"
		# shellcheck disable=SC2086
		(cd "$valout" && "$FS" vm "${vmargs[@]}" -- $args "${valfiles[@]}") >>"$vallog" 2>>"$valerr"
		valrc[$name]=$?
		echo "== job $i ends" >>"$valerr"
		i=$((i + 1))
	done
fi
echo "  validation runs: $((SECONDS - valstart)) s in the VM; logs $vallog, $valerr"

# job_err I: job I's own lines of the guest's stderr (each ends with its
# "== job I ends").
job_err() {
	awk -v p="== job $(($1 - 1)) ends" -v q="== job $1 ends" -v first="$1" \
		'$0 == q { exit } on || first == 0; $0 == p { on = 1 }' "$valerr"
}

# val_common NAME TARGET: what every run must show.
val_common() {
	local name=$1 tgt=$2 j=$valout/$1.json
	# io_uring may read the rest of a short read once more (6.1 does):
	# the run counts those it may (calls_slack).
	expect_eq "vm validation $name: calls seen = calls made (+ io_uring's retries of short reads)" \
		"$(jq -r "(.targets.$tgt.calls - .workload.calls) as \$d | \$d >= 0 and \$d <= (.workload.calls_slack // 0)" "$j")" true
	expect_eq "vm validation $name: bytes summed = bytes moved" \
		"$(jq -r ".targets.$tgt.histograms.bytes.sum" "$j")" "$(jq -r .workload.bytes "$j")"
	expect_eq "vm validation $name: reconcile (calls, bytes, same, differs, errors)" "$(jq -r .workload.reconcile "$j")" ok
	expect_eq "vm validation $name: no kernel complaint during the run" "$(jq -r .workload.kernel_log "$j")" clean
	echo "  $name: $(jq -r '"\(.validation.checks) checks, \(.validation.failures) failures"' "$j")"
}

# What a run skipped and why (each layout or plan skipped, the reason
# once), the ways into a read it never reached, and the ways its
# sequence of operations skipped for what the kernel lacks
# (ops_uring_skipped, ops_loop_skipped, ops_socket_skipped), as one line.
valskip_jq='[(.validation.skipped // [] | map(.why) | unique | join("; ")),
	(.workload.ways_missed // "-"),
	([.workload | keys[] | select(test("^ops_.*_skipped$"))] | join(",") | if . == "" then "-" else . end)]
	| join(" | ")'
# The skips of each job on Debian's 6.1 and 6.12 cloud kernels, the
# same on both: they have loop devices, io_uring and AF_UNIX, and copy
# within a tmpfs file, so nothing is skipped for want of them; their
# tmpfs refuses preadv2's RWF_NOWAIT (EOPNOTSUPP) and copy_file_range to
# another tmpfs (EXDEV), the matrix's pv2-nowait and cfr-other-fs plans.
# A plan or way that became a skip, or a skip that went away, fails here.
valskip_nowait="preadv2 RWF_NOWAIT: EOPNOTSUPP: this kernel's tmpfs does not take it"
valskip_xdev="copy_file_range-other-fs: Invalid cross-device link: this kernel does not take it"
declare -A valskips=(
	[shmem-kprobe]="$valskip_xdev; $valskip_nowait | copy_file_range-other-fs | -"
	[shmem-fentry]="$valskip_xdev; $valskip_nowait | copy_file_range-other-fs | -"
	[shmem-ops]=" | copy_file_range-other-fs | -"
	[shmem-random64]="$valskip_xdev | copy_file_range-other-fs | -"
	[dedupe-kprobe]=" | - | -"
	[dedupe-fentry]=" | - | -"
	[dedupe-ops]=" | - | -"
	[dedupe-random64]=" | - | -"
)

valkunit=
if kunit_parser_dir; then valkunit=1; else skip "vm validation: KTAP" "$KUNIT_WHY"; fi
ji=-1
for job in "${valjobs[@]}"; do
	ji=$((ji + 1))
	read -r name want args <<<"$job"
	j=$valout/$name.json
	tgt=$([[ $name == dedupe* ]] && echo dedupe || echo shmem)
	mode=${name#*-}
	expect_eq "vm validation $name: exit status" "${valrc[$name]:-none}" "$want"
	if ! jq -e .validation "$j" >/dev/null 2>&1; then
		bad "vm validation $name" "no JSON with validation; see $vallog and $valerr"
		continue
	fi
	if [ "$mode" == stuck ]; then
		expect_eq "vm validation $name: a timeout of racing reader 1's first read, in the report on the host" \
			"$(jq -r '"\(.validation.failures) \(.validation.cases[0].kind) \(.validation.cases[0].layout | test("^ops seed=1 jobs=2 reader 1 #0 read ")) \(.workload.reconcile)"' "$j")" \
			"1 timeout true skipped: a call never returned"
		expect_match "vm validation $name: the watchdog quotes the stuck reader's own kernel stack" \
			"$(grep "timeout: a call of layout 'ops seed=1 jobs=2 reader 1 #0 " "$valerr")" \
			"kernel stack of thread [0-9]+: [a-z_]*pipe_read"
		continue
	fi
	if [[ "$name" == validate-* ]]; then
		# Two tiers of dedupe, each a run in the guest, one report; its
		# files (JSON, KTAP, JUnit) back on this host.
		expect_eq "vm validation $name: a group per tier, each clean with checks" \
			"$(jq -r '[.validation.groups[] | "\(.name) \(.checks > 0) \(.failures)"] | join(";")' "$j")" \
			"dedupe matrix true 0;dedupe random true 0"
		expect_eq "vm validation $name: kprobe, reconciled, the kernel log clean" \
			"$(jq -r '"\(.targets.dedupe.attach.mechanism) \(.workload.reconcile) \(.workload.kernel_log)"' "$j")" \
			"kprobe ok clean"
		expect_eq "vm validation $name: JUnit back on the host, a testsuite per tier" \
			"$(python3 -c 'import sys, xml.etree.ElementTree as E; print(",".join(s.get("name") for s in E.parse(sys.argv[1]).getroot()))' "$valout/$name.xml" 2>&1)" \
			"dedupe matrix,dedupe random,reconcile"
	else
		val_common "$name" "$tgt"
	fi
	if [[ "$valktap" == *" $name "* ]] && [ -n "$valkunit" ]; then
		expect_eq "vm validation $name: kunit_parser reads the KTAP with the JSON's counts" \
			"$(ktap_counts "$valout/$name.ktap" | cut -d' ' -f1-5)" "$(json_ktap_counts "$j")"
		echo "  $name: KTAP: $(ktap_counts "$valout/$name.ktap")"
	fi
	[[ "$name" != validate-* ]] || continue
	if [ -n "${valskips[$name]+set}" ]; then
		kernel=$(jq -r .host.kernel "$j")
		skipped=$(jq -r "$valskip_jq" "$j" 2>&1)
		case $kernel in
		6.1.*-cloud-amd64 | 6.12.*-cloud-amd64)
			expect_eq "vm validation $name: skipped exactly what Debian's $kernel refuses (skips | ways missed | ways lacking)" \
				"$skipped" "${valskips[$name]}"
			;;
		*)
			skip "vm validation $name: the skips pinned" \
				"none pinned for kernel $kernel (only Debian's 6.1 and 6.12 cloud kernels); it skipped: $skipped"
			;;
		esac
	fi
	if [ "$mode" == wrong ]; then
		# The checker can fail: the flipped answer is a failure, with
		# the layout that was run.
		expect_eq "vm validation $name: failures >= 1" \
			"$(jq -r '.validation.failures >= 1 and (.validation.cases | length) >= 1' "$j")" true
		if [ "$tgt" == dedupe ]; then
			re='^fs=xfs bs=1024 case=custom src_off=1024 len=3072 range=1/1 dest=1/1 dst=other-file dst_off=2048 poff=1024/2048 .* injected=wrong-expectation$'
		else
			re='^huge=always file=full size=3145728 plan=custom syscall=read .* reader=0 call=0 pos=0 injected=wrong-expectation$'
		fi
		expect_match "vm validation $name: failed case names its layout" \
			"$(jq -r '.validation.cases[0].layout' "$j")" "$re"
		expect_match "vm validation $name: KTAP: its group not ok, with the kind and layout" \
			"$(grep -m1 '^not ok ' "$valout/$name.ktap" 2>&1)" \
			"^not ok 1 [^#]+ # [a-z ]+: ${re:1:-1}( \(and [0-9]+ more failures?\))?\$"
		continue
	fi
	if [ "$mode" == ops ]; then
		expect_eq "vm validation $name: 300 operations, 0 failures of > 300 checks" \
			"$(jq -r '"\(.workload.mode) \(.workload.ops_run) \(.validation.failures) \(.validation.checks > 300)"' "$j")" \
			"ops 300 0 true"
		# ZERO_RANGE: btrfs and xfs zero (a refusal there fails the
		# run), tmpfs refuses every one.
		if [ "$tgt" == dedupe ]; then
			expect_eq "vm validation $name: zero-range done on btrfs and xfs, refused on neither" \
				"$(jq -r '.workload | "\(.ops_zeroed_btrfs > 0) \(.ops_zeroed_xfs > 0) \(.ops_zero_refused_btrfs) \(.ops_zero_refused_xfs)"' "$j")" \
				"true true 0 0"
		else
			expect_eq "vm validation $name: tmpfs refused every zero-range" \
				"$(jq -r '.workload | "\(.ops_zero_refused_tmpfs > 0) \(.ops_zeroed_tmpfs)"' "$j")" "true 0"
		fi
		continue
	fi
	if [ "$mode" == race ]; then
		# Readers raced the sequence, some reads overlapping
		# operations, every one of them right.
		expect_eq "vm validation $name: 1000 operations, 4 jobs, racing reads overlapping operations, 0 failures" \
			"$(jq -r '"\(.workload.mode) \(.workload.ops_run) \(.workload.ops_jobs) \(.workload.race_reads > 100) \(.workload.race_reads_overlapped > 10) \(.validation.failures)"' "$j")" \
			"ops 1000 4 true true 0"
		# dedupe's second mutator stored into destinations of its
		# dedupes, by pwrite and by a mapping, none lost.
		if [ "$tgt" == dedupe ]; then
			expect_eq "vm validation $name: racing stores into dedupes by pwrite and by mapping" \
				"$(jq -r '.workload | [.race_stores > 10, .race_stores_mapped > 0, .race_stores > .race_stores_mapped] | all' "$j")" \
				true
		fi
		echo "  $name: $(jq -r '"\(.workload.race_reads) racing reads, \(.workload.race_reads_overlapped) over more than one version, \(if .workload.race_stores then "\(.workload.race_stores) racing stores, " else "" end)\(.validation.checks) checks"' "$j")"
		continue
	fi
	if [ "$mode" == onepage ] || [ "$mode" == twopage ]; then
		# Staged dedupes of seed 3 on xfs with 1024-byte blocks, alone
		# (tests/unit/test_ops.c pins which they are). Each folio a
		# compare reads counts once per call, so the folio histogram
		# says how many folios each compare met: one where all ranges
		# lie in the source's page (8 compares: 5 SAME, 3 DIFFERS), two
		# where they lie in pages of their own (2 DIFFERS).
		expect_eq "vm validation $name: SAME, DIFFERS, errors; compares seen; folios met, by size" \
			"$(jq -r '"\(.workload.same) \(.workload.differs) \(.workload.errors) \(.targets.dedupe.calls) \(.targets.dedupe.histograms.folio_size.count) \([.targets.dedupe.histograms.folio_size.buckets[] | select(.count > 0) | "\(.lo)x\(.count)"] | join(","))"' "$j")" \
			"$([ "$mode" == onepage ] && echo "5 3 0 8 8 4096x8" || echo "0 2 0 2 4 4096x4")"
		continue
	fi
	if [ "$mode" == random64 ]; then
		expect_eq "vm validation $name: 64 layouts of seed 1 set up and run, 0 failures of > 0 checks" \
			"$(jq -r '"\(.workload.mode) \(.workload.random_seed) \(.workload.random_layouts) \(.workload.random_failed) \(.validation.failures) \(.validation.checks > 0)"' "$j")" \
			"random 1 64 0 0 true"
		continue
	fi
	if [ "$mode" == random ]; then
		expect_eq "vm validation $name: 6 layouts of seed 7, 0 failures of > 0 checks" \
			"$(jq -r '"\(.workload.mode) \(.workload.random_seed) \(.workload.random_layouts) \(.workload.random_failed) \(.validation.failures) \(.validation.checks > 0)"' "$j")" \
			"random 7 6 0 0 true"
		# The same seed on another machine (kernel, CPU speed, no
		# matter if it can run them) draws the same layouts.
		"$FS" run dedupe --random 6 --seed 7 >/dev/null 2>"$valout/host-random.err"
		valre='^folioscope: run dedupe: random layout [0-9]+: '
		expect_eq "vm validation $name: the host prints 6 layouts of seed 7" \
			"$(grep -cE "$valre" "$valout/host-random.err")" 6
		expect_eq "vm validation $name: the guest drew the host's layouts of seed 7" \
			"$(job_err "$ji" | grep -E "$valre")" \
			"$(grep -E "$valre" "$valout/host-random.err")"
		continue
	fi
	if [ "$mode" == nolf ]; then
		# The matrix without its large-folio layouts: on Debian's 6.1
		# nothing else puts a large folio in xfs's page cache, though
		# its mapping flags say xfs takes them, so the run warns; a
		# kernel whose big writes make them (6.12) meets them anyway.
		# Either way the gap is exactly "only 4 KiB where the kernel
		# makes large ones", and the warning says so when it is one.
		cov='.coverage[0]'
		expect_eq "vm validation $name: one coverage group, xfs bs=1024" \
			"$(jq -r '[.coverage[].group] | join(",")' "$j")" "xfs bs=1024"
		gap=$(jq -r "$cov.targets.dedupe.large_folio_gap" "$j")
		expect_eq "vm validation $name: gap = only page-sized folios where xfs takes large ones" "$gap" \
			"$(jq -r "[$cov.targets.dedupe.folio_sizes[].size] as \$s | (\$s | length > 0) and (\$s | all(. <= 4096)) and $cov.large_folios == \"yes\"" "$j")"
		sect=$(job_err "$ji")
		warned=false
		grep -q "^folioscope: run: WARNING: xfs bs=1024: dedupe met only 4096-byte folios, but the kernel makes large ones there" <<<"$sect" && warned=true
		expect_eq "vm validation $name: warned exactly when there is a gap" "$warned" "$gap"
		if [[ "$(jq -r .host.kernel "$j")" == 6.1.* ]]; then
			expect_eq "vm validation $name: Debian 6.1 without the layouts: large folios NOT met, warned" "$gap $warned" "true true"
		fi
		continue
	fi
	expect_eq "vm validation $name: mechanism" \
		"$(jq -r ".targets.$tgt.attach.mechanism" "$j")" "$mode"
	expect_eq "vm validation $name: 0 failures of > 0 checks" \
		"$(jq -r '"\(.validation.failures) \(.validation.checks > 0) \(.validation.cases | length)"' "$j")" "0 true 0"
	if [ "$tgt" == dedupe ]; then
		expect_eq "vm validation $name: btrfs and xfs at 4096, 1024, 2048" \
			"$(jq -r '.workload.fs + " " + .workload.block_sizes' "$j")" \
			"btrfs,xfs,xfs,xfs 4096,4096,1024,2048"
		expect_eq "vm validation $name: SAME, DIFFERS and errors all seen" \
			"$(jq -r '[.workload.same, .workload.differs, .workload.errors] | map(. > 0) | all' "$j")" true
		expect_eq "vm validation $name: cold files not cached" \
			"$(jq -r '"\(.workload.cold_files > 0) \(.workload.cold_pages_cached)"' "$j")" "true 0"
		# Sub-page block sizes put offsets inside pages: alignments of
		# 1 KiB and 2 KiB reach the histograms.
		expect_eq "vm validation $name: sub-page source offsets seen" \
			"$(jq -r '[.targets.dedupe.histograms.src_align.buckets[] | select(.count > 0) | .lo] | contains([1024, 2048])' "$j")" true
		# Folio coverage per filesystem and block size: the
		# large-folio layouts (readahead) put 64 KiB or 128 KiB folios
		# on both sides of xfs's compares, on 6.1 and on 6.12.
		expect_eq "vm validation $name: coverage groups" \
			"$(jq -r '[.coverage[].group] | join(",")' "$j")" \
			"btrfs bs=4096,xfs bs=4096,xfs bs=1024,xfs bs=2048"
		expect_eq "vm validation $name: every xfs group met 64 KiB or 128 KiB folios" \
			"$(jq -r '[.coverage[] | select(.group | startswith("xfs")) | [.targets.dedupe.folio_sizes[].size] | any(. == 65536 or . == 131072)] | all' "$j")" true
		expect_eq "vm validation $name: no large-folio gap" \
			"$(jq -r '[.coverage[].targets.dedupe.large_folio_gap] | any' "$j")" false
		expect_eq "vm validation $name: files read back through readahead" \
			"$(jq -r '.workload.readahead_files > 0' "$j")" true
	else
		expect_match "vm validation $name: huge folios in effect" \
			"$(jq -r .workload.huge_folios "$j")" \
			'always: in effect .*within_size: in effect'
		expect_eq "vm validation $name: 2 MiB and 4 KiB folios read" \
			"$(jq -r '[.targets.shmem.histograms.folio_size.buckets[] | select(.count > 0) | .lo] | contains([4096, 2097152])' "$j")" true
		expect_eq "vm validation $name: coverage per huge= mount" \
			"$(jq -r '[.coverage[].group] | join(",")' "$j")" \
			"tmpfs huge=always,tmpfs huge=within_size,tmpfs huge=advise,tmpfs huge=never"
		expect_eq "vm validation $name: 2 MiB folios met on huge=always, not on never" \
			"$(jq -r '[.coverage[] | select(.group | test("always|never$")) | [.targets.shmem.folio_sizes[].size] | contains([2097152])] | map(tostring) | join(" ")' "$j")" "true false"
	fi
done
rm -rf "$valout"
