# Kernel facts, concurrent instances and --user, sourced by
# tests/check.sh. Readers are gated on a
# fifo so they run only once the probes are in, and every trace filters to
# the test's own readers: other activity on the machine cannot change the
# counts. Every wait is bounded. Run as root.
# shellcheck shell=bash

kf=$(mktemp -d /tmp/fs-kf.XXXXXX)
chmod 755 "$kf"
# Reader data on tmpfs (shmem reads), the rest in $kf.
kf_shm=$(mktemp -d /dev/shm/fs-kf.XXXXXX)
head -c 700000 /dev/urandom >"$kf_shm/a"
head -c 200000 /dev/urandom >"$kf_shm/b"
kf_pids=

kf_cleanup() {
	local p
	for p in $kf_pids; do kill "$p" 2>/dev/null; done
	rm -rf "$kf" "$kf_shm"
}

# kf_reader NAME CMD...: lib.sh's gated_reader in $kf, its pid also in
# kf_pids (killed on the way out).
kf_reader() {
	gated_reader "$kf" "$@"
	kf_pids+=" $RPID"
}
# kf_go NAME: release the reader (a timeout, not a block, if it is gone).
kf_go() { timeout 10 sh -c 'echo go >"$0"' "$kf/$1.go"; rm -f "$kf/$1.go"; }
# kf_wait_line FILE REGEX: up to 30 s for REGEX to appear in FILE.
kf_wait_line() { wait_until 30 grep -Eq "$2" "$1" 2>/dev/null; }
# kf_ended PID: PID is gone (reaped).
kf_ended() { ! kill -0 "$1" 2>/dev/null; }
# kf_wait_exit PID: up to 30 s for PID to end; its status in $KRC.
kf_wait_exit() {
	if ! wait_until 30 kf_ended "$1"; then
		kill -KILL "$1"
		KRC=timeout
		wait "$1" 2>/dev/null
		return 1
	fi
	wait "$1"
	KRC=$?
}
# kf_bpf_left IDS: those of lib.sh's bpf_ids IDS still in the kernel after
# up to 5 s (RCU frees), or none.
kf_bpf_left() { bpf_gone "$1" && echo none; }
# "Uid:/Gid:" lines of /proc/PID/status as "real effective saved fs".
kf_ids() { awk -v k="$2:" '$1 == k { print $2, $3, $4, $5 }' /proc/"$1"/status; }

# ---- --user: trace and report --serve drop root once set up ----
echo "-- kfacts: --user (${SECONDS}s)"
expect_error "trace --user: unknown user" 2 "trace: --user 'fs-no-such-user': no such user in /etc/passwd" \
	"$FS" trace -t shmem -d 1 --user fs-no-such-user
expect_error "report --serve --user: unknown user" 2 "report: --user 'fs-no-such-user': no such user" \
	"$FS" report --serve 127.0.0.1:0 --user fs-no-such-user tests/fixtures/export-base.json
expect_error "report --user without --serve" 2 "report: --user needs --serve" \
	"$FS" report --user nobody tests/fixtures/export-base.json
expect_error "trace --user: missing argument" 2 "trace: .*user" "$FS" trace --user

kf_uid=$(id -u nobody 2>/dev/null)
kf_gid=$(id -g nobody 2>/dev/null)
if [ -z "$kf_uid" ]; then
	skip "--user" "no user 'nobody' on this machine"
elif ! command -v curl >/dev/null; then
	skip "--user" "curl not installed"
