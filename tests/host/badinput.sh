# Bad input, sourced by tests/check.sh: a table of bad invocations and
# malformed files, each refused with one line on stderr, the exit code of
# docs/guarantees.md and nothing left behind, the kernel cache offline,
# and every committed fuzz input through the real CLI. Exit codes: 2 the
# command line is wrong, 1 the command failed (environment, input files,
# checks); compare: 1 a rule failed, 2 it could not compare. Run as root.
# shellcheck shell=bash

scratch_setup fs-badinput
bi_cg=
# A memory cgroup (v1, or v2 with the memory controller) holding commands
# that must refuse before allocating: if one did not, it is killed at
# 1 GiB instead of filling the machine's RAM with tmpfs pages.
bi_v1=$(awk -F: '$2 == "memory" { print $3; exit }' /proc/self/cgroup)
bi_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$bi_v1" ] && [ -d "/sys/fs/cgroup/memory$bi_v1" ] &&
	mkdir "/sys/fs/cgroup/memory$bi_v1/fs-badinput-$$" 2>/dev/null; then
	bi_cg=/sys/fs/cgroup/memory$bi_v1/fs-badinput-$$
	echo $((1 << 30)) >"$bi_cg/memory.limit_in_bytes"
elif [ -n "$bi_v2" ] && grep -qw memory "$bi_v2/cgroup.subtree_control" 2>/dev/null &&
	mkdir "$bi_v2/fs-badinput-$$" 2>/dev/null; then
	bi_cg=$bi_v2/fs-badinput-$$
	echo $((1 << 30)) >"$bi_cg/memory.max"
fi
bi_cg_remove() { [ -z "$bi_cg" ] || rmdir "$bi_cg" 2>/dev/null; }
scratch_atexit+=(bi_cg_remove)
# limited CMD...: CMD in that cgroup (or not run: returns 125).
limited() {
	[ -n "$bi_cg" ] || { echo "folioscope-test: no memory cgroup" >&2; return 125; }
	(echo "$BASHPID" >"$bi_cg/cgroup.procs" && exec "$@")
}

