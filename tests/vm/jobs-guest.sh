#!/bin/sh
# Guest side of the suites that run several folioscope commands in one
# boot (validation.sh, mutants.sh, tests/kernels/mutants.sh), run by
# `folioscope vm --exec`: the arguments are commands, each ended by ":::"
# (`run dedupe --matrix -j F :::`); each runs in turn and its exit status
# is printed as "== job N exit S", and "== job N ends" on stderr: the
# two channels reach the host on ports of their own, so a job's stderr
# lines are told from the next job's by that line alone. Leading
# NAME=value words are the job's environment
# (`FOLIOSCOPE_READS=probe doctor :::`). A KASAN
# kernel's boot line comes first as "== kasan: ...", for the host to
# check that KASAN is on.
dmesg 2>/dev/null | grep -m1 'KernelAddressSanitizer' | sed 's/^/== kasan: /'
n=0
cmd=
for a in "$@" :::; do
	if [ "$a" != ::: ]; then
		cmd="$cmd $a"
		continue
	fi
	[ -n "$cmd" ] || continue
	# shellcheck disable=SC2086 # $cmd is the command and its arguments
	set -- $cmd
	envs=
	while [ $# -gt 0 ] && case $1 in *=*) true ;; *) false ;; esac; do
		envs="$envs $1"
		shift
	done
	# shellcheck disable=SC2086 # the words, each NAME=value
	env $envs /bin/folioscope "$@"
	echo "== job $n exit $?"
	echo "== job $n ends" >&2
	n=$((n + 1))
	cmd=
done
