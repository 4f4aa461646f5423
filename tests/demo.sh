#!/usr/bin/env bash
# The main job: both workloads under tracing, on the host when it can
# attach to the real functions, otherwise in the VM on the default kernel.
set -uo pipefail
cd "$(dirname "$0")/.."
FS=$PWD/build/folioscope
where=host
why=""
docj=$("$FS" doctor --json 2>/dev/null)
# The syscall-level fallback does not reach the real functions: use the VM.
for t in dedupe shmem; do
	mech=$(jq -r ".targets.$t.mechanism" <<<"$docj")
	if [ "$mech" == null ] || [ "$mech" == syscall ]; then
		where=vm
		why="$why $t: $(jq -r "[.targets.$t.steps[] | .mechanism + \" \" + .symbol + \": \" + .reason] | join(\"; \")" <<<"$docj")."
	fi
done
if [ $where == host ]; then
	echo "demo: running on this host ($(uname -r)): both targets attach here"
	run=("$FS")
else
	echo "demo: running in a VM on Debian 12's cloud kernel, because this host ($(uname -r)) cannot attach:$why"
	run=("$FS" vm --)
fi
rc=0
"${run[@]}" run shmem-read --huge always --size 16M --bs 64K || rc=1
"${run[@]}" run dedupe --fs btrfs --count 64 --range 128K || rc=1
exit $rc
