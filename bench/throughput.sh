#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`'s throughput part: `run shmem-read --throughput` against
# fio on the same kind of file, where the kernel under test is (the host,
# or a guest started by `folioscope vm --exec` with fio put in by
# --with). Raw records (bench/README.md) on stdout or appended to -o.
#
#   throughput.sh --scope SCOPE --fs FOLIOSCOPE --rounds N [--size S] -o RAW|-
#
# Per round and block size (4k, 64k), on a tmpfs mounted huge=always: run's
# middle timed pass (MB/s, untraced: its passes run before the probes
# attach) and fio's own figure (psync, sequential, 3 loops of the file,
# untraced; --invalidate=0: tmpfs has nothing to drop between loops),
# in alternating order round by round. The target: run within
# 5% of fio. Neither looks at the data while timed; run checks them in a
# pass of its own afterwards.
set -u
SCOPE=host FS= ROUNDS=3 SIZE=128M OUT=-
while [ $# -gt 0 ]; do
	case $1 in
	--scope) SCOPE=$2; shift ;;
	--fs) FS=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--size) SIZE=$2; shift ;;
	-o) OUT=$2; shift ;;
	*) echo "throughput.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
say() { echo "bench[$SCOPE]: $*" >&2; }
rec() { if [ "$OUT" = - ]; then echo "$*"; else echo "$*" >>"$OUT"; fi; }
W=$(mktemp -d /tmp/fsbench-tput.XXXXXX)
trap 'umount "$W/fio" 2>/dev/null; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/fio"

rec "env $SCOPE throughput_size $SIZE"
rec "env $SCOPE throughput_rounds $ROUNDS"
for bs in 4k 64k; do
	b=tput-$bs-always
	rec "ratio $SCOPE $b read_bytes_per_s run-throughput fio ratio_to_fio"
	rec "target $SCOPE $b run-throughput ratio_to_fio ge 0.95 $b: run shmem-read --throughput within 5% of fio (both untraced, each its own figure)"
done
rec "note $SCOPE tput-*: run shmem-read --throughput's middle pass of 3 against fio's own bw_bytes for 3 loops (psync, sequential), on the same size of file on tmpfs huge=always; neither is traced while timed."

run_one() { # BS
	"$FS" run shmem-read --huge always --size "$SIZE" --bs "$1" --throughput \
		-q -j "$W/run.json" >/dev/null 2>"$W/run.err" || {
		say "run shmem-read --throughput --bs $1 failed: $(tail -n 1 "$W/run.err")"
		return 1
	}
	mb=$(sed -n 's/.*"mb_per_s" *: *\([0-9]*\).*/\1/p' "$W/run.json" | head -n 1)
	[ -n "$mb" ] && rec "sample $SCOPE tput-$1-always run-throughput $r read_bytes_per_s ${mb}000000"
}

fio_one() { # BS
	mount -t tmpfs -o huge=always fsbench-fio "$W/fio" || return 1
	fio --name=read --thread --ioengine=psync --rw=read --bs="$1" \
		--size="$SIZE" --loops=3 --invalidate=0 --filename="$W/fio/f" \
		--output-format=json --output="$W/fio.json" >/dev/null 2>"$W/fio.err" ||
		say "fio --bs $1 failed: $(head -n 1 "$W/fio.err")"
	umount "$W/fio"
	bw=$(sed -n 's/.*"bw_bytes" *: *\([0-9]*\).*/\1/p' "$W/fio.json" 2>/dev/null | head -n 1)
	[ -n "$bw" ] && rec "sample $SCOPE tput-$1-always fio $r read_bytes_per_s $bw"
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
	say "throughput round $((r + 1))/$ROUNDS"
	for bs in 4k 64k; do
		if [ $((r % 2)) -eq 0 ]; then
			run_one "$bs"
			fio_one "$bs"
		else
			fio_one "$bs"
			run_one "$bs"
		fi
	done
	r=$((r + 1))
done
exit 0