else
	# -j goes to a directory nobody may write.
	mkdir "$kf/out" && chmod 1777 "$kf/out"
	kf_reader a cat "$kf_shm/a"; A=$RPID
	"$FS" trace -t shmem -p "$A" --serve 127.0.0.1:0 --user nobody \
		-j "$kf/out/u.json" >"$kf/u.out" 2>"$kf/u.err" &
	T=$!
	kf_pids+=" $T"
	if kf_wait_line "$kf/u.err" 'tracing'; then
		ids=$(bpf_ids "$T")
		expect_eq "trace --user nobody: Uid during the loop" "$(kf_ids "$T" Uid)" \
			"$kf_uid $kf_uid $kf_uid $kf_uid"
		expect_eq "trace --user nobody: Gid during the loop" "$(kf_ids "$T" Gid)" \
			"$kf_gid $kf_gid $kf_gid $kf_gid"
		expect_eq "trace --user nobody: no supplementary groups" \
			"$(awk '$1 == "Groups:" { print NF - 1 }' /proc/"$T"/status)" 0
		expect_match "trace --user nobody: still holds its BPF links" "$ids" '^link [0-9]+'
		url=$(grep -oE 'http://[^ ]*/metrics' "$kf/u.err")
		kf_go a; wait "$A"
		m=$(curl -s --max-time 10 "$url")
		kill -INT "$T"
		kf_wait_exit "$T"
		expect_eq "trace --user nobody: SIGINT exits 0" "$KRC" 0
		expect_eq "trace --user nobody: /metrics served as nobody (bytes)" \
			"$(awk '/^folioscope_shmem_bytes_sum/ { print $2 }' <<<"$m")" 700000
		expect_eq "trace --user nobody: final -j complete (bytes)" \
			"$(jq -r .targets.shmem.histograms.bytes.sum "$kf/out/u.json" 2>&1)" 700000
		expect_eq "trace --user nobody: final -j calls = calls scraped" \
			"$(jq -r .targets.shmem.calls "$kf/out/u.json" 2>&1)" \
			"$(awk '/^folioscope_shmem_calls_total/ { print $2 }' <<<"$m")"
		expect_eq "trace --user nobody: -j written by nobody" \
			"$(stat -c %U "$kf/out/u.json" 2>&1)" nobody
		expect_eq "trace --user nobody: nothing else left in the -j dir" \
			"$(ls -A "$kf/out")" u.json
		expect_eq "trace --user nobody: no BPF program or link left" "$(kf_bpf_left "$ids")" none
	else
		bad "trace --user nobody" "did not attach: $(cat "$kf/u.err")"
		kill "$T" "$A" 2>/dev/null
		wait "$T" 2>/dev/null
	fi

	"$FS" report --serve 127.0.0.1:0 --user nobody tests/fixtures/export-base.json \
		2>"$kf/r.err" &
	R=$!
	kf_pids+=" $R"
	if kf_wait_line "$kf/r.err" 'serving'; then
		expect_eq "report --serve --user nobody: Uid while serving" "$(kf_ids "$R" Uid)" \
			"$kf_uid $kf_uid $kf_uid $kf_uid"
		expect_eq "report --serve --user nobody: Gid while serving" "$(kf_ids "$R" Gid)" \
			"$kf_gid $kf_gid $kf_gid $kf_gid"
		url=$(grep -oE 'http://[^ ]*/metrics' "$kf/r.err")
		# The same text report --format prometheus writes.
		expect_eq "report --serve --user nobody: /metrics = the saved report" \
			"$(curl -s --max-time 10 "$url" | grep '^folioscope_' | md5sum)" \
			"$("$FS" report --format prometheus tests/fixtures/export-base.json | grep '^folioscope_' | md5sum)"
		kill -TERM "$R"
		kf_wait_exit "$R"
		expect_eq "report --serve --user nobody: SIGTERM exits 0" "$KRC" 0
	else
		bad "report --serve --user nobody" "did not start: $(cat "$kf/r.err")"
		kill "$R" 2>/dev/null
		wait "$R" 2>/dev/null
	fi
fi