# ---- inputs ----
echo "-- badinput: inputs (${SECONDS}s)"
bi_good=$SCRATCH/pub/good.json
mkdir -m 755 "$SCRATCH/pub" "$SCRATCH/ro"
cp tests/fixtures/export-base.json "$bi_good"
chmod 644 "$bi_good"
printf '{' >"$SCRATCH/open.json"
head -c 3000 "$bi_good" >"$SCRATCH/truncated.json"
: >"$SCRATCH/empty.json"
head -c 4096 /dev/urandom >"$SCRATCH/garbage.json"
sed 's|folioscope/1|folioscope/2|' "$bi_good" >"$SCRATCH/schema.json"
{ cat "$bi_good"; echo '{}'; } >"$SCRATCH/trailing.json"
printf '[]' >"$SCRATCH/array.json"
# Past the reader's 64 MiB limit, valid JSON all the same.
{ printf '{"schema":"folioscope/1","pad":"'; head -c $((65 << 20)) /dev/zero | tr '\0' a; printf '"}'; } >"$SCRATCH/huge.json"
install -m 600 "$bi_good" "$SCRATCH/pub/secret.json"
head -c 100000 /dev/urandom >"$SCRATCH/notakernel"
{ head -c $((0x202)) /dev/zero; printf HdrS; head -c 4096 /dev/zero; } >"$SCRATCH/fakebz"
echo text >"$SCRATCH/file"
bi_stat_rule="shmem.copy_bytes.p$(printf '9%.0s' $(seq 46)).9>1"
bi_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# ---- bad input: NAME EXIT REGEX CMD... (one stderr line, nothing left) ----
echo "-- badinput: bad input: NAME EXIT REGEX CMD... (one stderr line, nothing left) (${SECONDS}s)"
B() { expect_error "bad input: $1" "$2" "$3" "${@:4}"; }
# Options argp/getopt refuse: one line, exit 2 (not argp's two lines).
B "unknown long option" 2 "^folioscope: trace: unrecognized option '--bogus'; see 'folioscope trace --help'$" "$FS" trace --bogus
B "unknown short option" 2 "^folioscope: doctor: invalid option -- 'x'" "$FS" doctor -x
B "misspelt run option" 2 "unrecognized option '--sise'" "$FS" run shmem-read --sise 1M
B "missing option argument" 2 "run: option requires an argument -- 'j'" "$FS" run shmem-read -j
B "ambiguous option" 2 "option '--s' is ambiguous" "$FS" run shmem-read --s 1M
B "argument to a flag" 2 "option '--json' doesn't allow an argument" "$FS" doctor --json=yes
B "report: unknown option" 2 "report: unrecognized option '--nope'" "$FS" report --nope "$bi_good"
B "compare: unknown option" 2 "compare: unrecognized option '--nope'" "$FS" compare --nope "$bi_good" "$bi_good"
B "vm: unknown option" 2 "vm: unrecognized option '--nope'" "$FS" vm --nope -- doctor
B "doctor: stray argument" 2 "unexpected argument 'extra'" "$FS" doctor extra
B "run: no workload" 2 "which workload" "$FS" run
B "run: two workloads" 2 "one workload at a time" "$FS" run dedupe shmem-read
# The bench's switch set wrong: its reason alone, not a plan that failed.
B "trace: unknown FOLIOSCOPE_COST_DROP part" 1 "^folioscope: FOLIOSCOPE_COST_DROP: no part 'bogus' \\(want file" env FOLIOSCOPE_COST_DROP=bogus "$FS" trace -t shmem -- true
# A trace's build reads no knob: a part named there would drop nothing.
B "trace: FOLIOSCOPE_COST_DROP outside the bench's build" 1 "^folioscope: FOLIOSCOPE_COST_DROP: this build's programs leave nothing out; the bench's build does" env FOLIOSCOPE_COST_DROP=time "$FS" trace -t shmem -- true
B "run: --throughput with readv" 2 "^folioscope: run: --throughput reads with --syscall read or pread, not readv" "$FS" run shmem-read --throughput --syscall readv
B "run: --throughput with --readers" 2 "^folioscope: run: --throughput reads the whole file with one reader into one buffer; drop --readers" "$FS" run shmem-read --throughput --readers 2
B "run: --throughput with --buf-tmpfs" 2 "drop --buf-tmpfs" "$FS" run shmem-read --buf-tmpfs --throughput=4
B "run: --throughput=0" 2 "invalid --throughput '0'" "$FS" run shmem-read --throughput=0
B "run: --throughput=33" 2 "--throughput 33 is too large \\(at most 32\\)" "$FS" run shmem-read --throughput=33
B "run: --throughput with --matrix" 2 "--matrix runs its own layouts; drop --throughput" "$FS" run shmem-read --matrix --throughput
B "run: --throughput on dedupe" 2 "--throughput is a shmem-read option" "$FS" run dedupe --throughput
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
B "--by an unknown key" 2 "unknown --by 'pid' .process, cgroup." "$FS" trace --by pid
B "-c a directory that is no cgroup" 2 "cgroup '/tmp': not a cgroup v2 directory" "$FS" trace -c /tmp
B "-c a missing directory" 2 "cgroup '/nonexistent': No such file or directory" "$FS" trace -c /nonexistent
if [ -n "$bi_v2" ]; then
	B "-c nine times" 2 "at most 8 --cgroup options" "$FS" trace \
		-c "$bi_v2" -c "$bi_v2" -c "$bi_v2" -c "$bi_v2" -c "$bi_v2" -c "$bi_v2" -c "$bi_v2" -c "$bi_v2" -c "$bi_v2"
else
	skip "-c nine times" "no cgroup v2 mount"
