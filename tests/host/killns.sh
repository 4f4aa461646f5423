# SIGKILL in each phase of a run leaves no mount and no loop device, with
# no later run to clean up: sourced by tests/check.sh, run as root.
# Each case holds 'run' at one point (a syscall held by strace, or the
# workload's own --stop-after stop), checks it got there, kills it with
# SIGKILL and then looks, without starting folioscope again, for mounts of
# files under this suite's TMPDIR (in /proc/mounts and in the mount table
# of every live process) and loop devices backed by a file there. Only the
# run's empty temp dir may stay (the next run's stale clean-up removes it).
# shellcheck shell=bash

scratch_setup fs-kns
kns=$SCRATCH

# What a killed run left in the host's namespace, undone so that the
# next case starts clean (needed only when a case failed).
kns_undo() {
	local m f
	grep -oE "$kns/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
	for f in /sys/block/loop*/loop/backing_file; do
		grep -qF "$kns/" "$f" 2>/dev/null && losetup -d "/dev/$(basename "$(dirname "$(dirname "$f")")")"
	done
	rm -rf "${TMPDIR:?}"/*
}
scratch_atexit+=(kns_undo)

# Mounts of files under TMPDIR seen by the host or by any live process
# (a private namespace shows in /proc/PID/mountinfo while PID lives).
kns_mounts() {
	grep -hsF "$TMPDIR/" /proc/mounts /proc/[0-9]*/mountinfo | sort -u
}
kns_loops() {
	grep -lsF "$TMPDIR/" /sys/block/loop*/loop/backing_file
}
kns_clean() { [ -z "$(kns_mounts)$(kns_loops)" ]; }

# x86_64 syscall numbers, as /proc/PID/syscall shows them.
kns_nr_ioctl=16
kns_nr_pwrite64=18
kns_nr_mount=165
kns_nr_umount2=166
# kns_str PID ADDR: the NUL-terminated string at ADDR in PID's memory.
kns_str() {
	dd if="/proc/$1/mem" bs=4096 count=1 iflag=skip_bytes skip=$(($2)) 2>/dev/null |
		tr '\0' '\n' | head -n 1
}
# kns_held PID NR ARG KIND: PID is in syscall NR, and its argument ARG
# (1-based) is a path (KIND path) or an fd (KIND fd) under TMPDIR; sets
# kns_what to that path.
kns_held() {
	local pid=$1 nr=$2 arg=$3 kind=$4 sc what
	read -r -a sc <"/proc/$pid/syscall" 2>/dev/null || return 1
	[ "${sc[0]}" == "$nr" ] || return 1
	if [ "$kind" == path ]; then
		what=$(kns_str "$pid" "${sc[$arg]}")
	else
		what=$(readlink "/proc/$pid/fd/$((sc[arg]))")
	fi
	kns_what=$what
	[[ $what == "$TMPDIR/"* ]]
}
# kns_at NR ARG KIND PID: kns_held, arguments in the order kns_case passes.
kns_at() { kns_held "$4" "$1" "$2" "$3"; }
kns_stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" == T ]; }
# In a mount that is done, its mount point in the run's table: strace
# also stops the run briefly on the way in, before the mount exists.
kns_at_mounted() { kns_at "$@" && grep -qF " $kns_what " "/proc/$4/mountinfo"; }
kns_in_mkfs() { [ -n "$(kns_mkfs "$1")" ]; }
kns_mkfs() { pgrep -P "$1" '^mkfs\.'; }
kns_in_loop_ioctl() { [ -n "$(kns_loops)" ] && kns_held_nr "$1" "$kns_nr_ioctl"; }
kns_held_nr() { local sc; read -r -a sc <"/proc/$1/syscall" 2>/dev/null && [ "${sc[0]}" == "$2" ]; }

