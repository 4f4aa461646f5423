#!/bin/sh
# Guest side of the whole-lines check in tests/vm/checks.sh: two writers
# at once, 200 long lines each, one on stdout and one on stderr, which
# the host sends to one file; then a run whose notices on stderr (the
# layouts it draws) start with an erase code on a terminal.
w() {
	awk -v tag="$1" 'BEGIN {
		s = sprintf("%3000s", ""); gsub(/ /, "x", s)
		for (i = 0; i < 200; i++) printf "%s %03d %s\n", tag, i, s
	}'
}
w out &
w err >&2 &
wait
/bin/folioscope run shmem-read --random 2 --seed 1 >/dev/null