fi
# Values the workload refuses before it sets anything up (exit 1).
B "--bs past the workload's range" 1 "--bs '2147483648'.*1 GiB" "$FS" run shmem-read --bs 2G
B "--size past loff_t" 1 "run shmem-read: --size '9223372036854775807'" "$FS" run shmem-read --size 9223372036854775807
# Larger than memory or the filesystem: refused before anything is written
# (inside a 1 GiB memory cgroup, in case it were not).
if [ -n "$bi_cg" ]; then
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
B "report: two runs as csv" 2 "two reports need --format svg or html" "$FS" report --format csv "$bi_good" "$bi_good"
B "report: --serve-any alone" 2 "--serve-any needs --serve" "$FS" report --serve-any "$bi_good"
B "trace: --serve-any alone" 2 "^folioscope: trace: --serve-any needs --serve$" "$FS" trace --serve-any
B "report: --serve with -o" 2 "--serve takes one report" "$FS" report --serve 127.0.0.1:0 -o "$SCRATCH/x.csv" "$bi_good"
B "report: format from a bad name" 2 "cannot tell the format of" "$FS" report -o "$SCRATCH/x.nope" "$bi_good"
B "trace: unknown --format" 2 "unknown format 'nope'" "$FS" trace --format nope
B "compare: one file" 2 "want BASE.json NEW.json" "$FS" compare "$bi_good"
B "compare: a picture as csv" 2 "a comparison draws as html or svg, not csv" "$FS" compare -o "$SCRATCH/x.csv" "$bi_good" "$bi_good"
B "compare: a picture in an unknown format" 2 "cannot tell the picture's format from png" "$FS" compare --format png "$bi_good" "$bi_good"
B "compare: --vs first" 2 "--vs needs base runs before it" "$FS" compare --vs "$bi_good"
B "compare: nothing after --vs" 2 "--vs needs new runs after it" "$FS" compare "$bi_good" --vs
# Paths: missing, not a directory, unreadable, unwritable, wrong filesystem.
B "-j in a missing dir" 1 "cannot write '/nonexistent/x.json': No such file" "$FS" trace -d 30 -j /nonexistent/x.json
B "-j a directory" 1 "cannot write '$SCRATCH': Is a directory" "$FS" run shmem-read -j "$SCRATCH"
B "-o in a missing dir" 1 "cannot write '/nonexistent/x.csv'" "$FS" trace -d 30 -o /nonexistent/x.csv
B "report: missing file" 1 "cannot read '$SCRATCH/none.json': No such file" "$FS" report "$SCRATCH/none.json"
B "report: a directory" 1 "cannot read '$SCRATCH': Is a directory" "$FS" report "$SCRATCH"
B "report: unreadable file" 1 "cannot read '.*secret.json': Permission denied" "${bi_nobody[@]}" "$FS" report "$SCRATCH/pub/secret.json"
B "report: unwritable -o" 1 "cannot write '$SCRATCH/ro/x.csv': Permission denied" "${bi_nobody[@]}" "$FS" report -o "$SCRATCH/ro/x.csv" "$bi_good"
B "compare: missing file" 2 "cannot read '$SCRATCH/none.json'" "$FS" compare "$bi_good" "$SCRATCH/none.json"
B "--dir a regular file" 1 "--dir '$SCRATCH/file'.*Not a directory" "$FS" run dedupe --dir "$SCRATCH/file"
bi_fs=$(stat -f -c %T "$SCRATCH")
if [ "$bi_fs" != btrfs ] && [ "$bi_fs" != xfs ]; then
	B "--dir on $bi_fs" 1 "does not support FIDEDUPERANGE" "$FS" run dedupe --dir "$SCRATCH"
