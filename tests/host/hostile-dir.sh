# A hostile --dir, sourced by tests/check.sh: `run dedupe --dir` on a
# btrfs scratch filesystem touches none of the files planted there, refuses
# a dir owned by another user and a symlink, and after a killed run's
# dir the next run removes it, saying so, while a live run's stays.
# Run as root.
# shellcheck shell=bash

scratch_setup fs-hostile-dir
hd_dd=(dedupe --count 512 --range 64K)
# Another TMPDIR, for a run whose temp dir is known by its --dir only.
mkdir -m 755 "$SCRATCH/tmp2"
hd_bt=$SCRATCH/bt
mkdir "$hd_bt"
if truncate -s 256M "$SCRATCH/bt.img" && mkfs.btrfs -q -f "$SCRATCH/bt.img" >/dev/null 2>&1 &&
	mount -o loop "$SCRATCH/bt.img" "$hd_bt"; then
	mkdir "$hd_bt/mine" "$hd_bt/other" "$hd_bt/target"
	chown 65534:65534 "$hd_bt/other"
	ln -s "$hd_bt/target" "$hd_bt/link"
	# Files a careless workload might reuse: never touched.
	for n in f0000000 img0 mnt0 folioscope-dedupe-XXXXXX; do echo planted >"$hd_bt/mine/$n"; done
	ln -s /etc/passwd "$hd_bt/mine/f0000001"
	hd_sum=$(cd "$hd_bt" && find . -printf '%p %y %s %m %l\n' | sort | md5sum)
	if "$FS" run dedupe --dir "$hd_bt/mine" --count 4 >"$LOGDIR/hostile-dir.log" 2>&1; then
		ok "safety: run dedupe --dir on btrfs"
	else
		bad "safety: run dedupe --dir on btrfs" "exit $?; see $LOGDIR/hostile-dir.log"
	fi
	expect_eq "safety: --dir: nothing touched, nothing left" \
		"$(cd "$hd_bt" && find . -printf '%p %y %s %m %l\n' | sort | md5sum)" "$hd_sum"
	for d in other link; do
		hd_what=$([ $d == other ] && echo "owned by another user" || echo "a symlink")
		before=$(leak_state)
		err=$("$FS" run dedupe --dir "$hd_bt/$d" --count 4 2>&1 >/dev/null)
		rc=$?
		if [ $rc -eq 1 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q "$hd_what" <<<"$err"; then
			ok "safety: --dir $hd_what is refused"
		else
			bad "safety: --dir $hd_what is refused" "exit $rc: $err"
		fi
		expect_eq "safety: --dir $hd_what: nothing left there" "$(find "$hd_bt/$d/" -mindepth 1 | wc -l) $(leak_state)" "0 $before"
	done
	# A killed 'run dedupe --dir DIR' leaves DIR/folioscope-dedupe-*:
	# the next run with that --dir removes it and says so, while a live
	# run's is left alone; the planted files stay untouched throughout.
	hd_ddirs() { find "$hd_bt/mine" -mindepth 1 -maxdepth 1 -type d -name 'folioscope-dedupe-*'; }
	hd_has_ddir() { [ -n "$(hd_ddirs)" ]; }
	# hd_has_new_ddir: a dedupe temp dir other than $hd_left is there.
	# (A here-string, not a pipe, for pipefail; an empty one is still a
	# line, which -v would match.)
	hd_has_new_ddir() {
		local d
		d=$(hd_ddirs)
		[ -n "$d" ] && grep -qvxF "$hd_left" <<<"$d"
	}
	"$FS" run "${hd_dd[@]}" --dir "$hd_bt/mine" >/dev/null 2>&1 &
	pid=$!
	wait_until 30 hd_has_ddir
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	hd_left=$(hd_ddirs)
	expect_eq "safety: --dir: SIGKILL leaves one temp dir there" "$(grep -c . <<<"$hd_left")" 1
	# The next run with that --dir removes it (and says so), then makes
	# its own; held there, it is a live run that a third one leaves alone
	# (known by its --dir: its TMPDIR differs).
	TMPDIR=$SCRATCH/tmp2 "$FS" run "${hd_dd[@]}" --dir "$hd_bt/mine" >/dev/null 2>"$SCRATCH/dir.err" &
	pid=$!
	wait_until 30 hd_has_new_ddir
	kill -STOP "$pid"
	hd_live=$(hd_ddirs)
	expect_match "safety: --dir: the next run removes the killed one's dir, one line" "$(cat "$SCRATCH/dir.err")" \
		"^folioscope: run: removed '$hd_left' \(0 mounts\), left behind by a run that was killed$"
	expect_eq "safety: --dir: only the next run's own temp dir is there" "$(grep -c . <<<"$hd_live") $(grep -cxF "$hd_left" <<<"$hd_live")" "1 0"
	hd_err=$("$FS" run dedupe --dir "$hd_bt/mine" --count 4 2>&1 >/dev/null)
	expect_eq "safety: --dir: with a live run there, a third run exits 0 and removes nothing" \
		"$? $(grep -c removed <<<"$hd_err") $(hd_ddirs)" "0 0 $hd_live"
	kill -CONT "$pid"
	wait "$pid"
	expect_eq "safety: --dir: the live run then ends well" "$?" 0
	expect_eq "safety: --dir: after it, no temp dir and the planted files untouched" \
		"$(hd_ddirs)$(cd "$hd_bt" && find . -printf '%p %y %s %m %l\n' | sort | md5sum)" "$hd_sum"
	umount "$hd_bt"
else
	skip "safety: hostile --dir" "cannot make a btrfs scratch filesystem"
fi
rm -f "$SCRATCH/bt.img"
