# Real peer tools under `trace -- CMD` on this host (sourced by
# tests/check.sh): only CMD and its descendants count, and the counts
# equal what the tools themselves report.
# shellcheck shell=bash
if command -v fio >/dev/null; then
	pd=$(mktemp -d /dev/shm/fs-peers.XXXXXX)
	for bs in 64k 4k; do
		"$FS" trace -t shmem -q -j "$pd/t.json" -- fio --name=r \
			--filename="$pd/f" --size=4M --bs=$bs --rw=read \
			--ioengine=psync --output-format=json \
			--output="$pd/fio.json" >/dev/null 2>&1
		expect_eq "trace -- fio bs=$bs: calls = fio's read ios" \
			"$(jq .targets.shmem.calls "$pd/t.json" 2>/dev/null)" \
			"$(jq '.jobs[0].read.total_ios' "$pd/fio.json" 2>/dev/null)"
		expect_eq "trace -- fio bs=$bs: bytes = fio's read bytes" \
			"$(jq .targets.shmem.histograms.bytes.sum "$pd/t.json" 2>/dev/null)" \
			"$(jq '.jobs[0].read.io_bytes' "$pd/fio.json" 2>/dev/null)"
		rm -f "$pd/f" "$pd/t.json" "$pd/fio.json"
	done
	rm -rf "$pd"
else
	skip "trace -- fio" "fio not installed"
fi

if command -v duperemove >/dev/null && command -v mkfs.btrfs >/dev/null; then
	pd=$(mktemp -d)
	truncate -s 320M "$pd/img"
	if mkfs.btrfs -q -f "$pd/img" >/dev/null 2>&1 && mkdir "$pd/m" &&
	   mount -o loop "$pd/img" "$pd/m"; then
		head -c 4194304 /dev/urandom >"$pd/a"
		# Real copies: cp would reflink on btrfs, leaving nothing to do.
		for f in a b c; do cp --reflink=never "$pd/a" "$pd/m/$f"; done
		sync
		# The inner trace filters by --dev on the btrfs: a path there has
		# a subvolume's st_dev, not the superblock's that the kernel
		# compares, yet the same calls must count.
		"$FS" trace -t dedupe -q -j "$pd/t.json" -- \
			"$FS" trace -t dedupe -q --dev "$pd/m" -j "$pd/tdev.json" -- \
			duperemove -d -r -v "$pd/m" >"$pd/out" 2>&1
		# "Dedupe N extents (id: X) with target: (OFF, LEN), FILE"
		want=$(sed -nE 's/.*Dedupe ([0-9]+) extents .* with target: \(([0-9]+), ([0-9]+)\).*/\1 \3/p' "$pd/out" |
			awk '{ n += $1; b += $1 * $2 } END { print n + 0, b + 0 }')
		expect_eq "trace -- duperemove -d: calls and bytes = its dedupes" \
			"$(jq -r '"\(.targets.dedupe.calls) \(.targets.dedupe.histograms.bytes.sum)"' "$pd/t.json" 2>/dev/null)" \
			"$want"
		expect_eq "trace --dev BTRFS-PATH -- duperemove -d: the same calls and bytes" \
			"$(jq -r '"\(.targets.dedupe.calls) \(.targets.dedupe.histograms.bytes.sum)"' "$pd/tdev.json" 2>/dev/null)" \
			"$want"
		mi=$(awk -v m="$pd/m" '$5 == m { print $3 }' /proc/self/mountinfo)
		expect_eq "btrfs: stat's device is not the superblock's (so --dev cannot use it)" \
			"$([ "$(stat -c '%Hd:%Ld' "$pd/m")" != "$mi" ] && echo differs)" differs
		expect_eq "trace -- duperemove -d: something was deduped" \
			"$([ "${want%% *}" -gt 0 ] && echo yes || echo no)" yes
		# An event's path on btrfs: the file's superblock device is not
		# its st_dev there. The deduper holds its files open until the
		# event is out, so the path can be looked up.
		cp --reflink=never "$pd/a" "$pd/m/s" && cp --reflink=never "$pd/a" "$pd/m/d"
		mkfifo "$pd/go"
		cat >"$pd/dd.py" <<'PY'
import fcntl, os, struct, sys
s = os.open(sys.argv[1], os.O_RDONLY)
d = os.open(sys.argv[2], os.O_RDWR)
# struct file_dedupe_range + one file_dedupe_range_info: 64 KiB at 0.
req = bytearray(struct.pack("QQHHI", 0, 65536, 1, 0, 0) + struct.pack("qQQiI", d, 0, 0, 0, 0))
fcntl.ioctl(s, 0xC0189436, req)
open(sys.argv[3]).read()
PY
		if trace_bg "$pd" -t dedupe --events all --events-json "$pd/ev.jsonl" -- \
			python3 "$pd/dd.py" "$pd/m/s" "$pd/m/d" "$pd/go"; then
			# Events are lines on stdout as they come (the JSON file is whole
			# only at the end).
			wait_until 30 grep -q " python3 .* SAME " "$pd/out" && pd_line=yes || pd_line=no
			expect_eq "trace --events on btrfs: the event's line while the deduper lives" "$pd_line" yes
			echo go >"$pd/go"
			wait "$TPID"
			expect_eq "trace --events on btrfs: the event names the source's path" \
				"$(jq -r 'select(.type == "event") | .file.path' "$pd/ev.jsonl")" "$pd/m/s"
		else
			bad "trace --events on btrfs" "did not start: $(cat "$pd/err")"
			echo go >"$pd/go" &
		fi
		umount "$pd/m"
	else
		skip "trace -- duperemove" "cannot mount a btrfs loop image here"
	fi
	rm -rf "$pd"
else
	skip "trace -- duperemove" "duperemove or btrfs-progs not installed"
fi