# ---- two runs at once in one TMPDIR ----
# The first is stopped (SIGSTOP) as soon as its temp dir exists, so the
# second's stale clean-up certainly runs while the first is alive with a
# live temp dir; then the first goes on. Both must pass, each counting
# only its own reads, and neither may remove the other's dir.
echo "-- kfacts: two runs at once (${SECONDS}s)"
kf_tmp_saved=${TMPDIR-}
export TMPDIR=$kf/tmp
mkdir "$TMPDIR"
"$FS" run shmem-read --size 64M -j "$kf/r1.json" >"$kf/r1.out" 2>"$kf/r1.err" &
R1=$!
kf_pids+=" $R1"
# kf_d1_seen: the first run's temp dir is there (in kf_d1), and the run
# stopped at once; or the run has ended.
kf_d1_seen() {
	kf_d1=$(compgen -G "$TMPDIR/folioscope-shmem-*")
	[ -n "$kf_d1" ] && kill -STOP "$R1" && return 0
	kf_ended "$R1"
}
kf_d1=
wait_until 30 kf_d1_seen
if [ -n "$kf_d1" ] && [ -d "$kf_d1" ]; then
	"$FS" run shmem-read -j "$kf/r2.json" >"$kf/r2.out" 2>"$kf/r2.err"
	expect_eq "two runs: the second passes beside a live first" "$?" 0
	expect_eq "two runs: the second left the first's live temp dir" \
		"$([ -d "$kf_d1" ] && echo kept || echo removed)" kept
	expect_eq "two runs: the second removed nothing" "$(grep -c removed "$kf/r2.err")" 0
	kill -CONT "$R1"
	kf_wait_exit "$R1"
	expect_eq "two runs: the first passes after the second" "$KRC" 0
	expect_eq "two runs: the first counted only its own bytes" \
		"$(jq -r '[.targets.shmem.histograms.bytes.sum, .workload.reconcile, .validation.failures] | join(" ")' "$kf/r1.json" 2>&1)" \
		"67108864 ok 0"
	expect_eq "two runs: the second counted only its own bytes" \
		"$(jq -r '[.targets.shmem.histograms.bytes.sum, .workload.reconcile, .validation.failures] | join(" ")' "$kf/r2.json" 2>&1)" \
		"16777216 ok 0"
	expect_eq "two runs: no temp dir left" "$(compgen -G "$TMPDIR/folioscope-*")" ""
else
	bad "two runs" "the first run's temp dir did not appear: $(cat "$kf/r1.err")"
	kill -CONT "$R1" 2>/dev/null
	kf_wait_exit "$R1"
fi
if [ -n "$kf_tmp_saved" ]; then export TMPDIR=$kf_tmp_saved; else unset TMPDIR; fi

# ---- --btf FILE: bad files, a copy of the kernel's, a changed prototype,
# a missing function ----
echo "-- kfacts: --btf (${SECONDS}s)"
for kf_cmd in doctor "run shmem-read" "trace -d 1"; do
	# shellcheck disable=SC2086 # kf_cmd is a command and its arguments
	expect_error "$kf_cmd --btf: missing file" 1 "--btf '$kf/none': No such file or directory" \
		"$FS" $kf_cmd --btf "$kf/none"
done
expect_error "doctor --btf: not BTF" 1 "--btf '/etc/passwd': not a BTF file \(raw BTF, or ELF with a \.BTF section\)" \
	"$FS" doctor --btf /etc/passwd
expect_error "run --btf: ELF without .BTF" 1 "--btf '$FS': an ELF file without a \.BTF section" \
	"$FS" run shmem-read --btf "$FS"
head -c 1000 /sys/kernel/btf/vmlinux >"$kf/cut.btf" 2>/dev/null
expect_error "trace --btf: truncated BTF" 1 "--btf '$kf/cut.btf': not a BTF file" \
	"$FS" trace --btf "$kf/cut.btf"
expect_error "doctor --btf: a directory" 1 "--btf '$kf': Is a directory" "$FS" doctor --btf "$kf"

