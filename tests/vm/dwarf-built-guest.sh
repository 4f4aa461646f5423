#!/bin/sh
# Guest side of the make-kernel part of tests/vm/dwarf.sh (run by
# `folioscope vm --kernel BZIMAGE --debuginfo --exec`). Arguments: -j
# DOCTOR -j INLINE -j CALLER. One boot, one kernel, the same matrix twice:
# first at the compare's inline sites (the vmlinux vm handed in at the
# distribution path), then with that vmlinux moved away, so the plan falls
# back to the caller. Each step's exit status is printed as "== NAME exit N".
[ $# -eq 6 ] || { echo "dwarf-built-guest: want -j DOCTOR -j INLINE -j CALLER" >&2; exit 1; }
doctor=$2 inline=$4 caller=$6
dbg=/usr/lib/debug/boot/vmlinux-$(uname -r)
folioscope doctor -J >"$doctor" 2>/tmp/doctor.err
echo "== doctor exit $?"
folioscope run dedupe --matrix -j "$inline" >/tmp/inline.out 2>&1
echo "== inline exit $?"
sed 's/^/OUT inline /' /tmp/inline.out | tail -20
mv "$dbg" /tmp/vmlinux.aside || exit 1
folioscope run dedupe --matrix -j "$caller" >/tmp/caller.out 2>&1
echo "== caller exit $?"
sed 's/^/OUT caller /' /tmp/caller.out | tail -20
