# Inline sites from DWARF on this host (sourced by tests/check.sh): doctor
# --debuginfo with Debian 6.1's (and 6.12's) vmlinux from their
# linux-image-RELEASE-dbg, taken from the cache where vm --debuginfo puts
# it (not downloaded here: a release not in the cache is skipped, and
# tests/vm/dwarf.sh fetches 6.1's). That file is another kernel's, so it
# must be refused; with the notes of that kernel standing in for
# /sys/kernel/notes it must give the compare's known inline site (6.1:
# one copy in __generic_remap_file_range_prep, fs/remap_range.c:335) with
# exits that objdump agrees with. Bad files give one line and exit 1.
# shellcheck shell=bash
dw=$(mktemp -d "${TMPDIR:-/tmp}/fs-dwarf.XXXXXX")
dw_cache=${FOLIOSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/folioscope}
[ -n "${FOLIOSCOPE_CACHE:-}" ] || [ -n "${XDG_CACHE_HOME:-}" ] ||
	dw_cache=$HOME/.cache/folioscope

# Bad input: one line on stderr, exit 1, whatever the file.
expect_error "dwarf: --debuginfo of a directory" 1 "not a regular file" \
	"$FS" doctor --debuginfo "$dw"
expect_error "dwarf: --debuginfo of a missing file" 1 "No such file" \
	"$FS" doctor --debuginfo "$dw/none"
printf 'not an ELF file\n' >"$dw/garbage"
expect_error "dwarf: --debuginfo of a non-ELF file" 1 "not an ELF file" \
	"$FS" doctor --debuginfo "$dw/garbage"
expect_error "dwarf: --debuginfo of a stripped ELF file" 1 "no DWARF" \
	"$FS" doctor --debuginfo /bin/true
# trace and run refuse a --debuginfo they cannot use before tracing.
expect_error "dwarf: trace --debuginfo of a missing file" 1 "^folioscope: --debuginfo: .*none: No such file" \
	"$FS" trace -t dedupe -d 1 --debuginfo "$dw/none"
expect_error "dwarf: run --debuginfo of a stripped ELF file" 1 "^folioscope: --debuginfo: /bin/true: no DWARF" \
	"$FS" run dedupe --count 1 --debuginfo /bin/true

# Without --debuginfo: where it looked, in one line per inlined target.
"$FS" doctor >"$dw/plain" 2>&1
if grep -Eq "inline sites: unknown \(no DWARF for $(uname -r): looked at /usr/lib/debug/boot/vmlinux-$(uname -r), " "$dw/plain" ||
	[ -e "/usr/lib/debug/boot/vmlinux-$(uname -r)" ] ||
	[ -e "/usr/lib/debug/lib/modules/$(uname -r)/vmlinux" ] ||
	[ -e "/boot/vmlinux-$(uname -r)" ]; then
	ok "dwarf: doctor says where it looked for DWARF"
else
	bad "dwarf: doctor says where it looked for DWARF" "$(grep inline "$dw/plain")"
fi