if [ -r /sys/kernel/btf/vmlinux ] && command -v python3 >/dev/null; then
	cp /sys/kernel/btf/vmlinux "$kf/copy.btf"
	out=$("$FS" doctor --btf "$kf/copy.btf" 2>&1)
	expect_match "doctor --btf copy: plans from the file" "$out" \
		"^BTF: +$kf/copy.btf \(--btf\); the kernel's own: yes"
	expect_eq "doctor --btf copy: same plan as without" \
		"$(grep 'would use' <<<"$out")" "$("$FS" doctor 2>&1 | grep 'would use')"
	if "$FS" run shmem-read --size 4M --btf "$kf/copy.btf" -j "$kf/copy.json" >/dev/null 2>"$kf/copy.err"; then
		expect_eq "run --btf copy: reconciles, 4 MiB" \
			"$(jq -r '[.workload.reconcile, .targets.shmem.histograms.bytes.sum, .validation.failures] | join(" ")' "$kf/copy.json")" \
			"ok 4194304 0"
	else
		bad "run --btf copy" "$(cat "$kf/copy.err")"
	fi

	# shmem_file_read_iter with filp_close's prototype (struct file *,
	# fl_owner_t): fentry and kprobe must be refused by the prototype.
	python3 tests/host/btf-edit.py /sys/kernel/btf/vmlinux "$kf/proto.btf" proto \
		shmem_file_read_iter filp_close
	out=$("$FS" doctor --btf "$kf/proto.btf" 2>&1 | sed -n '/^shmem/,$p')
	expect_match "doctor --btf changed prototype: fentry refused by it" "$out" \
		'-- fentry +shmem_file_read_iter +BTF prototype argument 1 is ptr:struct file, expected ptr:struct kiocb'
	kf_want='BTF prototype argument 1 is ptr:struct file'
	grep -q 'CONFIG_KPROBES=y' <<<"$("$FS" doctor 2>&1)" ||
		kf_want='CONFIG_KPROBES is not set' # checked before the prototype
	expect_match "doctor --btf changed prototype: kprobe refused" "$out" \
		"-- kprobe +shmem_file_read_iter +$kf_want"
	expect_match "doctor --btf changed prototype: picks the syscall level" "$out" \
		'would use: syscall on syscalls'
	if "$FS" run shmem-read --size 4M --btf "$kf/proto.btf" -j "$kf/proto.json" >/dev/null 2>"$kf/proto.err"; then
		expect_eq "run --btf changed prototype: syscall level, reconciles" \
			"$(jq -r '[.targets.shmem.attach.mechanism, .workload.reconcile, .targets.shmem.histograms.bytes.sum] | join(" ")' "$kf/proto.json")" \
			"syscall ok 4194304"
		expect_match "run --btf changed prototype: the reason says why fentry was not used" \
			"$(jq -r .targets.shmem.attach.reason "$kf/proto.json")" \
			'fentry shmem_file_read_iter: BTF prototype argument 1 is ptr:struct file'
	else
		bad "run --btf changed prototype" "$(cat "$kf/proto.err")"
	fi

	# The function has no BTF func at all.
	python3 tests/host/btf-edit.py /sys/kernel/btf/vmlinux "$kf/drop.btf" drop shmem_file_read_iter
	out=$("$FS" doctor --btf "$kf/drop.btf" 2>&1 | sed -n '/^shmem/,$p')
	expect_match "doctor --btf without the function: fentry refused" "$out" \
		"-- fentry +shmem_file_read_iter +no BTF func 'shmem_file_read_iter' to check the arguments against"
	expect_match "doctor --btf without the function: picks the syscall level" "$out" \
		'would use: syscall on syscalls'
else
	skip "--btf with edited BTF" "no /sys/kernel/btf/vmlinux or no python3"
fi
# A function missing from the running kernel: the compare is inlined on
# 6.1 and 6.18 (KERNEL-NOTES.md), so kallsyms has no symbol for it.
if ! grep -qw vfs_dedupe_file_range_compare /proc/kallsyms; then
	out=$("$FS" doctor 2>&1 | sed -n '/^dedupe/,/would use/p')
	expect_match "doctor: inlined compare refused by kallsyms" "$out" \
		"-- fentry +vfs_dedupe_file_range_compare +no symbol 'vfs_dedupe_file_range_compare' in kallsyms"
	expect_match "doctor: inlined compare: a later step is used" "$out" 'would use: [a-z]+ on '
else
	skip "doctor: missing compare" "vfs_dedupe_file_range_compare is a symbol on this kernel"
fi

# The pseudo filesystems doctor and trace read when they are not mounted
# (securityfs, debugfs, tracefs) are mounted attached nowhere (fsmount),
# so a SIGKILL at any point cannot leave a mount behind: no mount(2) at
# all, in any process folioscope starts.
if command -v strace >/dev/null; then
	for cmd in "doctor" "trace -t all -d 0.2"; do
		# shellcheck disable=SC2086 # $cmd is the subcommand and its options
		env "$NOLSAN" strace -f -qq -e trace=mount -o "$kf/mounts.txt" "$FS" $cmd >/dev/null 2>&1
		expect_eq "$cmd: mounts nothing in any namespace (attached-nowhere mounts only)" \
			"$(grep -c 'mount(' "$kf/mounts.txt")" 0
	done
else
	skip "doctor/trace mount nothing" "strace not installed"
fi

kf_cleanup
