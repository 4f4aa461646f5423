# Reliability and safety, sourced by tests/check.sh: a table of
# bad invocations, signals at each phase of run and trace, what a killed
# run leaves and the next run removes, a hostile --dir, valgrind.
# Exit codes (docs/guarantees.md): 2 the command line is
# wrong, 1 the command failed (environment, input files, checks); compare:
# 1 a rule failed, 2 it could not compare. Run as root.
# shellcheck shell=bash

rel=$(mktemp -d /tmp/fs-rel.XXXXXX)
rel_tmpdir_saved=${TMPDIR-}
rel_cg=
chmod 755 "$rel"
# The workloads' temp dirs go here, so leak_state and the stale clean-up
# see only this suite's.
export TMPDIR=$rel/tmp
mkdir "$TMPDIR"

rel_cleanup() {
	local m
	for m in $(grep -oE "$rel/[^ ]*" /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null; done
	[ -n "$rel_cg" ] && rmdir "$rel_cg" 2>/dev/null
	rm -rf "$rel"
	eval "$rel_leak_state_saved"
	if [ -n "$rel_tmpdir_saved" ]; then export TMPDIR=$rel_tmpdir_saved; else unset TMPDIR; fi
}
trap 'rel_cleanup; exit 130' INT TERM

# A memory cgroup (v1, or v2 with the memory controller) holding commands
# that must refuse before allocating: if one did not, it is killed at
# 1 GiB instead of filling the machine's RAM with tmpfs pages.
rel_v1=$(awk -F: '$2 == "memory" { print $3; exit }' /proc/self/cgroup)
rel_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$rel_v1" ] && [ -d "/sys/fs/cgroup/memory$rel_v1" ] &&
	mkdir "/sys/fs/cgroup/memory$rel_v1/fs-rel-$$" 2>/dev/null; then
	rel_cg=/sys/fs/cgroup/memory$rel_v1/fs-rel-$$
	echo $((1 << 30)) >"$rel_cg/memory.limit_in_bytes"
elif [ -n "$rel_v2" ] && grep -qw memory "$rel_v2/cgroup.subtree_control" 2>/dev/null &&
	mkdir "$rel_v2/fs-rel-$$" 2>/dev/null; then
	rel_cg=$rel_v2/fs-rel-$$
	echo $((1 << 30)) >"$rel_cg/memory.max"
fi
# limited CMD...: CMD in that cgroup (or not run: returns 125).
limited() {
	[ -n "$rel_cg" ] || { echo "folioscope-test: no memory cgroup" >&2; return 125; }
	(echo "$BASHPID" >"$rel_cg/cgroup.procs" && exec "$@")
}
# lib.sh's leak_state, narrowed to this suite's dirs (and fast): other
# folioscope runs on the machine may mount and unmount meanwhile. Every
# mount, loop image and temp dir of these tests' workloads is under $rel.
rel_leak_state_saved=$(declare -f leak_state)
leak_state() {
	grep -hsF "$rel" /proc/mounts /sys/block/loop*/loop/backing_file
	compgen -G "$TMPDIR/*"
}

# ---- inputs ----
echo "-- reliability: inputs (${SECONDS}s)"
rel_good=$rel/pub/good.json
mkdir -m 755 "$rel/pub" "$rel/ro"
cp tests/fixtures/export-base.json "$rel_good"
chmod 644 "$rel_good"
printf '{' >"$rel/open.json"
head -c 3000 "$rel_good" >"$rel/truncated.json"
: >"$rel/empty.json"
head -c 4096 /dev/urandom >"$rel/garbage.json"
sed 's|folioscope/1|folioscope/2|' "$rel_good" >"$rel/schema.json"
{ cat "$rel_good"; echo '{}'; } >"$rel/trailing.json"
printf '[]' >"$rel/array.json"
# Past the reader's 64 MiB limit, valid JSON all the same.
{ printf '{"schema":"folioscope/1","pad":"'; head -c $((65 << 20)) /dev/zero | tr '\0' a; printf '"}'; } >"$rel/huge.json"
install -m 600 "$rel_good" "$rel/pub/secret.json"
head -c 100000 /dev/urandom >"$rel/notakernel"
{ head -c $((0x202)) /dev/zero; printf HdrS; head -c 4096 /dev/zero; } >"$rel/fakebz"
echo text >"$rel/file"
rel_stat_rule="shmem.copy_bytes.p$(printf '9%.0s' $(seq 46)).9>1"
rel_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# ---- bad input: NAME EXIT REGEX CMD... (one stderr line, nothing left) ----
echo "-- reliability: bad input: NAME EXIT REGEX CMD... (one stderr line, nothing left) (${SECONDS}s)"
B() { expect_error "bad input: $1" "$2" "$3" "${@:4}"; }
# Options argp/getopt refuse: one line, exit 2 (not argp's two lines).
B "unknown long option" 2 "^folioscope: trace: unrecognized option '--bogus'; see 'folioscope trace --help'$" "$FS" trace --bogus
B "unknown short option" 2 "^folioscope: doctor: invalid option -- 'x'" "$FS" doctor -x
B "misspelt run option" 2 "unrecognized option '--sise'" "$FS" run shmem-read --sise 1M
B "missing option argument" 2 "run: option requires an argument -- 'j'" "$FS" run shmem-read -j
B "ambiguous option" 2 "option '--s' is ambiguous" "$FS" run shmem-read --s 1M
B "argument to a flag" 2 "option '--json' doesn't allow an argument" "$FS" doctor --json=yes
B "report: unknown option" 2 "report: unrecognized option '--nope'" "$FS" report --nope "$rel_good"
B "compare: unknown option" 2 "compare: unrecognized option '--nope'" "$FS" compare --nope "$rel_good" "$rel_good"
B "vm: unknown option" 2 "vm: unrecognized option '--nope'" "$FS" vm --nope -- doctor
B "doctor: stray argument" 2 "unexpected argument 'extra'" "$FS" doctor extra
B "run: no workload" 2 "which workload" "$FS" run
B "run: two workloads" 2 "one workload at a time" "$FS" run dedupe shmem-read
# Sizes, counts and durations.
B "--size -1" 2 "invalid size '-1' for --size" "$FS" run shmem-read --size -1
B "--size 0" 2 "invalid size '0' for --size" "$FS" run shmem-read --size 0
B "--size 1Q" 2 "invalid size '1Q' for --size" "$FS" run shmem-read --size 1Q
B "--size 2^64" 2 "invalid size '18446744073709551616'" "$FS" run shmem-read --size 18446744073709551616
B "--size overflowing its suffix" 2 "invalid size '17179869184G'" "$FS" run shmem-read --size 17179869184G
B "--bs 0" 2 "invalid size '0' for --bs" "$FS" run shmem-read --bs 0
B "--count 0" 2 "invalid --count '0'" "$FS" run dedupe --count 0
B "--dests 17" 2 "--dests 17 is too large" "$FS" run dedupe --dests 17
B "-d nan" 2 "invalid duration 'nan'" "$FS" trace -d nan
B "-d 0" 2 "invalid duration '0'" "$FS" trace -d 0
B "-d -1" 2 "invalid duration '-1'" "$FS" trace -d -1
B "-d 1e400" 2 "invalid duration '1e400'" "$FS" trace -d 1e400
B "-i 0x10" 2 "invalid number of seconds '0x10'" "$FS" trace -i 0x10
B "-p 0" 2 "invalid pid '0'" "$FS" trace -p 0
B "--comm too long" 2 "names are 1 to 15 characters" "$FS" trace --comm abcdefghijklmnop
# Values the workload refuses before it sets anything up (exit 1).
B "--bs past the workload's range" 1 "--bs '2147483648'.*1 GiB" "$FS" run shmem-read --bs 2G
B "--size past loff_t" 1 "run shmem-read: --size '9223372036854775807'" "$FS" run shmem-read --size 9223372036854775807
# Larger than memory or the filesystem: refused before anything is written
# (inside a 1 GiB memory cgroup, in case it were not).
if [ -n "$rel_cg" ]; then
	B "--size larger than RAM" 1 "over half of MemAvailable" limited "$FS" run shmem-read --size 4096G
	B "readers' buffers larger than allowed" 1 "at most 4 GiB" limited "$FS" run shmem-read --bs 1G --readers 64
	B "dedupe larger than the filesystem" 1 "No space left on device" limited "$FS" run dedupe --count 1000000 --range 1M
else
	skip "bad input: larger than RAM/filesystem" "no memory cgroup to contain a failure"
fi
# Conflicting options.
B "dedupe option for shmem-read" 2 "--fs is a dedupe option" "$FS" run shmem-read --fs btrfs
B "shmem option for dedupe" 2 "--huge is a shmem-read option" "$FS" run dedupe --huge never
B "--matrix with a layout" 2 "--matrix runs its own layouts; drop --range" "$FS" run dedupe --matrix --range 64K
B "--files with --count" 2 "--files runs the seed's layout; drop --count" "$FS" run dedupe --files 4 --count 2
B "--cumulative without -i" 2 "--cumulative needs -i" "$FS" trace --cumulative
B "--lean with an argument" 2 "option '--lean' doesn't allow an argument" "$FS" trace --lean=1
B "--lean is trace's" 2 "unrecognized option '--lean'" "$FS" run shmem-read --lean
B "report: two runs as csv" 2 "two reports need --format svg or html" "$FS" report --format csv "$rel_good" "$rel_good"
B "report: --serve-any alone" 2 "--serve-any needs --serve" "$FS" report --serve-any "$rel_good"
B "trace: --serve-any alone" 2 "^folioscope: trace: --serve-any needs --serve$" "$FS" trace --serve-any
B "report: --serve with -o" 2 "--serve takes one report" "$FS" report --serve 127.0.0.1:0 -o "$rel/x.csv" "$rel_good"
B "report: format from a bad name" 2 "cannot tell the format of" "$FS" report -o "$rel/x.nope" "$rel_good"
B "trace: unknown --format" 2 "unknown format 'nope'" "$FS" trace --format nope
B "compare: one file" 2 "want BASE.json NEW.json" "$FS" compare "$rel_good"
B "compare: a picture as csv" 2 "a comparison draws as html or svg, not csv" "$FS" compare -o "$rel/x.csv" "$rel_good" "$rel_good"
B "compare: a picture in an unknown format" 2 "cannot tell the picture's format from png" "$FS" compare --format png "$rel_good" "$rel_good"
B "compare: --vs first" 2 "--vs needs base runs before it" "$FS" compare --vs "$rel_good"
B "compare: nothing after --vs" 2 "--vs needs new runs after it" "$FS" compare "$rel_good" --vs
# Paths: missing, not a directory, unreadable, unwritable, wrong filesystem.
B "-j in a missing dir" 1 "cannot write '/nonexistent/x.json': No such file" "$FS" trace -d 30 -j /nonexistent/x.json
B "-j a directory" 1 "cannot write '$rel': Is a directory" "$FS" run shmem-read -j "$rel"
B "-o in a missing dir" 1 "cannot write '/nonexistent/x.csv'" "$FS" trace -d 30 -o /nonexistent/x.csv
B "report: missing file" 1 "cannot read '$rel/none.json': No such file" "$FS" report "$rel/none.json"
B "report: a directory" 1 "cannot read '$rel': Is a directory" "$FS" report "$rel"
B "report: unreadable file" 1 "cannot read '.*secret.json': Permission denied" "${rel_nobody[@]}" "$FS" report "$rel/pub/secret.json"
B "report: unwritable -o" 1 "cannot write '$rel/ro/x.csv': Permission denied" "${rel_nobody[@]}" "$FS" report -o "$rel/ro/x.csv" "$rel_good"
B "compare: missing file" 2 "cannot read '$rel/none.json'" "$FS" compare "$rel_good" "$rel/none.json"
B "--dir a regular file" 1 "--dir '$rel/file'.*Not a directory" "$FS" run dedupe --dir "$rel/file"
rel_fs=$(stat -f -c %T "$rel")
if [ "$rel_fs" != btrfs ] && [ "$rel_fs" != xfs ]; then
	B "--dir on $rel_fs" 1 "does not support FIDEDUPERANGE" "$FS" run dedupe --dir "$rel"
fi
B "-c not a cgroup" 2 "cgroup '/nonexistent'" "$FS" trace -c /nonexistent
B "--dev missing" 2 "--dev '/nonexistent'" "$FS" trace --dev /nonexistent
B "trace as non-root" 1 "must run as root" "${rel_nobody[@]}" "$FS" trace -d 1
# Malformed, truncated, huge JSON.
B "report: unterminated JSON" 1 "invalid report.*unexpected end of input" "$FS" report "$rel/open.json"
B "report: truncated report" 1 "invalid report '$rel/truncated.json'" "$FS" report "$rel/truncated.json"
B "report: empty file" 1 "invalid report '$rel/empty.json'" "$FS" report "$rel/empty.json"
B "report: binary garbage" 1 "invalid report.*malformed JSON" "$FS" report "$rel/garbage.json"
B "report: huge file" 1 "cannot read '$rel/huge.json': File too large" "$FS" report "$rel/huge.json"
B "report: other schema" 1 "schema 'folioscope/2', expected 'folioscope/1'" "$FS" report "$rel/schema.json"
B "report: trailing data" 1 "trailing data" "$FS" report "$rel/trailing.json"
B "report: not an object" 1 "top level: expected object" "$FS" report "$rel/array.json"
B "report: bad JSON on stdin" 1 "invalid report '-'" bash -c 'exec "$0" report - <"$1"' "$FS" "$rel/truncated.json"
B "compare: malformed report" 2 "invalid report '$rel/open.json'" "$FS" compare "$rel_good" "$rel/open.json"
B "compare: huge report" 2 "File too large" "$FS" compare "$rel/huge.json" "$rel_good"
# Malformed --expect rules.
B "rule: = for ==" 2 "bad rule 'shmem.calls=1'" "$FS" compare "$rel_good" "$rel_good" -e 'shmem.calls=1'
B "rule: empty" 2 "bad rule ''" "$FS" compare "$rel_good" "$rel_good" -e ''
B "rule: unknown target" 2 "unknown target 'nosuch'" "$FS" compare "$rel_good" "$rel_good" -e 'nosuch.calls==1'
B "rule: nan" 2 "bad rule 'shmem.calls<nan'" "$FS" compare "$rel_good" "$rel_good" -e 'shmem.calls<nan'
B "rule: p100" 2 "unknown statistic" "$FS" compare "$rel_good" "$rel_good" -e 'shmem.copy_bytes.p100>1'
B "rule: overlong pN.N (fuzz find)" 2 "expected a statistic" "$FS" compare "$rel_good" "$rel_good" -e "$rel_stat_rule"
# vm.
B "vm: no ARGS" 2 "missing the folioscope ARGS" "$FS" vm
B "vm: --mem 0" 2 "invalid --mem '0'" "$FS" vm --mem 0 -- doctor
B "vm: --accel unknown" 2 "invalid --accel 'fast' \(auto, kvm or tcg\)" "$FS" vm --accel fast -- doctor
# Kernels are checked before anything is built or booted: a readable
# regular file with the x86 boot header (a fake header passes that check).
B "vm: --kernel not a kernel" 1 "^folioscope: vm: kernel '$rel/notakernel' is not an x86 bzImage \(no .HdrS. boot header at 0x202\)$" "$FS" vm --kernel "$rel/notakernel" -- doctor
B "vm: --kernel empty" 1 "kernel '$rel/empty.json' is not an x86 bzImage" "$FS" vm --kernel "$rel/empty.json" -- doctor
B "vm: --kernel a directory" 1 "^folioscope: vm: kernel '$rel' is not a regular file$" "$FS" vm --kernel "$rel" -- doctor
B "vm: --kernel missing" 1 "cannot read kernel '/nonexistent': No such file" "$FS" vm --kernel /nonexistent -- doctor
B "vm: missing modules dir" 1 "cannot read modules dir '/nonexistent'" "$FS" vm --kernel "$rel/fakebz" --modules /nonexistent -- doctor
B "vm: --debian unknown" 2 "invalid --debian '5.10' \(6.1, 6.12\)" "$FS" vm --debian 5.10 -- doctor
B "vm: --kernel and --debian" 2 "--kernel and --debian both name the kernel" "$FS" vm --kernel "$rel/fakebz" --debian 6.12 -- doctor
# Offline (no apt-cache on PATH), each Debian series falls back to its own
# newest cached tree, never another series' (6.12.x sorts after 6.1.0-x),
# and a series with none cached fails naming it.
rel_kc=$rel/kcache
mkdir -p "$rel/nobin" "$rel/kc61/kernels"
for t in linux-image-6.1.0-98-cloud-amd64 linux-image-6.1.0-99-cloud-amd64 \
	linux-image-6.12.200+deb12-cloud-amd64; do
	for c in "$rel_kc" "$rel/kc61"; do
		[ "$c" == "$rel/kc61" ] && [ "${t#linux-image-6.12}" != "$t" ] && continue
		mkdir -p "$c/kernels/$t/boot"
		cp "$rel/fakebz" "$c/kernels/$t/boot/vmlinuz-${t#linux-image-}"
		echo "$t" >"$c/kernels/$t/.folioscope-complete"
	done
done
for v in default 6.1 6.12; do
	want=linux-image-6.1.0-99-cloud-amd64
	[ "$v" == 6.12 ] && want=linux-image-6.12.200+deb12-cloud-amd64
	dv=()
	[ "$v" != default ] && dv=(--debian "$v")
	err=$(env PATH="$rel/nobin" FOLIOSCOPE_CACHE="$rel_kc" "$FS" vm "${dv[@]}" -- doctor 2>&1 >/dev/null)
	expect_match "vm --debian $v offline: its own newest cached kernel" "$(head -1 <<<"$err")" \
		"^folioscope: vm: warning: cannot run apt-cache: No such file or directory; using cached $(sed 's/[.+]/\\&/g' <<<"$rel_kc/kernels/$want")\$"
done
B "vm --debian 6.12 offline, only 6.1 cached" 1 \
	"^folioscope: vm: no Debian 6.12 kernel: cannot run apt-cache: No such file or directory$" \
	env PATH="$rel/nobin" FOLIOSCOPE_CACHE="$rel/kc61" "$FS" vm --debian 6.12 -- doctor

# ---- corpus replay: every committed fuzz input through the real CLI ----
echo "-- reliability: corpus replay: every committed fuzz input through the real CLI (${SECONDS}s)"
rel_crash=
for f in tests/fuzz/corpus/json/*; do
	"$FS" report --format json "$f" >/dev/null 2>"$rel/replay.err"
	rc=$?
	if [ $rc -gt 1 ] || { [ $rc -eq 1 ] && [ "$(grep -c . "$rel/replay.err")" -ne 1 ]; }; then
		rel_crash+=" $f(exit $rc)"
	fi
done
expect_eq "fuzz corpus: report exits 0 or 1 with one line" "${rel_crash:-none}" none
rel_crash=
for f in tests/fuzz/corpus/rule/*; do
	"$FS" compare -q "$rel_good" "$rel_good" -e "$(tr -d '\0\n' <"$f")" >/dev/null 2>"$rel/replay.err"
	rc=$?
	if [ $rc -gt 2 ] || { [ $rc -eq 2 ] && [ "$(grep -c . "$rel/replay.err")" -ne 1 ]; }; then
		rel_crash+=" $f(exit $rc)"
	fi
done
expect_eq "fuzz corpus: compare --expect exits 0..2 with one line" "${rel_crash:-none}" none

# ---- signals ----
echo "-- reliability: signals (${SECONDS}s)"
# LeakSanitizer cannot work under ptrace (it fails the exit): off for
# what runs under strace in a SAN=1 build.
rel_nolsan=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# BPF programs and links a process holds, "prog N" / "link N", from fdinfo.
bpf_ids() {
	awk 'FNR == 1 { l = 0 } /^link_type:/ { l = 1 } /^link_id:/ { print "link " $2 }
	     /^prog_id:/ && !l { print "prog " $2 }' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u
}
# bpf_gone IDS: none of them exists any more (freed after an RCU grace).
bpf_gone() {
	local left i kind id
	for i in $(seq 50); do
		left=
		while read -r kind id; do
			[ -n "$id" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 && left+=" $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "$left"
	return 1
}
has_link() { ls -l /proc/"$1"/fd 2>/dev/null | grep -q bpf_link; }
# rel_stopped PID: PID is stopped (its --stop-after point).
rel_stopped() { [ "$(awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null)" == T ]; }
has_tmp() { compgen -G "$TMPDIR/folioscope-*" >/dev/null; }
json_ok() { jq -e '.schema == "folioscope/1" and (.targets | type) == "object"' "$1" >/dev/null 2>&1; }
sig_code() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; KILL) echo 137 ;; esac; }

# sig_run NAME SIG PHASE ARGS...: signal 'run ARGS' in PHASE (setup: its
# temp dir exists, nothing attached yet; traced: probes attached), then
# check: dies of the signal, no BPF program or link left, after INT/TERM
# nothing left, after KILL the next run removes what is left and says so,
# and -j's file is the old or the new complete report.
sig_run() {
	local name=$1 sig=$2 phase=$3 pid ids rc before out=$rel/sig.json left nxt
	shift 3
	cp "$rel_good" "$out"
	before=$(leak_state)
	# traced: the workload stops itself after its first call or case (probes
	# attached), however fast it would otherwise run to its end.
	if [ "$phase" == setup ]; then
		"$FS" run "$@" -j "$out" >/dev/null 2>"$rel/sig.err" &
		pid=$!
		wait_until 30 has_tmp
	else
		"$FS" run "$@" --stop-after 1 -j "$out" >/dev/null 2>"$rel/sig.err" &
		pid=$!
		wait_until 60 rel_stopped "$pid"
	fi
	# Held still while its BPF objects are listed, so the signal lands
	# in the phase named (a stopped process gets it when continued).
	kill -STOP "$pid"
	[ "$phase" == setup ] && has_link "$pid" && phase=traced
	ids=$(bpf_ids "$pid")
	kill -"$sig" "$pid"
	kill -CONT "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	name="signals: run $name: SIG$sig in $phase"
	expect_eq "$name: dies of it" "$rc" "$(sig_code "$sig")"
	if left=$(bpf_gone "$ids"); then ok "$name: no BPF program or link left"; else bad "$name: no BPF program or link left" "$left"; fi
	if [ "$sig" == KILL ]; then
		if [ "$before" != "$(leak_state)" ]; then
			nxt=$("$FS" run shmem-read --size 1M 2>&1 >/dev/null)
			expect_match "$name: next run removes what is left" "$nxt" "removed '$TMPDIR/folioscope-(shmem|dedupe)-[A-Za-z0-9]{6}' \([0-9]+ mounts?\), left behind by a run that was killed"
		fi
	fi
	expect_eq "$name: nothing left" "$(leak_state)" "$before"
	if json_ok "$out"; then ok "$name: -j file complete"; else bad "$name: -j file complete" "$(head -c 200 "$out")"; fi
}
rel_sh=(shmem-read --size 32M --bs 512)
rel_dd=(dedupe --count 512 --range 64K)
sig_run shmem-read INT traced "${rel_sh[@]}"
sig_run shmem-read TERM setup "${rel_sh[@]}"
sig_run shmem-read KILL traced "${rel_sh[@]}"
sig_run shmem-read KILL setup shmem-read --size 256M --bs 1M
sig_run dedupe INT setup "${rel_dd[@]}"
sig_run dedupe TERM traced "${rel_dd[@]}"
sig_run dedupe KILL setup "${rel_dd[@]}"

# A second SIGINT ends a run at once (runguard.c). strace holds the
# run's mount (setup) and umount (clean-up) a few seconds each: the first
# SIGINT is sent while it is held at the mount, with its handler in, so
# the handler runs as the mount returns (its message) and the graceful
# stop goes on to the clean-up; the second is sent while it is held at
# the umount, and the run dies of it before removing its temp dir, which
# the next run removes and names. Had the second changed nothing, the
# clean-up would finish: nothing left, nothing for the next run to say.
# (env: a background job has SIGINT ignored.)
rel_nr_mount=$(printf '#include <sys/syscall.h>\nSYS_mount\n' | cpp -P 2>/dev/null | tail -n 1)
rel_nr_umount2=$(printf '#include <sys/syscall.h>\nSYS_umount2\n' | cpp -P 2>/dev/null | tail -n 1)
# in_syscall PID NR: PID is at the entry of syscall NR (held there).
in_syscall() { [ "$(cut -d' ' -f1 /proc/"$1"/syscall 2>/dev/null)" == "$2" ]; }
# catches_int PID: PID has a SIGINT handler.
catches_int() {
	local cgt
	cgt=$(awk '/^SigCgt:/ { print $2 }' /proc/"$1"/status 2>/dev/null)
	[ -n "$cgt" ] && (((0x$cgt >> 1) & 1))
}
rel_at_mount() { in_syscall "$1" "$rel_nr_mount" && catches_int "$1"; }
rel_msg='^folioscope: run: interrupted: finishing the workload to undo it \(again to exit at once\)$'
if ! command -v strace >/dev/null || ! strace -e inject=umount2:delay_enter=1 true 2>/dev/null ||
	[[ ! "$rel_nr_mount $rel_nr_umount2" =~ ^[0-9]+\ [0-9]+$ ]]; then
	skip "signals: run: second SIGINT" "needs strace with syscall delay injection and cpp"
else
	name="signals: run: second SIGINT during the graceful stop"
	before=$(leak_state)
	: >"$rel/sig.err"
	env --default-signal=INT "$rel_nolsan" strace -f -o /dev/null -e trace=mount,umount2 \
		-e inject=mount:delay_enter=3000000 -e inject=umount2:delay_enter=3000000 \
		"$FS" run "${rel_sh[@]}" >/dev/null 2>"$rel/sig.err" &
	sp=$!
	# strace's own first children only probe ptrace and exit: the one
	# that counts is the one that became folioscope.
	wait_until 30 pgrep -P "$sp" -x folioscope >/dev/null
	pid=$(pgrep -P "$sp" -x folioscope)
	wait_until 60 rel_at_mount "$pid"
	kill -INT "$pid"
	wait_until 60 grep -Eq "$rel_msg" "$rel/sig.err"
	wait_until 60 in_syscall "$pid" "$rel_nr_umount2"
	expect_eq "$name: the first one began the graceful stop, held at its umount" \
		"$(grep -Ec "$rel_msg" "$rel/sig.err") $(in_syscall "$pid" "$rel_nr_umount2" && echo held)" "1 held"
	kill -INT "$pid"
	{ wait "$sp"; } 2>/dev/null
	expect_eq "$name: dies of it" "$?" 130
	expect_match "$name: its temp dir is left" "$(compgen -G "$TMPDIR/folioscope-shmem-*")" \
		"^$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}$"
	nxt=$("$FS" run shmem-read --size 1M 2>&1 >/dev/null)
	expect_match "$name: the next run removes what is left" "$nxt" \
		"^folioscope: run: removed '$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}' \([0-9]+ mounts?\), left behind by a run that was killed$"
	expect_eq "$name: nothing left after the next run" "$(leak_state)" "$before"
fi

# Killed at random points of a short run: -j's file is always a complete
# report (old or new), and nothing is left once the next run has started.
cp "$rel_good" "$rel/race.json"
rel_bad=
for d in 0.1 0.2 0.3 0.4 0.5; do
	"$FS" run shmem-read --size 4M -j "$rel/race.json" >/dev/null 2>&1 &
	pid=$!
	sleep "$d"
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	json_ok "$rel/race.json" || rel_bad+=" $d"
done
expect_eq "signals: SIGKILL at any time: -j file old or new, complete" "${rel_bad:-none}" none
"$FS" run shmem-read --size 1M >/dev/null 2>&1
expect_eq "signals: SIGKILL at any time: nothing left after the next run" "$(leak_state)" "$before"
# The next export of the same file removes the temp files the killed ones
# may have left (.race.json.folioscope-PID.XXXXXX), and leaves none.
"$FS" run shmem-read --size 1M -j "$rel/race.json" >/dev/null 2>&1
expect_eq "signals: SIGKILL at any time: no temp file after the next export" \
	"$(compgen -G "$rel/.race.json.*")" ""

# trace: SIGINT/SIGTERM print the final report and exit 0; SIGKILL leaves
# the old -j file; no BPF object survives either way.
sig_trace() {
	local sig=$1 want=$2 pid ids rc left out=$rel/trace.json
	cp "$rel_good" "$out"
	# Emptied first: the shell truncates it only once the job runs,
	# and a previous case's 'tracing' line must not count.
	: >"$rel/trace.err"
	"$FS" trace -t shmem -j "$out" >"$rel/trace.out" 2>"$rel/trace.err" &
	pid=$!
	wait_until 30 grep -q tracing "$rel/trace.err"
	ids=$(bpf_ids "$pid")
	kill -"$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	expect_eq "signals: trace: SIG$sig: exit" "$rc" "$want"
	if left=$(bpf_gone "$ids"); then ok "signals: trace: SIG$sig: no BPF program or link left"; else bad "signals: trace: SIG$sig: no BPF program or link left" "$left"; fi
	if json_ok "$out"; then ok "signals: trace: SIG$sig: -j file complete"; else bad "signals: trace: SIG$sig: -j file complete" "$(head -c 200 "$out")"; fi
	if [ "$sig" == KILL ]; then
		expect_eq "signals: trace: SIGKILL: -j file is the old one" "$(cmp -s "$rel_good" "$out" && echo old)" old
	else
		expect_eq "signals: trace: SIG$sig: -j file is the new one" "$(jq -r .host.kernel "$out")" "$(uname -r)"
	fi
}
sig_trace INT 0
sig_trace TERM 0
sig_trace KILL 137
# SIGINT while still attaching: signalled as soon as its first BPF object
# exists; the programs seen at any point until it ends are gone.
# rel_sample: adds PID's BPF objects to ids; true once it has any.
rel_sample() {
	local now
	now=$(bpf_ids "$pid")
	ids+=$'\n'$now
	[ -n "$now" ]
}
# rel_ended: samples too; true once PID has exited (or is a zombie).
rel_ended() {
	local st
	rel_sample
	st=$(awk '{ print $3 }' /proc/"$pid"/stat 2>/dev/null)
	[ -z "$st" ] || [ "$st" == Z ]
}
"$FS" trace -t all >/dev/null 2>&1 &
pid=$!
ids=
wait_until 30 rel_sample
kill -INT "$pid"
wait_until 30 rel_ended
wait "$pid"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 130 ]
expect_eq "signals: trace: SIGINT while attaching: exit 0 (or 130 before the handler)" "$?" 0
ids=$(sort -u <<<"$ids")
if left=$(bpf_gone "$ids"); then ok "signals: trace: SIGINT while attaching: nothing left"; else bad "signals: trace: SIGINT while attaching: nothing left" "$left"; fi
# trace -- CMD: SIGTERM stops the command too.
: >"$rel/trace.err"
"$FS" trace -t shmem -- sleep 60 >/dev/null 2>"$rel/trace.err" &
pid=$!
wait_until 30 grep -q tracing "$rel/trace.err"
rel_child=$(pgrep -P "$pid" -x sleep)
kill -TERM "$pid"
wait "$pid"
expect_eq "signals: trace -- CMD: SIGTERM: exit 0" "$?" 0
expect_eq "signals: trace -- CMD: SIGTERM: the command is stopped" "$(kill -0 "$rel_child" 2>/dev/null && echo alive || echo gone)" gone

# ---- signals while attaching ----
echo "-- reliability: signals while attaching (${SECONDS}s)"
# Every bpf() call held 100 ms by strace: once the first link exists the
# others are still to come, and the signal lands in the attach phase.
# in_attach SIG CMD...: sets rel_ids (BPF objects at the signal), returns
# CMD's status.
in_attach() {
	local sig=$1 pid sp
	shift
	rel_ids=
	env --default-signal=INT "$rel_nolsan" strace -f -o /dev/null -e trace=bpf \
		-e inject=bpf:delay_enter=100000 "$@" >/dev/null 2>"$rel/attach.err" &
	sp=$!
	# Not one of strace's short-lived ptrace probes: folioscope itself.
	wait_until 30 pgrep -P "$sp" -x folioscope >/dev/null
	pid=$(pgrep -P "$sp" -x folioscope)
	wait_until 60 has_link "$pid"
	rel_ids=$(bpf_ids "$pid")
	rel_phase=$(grep -c tracing "$rel/attach.err")
	kill -"$sig" "$pid"
	{ wait "$sp"; } 2>/dev/null
}
if ! command -v strace >/dev/null || ! strace -e inject=bpf:delay_enter=1 true 2>/dev/null; then
	skip "signals: while attaching" "needs strace with syscall delay injection"
else
	for sig in INT TERM KILL; do
		name="signals: trace: SIG$sig while attaching"
		in_attach "$sig" "$FS" trace -t all
		rc=$?
		expect_eq "$name: exit (0, or 137 for KILL); signalled before 'tracing'" "$rc $rel_phase" \
			"$([ "$sig" == KILL ] && echo 137 || echo 0) 0"
		if [ -z "$rel_ids" ]; then
			bad "$name: no BPF program or link left" "none seen"
		elif left=$(bpf_gone "$rel_ids"); then
			ok "$name: no BPF program or link left"
		else
			bad "$name: no BPF program or link left" "$left"
		fi
		name="signals: run: SIG$sig while attaching"
		before=$(leak_state)
		in_attach "$sig" "$FS" run shmem-read --size 1M
		expect_eq "$name: dies of it" "$?" "$(sig_code "$sig")"
		if left=$(bpf_gone "$rel_ids"); then ok "$name: no BPF program or link left"; else bad "$name: no BPF program or link left" "$left"; fi
		if [ "$sig" == KILL ]; then
			nxt=$("$FS" run shmem-read --size 1M 2>&1 >/dev/null)
			expect_match "$name: the next run removes what is left" "$nxt" \
				"^folioscope: run: removed '$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}' \(0 mounts\), left behind by a run that was killed$"
		fi
		expect_eq "$name: nothing left" "$(leak_state)" "$before"
	done
fi

# ---- signals in the export phase ----
echo "-- reliability: signals in the export phase (${SECONDS}s)"
# The export's rename is held 3 s by strace, so the signal lands while
# the temp file (DIR/.FILE.folioscope-PID.XXXXXX, PID the writer's) is
# complete and not yet renamed. INT/TERM are held until the rename: the
# file is the new one, no temp left, then death by the signal. KILL: the
# old file and the temp; the next export of FILE removes the temp, says
# so, and writes the new file. (env: a background job has SIGINT ignored.)
rel_exp=$rel/exp
mkdir "$rel_exp"
# in_export SIG OUT CMD...: CMD with its renames delayed, SIG sent to it
# once OUT's temp file exists; the exit status is CMD's.
in_export() {
	local sig=$1 out=$2 pid tmp
	shift 2
	env --default-signal=INT "$rel_nolsan" strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_enter=3000000 "$@" >/dev/null 2>"$rel_exp/err" &
	pid=$!
	wait_until 60 compgen -G "$(dirname "$out")/.$(basename "$out").folioscope-*" >/dev/null
	tmp=$(compgen -G "$(dirname "$out")/.$(basename "$out").folioscope-*")
	tmp=${tmp##*.folioscope-}
	kill -"$sig" "${tmp%.*}"
	{ wait "$pid"; } 2>/dev/null
}
rel_exp_tmp() { compgen -G "$rel_exp/.$1.folioscope-*"; }
if ! command -v strace >/dev/null || ! strace -e inject=rename:delay_enter=1 true 2>/dev/null; then
	skip "signals: export phase" "needs strace with syscall delay injection"
else
	"$FS" report --format html -o "$rel_exp/old.html" "$rel_good"
	"$FS" report --format html -o "$rel_exp/new.html" "$rel_good" tests/fixtures/export-new.json
	for sig in INT TERM KILL; do
		name="signals: report -o: SIG$sig in the export"
		cp "$rel_exp/old.html" "$rel_exp/out.html"
		in_export "$sig" "$rel_exp/out.html" "$FS" report --format html -o "$rel_exp/out.html" \
			"$rel_good" tests/fixtures/export-new.json
		expect_eq "$name: dies of it" "$?" "$(sig_code "$sig")"
		if [ "$sig" != KILL ]; then
			expect_eq "$name: the new complete file, no temp left" \
				"$(cmp -s "$rel_exp/new.html" "$rel_exp/out.html" && echo new) $(rel_exp_tmp out.html)" "new "
			continue
		fi
		rel_left=$(rel_exp_tmp out.html)
		expect_eq "$name: the old complete file and its temp" \
			"$(cmp -s "$rel_exp/old.html" "$rel_exp/out.html" && echo old) $(grep -c . <<<"$rel_left")" "old 1"
		rel_err=$("$FS" report --format html -o "$rel_exp/out.html" "$rel_good" tests/fixtures/export-new.json 2>&1)
		expect_eq "$name: the next export removes the temp, says so in one line" \
			"$rel_err" "folioscope: removed '$rel_left', left behind by an export that was killed"
		expect_eq "$name: the next export: the new file, no temp left" \
			"$(cmp -s "$rel_exp/new.html" "$rel_exp/out.html" && echo new) $(rel_exp_tmp out.html)" "new "
	done
	# run -j: the same through the deferred signal of run (SIGINT) and
	# after SIGKILL, where the next run removes both its temp dir and
	# the -j temp.
	before=$(leak_state)
	cp "$rel_good" "$rel_exp/run.json"
	in_export INT "$rel_exp/run.json" "$FS" run shmem-read --size 1M -j "$rel_exp/run.json"
	expect_eq "signals: run -j: SIGINT in the export: dies of it" "$?" 130
	expect_eq "signals: run -j: SIGINT in the export: the new complete file, no temp, nothing left" \
		"$(jq -r .host.kernel "$rel_exp/run.json") $(rel_exp_tmp run.json) $(leak_state)" "$(uname -r)  $before"
	cp "$rel_good" "$rel_exp/run.json"
	in_export KILL "$rel_exp/run.json" "$FS" run shmem-read --size 1M -j "$rel_exp/run.json"
	expect_eq "signals: run -j: SIGKILL in the export: the old file" \
		"$(cmp -s "$rel_good" "$rel_exp/run.json" && echo old)" old
	rel_left=$(rel_exp_tmp run.json)
	rel_err=$("$FS" run shmem-read --size 1M -j "$rel_exp/run.json" 2>&1 >/dev/null)
	expect_match "signals: run -j: SIGKILL in the export: the next run removes the temp" \
		"$rel_err" "^folioscope: removed '$rel_left', left behind by an export that was killed$"
	expect_match "signals: run -j: SIGKILL in the export: the next run removes the workload's dir" \
		"$rel_err" "^folioscope: run: removed '$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}' \(0 mounts\), left behind by a run that was killed$"
	expect_eq "signals: run -j: SIGKILL in the export: after the next run, no temp, nothing left" \
		"$(rel_exp_tmp run.json) $(leak_state)" " $before"
fi

# ---- signals in the VM boot ----
echo "-- reliability: signals in the VM boot (${SECONDS}s)"
# 'vm -- doctor' signalled once its qemu runs (the guest is booting):
# INT/TERM stop qemu, remove the work dir, one line, exit 1; KILL takes
# qemu down with it (PR_SET_PDEATHSIG) and leaves the work dir
# ($TMPDIR/folioscope-vm-PID.XXXXXX), which the next vm removes, saying
# so, even one that then fails.
rel_cache=${FOLIOSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/folioscope}
qemu_of() { pgrep -P "$1" -f qemu-system; }
# Gone, or a zombie no one has reaped yet (its memory is freed).
qemu_gone() { local st; st=$(awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null); [ -z "$st" ] || [ "$st" == Z ]; }
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "signals: vm boot" "no qemu-system-x86_64"
elif ! compgen -G "$rel_cache/kernels/linux-image-*/boot/vmlinuz-*" >/dev/null; then
	skip "signals: vm boot" "the default kernel is not in $rel_cache (a first 'folioscope vm' fetches it)"
else
	for sig in INT TERM KILL; do
		name="signals: vm: SIG$sig while booting"
		before=$(leak_state)
		"$FS" vm --accel tcg -- doctor >/dev/null 2>"$rel/vm.err" &
		pid=$!
		wait_until 120 qemu_of "$pid" >/dev/null
		rel_q=$(qemu_of "$pid")
		kill -"$sig" "$pid"
		{ wait "$pid"; } 2>/dev/null
		rc=$?
		if [ "$sig" == KILL ]; then
			expect_eq "$name: dies of it" "$rc" 137
		else
			expect_eq "$name: exit 1, one line" "$rc $(cat "$rel/vm.err")" "1 folioscope: vm: interrupted by $([ "$sig" == INT ] && echo Interrupt || echo Terminated)"
		fi
		if [ -n "$rel_q" ] && wait_until 60 qemu_gone "$rel_q"; then
			ok "$name: no qemu left"
		else
			bad "$name: no qemu left" "qemu '${rel_q:-not found}' still there"
		fi
		if [ "$sig" == KILL ]; then
			rel_left=$(compgen -G "$TMPDIR/folioscope-vm-$pid.*")
			expect_eq "$name: its work dir is left" "$(grep -c . <<<"$rel_left")" 1
			rel_err=$("$FS" vm --kernel "$rel/notakernel" -- doctor 2>&1 >/dev/null)
			expect_match "$name: the next vm removes it, one line" "$rel_err" \
				"^folioscope: vm: removed '$rel_left', left behind by a vm that was killed$"
		fi
		expect_eq "$name: nothing left" "$(leak_state)" "$before"
	done
fi

# ---- safety: a hostile --dir ----
echo "-- reliability: safety: a hostile --dir (${SECONDS}s)"
rel_bt=$rel/bt
mkdir "$rel_bt"
if truncate -s 256M "$rel/bt.img" && mkfs.btrfs -q -f "$rel/bt.img" >/dev/null 2>&1 &&
	mount -o loop "$rel/bt.img" "$rel_bt"; then
	mkdir "$rel_bt/mine" "$rel_bt/other" "$rel_bt/target"
	chown 65534:65534 "$rel_bt/other"
	ln -s "$rel_bt/target" "$rel_bt/link"
	# Files a careless workload might reuse: never touched.
	for n in f0000000 img0 mnt0 folioscope-dedupe-XXXXXX; do echo planted >"$rel_bt/mine/$n"; done
	ln -s /etc/passwd "$rel_bt/mine/f0000001"
	rel_sum=$(cd "$rel_bt" && find . -printf '%p %y %s %m %l\n' | sort | md5sum)
	if "$FS" run dedupe --dir "$rel_bt/mine" --count 4 >"$LOGDIR/rel-dir.log" 2>&1; then
		ok "safety: run dedupe --dir on btrfs"
	else
		bad "safety: run dedupe --dir on btrfs" "exit $?; see $LOGDIR/rel-dir.log"
	fi
	expect_eq "safety: --dir: nothing touched, nothing left" \
		"$(cd "$rel_bt" && find . -printf '%p %y %s %m %l\n' | sort | md5sum)" "$rel_sum"
	for d in other link; do
		rel_what=$([ $d == other ] && echo "owned by another user" || echo "a symlink")
		before=$(leak_state)
		err=$("$FS" run dedupe --dir "$rel_bt/$d" --count 4 2>&1 >/dev/null)
		rc=$?
		if [ $rc -eq 1 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q "$rel_what" <<<"$err"; then
			ok "safety: --dir $rel_what is refused"
		else
			bad "safety: --dir $rel_what is refused" "exit $rc: $err"
		fi
		expect_eq "safety: --dir $rel_what: nothing left there" "$(find "$rel_bt/$d/" -mindepth 1 | wc -l) $(leak_state)" "0 $before"
	done
	# A killed 'run dedupe --dir DIR' leaves DIR/folioscope-dedupe-*:
	# the next run with that --dir removes it and says so, while a live
	# run's is left alone; the planted files stay untouched throughout.
	rel_ddirs() { find "$rel_bt/mine" -mindepth 1 -maxdepth 1 -type d -name 'folioscope-dedupe-*'; }
	rel_has_ddir() { [ -n "$(rel_ddirs)" ]; }
	"$FS" run "${rel_dd[@]}" --dir "$rel_bt/mine" >/dev/null 2>&1 &
	pid=$!
	wait_until 30 rel_has_ddir
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	rel_left=$(rel_ddirs)
	expect_eq "safety: --dir: SIGKILL leaves one temp dir there" "$(grep -c . <<<"$rel_left")" 1
	# The next run with that --dir removes it (and says so), then makes
	# its own; held there, it is a live run that a third one leaves alone
	# (known by its --dir: its TMPDIR differs).
	TMPDIR=$rel/pub "$FS" run "${rel_dd[@]}" --dir "$rel_bt/mine" >/dev/null 2>"$rel/dir.err" &
	pid=$!
	wait_until 30 eval '[ -n "$(rel_ddirs | grep -vxF "$rel_left")" ]'
	kill -STOP "$pid"
	rel_live=$(rel_ddirs)
	expect_match "safety: --dir: the next run removes the killed one's dir, one line" "$(cat "$rel/dir.err")" \
		"^folioscope: run: removed '$rel_left' \(0 mounts\), left behind by a run that was killed$"
	expect_eq "safety: --dir: only the next run's own temp dir is there" "$(grep -c . <<<"$rel_live") $(grep -cxF "$rel_left" <<<"$rel_live")" "1 0"
	rel_err=$("$FS" run dedupe --dir "$rel_bt/mine" --count 4 2>&1 >/dev/null)
	expect_eq "safety: --dir: with a live run there, a third run exits 0 and removes nothing" \
		"$? $(grep -c removed <<<"$rel_err") $(rel_ddirs)" "0 0 $rel_live"
	kill -CONT "$pid"
	wait "$pid"
	expect_eq "safety: --dir: the live run then ends well" "$?" 0
	expect_eq "safety: --dir: after it, no temp dir and the planted files untouched" \
		"$(rel_ddirs)$(cd "$rel_bt" && find . -printf '%p %y %s %m %l\n' | sort | md5sum)" "$rel_sum"
	umount "$rel_bt"
else
	skip "safety: hostile --dir" "cannot make a btrfs scratch filesystem"
fi
rm -f "$rel/bt.img"

# ---- valgrind: no leak, no invalid access in doctor, report, compare ----
echo "-- reliability: valgrind: no leak, no invalid access in doctor, report, compare (${SECONDS}s)"
rel_dyn=$(dirname "$FS")/folioscope-dyn
if [ -n "${SAN:-}" ]; then
	skip "valgrind" "not with a sanitizer build"
elif ! command -v valgrind >/dev/null || [ ! -x "$rel_dyn" ]; then
	skip "valgrind" "needs valgrind and $rel_dyn (make check builds it)"
else
	vg() {
		local name=$1 log=$LOGDIR/valgrind-$1.log
		shift
		# libbpf hands the kernel bpf_attr unions with padding valgrind
		# calls uninitialised (tests/host/valgrind.supp).
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			--suppressions=tests/host/valgrind.supp \
			--log-file="$log" "$rel_dyn" "$@" >/dev/null 2>&1
		rc=$?
		# Its own note on bpf commands it does not model is no finding.
		sed -i '/WARNING: unhandled eBPF command/d' "$log"
		if [ $rc -ne 99 ] && ! [ -s "$log" ]; then ok "valgrind: $name"; else bad "valgrind: $name" "$(head -n 5 "$log")"; fi
	}
	# As root doctor loads and attaches every step it can; -m syscall
	# keeps that to the syscall-level programs (valgrind is slow).
	vg doctor doctor --json -m syscall
	vg report-html report --format html "$rel_good" tests/fixtures/export-new.json
	vg report-csv report --format csv -o "$rel/vg.csv" "$rel_good"
	vg report-bad report "$rel/truncated.json"
	vg compare compare "$rel_good" tests/fixtures/export-new.json -e 'shmem.calls==base' -e 'shmem.latency_ns.p99.9<=base*2'
	vg compare-bad compare "$rel_good" "$rel/open.json"
	vg compare-picture compare "$rel_good" "$rel_good" --vs tests/fixtures/export-new.json \
		--force -e 'shmem.calls==base' -o "$rel/vg.svg"
	vg report-heatmap report --format html tests/fuzz/corpus/json/intervals.json
	vg compare-intervals compare tests/fuzz/corpus/json/intervals.json tests/fuzz/corpus/json/intervals.json \
		--vs tests/fuzz/corpus/json/intervals.json tests/fuzz/corpus/json/intervals.json -o "$rel/vg-iv.svg"
	vg trace-intervals trace -m syscall -t shmem -i 0.3 -d 1 -q -j "$rel/vg-i.json" --serve 127.0.0.1:0
	# report --serve re-reading its file as it is replaced, broken and
	# rewritten, then stopped by Ctrl-C: the reports it let go are freed.
	if command -v curl >/dev/null; then
		log=$LOGDIR/valgrind-report-serve.log
		cp "$rel_good" "$rel/follow.json"
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			--suppressions=tests/host/valgrind.supp --log-file="$log" \
			"$rel_dyn" report "$rel/follow.json" --serve 127.0.0.1:0 >/dev/null 2>"$rel/follow.err" &
		pid=$!
		if wait_until 120 grep -q 'serving http' "$rel/follow.err"; then
			url=$(grep -o 'http://[^ ]*/metrics' "$rel/follow.err")
			url=${url%/metrics}
			curl -sf "$url/report.json" >/dev/null
			cp tests/fixtures/export-new.json "$rel/follow.tmp" && mv "$rel/follow.tmp" "$rel/follow.json"
			rel_k1=$(curl -sf "$url/report.json" | jq -r .host.kernel)
			curl -sf "$url/report.html" >/dev/null
			curl -sf "$url/metrics" >/dev/null
			printf '{' >"$rel/follow.json"
			curl -sf "$url/report.json" >/dev/null
			cat "$rel_good" >"$rel/follow.json"
			rel_k2=$(curl -sf "$url/report.json" | jq -r .host.kernel)
		fi
		kill -INT "$pid"
		wait "$pid"
		rc=$?
		if [ $rc -eq 0 ] && ! [ -s "$log" ] &&
			[ "$rel_k1 $rel_k2" = "$(jq -r .host.kernel tests/fixtures/export-new.json) $(jq -r .host.kernel "$rel_good")" ]; then
			ok "valgrind: report-serve re-reading its file"
		else
			bad "valgrind: report-serve re-reading its file" "exit $rc, served '${rel_k1:-} ${rel_k2:-}': $(head -n 5 "$log") $(head -n 3 "$rel/follow.err")"
		fi
	else
		skip "valgrind: report-serve re-reading its file" "curl not installed"
	fi
fi

trap - INT TERM
rel_cleanup