# dw_release RELEASE CALL_LINE: the checks on Debian's RELEASE -dbg vmlinux,
# whose compare is inlined at fs/remap_range.c:CALL_LINE.
dw_release() {
	local dw_rel=$1 dw_line=$2 dw_vmlinux dw_id host_id inl sym_start sym_size
	dw_vmlinux=$dw_cache/debuginfo/linux-image-$dw_rel-dbg/usr/lib/debug/boot/vmlinux-$dw_rel
	if [ ! -s "$dw_vmlinux" ]; then
		skip "dwarf $dw_rel: Debian $dw_rel inline sites" \
			"no $dw_vmlinux (folioscope vm --debuginfo fetches it once, ~300 MB)"
	else
		dw_id=$(readelf -n "$dw_vmlinux" | awk '/Build ID:/ { print $3; exit }')
		# A kernel's /sys/kernel/notes is its .notes section.
		objcopy -O binary --only-section=.notes "$dw_vmlinux" "$dw/notes"
		host_id=$(od -An -tx1 -v /sys/kernel/notes | tr -d ' \n' |
			grep -o '474e5500[0-9a-f]*' | cut -c9-48)
		expect_error "dwarf $dw_rel: another kernel's DWARF is refused naming both build IDs" 1 \
			"build ID $dw_id, the running kernel's is $host_id" \
			"$FS" doctor --debuginfo "$dw_vmlinux"

		if FOLIOSCOPE_KERNEL_NOTES=$dw/notes "$FS" doctor -J \
			--debuginfo "$dw_vmlinux" >"$dw/j" 2>"$dw/err"; then
			ok "dwarf $dw_rel: doctor -J --debuginfo with the kernel's notes"
		else
			bad "dwarf $dw_rel: doctor -J --debuginfo with the kernel's notes" "$(cat "$dw/err")"
		fi
		inl='.targets.dedupe.inline'
		expect_eq "dwarf $dw_rel: build ID" "$(jq -r "$inl.build_id" "$dw/j")" "$dw_id"
		expect_eq "dwarf $dw_rel: source" "$(jq -r "$inl.source" "$dw/j")" "--debuginfo"
		expect_eq "dwarf $dw_rel: one inline site" "$(jq "$inl.sites | length" "$dw/j")" 1
		expect_eq "dwarf $dw_rel: inlined into" "$(jq -r "$inl.sites[0].caller" "$dw/j")" \
			__generic_remap_file_range_prep
		expect_eq "dwarf $dw_rel: call site" "$(jq -r "$inl.sites[0] | \"\(.call_file):\(.call_line)\"" "$dw/j")" \
			"fs/remap_range.c:$dw_line"
		expect_match "dwarf $dw_rel: entry as symbol+offset" "$(jq -r "$inl.sites[0].entry" "$dw/j")" \
			'^__generic_remap_file_range_prep\+0x[0-9a-f]+$'
		expect_eq "dwarf $dw_rel: parameters" "$(jq -r "[$inl.sites[0].params[].name] | join(\" \")" "$dw/j")" \
			"src srcoff dest dstoff len is_same"
		# Every parameter has a location or a reason, never both.
		expect_eq "dwarf $dw_rel: location xor reason" "$(jq "[$inl.sites[0].params[] | select((.location == null) == (.reason == null))] | length" "$dw/j")" \
			0
		# Ranges inside the caller's ELF symbol, the entry in one of them,
		# every exit where objdump has that instruction (same mnemonic, same
		# target for a branch) with its target outside the ranges.
		read -r sym_start sym_size < <(nm -S "$dw_vmlinux" |
			awk '$4 == "__generic_remap_file_range_prep" { print $1, $2; exit }')
		objdump -d --no-show-raw-insn "--start-address=0x$sym_start" \
			"--stop-address=$(python3 -c "print(hex(0x$sym_start + 0x$sym_size))")" \
			"$dw_vmlinux" >"$dw/dis"
		expect_eq "dwarf $dw_rel: ranges, entry and exits agree with nm and objdump" \
			"$(python3 - "$dw/j" "$dw/dis" "$sym_start" "$sym_size" <<-'PY'
	import json, re, sys
	j = json.load(open(sys.argv[1]))["targets"]["dedupe"]["inline"]["sites"][0]
	start, size = int(sys.argv[3], 16), int(sys.argv[4], 16)
	insns = {}
	for line in open(sys.argv[2]):
	    m = re.match(r"\s*([0-9a-f]+):\t(\S+)\s*(\S*)", line)
	    if m:
	        insns[int(m.group(1), 16)] = (m.group(2), m.group(3))
	rng = [(int(r["lo"], 16), int(r["hi"], 16)) for r in j["ranges"]]
	inside = lambda a: any(lo <= a < hi for lo, hi in rng)
	errs = []
	if not rng or any(lo < start or hi > start + size for lo, hi in rng):
	    errs.append("ranges outside the symbol")
	if not inside(int(j["entry_pc"], 16)):
	    errs.append("entry outside the ranges")
	if not j["exits"]:
	    errs.append("no exits")
	for e in j["exits"]:
	    at = int(e["insn"], 16)
	    t = int(e["target"], 16) if e["target"] else None
	    if at not in insns or not inside(at):
	        errs.append("exit at %x: no such instruction in the ranges" % at)
	        continue
	    if t is not None and inside(t):
	        errs.append("exit at %x: target %x inside" % (at, t))
	    if e["kind"] == "branch" and (insns[at][0] != e["mnemonic"] or int(insns[at][1], 16) != t):
	        errs.append("exit at %x: objdump has %s %s" % (at, *insns[at]))
	print("; ".join(errs) or "ok")
	PY
	)" ok
		# Each argument where readelf says it is at the entry PC: the site's
		# DIE gives each parameter's location list, .debug_loclists the
		# entry covering the PC (Debian's DWARF has no DW_AT_entry_pc, so
		# this also checks that the entry is where arguments are set up).
		readelf --debug-dump=info --dwarf-start="$(jq -r "$inl.sites[0].die" "$dw/j")" \
			"$dw_vmlinux" 2>/dev/null | head -200 >"$dw/die"
		readelf --debug-dump=loc "$dw_vmlinux" 2>/dev/null >"$dw/loc"
		expect_eq "dwarf $dw_rel: argument locations agree with readelf" \
			"$(python3 - "$dw/j" "$dw/die" "$dw/loc" <<-'PY'
	import json, re, sys
	j = json.load(open(sys.argv[1]))["targets"]["dedupe"]["inline"]["sites"][0]
	pc = int(j["entry_pc"], 16)
	# The site's own formal parameters: depth + 1, before the next DIE at
	# the site's depth or above.
	params, depth, cur = [], None, None
	for line in open(sys.argv[2]):
	    m = re.match(r"\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)", line)
	    if m:
	        d = int(m.group(1))
	        if depth is None:
	            depth = d
	        elif d <= depth:
	            break
	        cur = {"loc": None} if d == depth + 1 and m.group(3) == "DW_TAG_formal_parameter" else None
	        if cur is not None:
	            params.append(cur)
	        continue
	    m = re.search(r"DW_AT_location\s*: 0x([0-9a-f]+) \(location list\)", line)
	    if cur is not None and m:
	        cur["loc"] = int(m.group(1), 16)
	want = {p["loc"] for p in params if p["loc"] is not None}
	lists, cur, entry = {}, None, None
	for line in open(sys.argv[3]):
	    if "<End of list>" in line:
	        cur = None
	        continue
	    m = re.match(r"\s*([0-9a-f]{8}) v\S+ v\S+ views at", line)
	    if m:
	        if cur is None:
	            cur = int(m.group(1), 16)
	        continue
	    m = re.match(r"\s+([0-9a-f]{16}) ([0-9a-f]{16}) \((.*)\)$", line)
	    if m and cur in want:
	        lists.setdefault(cur, []).append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
	# readelf lists the parameters in DIE order, doctor in declaration order:
	# compare as a multiset of "available register-or-kind" strings.
	def expect(p):
	    for lo, hi, expr in lists.get(p["loc"], []) if p["loc"] is not None else []:
	        if lo <= pc < hi:
	            if "entry_value" in expr:
	                return "unavailable"
	            m = re.fullmatch(r"DW_OP_reg\d+ \((\w+)\)", expr)
	            return m.group(1) if m else "available"
	    return "unavailable"
	def got(p):
	    if not p["available"]:
	        return "unavailable"
	    return p["location"] if re.fullmatch(r"\w+", p["location"]) else "available"
	w = sorted(expect(p) for p in params)
	g = sorted(got(p) for p in j["params"])
	print("ok" if w == g and len(params) == len(j["params"]) else "readelf %s, doctor %s" % (w, g))
	PY
	)" ok
		# The entry is where the arguments are set up: some have a location
		# there (at the start of the first range, a shared error path in this
		# build, none has).
		expect_eq "dwarf $dw_rel: arguments have locations at the entry" \
			"$(jq "[$inl.sites[0].params[] | select(.available)] | length > 0" "$dw/j")" true
		# And the text form names the same site.
		FOLIOSCOPE_KERNEL_NOTES=$dw/notes "$FS" doctor --debuginfo "$dw_vmlinux" >"$dw/t" 2>&1
		expect_match "dwarf $dw_rel: text names the site" "$(cat "$dw/t")" \
			"site 1: inlined into __generic_remap_file_range_prep at fs/remap_range.c:$dw_line"
		expect_match "dwarf $dw_rel: text names the build ID match" "$(cat "$dw/t")" \
			"build ID $dw_id matches the kernel's"
		# A truncated copy of the real file: one line, exit 1, no crash.
		head -c 50000000 "$dw_vmlinux" >"$dw/trunc"
		expect_error "dwarf $dw_rel: a truncated vmlinux" 1 "." \
			"$FS" doctor --debuginfo "$dw/trunc"
	fi
}
# 6.1: KERNEL-NOTES.md; 6.12: DW_AT_call_line of that build (readelf).
dw_release 6.1.0-57-cloud-amd64 335
dw_release 6.12.118+deb12-cloud-amd64 341
rm -rf "$dw"
