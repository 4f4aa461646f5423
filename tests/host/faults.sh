# Filesystem faults (issue 8), sourced by tests/check.sh: the dedupe image
# too small for its data (ENOSPC), the dedupe filesystem remounted
# read-only mid-run, the shmem-read file truncated by another process
# mid-run. Each must be one stderr line saying the environment, not the
# kernel, is at fault, exit 1 (never 0, never a failed check), and leave no
# mount, loop device or temp dir. Run as root.
# shellcheck shell=bash

flt=$(mktemp -d /tmp/fs-flt.XXXXXX)
flt_tmpdir_saved=${TMPDIR-}
chmod 755 "$flt"
# The workloads' temp dirs go here, so the leak check sees only ours.
export TMPDIR=$flt/tmp
mkdir "$TMPDIR"

flt_cleanup() {
	local m
	for m in $(grep -oE "$flt/[^ ]*" /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null; done
	rm -rf "$flt"
	if [ -n "$flt_tmpdir_saved" ]; then export TMPDIR=$flt_tmpdir_saved; else unset TMPDIR; fi
}
trap 'flt_cleanup; exit 130' INT TERM

# What a run may leave behind: mounts and loop images under $flt, and
# anything in its TMPDIR.
flt_leaks() {
	grep -hsF "$flt" /proc/mounts /sys/block/loop*/loop/backing_file
	compgen -G "$TMPDIR/*"
}

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
out=$("$FS" run dedupe --image-size 320M --range 1M --count 8 -j "$flt/fit.json" 2>&1)
rc=$?
expect_eq "ENOSPC: data that fits a 320M image: exit 0" "$rc" 0
expect_eq "ENOSPC: data that fits: 24 checks passed, not disturbed" \
	"$(jq -r '[.validation.checks, .validation.failures, .validation.disturbed] | @tsv' "$flt/fit.json" 2>&1)" \
	"$(printf '24\t0\t')"
expect_eq "ENOSPC: nothing left after the runs" "$(flt_leaks)" ""

trap - INT TERM
flt_cleanup