fi
B "-c not a cgroup" 2 "cgroup '/nonexistent'" "$FS" trace -c /nonexistent
B "--dev missing" 2 "--dev '/nonexistent'" "$FS" trace --dev /nonexistent
B "trace as non-root" 1 "must run as root" "${bi_nobody[@]}" "$FS" trace -d 1
# Malformed, truncated, huge JSON.
B "report: unterminated JSON" 1 "invalid report.*unexpected end of input" "$FS" report "$SCRATCH/open.json"
B "report: truncated report" 1 "invalid report '$SCRATCH/truncated.json'" "$FS" report "$SCRATCH/truncated.json"
B "report: empty file" 1 "invalid report '$SCRATCH/empty.json'" "$FS" report "$SCRATCH/empty.json"
B "report: binary garbage" 1 "invalid report.*malformed JSON" "$FS" report "$SCRATCH/garbage.json"
B "report: huge file" 1 "cannot read '$SCRATCH/huge.json': File too large" "$FS" report "$SCRATCH/huge.json"
B "report: other schema" 1 "schema 'folioscope/2', expected 'folioscope/1'" "$FS" report "$SCRATCH/schema.json"
B "report: trailing data" 1 "trailing data" "$FS" report "$SCRATCH/trailing.json"
B "report: not an object" 1 "top level: expected object" "$FS" report "$SCRATCH/array.json"
B "report: bad JSON on stdin" 1 "invalid report '-'" bash -c 'exec "$0" report - <"$1"' "$FS" "$SCRATCH/truncated.json"
B "compare: malformed report" 2 "invalid report '$SCRATCH/open.json'" "$FS" compare "$bi_good" "$SCRATCH/open.json"
B "compare: huge report" 2 "File too large" "$FS" compare "$SCRATCH/huge.json" "$bi_good"
# Malformed --expect rules.
B "rule: = for ==" 2 "bad rule 'shmem.calls=1'" "$FS" compare "$bi_good" "$bi_good" -e 'shmem.calls=1'
B "rule: empty" 2 "bad rule ''" "$FS" compare "$bi_good" "$bi_good" -e ''
B "rule: unknown target" 2 "unknown target 'nosuch'" "$FS" compare "$bi_good" "$bi_good" -e 'nosuch.calls==1'
B "rule: nan" 2 "bad rule 'shmem.calls<nan'" "$FS" compare "$bi_good" "$bi_good" -e 'shmem.calls<nan'
B "rule: p100" 2 "unknown statistic" "$FS" compare "$bi_good" "$bi_good" -e 'shmem.copy_bytes.p100>1'
B "rule: overlong pN.N (fuzz find)" 2 "expected a statistic" "$FS" compare "$bi_good" "$bi_good" -e "$bi_stat_rule"
# vm.
B "vm: no ARGS" 2 "missing the folioscope ARGS" "$FS" vm
B "vm: --mem 0" 2 "invalid --mem '0'" "$FS" vm --mem 0 -- doctor
B "vm: --accel unknown" 2 "invalid --accel 'fast' \(auto, kvm, tcg, tcg-multi, tcg-icount\)" "$FS" vm --accel fast -- doctor
# Kernels are checked before anything is built or booted: a readable
# regular file with the x86 boot header (a fake header passes that check).
B "vm: --kernel not a kernel" 1 "^folioscope: vm: kernel '$SCRATCH/notakernel' is not an x86 bzImage \(no .HdrS. boot header at 0x202\)$" "$FS" vm --kernel "$SCRATCH/notakernel" -- doctor
B "vm: --kernel empty" 1 "kernel '$SCRATCH/empty.json' is not an x86 bzImage" "$FS" vm --kernel "$SCRATCH/empty.json" -- doctor
B "vm: --kernel a directory" 1 "^folioscope: vm: kernel '$SCRATCH' is not a regular file$" "$FS" vm --kernel "$SCRATCH" -- doctor
B "vm: --kernel missing" 1 "cannot read kernel '/nonexistent': No such file" "$FS" vm --kernel /nonexistent -- doctor
B "vm: missing modules dir" 1 "cannot read modules dir '/nonexistent'" "$FS" vm --kernel "$SCRATCH/fakebz" --modules /nonexistent -- doctor
B "vm: --debian unknown" 2 "invalid --debian '5.10' \(6.1, 6.12\)" "$FS" vm --debian 5.10 -- doctor
B "vm: --kernel and --debian" 2 "--kernel and --debian both name the kernel" "$FS" vm --kernel "$SCRATCH/fakebz" --debian 6.12 -- doctor
# Offline (no apt-cache on PATH), each Debian series falls back to its own
# newest cached tree, never another series' (6.12.x sorts after 6.1.0-x),
# and a series with none cached fails naming it.
bi_kc=$SCRATCH/kcache
mkdir -p "$SCRATCH/nobin" "$SCRATCH/kc61/kernels"
for t in linux-image-6.1.0-98-cloud-amd64 linux-image-6.1.0-99-cloud-amd64 \
	linux-image-6.12.200+deb12-cloud-amd64; do
	for c in "$bi_kc" "$SCRATCH/kc61"; do
		[ "$c" == "$SCRATCH/kc61" ] && [ "${t#linux-image-6.12}" != "$t" ] && continue
		mkdir -p "$c/kernels/$t/boot"
		cp "$SCRATCH/fakebz" "$c/kernels/$t/boot/vmlinuz-${t#linux-image-}"
		echo "$t" >"$c/kernels/$t/.folioscope-complete"
	done
