#!/bin/sh
# Guest side of tests/vm/shinline.sh (run by `folioscope vm --kernel
# BZIMAGE --debuginfo --exec`). Arguments: -j DOCTOR -j RUN. doctor, then
# one small shmem-read run, on the kernel whose read loop inlines the folio
# lookup. Each step's exit status is printed as "== NAME exit N".
[ $# -eq 4 ] || { echo "shinline-guest: want -j DOCTOR -j RUN" >&2; exit 1; }
doctor=$2 run=$4
folioscope doctor -J >"$doctor" 2>/tmp/doctor.err
echo "== doctor exit $?"
folioscope run shmem-read --huge always --size 8M --bs 64K -j "$run" >/tmp/run.out 2>&1
echo "== run exit $?"
sed 's/^/OUT run /' /tmp/run.out | tail -20
