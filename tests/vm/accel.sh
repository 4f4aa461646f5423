# vm --accel (sourced by tests/check.sh): how vm picks KVM or TCG. The
# ways a nested KVM breaks (qemu aborts on an MSR; the guest stalls after
# the firmware) are played by tests/vm/fake-qemu, so these cases do not
# depend on how, or whether, this machine's KVM breaks; then auto and
# tcg run once with the real qemu.
# shellcheck shell=bash
acc=$(mktemp -d "${TMPDIR:-/tmp}/fs-accel.XXXXXX")
# Caches of our own hold the KVM record; the kernels are the usual ones.
kcache=${FOLIOSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/folioscope}/kernels
mkdir -p "$kcache" "$acc/cache" "$acc/real-cache" "$acc/bin"
ln -s "$kcache" "$acc/cache/kernels"
ln -s "$kcache" "$acc/real-cache/kernels"
record=$acc/cache/kvm-failed
# A copy, so that its mtime can change (another qemu build).
fake=$acc/bin/qemu-system-x86_64
cp tests/vm/fake-qemu "$fake"
krel=$(uname -r)

# fake_vm NAME KVM ARGS...: vm ARGS -- doctor with the fake qemu doing KVM
# (abort, stall or boot); sets st, out, err and calls (the -accel of each
# qemu started, in order); $acc/appends gets each qemu's kernel command
# line, $acc/deaths the deaths vm logs for the test suites.
fake_vm() {
	local kvm=$2 log=$LOGDIR/vm-accel-$1
	shift 2
	: >"$acc/calls"
	: >"$acc/appends"
	: >"$acc/clock"
	: >"$acc/deaths"
	: >"$acc/acks"
	(cd "$acc" && FOLIOSCOPE_CACHE=$acc/cache FOLIOSCOPE_QEMU=$fake \
		FAKE_QEMU_LOG=$acc/calls FAKE_QEMU_APPEND=$acc/appends FAKE_QEMU_KVM=$kvm \
		FAKE_QEMU_ACK=$acc/acks FAKE_QEMU_CLOCK=$acc/clock \
		FOLIOSCOPE_VM_DEATH_LOG=$acc/deaths \
		"$FS" vm "${vmargs[@]}" "$@" -- doctor) >"$log.out" 2>"$log.err"
	st=$?
	out=$(cat "$log.out")
	err=$(cat "$log.err")
	calls=$(paste -sd' ' "$acc/calls")
}

has_record() { [ -e "$record" ] && echo yes || echo no; }

if ! (exec 3<>/dev/kvm) 2>/dev/null; then
	skip "vm --accel with a broken KVM (fake qemu)" "/dev/kvm does not open here, so vm never starts qemu under KVM"
	fake_vm auto-nokvm abort
	expect_eq "vm auto without /dev/kvm: TCG only, nothing said" "$st|$calls|$err|$out" \
		"0|tcg,thread=single||fake guest under tcg,thread=single"