done
for v in default 6.1 6.12; do
	want=linux-image-6.1.0-99-cloud-amd64
	[ "$v" == 6.12 ] && want=linux-image-6.12.200+deb12-cloud-amd64
	dv=()
	[ "$v" != default ] && dv=(--debian "$v")
	err=$(env PATH="$SCRATCH/nobin" FOLIOSCOPE_CACHE="$bi_kc" "$FS" vm "${dv[@]}" -- doctor 2>&1 >/dev/null)
	expect_match "vm --debian $v offline: its own newest cached kernel" "$(head -1 <<<"$err")" \
		"^folioscope: vm: warning: cannot run apt-cache: No such file or directory; using cached $(sed 's/[.+]/\\&/g' <<<"$bi_kc/kernels/$want")\$"
done
B "vm --debian 6.12 offline, only 6.1 cached" 1 \
	"^folioscope: vm: no Debian 6.12 kernel: cannot run apt-cache: No such file or directory$" \
	env PATH="$SCRATCH/nobin" FOLIOSCOPE_CACHE="$SCRATCH/kc61" "$FS" vm --debian 6.12 -- doctor

# ---- corpus replay: every committed fuzz input through the real CLI ----
echo "-- badinput: corpus replay: every committed fuzz input through the real CLI (${SECONDS}s)"
bi_crash=
for f in tests/fuzz/corpus/json/*; do
	"$FS" report --format json "$f" >/dev/null 2>"$SCRATCH/replay.err"
	rc=$?
	if [ $rc -gt 1 ] || { [ $rc -eq 1 ] && [ "$(grep -c . "$SCRATCH/replay.err")" -ne 1 ]; }; then
		bi_crash+=" $f(exit $rc)"
	fi
done
expect_eq "fuzz corpus: report exits 0 or 1 with one line" "${bi_crash:-none}" none
bi_crash=
for f in tests/fuzz/corpus/rule/*; do
	"$FS" compare -q "$bi_good" "$bi_good" -e "$(tr -d '\0\n' <"$f")" >/dev/null 2>"$SCRATCH/replay.err"
	rc=$?
	if [ $rc -gt 2 ] || { [ $rc -eq 2 ] && [ "$(grep -c . "$SCRATCH/replay.err")" -ne 1 ]; }; then
		bi_crash+=" $f(exit $rc)"
	fi
done
expect_eq "fuzz corpus: compare --expect exits 0..2 with one line" "${bi_crash:-none}" none
