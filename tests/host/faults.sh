# Filesystem faults, sourced by tests/check.sh: the dedupe image
# too small for its data (ENOSPC), the dedupe filesystem remounted
# read-only mid-run, the shmem-read file truncated by another process
# mid-run. Each must be one stderr line saying the environment, not the
# kernel, is at fault, exit 1 (never 0, never a failed check), and leave no
# mount, loop device or temp dir. Run as root.
# shellcheck shell=bash

# The workloads' temp dirs go in this suite's scratch dir, so the leak
# check (leak_state: mounts and loop images under it, anything in its
# TMPDIR) sees only ours.
scratch_setup fs-flt
flt=$SCRATCH

# ---- ENOSPC: the image is smaller than the data ----
echo "-- faults: ENOSPC in the dedupe image (${SECONDS}s)"
flt_img="'$TMPDIR/folioscope-dedupe-[A-Za-z0-9]{6}/img0' of 320 MiB is full \(ENOSPC\)"
flt_file="write '$TMPDIR/folioscope-dedupe-[A-Za-z0-9]{6}/mnt0/f0000001': No space left on device"
for fs in btrfs xfs; do
	if ! command -v "mkfs.$fs" >/dev/null; then
		skip "ENOSPC: $fs image" "mkfs.$fs not installed (tests/deps.sh)"
		continue
	fi
	# Two 200 MiB files in a 320 MiB image: the second cannot fit.
	expect_error "ENOSPC: $fs image full: one line naming image and file, exit 1, nothing left" 1 \
		"^folioscope: run dedupe: environment fault, not a kernel answer: $fs image $flt_img: $flt_file \(the test files need 400 MiB; use a larger --image-size\)$" \
		"$FS" run dedupe --fs "$fs" --image-size 320M --range 200M --count 1
done
# The image size is the user's: below what mkfs.xfs takes, or with --dir.
expect_error "ENOSPC: --image-size under 320M refused" 1 \
	"--image-size '104857600': Invalid argument \(at least 320M" \
	"$FS" run dedupe --image-size 100M
expect_error "ENOSPC: --image-size with --dir refused" 1 \
	"--image-size with --dir: Invalid argument" \
	"$FS" run dedupe --dir "$flt" --image-size 320M
# Data that fits a given image still passes: the option is not the fault.
flt_out=$("$FS" run dedupe --image-size 320M --range 1M --count 8 -j "$flt/fit.json" 2>&1 >/dev/null)
expect_eq "ENOSPC: data that fits a 320M image: exit 0" "$?" 0
expect_eq "ENOSPC: data that fits: nothing on stderr" "$flt_out" ""
expect_eq "ENOSPC: data that fits: 24 checks passed, not disturbed" \
	"$(jq -r '[.validation.checks, .validation.failures, .validation.disturbed] | @tsv' "$flt/fit.json" 2>&1)" \
	"$(printf '24\t0\t')"
expect_eq "ENOSPC: nothing left after the runs" "$(leak_state)" ""

# flt_stopped PID: wait until PID stopped itself at its --stop-after
# point (bounded: a minute); false if it ended or never got there.
flt_stopped() {
	wait_until 60 flt_settled "$1"
	proc_stopped "$1"
}
flt_settled() { proc_stopped "$1" || [ ! -e "/proc/$1/stat" ]; }

# flt_disturb NAME FAULT ARGS...: run ARGS... (with -j) in the background
# until it stops itself, run the command FAULT (the run's pid in flt_pid:
# its mounts are in its own mount namespace), let it go on; sets flt_rc,
# flt_err (its stderr) and flt_json (its -j file).
flt_disturb() {
	local name=$1 fault=$2 pid
	shift 2
	flt_json=$flt/$name.json
	"$FS" "$@" -j "$flt_json" >"$flt/$name.out" 2>"$flt/$name.err" &
	pid=$!
	flt_pid=$pid
	if flt_stopped "$pid"; then
		"$fault" || bad "$name: the fault" "'$fault' failed"
	else
		bad "$name: run reached its --stop-after point" "it did not stop"
	fi
	kill -CONT "$pid" 2>/dev/null
	wait "$pid"
	flt_rc=$?
	flt_err=$(cat "$flt/$name.err")
}

