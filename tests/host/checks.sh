# Host checks (sourced by tests/check.sh): doctor's reasons on the running
# kernel and bad input; the readv way is readv(2) in every runner. Run as
# root on a kernel like the CI host's.
# shellcheck shell=bash

# doctor must give the real reasons, derived here independently.
doc=$("$FS" doctor 2>&1)
docj=$("$FS" doctor --json 2>/dev/null)
expect_eq "doctor --json parses" "$(jq -r .kernel <<<"$docj")" "$(uname -r)"
# CONFIG_KPROBES on this kernel, read here rather than from doctor: the
# kernel's config (/proc/config.gz, /boot/config-RELEASE), else the kprobe
# PMU or kprobe_events, which exist only with kprobes: yes, no or unknown.
chk_kprobes() {
	local cfg
	cfg=$({ zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
		grep -E '^CONFIG_KPROBES=y$|^# CONFIG_KPROBES is not set$')
	if [ "$cfg" == CONFIG_KPROBES=y ]; then
		echo yes
	elif [ "$cfg" == '# CONFIG_KPROBES is not set' ]; then
		echo no
	elif [ -e /sys/bus/event_source/devices/kprobe ] || [ -e /sys/kernel/tracing/kprobe_events ] ||
		[ -e /sys/kernel/debug/tracing/kprobe_events ]; then
		echo yes
	else
		echo unknown
	fi
}
chk_kp=$(chk_kprobes)
echo "  kprobes on this kernel: $chk_kp"
# Steps that blame the missing config: all kprobe steps without it (but
# those with no symbol to probe), none with it.
chk_blame=$(jq -r '[.targets[].steps[] | select(.mechanism=="kprobe") | .reason | test("CONFIG_KPROBES is not set")] | if all then "all" elif any then "some" else "none" end' <<<"$docj")
chk_nosym=$(jq -r '[.targets[].steps[] | select(.mechanism=="kprobe") | .reason | test("CONFIG_KPROBES is not set|no symbol")] | all' <<<"$docj")
if [ "$chk_kp" == no ]; then
	expect_eq "doctor: every kprobe step blames CONFIG_KPROBES (or has no symbol)" "$chk_nosym" true
	expect_eq "doctor: kprobes_config false" "$(jq -r .kprobes_config <<<"$docj")" false
elif [ "$chk_kp" == yes ]; then
	expect_eq "doctor: no kprobe step blames CONFIG_KPROBES" "$chk_blame" none
	expect_eq "doctor: kprobes_config true" "$(jq -r .kprobes_config <<<"$docj")" true
else
	skip "doctor: kprobes_config" "no kernel config, kprobe PMU or kprobe_events to tell"
fi
# Every fentry step with a symbol was really tried: attached or a kernel error.
expect_eq "doctor: fentry steps tried" \
	"$(jq -r '[.targets[].steps[] | select(.mechanism=="fentry") | .reason | test("^(load|attach|prepare) failed: |^no symbol|attached|calls the compare|exported wrapper|one FIDEDUPERANGE")] | all' <<<"$docj")" true
expect_eq "doctor: dedupe compare inlined on this kernel" \
	"$(jq -r .targets.dedupe.inlined <<<"$docj")" \
	"$(grep -qE ' vfs_dedupe_file_range_compare$' /proc/kallsyms && echo false || echo true)"
# Lockdown, read independently through a private securityfs mount.
sec=$(mktemp -d)
if mount -t securityfs none "$sec" 2>/dev/null; then
	want=$(sed -E 's/.*\[([a-z]+)\].*/\1/' "$sec/lockdown" 2>/dev/null)
	umount "$sec"
	[ -n "$want" ] && expect_eq "doctor: lockdown mode" "$(jq -r .lockdown <<<"$docj")" "$want"
fi
rmdir "$sec"
expect_match "doctor text names the would-use line" "$doc" 'would use: '

# Bad input: one clear line, non-zero exit, nothing left behind.
expect_error "unknown target" 2 "unknown target 'nope'" "$FS" trace -t nope -d 1
expect_error "unknown mode" 2 "unknown mode 'uprobe'" "$FS" trace -m uprobe -d 1
expect_error "unknown workload" 2 "unknown workload 'foo'" "$FS" run foo
expect_error "unknown command" 2 "unknown command 'frobnicate'" "$FS" frobnicate
expect_error "missing --dir" 1 "--dir '/nonexistent/fs': No such file or directory" \
	"$FS" run dedupe --dir /nonexistent/fs
shm=$(mktemp -d /dev/shm/fsdir.XXXXXX)
expect_error "--dir on tmpfs" 1 "is on tmpfs, which does not support FIDEDUPERANGE" \
	"$FS" run dedupe --dir "$shm"
rmdir "$shm"
expect_error "not root" 1 "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups "$FS" run shmem-read
expect_error "vm: missing kernel" 1 "cannot read kernel '/nonexistent/bzImage'" \
	"$FS" vm --kernel /nonexistent/bzImage -- doctor
# --mode kprobe: refused with the reason where the kernel has no kprobes,
# attached where it has them (and lockdown does not forbid them).
if [ "$chk_kp" == no ]; then
	expect_error "forced kprobe without kprobes" 1 \
		"^folioscope: shmem: cannot attach with --mode kprobe: kprobe shmem_file_read_iter: CONFIG_KPROBES is not set in this kernel$" \
		"$FS" trace -t shmem -m kprobe -d 1
elif [ "$chk_kp" == yes ] && [ "$(jq -r .lockdown <<<"$docj")" != confidentiality ]; then
	chk_kj=$(mktemp)
	"$FS" trace -t shmem -m kprobe -d 1 -q -j "$chk_kj" >/dev/null 2>"$LOGDIR/host-kprobe.err"
	expect_eq "forced kprobe with kprobes: exit 0, attached by kprobe" \
		"$? $(jq -r .targets.shmem.attach.mechanism "$chk_kj" 2>/dev/null)" "0 kprobe"
	rm -f "$chk_kj"
else
	skip "forced kprobe" "kprobes $chk_kp, lockdown $(jq -r .lockdown <<<"$docj"): no expectation"
fi

# Both workloads under auto on this host. Where no function-level step
# attaches (this CI host), auto falls back to the syscall level; either
# way the probes must see exactly what the workload did.
hout=$(mktemp -d)
for wl in "shmem-read --size 8M --bs 64K" "dedupe --count 16 --range 128K"; do
	name=${wl%% *}
	tgt=$([ "$name" == dedupe ] && echo dedupe || echo shmem)
	# shellcheck disable=SC2086
	if "$FS" run $wl -j "$hout/$name.json" >"$LOGDIR/host-$name.log" 2>&1; then
		ok "host run $name (auto)"
	else
		bad "host run $name (auto)" "exit $?; see $LOGDIR/host-$name.log"
		continue
	fi
	j=$hout/$name.json
	mech=$(jq -r ".targets.$tgt.attach.mechanism" "$j")
	expect_eq "host run $name: mechanism is what doctor chose" "$mech" \
		"$(jq -r ".targets.$tgt.mechanism" <<<"$docj")"
	expect_eq "host run $name: calls seen = calls made" \
		"$(jq -r ".targets.$tgt.calls" "$j")" "$(jq -r .workload.calls "$j")"
	expect_eq "host run $name: bytes summed = bytes moved" \
		"$(jq -r ".targets.$tgt.histograms.bytes.sum" "$j")" "$(jq -r .workload.bytes "$j")"
	if [ "$mech" == syscall ]; then
		expect_eq "host run $name: folio sizes not measured at syscall level" \
			"$(jq -r ".targets.$tgt.histograms.folio_size.measured" "$j")" false
		expect_match "host run $name: labelled syscall-level" \
			"$(jq -r ".targets.$tgt.attach.reason" "$j")" '^syscall-level'
	fi
done

# --throughput: the timed passes as lean as fio's, before the probes
# attach, then the checked pass: 8 MiB in 64 KiB reads, 129 calls with
# the one at EOF, all the probes see.
if "$FS" run shmem-read --size 8M --bs 64K --throughput=2 -j "$hout/tp.json" \
	>"$LOGDIR/host-throughput.log" 2>&1; then
	ok "host run shmem-read --throughput=2"
	j=$hout/tp.json
	expect_eq "--throughput: passes; the checked pass's calls and bytes" \
		"$(jq -r '.workload | "\(.throughput_passes) \(.calls) \(.bytes)"' "$j")" \
		"2 129 $((8 << 20))"
	expect_eq "--throughput: the probes saw the checked pass only" \
		"$(jq -r '.targets.shmem.calls' "$j")" 129
	expect_eq "--throughput: reconciled, checked pass validated" \
		"$(jq -r '.workload | "\(.reconcile) \(.validation_failures) \(.validation_checks > 0)"' "$j")" "ok 0 true"
	expect_eq "--throughput: MB/s and CPU time, slowest <= middle <= fastest" \
		"$(jq -r '.workload | .mb_per_s > 0 and .cpu_us_per_gib > 0 and .mb_per_s_min <= .mb_per_s and .mb_per_s <= .mb_per_s_max' "$j")" true
else
	bad "host run shmem-read --throughput=2" "exit $?; see $LOGDIR/host-throughput.log"
fi

# The readv way is readv(2): not preadv(2), which takes the offset itself
# and leaves the file position alone, so a readv that became one would
# not read what the way is there to read. Every runner's (one layout,
# random layouts, sequences of operations), as strace sees its calls on
# the workloads' files; the layout's, one for each read it counted.
if ! command -v strace >/dev/null; then
	skip "readv is readv(2)" "strace not installed"
else
	# rv_calls NAME ARGS: "READV PREADV" calls of run ARGS on the
	# workloads' files, the JSON in $hout/NAME.json.
	rv_calls() {
		local name=$1 st=$hout/$1.strace
		shift
		env "$NOLSAN" strace -f -qq -y -e trace=readv,preadv -o "$st" \
			"$FS" run shmem-read "$@" -j "$hout/$name.json" >/dev/null 2>"$hout/$name.err" ||
			echo "exit $?"
		echo "$(grep -c ' readv([0-9]*</[^>]*/folioscope-\(shmem\|ops\)-' "$st") $(grep -c ' preadv([0-9]*</[^>]*/folioscope-\(shmem\|ops\)-' "$st")"
	}
	got=$(rv_calls rv-layout --syscall readv --iovecs 3 --size 64K --bs 16K)
	expect_eq "readv is readv(2): one layout, a readv(2) per read counted, no preadv(2)" \
		"$got" "$(jq -r '"\(.workload.syscall) \(.workload.calls) 0"' "$hout/rv-layout.json" 2>&1 | sed 's/^readv //')"
	# Seed 1's 8 layouts have readv ones; its 300 operations readv reads.
	expect_match "readv is readv(2): random layouts, readv(2) calls, no preadv(2)" \
		"$(rv_calls rv-random --random 8 --seed 1)" '^[1-9][0-9]* 0$'
	expect_match "readv is readv(2): sequences of operations, readv(2) calls, no preadv(2)" \
		"$(rv_calls rv-ops --ops 300 --seed 1)" '^[1-9][0-9]* 0$'
fi
rm -rf "$hout"
