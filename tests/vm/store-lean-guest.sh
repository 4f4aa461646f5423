#!/bin/sh
# Guest side of tests/vm/store-lean.sh (run by `folioscope vm --exec`): the
# in-flight stores and --lean at the function level. Arguments: -j FILE
# pairs, one per output in this order (the VM renames the files, so the
# order says what each is), STORE being cpu, task, hash and test-refuse:
#   doctor --json as it is, and with FOLIOSCOPE_INFLIGHT=test-nocpu;
#   per STORE: doctor --json with FOLIOSCOPE_INFLIGHT=STORE, then for
#   MODE fentry and kprobe: run shmem-read -m MODE, run dedupe -m MODE;
#   last: trace -t shmem -m fentry --lean -- dd, and the same without.
rc=0
head -c 1000000 /dev/urandom >/tmp/a || exit 1
names="doctor-default doctor-test-nocpu"
for store in cpu task hash test-refuse; do
	names="$names doctor-$store"
	for m in fentry kprobe; do
		names="$names sh-$m-$store dd-$m-$store"
	done
done
names="$names lean full"
for n in $names; do
	[ $# -ge 2 ] || { echo "store-lean-guest: no output for $n" >&2; exit 1; }
	f=$2
	shift 2
	case $n in
	*-test-refuse) store=test-refuse ;;
	*-test-nocpu) store=test-nocpu ;;
	*-default) store= ;;
	*) store=${n##*-} ;;
	esac
	case $n in
	doctor-*)
		FOLIOSCOPE_INFLIGHT=$store folioscope doctor --json >"$f" 2>/dev/null ;;
	sh-*)
		m=${n#sh-}; m=${m%%-*}
		FOLIOSCOPE_INFLIGHT=$store folioscope run shmem-read --huge always \
			--size 8M --bs 64K -m "$m" -j "$f" >/dev/null || rc=1 ;;
	dd-*)
		m=${n#dd-}; m=${m%%-*}
		FOLIOSCOPE_INFLIGHT=$store folioscope run dedupe --fs btrfs \
			--count 16 --range 128K -m "$m" -j "$f" >/dev/null || rc=1 ;;
	lean)
		folioscope trace -q -t shmem --lean -m fentry -j "$f" -- \
			/bin/busybox dd if=/tmp/a of=/dev/null bs=64k >/dev/null 2>&1 || rc=1 ;;
	full)
		folioscope trace -q -t shmem -m fentry -j "$f" -- \
			/bin/busybox dd if=/tmp/a of=/dev/null bs=64k >/dev/null 2>&1 || rc=1 ;;
	esac
done
exit $rc