else
	# --accel kvm: one line naming KVM and what to try, exit 1, either way
	# KVM breaks; nothing recorded (auto records only what TCG confirms).
	fake_vm kvm-abort abort --accel kvm
	expect_eq "vm --accel kvm, qemu aborts under KVM: exit 1, one line" "$st|$calls|$err" \
		"1|kvm|folioscope: vm: --accel kvm: qemu could not run the guest under KVM (error: failed to set MSR 0x10a to 0x0); try --accel tcg"
	expect_eq "vm --accel kvm, qemu aborts: nothing recorded" "$(has_record)" no
	fake_vm kvm-stall stall --accel kvm
	expect_eq "vm --accel kvm, KVM stalls: exit 1, one line" "$st|$calls|$err" \
		"1|kvm|folioscope: vm: --accel kvm: qemu could not run the guest under KVM (no output from the guest's kernel in 15 s); try --accel tcg"
	expect_eq "vm --accel kvm, KVM stalls: nothing recorded" "$(has_record)" no

	# auto: one line, then the guest runs under TCG, and the failure is
	# recorded for this qemu and host kernel.
	fake_vm auto-abort abort
	expect_eq "vm auto, qemu aborts under KVM: goes on under TCG" "$st|$calls|$out|$err" \
		"0|kvm tcg,thread=single|fake guest under tcg,thread=single|folioscope: vm: qemu could not run the guest under KVM (error: failed to set MSR 0x10a to 0x0); booting it under TCG"
	expect_eq "vm auto, qemu aborts under KVM: recorded" \
		"$(grep -v '^#' "$record" 2>&1 | sed '/^qemu-/d')" \
		"$(printf 'qemu %s\nkernel %s\nfailure %s' "$fake" "$krel" 'error: failed to set MSR 0x10a to 0x0')"
	expect_eq "vm auto, qemu aborts under KVM: record's qemu size and mtime" \
		"$(sed -n 's/^qemu-\(size\|mtime\) //p' "$record" 2>&1 | paste -sd' ')" \
		"$(stat -c '%s %.9Y' "$fake")"
	# The next auto run: no KVM attempt, one line.
	fake_vm auto-recorded abort
	expect_eq "vm auto after a recorded KVM failure: TCG at once, one line" "$st|$calls|$out|$err" \
		"0|tcg,thread=single|fake guest under tcg,thread=single|folioscope: vm: KVM failed here before (qemu $fake, kernel $krel: error: failed to set MSR 0x10a to 0x0; recorded in $record): using TCG; --accel kvm retries"
	# --accel kvm tries KVM despite the record: failing keeps it, a boot
	# under KVM removes it.
	fake_vm kvm-recorded abort --accel kvm
	expect_eq "vm --accel kvm after a recorded failure: tries KVM" "$st|$calls|$(has_record)" "1|kvm|yes"
	fake_vm kvm-works boot --accel kvm
	expect_eq "vm --accel kvm where KVM works now: boots, record removed" \
		"$st|$calls|$out|$err|$(has_record)" "0|kvm|fake guest under kvm||no"

	# A stall under auto: the same, with the stall as the reason.
	fake_vm auto-stall stall
	expect_eq "vm auto, KVM stalls: goes on under TCG" "$st|$calls|$out|$err" \
		"0|kvm tcg,thread=single|fake guest under tcg,thread=single|folioscope: vm: qemu could not run the guest under KVM (no output from the guest's kernel in 15 s); booting it under TCG"
	expect_eq "vm auto, KVM stalls: recorded" "$(grep '^failure ' "$record" 2>&1)" \
		"failure no output from the guest's kernel in 15 s"
	# Another qemu build (new mtime) is tried under KVM afresh; the boot
	# that works there removes the record.
	touch -d '+1 min' "$fake"
	fake_vm auto-newqemu boot
	expect_eq "vm auto, qemu changed since the record: tries KVM again" \
		"$st|$calls|$out|$err|$(has_record)" "0|kvm|fake guest under kvm||no"
fi

# A kernel that dies while booting under TCG, before the guest's init
# starts: vm says so with the oops's first line and boots once more; a
# kernel that dies twice is reported as it died.
fake_tcg() {
	local mode=$1 name=$2
	shift 2
	FAKE_QEMU_TCG=$mode fake_vm "$name" boot --accel tcg "$@"
}
fake_tcg panic-once tcg-panic-once
expect_eq "vm, the kernel dies mid-boot once under TCG: booted again, said why" "$st|$calls|$out|$err" \
	"0|tcg,thread=single tcg,thread=single|fake guest under tcg,thread=single|folioscope: vm: the guest's kernel died before its init started: BUG: unable to handle page fault for address: 0000000000072bbd; starting it once more"
# The guest's reports say so (vm.reboots, from its kernel's command
# line), and the test suites see the death (FOLIOSCOPE_VM_DEATH_LOG).
expect_eq "vm, booted again: the second boot is told it is one" \
	"$(grep -o 'FOLIOSCOPE_VM_ACCEL=[a-z]* FOLIOSCOPE_VM_BOOT=[0-9]*' "$acc/appends" | paste -sd' ')" \
	"FOLIOSCOPE_VM_ACCEL=tcg FOLIOSCOPE_VM_BOOT=1 FOLIOSCOPE_VM_ACCEL=tcg FOLIOSCOPE_VM_BOOT=2"
expect_match "vm, booted again: the death is logged for the test suites" "$(cat "$acc/deaths")" \
	"^[^:]*: the guest's kernel died before its init started: BUG: unable to handle page fault for address: 0000000000072bbd$"
fake_tcg panic tcg-panic
expect_eq "vm, the kernel dies mid-boot twice: exit 1 after two boots" "$st|$calls" "1|tcg,thread=single tcg,thread=single"
expect_eq "vm, the kernel dies mid-boot twice: both deaths logged" "$(grep -c 'Kernel panic\|BUG:' "$acc/deaths")" 2
expect_match "vm, the kernel dies mid-boot twice: the retry line, then the death with the console" \
	"$(tr '\n' '~' <<<"$err")" \
	"^folioscope: vm: the guest's kernel died before its init started: BUG: unable to handle page fault[^~]*; starting it once more~.*did not boot twice in a row.*Kernel panic - not syncing"

