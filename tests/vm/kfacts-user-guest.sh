#!/bin/sh
# Guest side of the --user case of tests/vm/kfacts.sh (run by `folioscope
# vm --exec`): trace --user nobody on Debian's 6.1 (where
# kernel.unprivileged_bpf_disabled is set): the ids it runs under once
# attached, then one reader's bytes in its final report.
# Arguments: -j JSON -o IDS
json=$2 ids=$4
d=/tmp/ku
mkdir -p $d && cd $d || exit 1
chmod 1777 $d
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
head -c 1000000 /dev/urandom >a
mkfifo a.go
sh -c 'read -r _ <"$0"; exec cat a >/dev/null' a.go &
A=$!
folioscope trace -t shmem -p $A --user nobody -j $d/u.json >/dev/null 2>err &
T=$!
# Attached and dropped: the uid changes only after both.
i=0
while [ $i -lt 600 ]; do
	grep -q '^Uid:.65534' /proc/$T/status 2>/dev/null && break
	sleep 0.1
	i=$((i + 1))
done
{
	grep -E '^(Uid|Gid):' /proc/$T/status | tr -s '\t ' ' '
	cat /proc/sys/kernel/unprivileged_bpf_disabled
} >$ids
echo go >a.go
wait $A
kill -INT $T
wait $T
echo "trace exit $?" >>$ids
cat err >&2
cp u.json $json
