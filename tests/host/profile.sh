# shellcheck shell=bash
# Sourced by tests/check.sh (host): make bench-profile's two halves
# without a guest. The insncount plugin (bench/profile/insncount.c) runs
# in qemu's user mode on tests/host/progs/profspin.c, whose marks bracket
# known numbers of calls; bench/profile/attribute.py names the blocks of
# a hand-made run: symbols, a program's machine code and its lines.
pw=$(mktemp -d "${TMPDIR:-/tmp}/fs-profile.XXXXXX")
if ! command -v qemu-x86_64 >/dev/null; then
	skip "profile: insncount in qemu-x86_64" "no qemu-x86_64 (Debian's qemu-user)"
elif ! gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
		-o "$pw/insncount.so" bench/profile/insncount.c 2>"$pw/cc.err" ||
     ! gcc -O2 -static -nostdlib -fno-pie -no-pie -o "$pw/profspin" \
		tests/host/progs/profspin.c 2>>"$pw/cc.err"; then
	bad "profile: build the plugin and profspin" "$(head -c 600 "$pw/cc.err")"
else
	mark=$(nm "$pw/profspin" | awk '$3 == "mark" { print $1 }')
	spin=$(nm "$pw/profspin" | awk '$3 == "spin" { print $1 }' | sed 's/^0*//')
	qemu-x86_64 -plugin "$pw/insncount.so,out=$pw/counts,mark=$mark" "$pw/profspin"
	expect_eq "profile: profspin runs to its end under the plugin" "$?" 0
	# window W, spin's block: "ADDR INSNS RUNS" (three nops and a ret).
	spin_runs() {
		awk -v w="$1" -v a="$spin" '$1 == "window" { on = ($2 == w); next }
			on && $1 == a { print $2 " " $3 }' "$pw/counts"
	}
	expect_eq "profile: three marks, two windows" \
		"$(head -1 "$pw/counts" | awk '{ print $4 }') $(grep -c '^window' "$pw/counts")" "3 2"
	expect_eq "profile: window 0 counts spin's 1000 runs of 4 instructions" \
		"$(spin_runs 0)" "4 1000"
	expect_eq "profile: window 1 counts its 3000" "$(spin_runs 1)" "4 3000"
	err=$(qemu-x86_64 -plugin "$pw/insncount.so,out=$pw/x" "$pw/profspin" 2>&1)
	expect_eq "profile: without mark= qemu refuses the plugin" "$?" 1
	expect_match "profile: ... and says what it wants" "$err" \
		"^insncount: need out=FILE,mark=HEXADDR$"
fi

# attribute.py on a made-up run of 10 calls per window: funcA runs 5
# instructions a call in every window; folioscope-fentry adds a program
# of two lines (nop nop | nop ret: 2 + 2 instructions) and funcB's block
# of 3 instructions twice a call; floorall-fentry adds the trampoline's
# block of 7 once a call.
if ! /usr/bin/python3 -c 'import capstone' 2>/dev/null; then
	skip "profile: attribute.py" "no python3-capstone for /usr/bin/python3"
else
	{
		echo "profwin vm-x pread4k untraced 10"
		echo "profwin vm-x pread4k folioscope-fentry 10"
		echo "profsym ffffffffa0000000 bpf_prog_0123456789abcdef_fexit_read"
		echo "profsym ffffffffa0001000 bpf_trampoline_6442450944"
		echo "profjit prog 7 fexit_read ffffffffa0000000 909090c3"
		echo "profjit line 7 ffffffffa0000000 /src/bpf/x.bpf.c:1 int first(void)"
		echo "profjit line 7 ffffffffa0000002 /src/bpf/x.bpf.c:2 	return  second;"
		echo "profwin vm-x pread4k floorall-fentry 10"
		echo "profsym ffffffffa0001000 bpf_trampoline_6442450944"
		echo "profksym ffffffff81000000 funcA"
		echo "profksym ffffffff81000100 funcB"
	} >"$pw/raw"
	{
		echo "blocks 5 snapshots 6"
		echo "window 0"; echo "ffffffff81000000 5 10"
		echo "window 1"; echo "ffffffff81000000 5 99"
		echo "window 2"; echo "ffffffff81000000 5 10"
		echo "ffffffffa0000000 4 10"; echo "ffffffff81000120 3 20"
		echo "window 3"
		echo "window 4"; echo "ffffffff81000000 5 10"; echo "ffffffffa0001000 7 10"
	} >"$pw/counts2"
	out=$(/usr/bin/python3 bench/profile/attribute.py "$pw/raw" "$pw/counts2" 2>&1)
	expect_match "profile: attribute: 10 instructions a call added, 4 in the program" \
		"$out" '^\| folioscope-fentry \| 10 \| 80 \| 4 \| 0 \|$'
	expect_match "profile: attribute: the floor's trampoline" \
		"$out" '^\| floorall-fentry \| 7 \| 56 \| 0 \| 7 \|$'
	expect_match "profile: attribute: 3 over the floor" \
		"$out" '^#### pread4k folioscope-fentry: 3 insns/call over floorall-fentry'
	expect_match "profile: attribute: funcB by function" "$out" '^\| funcB \| 6 \|$'
	expect_match "profile: attribute: the trampoline the floor has" "$out" '^\| bpf_trampoline \| -7 \|$'
	expect_match "profile: attribute: the program's instructions by source file" \
		"$out" '^folioscope-fentry `fexit_read`: 4 insns/call \(x.bpf.c 4\); its costliest lines:$'
	expect_match "profile: attribute: line 1's two instructions" \
		"$out" '^- 2: x.bpf.c:1: `int first\(void\)`$'
	expect_match "profile: attribute: line 2's, its text squeezed" \
		"$out" '^- 2: x.bpf.c:2: `return second;`$'
fi
rm -rf "$pw"