# A guest whose init ran but whose status never came: one that powered
# off in order lost its status line on the way out (the kernel's power
# down line is on the console); one that went silent died with its
# kernel. Either is exit 1, named, and a line in the death log.
fake_tcg lost-exit tcg-lost-exit
expect_eq "vm, the guest powers off without its status: exit 1, one boot" "$st|$calls" "1|tcg,thread=single"
expect_match "vm, the guest powers off without its status: says the status was lost" "$(head -1 <<<"$err")" \
	"^folioscope: vm: the guest powered off, but its exit status never arrived \\(qemu exit 0\\); last console lines follow$"
expect_match "vm, the guest powers off without its status: logged for the test suites" "$(cat "$acc/deaths")" \
	"^[^:]*: the guest powered off, but its exit status never arrived \\(qemu exit 0\\)$"
fake_tcg vanish tcg-vanish
expect_eq "vm, the guest goes silent after its init started: exit 1, one boot" "$st|$calls" "1|tcg,thread=single"
expect_match "vm, the guest goes silent after its init started: asks whether it crashed" "$(head -1 <<<"$err")" \
	"^folioscope: vm: the guest ended without reporting an exit status \\(qemu exit 0: kernel panic or crash\\?\\); last console lines follow$"
expect_eq "vm, the guest goes silent after its init started: logged for the test suites" "$(wc -l <"$acc/deaths")" 1

# The real qemu. tcg never touches KVM.
if (cd "$acc" && "$FS" vm "${vmargs[@]}" --accel tcg -v -- doctor) >"$LOGDIR/vm-accel-tcg.log" 2>&1; then
	ok "vm --accel tcg: boots"
else
	bad "vm --accel tcg: boots" "see $LOGDIR/vm-accel-tcg.log"
fi
# Without the answer /init would wait 30 s and say so on the console.
expect_eq "vm --accel tcg: the guest's init got vm's answer to its status" \
	"$(grep -c 'init: no answer' "$LOGDIR/vm-accel-tcg.log")|$(grep -c 'guest exited 0' "$LOGDIR/vm-accel-tcg.log")" "0|1"
expect_eq "vm --accel tcg: qemu gets -accel tcg in one thread only" \
	"$(grep -o -- ' -accel [a-z,=]*' "$LOGDIR/vm-accel-tcg.log" | paste -sd' ')" " -accel tcg,thread=single"
# Under TCG the guest keeps the TSC as its clocksource (the kernel would
# fall back to the HPET, whose every read is emulated MMIO); KVM's guest
# picks its own.
printf '#!/bin/sh\ncat /sys/devices/system/clocksource/clocksource0/current_clocksource\n' >"$acc/clocksource"
chmod +x "$acc/clocksource"
expect_eq "vm --accel tcg: the guest's clocksource is the TSC" \
	"$(cd "$acc" && "$FS" vm "${vmargs[@]}" --accel tcg --exec "$acc/clocksource" 2>"$LOGDIR/vm-accel-clock.err")" tsc
# tcg-icount with the real qemu: the guest boots on one CPU, on the TSC,
# and its RTC is still the host's clock (bench/measure.sh's deadline
# reads it), while the guest's own clock counts instructions.
printf '#!/bin/sh\ncat /sys/devices/system/clocksource/clocksource0/current_clocksource\ngrep -c ^processor /proc/cpuinfo\necho "$FOLIOSCOPE_VM_ACCEL"\ncat /sys/class/rtc/rtc0/since_epoch\n' >"$acc/icount"
chmod +x "$acc/icount"
icount_out=$(cd "$acc" && "$FS" vm "${vmargs[@]}" --accel tcg-icount --exec "$acc/icount" 2>"$LOGDIR/vm-accel-icount.err")
host_now=$(date +%s)
expect_eq "vm --accel tcg-icount (real qemu): TSC, one CPU, the guest told" \
	"$(sed -n 1,3p <<<"$icount_out" | paste -sd' ')" "tsc 1 tcg-icount"
rtc=$(sed -n 4p <<<"$icount_out")
expect_eq "vm --accel tcg-icount (real qemu): the guest's RTC is the host's clock, read before the guest ended" \
	"$([ -n "$rtc" ] && [ "$rtc" -le "$host_now" ] && [ "$rtc" -ge $((host_now - 120)) ] && echo yes || echo "no: $rtc, host $host_now")" yes
if (exec 3<>/dev/kvm) 2>/dev/null; then
	fake_vm kvm-clock boot --accel kvm
	expect_eq "vm --accel kvm: the guest's clocksource is left to its kernel" \
		"$st|$(grep -c 'tsc=' "$acc/appends")" "0|0"