# flt_expect NAME WORKLOAD REASON CHECKS UNJUDGED: the disturbed run's
# exit, its one stderr line, the report's validation (no failure: the
# kernel was right about everything it was asked before the fault), the
# text of `report` reading it back, and nothing left behind.
flt_expect() {
	local name=$1 wl=$2 re=$3 checks=$4 unj=$5
	expect_eq "$name: exit 1 (not passed)" "$flt_rc" 1
	expect_eq "$name: one stderr line" "$(grep -c . <<<"$flt_err")" 1
	expect_match "$name: the line says environment, not kernel" "$flt_err" \
		"^folioscope: run $wl: environment disturbed, not a kernel failure: $re; unjudged answers: $unj$"
	expect_eq "$name: JSON checks, failures, unjudged" \
		"$(jq -r '[.validation.checks, .validation.failures, .validation.disturbed.unjudged] | @tsv' "$flt_json" 2>&1)" \
		"$(printf '%s\t0\t%s' "$checks" "$unj")"
	expect_match "$name: JSON reason" "$(jq -r .validation.disturbed.reason "$flt_json" 2>&1)" "^$re$"
	expect_match "$name: report reads it back as DISTURBED" "$("$FS" report "$flt_json" 2>&1)" \
		"DISTURBED \(not the kernel's fault\): $re; unjudged answers: $unj"
	expect_eq "$name: nothing left behind" "$(leak_state)" ""
}

# ---- read-only remount mid-run ----
echo "-- faults: dedupe filesystem remounted read-only mid-run (${SECONDS}s)"
flt_mnt() { grep -oE "$TMPDIR/folioscope-dedupe-[A-Za-z0-9]{6}/mnt0" "/proc/$flt_pid/mounts"; }
if command -v mkfs.btrfs >/dev/null; then
	# Three cases (files 1..3 against file 0); the run stops after the
	# first, its files closed, so the remount cannot be refused as busy.
	flt_disturb remount-ctl true run dedupe --files 4 --file-size 1M --stop-after 1
	expect_eq "remount: the same run undisturbed: exit 0" "$flt_rc" 0
	expect_eq "remount: undisturbed: 9 checks, none failed or unjudged" \
		"$(jq -r '[.validation.checks, .validation.failures, .validation.disturbed] | @tsv' "$flt_json" 2>&1)" \
		"$(printf '9\t0\t')"
	flt_ro() { nsenter -t "$flt_pid" -m mount -o remount,ro "$(flt_mnt)"; }
	flt_disturb remount flt_ro \
		run dedupe --files 4 --file-size 1M --stop-after 1
	# Case 1: one answer and two re-reads checked; cases 2 and 3 could
	# not open their destination for writing: 2 answers unjudged.
	flt_expect remount dedupe \
		"btrfs filesystem '$TMPDIR/folioscope-dedupe-[A-Za-z0-9]{6}/mnt0' was remounted read-only during the run" 3 2
else
	skip "remount" "mkfs.btrfs not installed (tests/deps.sh)"
fi

# ---- the shmem-read file truncated by another process mid-run ----
echo "-- faults: shmem-read file truncated by another process mid-run (${SECONDS}s)"
# Through the run's root, which sees the tmpfs in its mount namespace.
flt_file() { compgen -G "/proc/$flt_pid/root$TMPDIR/folioscope-shmem-[A-Za-z0-9]*/full"; }
flt_path="'$TMPDIR/folioscope-shmem-[A-Za-z0-9]{6}/full'"
# 16 MiB read 64 KiB at a time: 256 full reads and the read at EOF. The
# run stops after 4 reads, 256 KiB in.
flt_disturb truncate-ctl true run shmem-read --stop-after 4
expect_eq "truncate: the same run undisturbed: exit 0" "$flt_rc" 0
expect_eq "truncate: undisturbed: 257 checks, none failed or unjudged" \
	"$(jq -r '[.validation.checks, .validation.failures, .validation.disturbed] | @tsv' "$flt_json" 2>&1)" \
	"$(printf '257\t0\t')"
# Cut to 1 MiB: the reads up to it are still right (16 checks), the read
# at the new EOF returns 0, not 64 KiB: unjudged, not a kernel mismatch.
flt_cut() { truncate -s 1M "$(flt_file)"; }
flt_disturb truncate flt_cut run shmem-read --stop-after 4
flt_expect truncate shmem-read \
	"file $flt_path was truncated by another process \(size 16777216 -> 1048576\) during the run" 16 1
# Grown to 32 MiB: the read at the old EOF returns 64 KiB of hole, not 0.
flt_grow() { truncate -s 32M "$(flt_file)"; }
flt_disturb extend flt_grow run shmem-read --stop-after 4
flt_expect extend shmem-read \
	"file $flt_path was extended by another process \(size 16777216 -> 33554432\) during the run" 256 1

# ---- and without a fault, a wrong answer is still the kernel's ----
echo "-- faults: a wrong answer with nothing disturbed stays a failure (${SECONDS}s)"
for wl in shmem-read dedupe; do
	"$FS" run "$wl" --inject-wrong-expectation -j "$flt/inject-$wl.json" >/dev/null 2>&1
	expect_eq "no fault: $wl with a wrong expectation: exit 1" "$?" 1
	expect_eq "no fault: $wl: one failure, not disturbed" \
		"$(jq -r '[.validation.failures, .validation.disturbed] | @tsv' "$flt/inject-$wl.json" 2>&1)" \
		"$(printf '1\t')"
done

