# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=sh
# Sourced by measure.sh --workloads (host): folioscope's workloads against
# their peers, interleaved round by round.
# - shmem: `run shmem-read` vs fio (psync, sequential reads of the same
#   size, on a tmpfs with the same huge= setting) untraced and traced by
#   folioscope the way `run` traces itself, and memcpy bandwidth as the
#   physical limit. Both programs' read throughput comes from the same
#   outside measurement (benchtool iowatch: the middle 80% of their read
#   phase in /proc/PID/io), fio's own figure is kept beside it.
# - dedupe: `run dedupe` (seed layout: identical files deduped against
#   the first) vs `duperemove -d` on the same number of identical files,
#   system time per GiB deduped (whole process: writing the files for
#   run, hashing them for duperemove).
WL_SIZE=${WL_SIZE:-128M}
WL_BYTES=$((128 << 20))
WL_ROUNDS=${WL_ROUNDS:-3}
[ "$WL_ROUNDS" -gt "$ROUNDS" ] && WL_ROUNDS=$ROUNDS
DD_FILES=${DD_FILES:-16}
WL_MECH=${WL_MECH:-$(echo "$MECHS" | awk '{ print $1 }')}
dd_gib=$(awk -v n="$DD_FILES" 'BEGIN { printf "%.6f", (n - 1) * 4 / 1024 }')

rec "env $SCOPE workload_size $WL_SIZE"
rec "env $SCOPE workload_mech $WL_MECH"
rec "env $SCOPE dedupe_files $DD_FILES x 4M"
for bs in 4k 64k; do
	for huge in never always; do
		b=shmem-$bs-$huge
		rec "ratio $SCOPE $b read_bytes_per_s run fio-traced ratio_to_fio_traced"
		rec "ratio $SCOPE $b read_bytes_per_s run fio ratio_to_fio"
		rec "ratio $SCOPE $b read_bytes_per_s run memcpy ratio_to_memcpy"
	done
done
rec "ratio $SCOPE dedupe-seed sys_s_per_gib run duperemove ratio_to_duperemove"
rec "note $SCOPE run shmem-read checks every call's data against ground truth; fio does not look at the data. So a traced run has no target against fio: run shmem-read --throughput (bench/throughput.sh, --part all or throughput) has, within 5% of fio."

fio_read() { # fio_read BS HUGE OUTFILE [traced]
	local bs out how st
	mkdir -p "$W/fio"
	mount -t tmpfs -o "huge=$2,size=512m" fsbench-fio "$W/fio" || return 1
	set -- "$@" fio --name=read --thread --ioengine=psync --rw=read \
		--bs="$1" --size="$WL_SIZE" --filename="$W/fio/f" \
		--output-format=json --output="$W/fio.json"
	bs=$1 out=$3 how=$4
	shift 4
	if [ "$how" = traced ]; then
		"$FS" trace -q -t shmem -m "$WL_MECH" -- \
			"$BTOOL" iowatch -o "$out" "$WL_BYTES" -- "$@" >/dev/null
	else
		"$BTOOL" iowatch -o "$out" "$WL_BYTES" -- "$@" >/dev/null
	fi
	st=$?
	umount "$W/fio"
	return $st
}

r=0
while [ "$r" -lt "$WL_ROUNDS" ]; do
	say "workloads round $((r + 1))/$WL_ROUNDS"
	for bs in 4k 64k; do
		for huge in never always; do
			b=shmem-$bs-$huge
			if "$BTOOL" iowatch -o "$W/io" "$WL_BYTES" -- "$FS" run shmem-read \
				--huge "$huge" --size "$WL_SIZE" --bs "$bs" -m "$WL_MECH" \
				>/dev/null 2>"$W/run.err"; then
				rec "sample $SCOPE $b run $r read_bytes_per_s $(kv bytes_per_s "$(cat "$W/io")")"
			else
				say "run shmem-read failed: $(tail -n 2 "$W/run.err")"
			fi
			if fio_read "$bs" "$huge" "$W/io" plain; then
				rec "sample $SCOPE $b fio $r read_bytes_per_s $(kv bytes_per_s "$(cat "$W/io")")"
				self=$(sed -n 's/.*"bw_bytes" *: *\([0-9]*\).*/\1/p' "$W/fio.json" | head -n 1)
				[ -n "$self" ] && rec "sample $SCOPE $b fio-own-report $r read_bytes_per_s $self"
			fi
			fio_read "$bs" "$huge" "$W/io" traced &&
				rec "sample $SCOPE $b fio-traced $r read_bytes_per_s $(kv bytes_per_s "$(cat "$W/io")")"
			x=$("$TOOLS/memcpybw" -b "$(($( echo "$bs" | tr -d k) * 1024))" -t 0.3) &&
				rec "sample $SCOPE $b memcpy $r read_bytes_per_s $(kv bytes_per_s "$x")"
		done
	done
	# dedupe: fresh directories on the benchmark's btrfs each round.
	rm -rf "$W/btrfs/run" "$W/btrfs/dr"
	mkdir -p "$W/btrfs/run" "$W/btrfs/dr"
	if "$BTOOL" rusage -o "$W/ru" -- "$FS" run dedupe --dir "$W/btrfs/run" \
		--files "$DD_FILES" --file-size 4M -m "$WL_MECH" >/dev/null 2>"$W/run.err"; then
		ru=$(cat "$W/ru")
		rec "sample $SCOPE dedupe-seed run $r sys_s_per_gib $(div "$(kv sys_s "$ru")" "$dd_gib")"
		rec "sample $SCOPE dedupe-seed run $r wall_s_per_gib $(div "$(kv wall_s "$ru")" "$dd_gib")"
	else
		say "run dedupe failed: $(tail -n 2 "$W/run.err")"
	fi
	head -c 4M /dev/urandom >"$W/btrfs/dr/f0"
	i=1
	while [ "$i" -lt "$DD_FILES" ]; do
		cat "$W/btrfs/dr/f0" >"$W/btrfs/dr/f$i"
		i=$((i + 1))
	done
	sync
	if "$BTOOL" rusage -o "$W/ru" -- duperemove -d -q -r "$W/btrfs/dr" \
		>/dev/null 2>"$W/run.err"; then
		ru=$(cat "$W/ru")
		rec "sample $SCOPE dedupe-seed duperemove $r sys_s_per_gib $(div "$(kv sys_s "$ru")" "$dd_gib")"
		rec "sample $SCOPE dedupe-seed duperemove $r wall_s_per_gib $(div "$(kv wall_s "$ru")" "$dd_gib")"
	else
		say "duperemove failed: $(tail -n 2 "$W/run.err")"
	fi
	rm -rf "$W/btrfs/run" "$W/btrfs/dr"
	r=$((r + 1))
done