fi
# tcg-multi: qemu's own default, a thread per vCPU; the guest's reports
# say which.
fake_vm tcg-multi boot --accel tcg-multi
expect_eq "vm --accel tcg-multi: a thread per vCPU, and the guest is told" "$st|$calls|$(grep -o 'FOLIOSCOPE_VM_ACCEL=[a-z-]*' "$acc/appends")" \
	"0|tcg,thread=multi|FOLIOSCOPE_VM_ACCEL=tcg-multi"
# tcg-icount: one vCPU whose clock counts instructions, never KVM (qemu
# refuses -icount with it), and the guest is told.
fake_vm tcg-icount abort --accel tcg-icount
expect_eq "vm --accel tcg-icount: TCG in one thread, one CPU, -icount, the guest told" \
	"$st|$calls|$(cat "$acc/clock")|$(grep -o 'FOLIOSCOPE_VM_ACCEL=[a-z-]*' "$acc/appends")" \
	"0|tcg,thread=single|smp=1 icount=shift=3,sleep=off|FOLIOSCOPE_VM_ACCEL=tcg-icount"
fake_vm tcg-icount-cpus1 boot --accel tcg-icount --cpus 1
expect_eq "vm --accel tcg-icount --cpus 1: as without --cpus" "$st|$(cat "$acc/clock")" "0|smp=1 icount=shift=3,sleep=off"
expect_error "vm --accel tcg-icount --cpus 2: one line, nothing started" 1 \
	"^folioscope: vm: --accel tcg-icount runs 1 CPU, not 2 \\(see --help\\)$" \
	"$FS" vm --accel tcg-icount --cpus 2 -- doctor
# Every other mode passes no -icount and keeps 2 CPUs.
fake_vm tcg-clock boot --accel tcg
expect_eq "vm --accel tcg: 2 CPUs, no -icount" "$st|$(cat "$acc/clock")" "0|smp=2 icount=-"
# The guest's /init powers off once vm has answered its EXIT line.
expect_eq "vm answers the guest's EXIT line with ACK" "$(cat "$acc/acks")" ACK
expect_error "vm --accel bogus: one line naming the values" 2 \
	"^folioscope: vm: invalid --accel 'bogus' \\(auto, kvm, tcg, tcg-multi, tcg-icount\\)$" "$FS" vm --accel bogus -- doctor
# auto, with no record: on this machine (nested KVM broken) it ends under
# TCG and records that; where KVM runs guests it stays there.
log=$LOGDIR/vm-accel-auto.log
(cd "$acc" && FOLIOSCOPE_CACHE=$acc/real-cache "$FS" vm "${vmargs[@]}" -v -- doctor) >"$log" 2>&1
st=$?
accels=$(grep -o -- ' -accel [a-z]*' "$log" | awk '{ print $2 }' | paste -sd' ')
expect_eq "vm auto (real qemu): the guest ran doctor" "$st $(grep -c '^kernel: ' "$log")" "0 1"
if ! (exec 3<>/dev/kvm) 2>/dev/null; then
	expect_eq "vm auto (real qemu) without /dev/kvm: TCG only" "$accels" tcg
	expect_error "vm --accel kvm without /dev/kvm: one line" 1 \
		'^folioscope: vm: --accel kvm: cannot open /dev/kvm: ' "$FS" vm "${vmargs[@]}" --accel kvm -- doctor
elif [ "$accels" == "kvm tcg" ]; then
	echo "  KVM is broken here: $(grep -o 'qemu could not run the guest under KVM .*' "$log")"
	expect_match "vm auto (real qemu), broken KVM: one line, then TCG" "$(grep -v '^\[' "$log")" \
		'^folioscope: vm: qemu could not run the guest under KVM \(.+\); booting it under TCG$'
	expect_match "vm auto (real qemu), broken KVM: recorded" \
		"$(grep '^failure ' "$acc/real-cache/kvm-failed" 2>&1)" '^failure .'
	skip "vm --accel kvm (real qemu)" "KVM is broken here; the fake-qemu cases above test that failure"
else
	expect_eq "vm auto (real qemu), KVM works: stays on KVM" "$accels" kvm
	if (cd "$acc" && "$FS" vm "${vmargs[@]}" --accel kvm -- doctor) >"$LOGDIR/vm-accel-kvm.log" 2>&1; then
		ok "vm --accel kvm (real qemu): boots"
	else
		bad "vm --accel kvm (real qemu): boots" "see $LOGDIR/vm-accel-kvm.log"
	fi
fi
rm -rf "$acc"