# kns_case NAME 'SYSCALL:INJECT'|- 'WAIT...' RUN_ARGS...: start 'run
# RUN_ARGS' (under strace injecting INJECT into SYSCALL unless -), wait
# (60 s at most) until the command WAIT (given the run's pid) holds,
# SIGKILL the run, wait for it to be gone, then check what it left.
kns_case() {
	local name="SIGKILL $1" inj=$2 wait=$3 bg pid reached=no left child='' follow=''
	shift 3
	if [ "$inj" == - ]; then
		"$FS" run "$@" >/dev/null 2>"$kns/err" &
		bg=$!
		pid=$bg
	else
		# Children followed only to hold mkfs's execve: mkfs makes
		# ioctl and pwrite64 calls of its own.
		[[ $inj == execve:* ]] && follow=-f
		env "$NOLSAN" strace $follow -o /dev/null -e trace="${inj%%:*}" -e inject="$inj" \
			"$FS" run "$@" >/dev/null 2>"$kns/err" &
		bg=$!
		# Not one of strace's short-lived ptrace probes (they run
		# as 'strace'): folioscope itself.
		wait_until 30 pgrep -P "$bg" -x folioscope >/dev/null
		pid=$(pgrep -P "$bg" -x folioscope)
	fi
	# shellcheck disable=SC2086
	[ -n "$pid" ] && wait_until 60 $wait "$pid" && reached=yes
	[ $reached == yes ] || kns_why="pid '$pid' at '$(cat "/proc/$pid/syscall" 2>&1)'"
	[ "$wait" == kns_in_mkfs ] && child=$(kns_mkfs "$pid")
	kill -KILL "$pid" 2>/dev/null
	{ wait "$bg"; } 2>/dev/null
	expect_eq "$name: reached" "$reached" yes
	[ $reached == yes ] || echo "  $kns_why; run's stderr: $(head -c 400 "$kns/err")"
	# An orphaned mkfs ends on its own; it mounts nothing.
	[ -n "$child" ] && wait_until 60 proc_gone "$child"
	# The kernel unmounts as the namespace goes, with the process; the
	# loop device goes on its last close, which udev's probe may hold.
	wait_until 10 kns_clean
	expect_eq "$name: no mount left" "$(kns_mounts)" ""
	expect_eq "$name: no loop device left" "$(kns_loops)" ""
	left=$(cd "$TMPDIR" && find . -mindepth 1 -maxdepth 1 | sed 's|^\./||' | sed -E 's/-[A-Za-z0-9]{6}$/-XXXXXX/')
	expect_match "$name: only the run's temp dir is left" "${left:-none}" \
		'^(folioscope-(shmem|dedupe)-XXXXXX|none)$'
	kns_undo
}

echo "-- killns: SIGKILL in each phase leaves no mount or loop device (${SECONDS}s)"
if [ "$(uname -m)" != x86_64 ]; then
	skip "killns" "syscall numbers here are x86_64's, this is $(uname -m)"
elif ! command -v strace >/dev/null || ! strace -e inject=mount:delay_exit=1 true 2>/dev/null; then
	skip "killns" "needs strace with syscall delay injection"
else
	# The mount done, held on its way back.
	kns_case "shmem-read: mounted" mount:delay_exit=5000000 \
		"kns_at_mounted $kns_nr_mount 2 path" shmem-read --size 64M
	kns_case "shmem-read: filling" pwrite64:delay_enter=5000000 \
		"kns_at $kns_nr_pwrite64 1 fd" shmem-read --size 64M
	kns_case "shmem-read: reading" - kns_stopped shmem-read --size 64M --stop-after 1
	kns_case "shmem-read: teardown" umount2:delay_enter=5000000 \
		"kns_at $kns_nr_umount2 1 path" shmem-read --size 64M
	for fs in xfs btrfs; do
		if ! command -v "mkfs.$fs" >/dev/null; then
			skip "killns: dedupe on $fs" "mkfs.$fs not installed (tests/deps.sh)"
			continue
		fi
		dd=(dedupe --fs "$fs" --count 8 --range 64K)
		# Each execve held 3 s on its way back (strace counts them per
		# process): folioscope's own, then its mkfs child's.
		kns_case "dedupe $fs: making the filesystem" execve:delay_exit=3000000 \
			kns_in_mkfs "${dd[@]}"
		# Every ioctl held 2 s on its way back: once a loop device is
		# bound to the image, the ioctl that bound it is being held.
		kns_case "dedupe $fs: loop device just bound" ioctl:delay_exit=2000000 \
			kns_in_loop_ioctl "${dd[@]}"
		kns_case "dedupe $fs: loop bound, about to mount" mount:delay_enter=5000000 \
			"kns_at $kns_nr_mount 2 path" "${dd[@]}"
		kns_case "dedupe $fs: mounted" mount:delay_exit=5000000 \
			"kns_at $kns_nr_mount 2 path" "${dd[@]}"
		kns_case "dedupe $fs: filling" pwrite64:delay_enter=5000000 \
			"kns_at $kns_nr_pwrite64 1 fd" "${dd[@]}"
		kns_case "dedupe $fs: deduping" - kns_stopped "${dd[@]}" --stop-after 1
		kns_case "dedupe $fs: teardown" umount2:delay_enter=5000000 \
			"kns_at $kns_nr_umount2 1 path" "${dd[@]}"
	done
fi

