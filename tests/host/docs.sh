# The documentation (README.md and docs/*.md) against the code and the
# kernel (sourced by tests/check.sh):
#  - README.md stays a front door: under 260 lines;
#  - every relative link names an existing file, and its #anchor a heading
#    there (tests/host/doclinks.py);
#  - every long option `folioscope CMD --help` prints is in docs/usage.md,
#    in CMD's own section ("### `CMD`"): the one place options are listed;
#  - code-formatted names exist. Every `identifier` with an underscore (or
#    `name()`, `name(args)`) in those files must be:
#    - folioscope's (`module__function`): a function defined in src/ or
#      bpf/;
#    - a kernel function (in this kernel's BTF, or written as a call): one
#      src/ names as an attach or sub-probe target (a string literal), one
#      bpf/ calls, or one of the few named only in prose below, each of
#      which this kernel has (BTF or /proc/kallsyms); a call that is not
#      in the BTF may also be a system call or libc function src/ calls
#      (`unshare(CLONE_NEWNS)`);
#    - anything else (a struct member, JSON key or suffix, macro, config
#      option, tracepoint): text of src/, bpf/, vmlinux/vmlinux.h, bench/
#      or tests/.
# shellcheck shell=bash
doc_files=(README.md docs/*.md)
doc_lines=$(wc -l <README.md)
if [ "$doc_lines" -lt 260 ]; then
	ok "docs: README.md is $doc_lines lines (< 260)"
else
	bad "docs: README.md under 260 lines" "$doc_lines lines: move sections to docs/"
fi

# Relative links and their anchors.
doc_py=$(command -v /usr/bin/python3 python3 | head -n 1)
if [ -n "$doc_py" ]; then
	doc_out=$("$doc_py" tests/host/doclinks.py "${doc_files[@]}" 2>&1)
	doc_rc=$?
	expect_eq "docs: relative links and anchors resolve ($(tail -n 1 <<<"$doc_out"), exit $doc_rc)" \
		"$(sed '$d' <<<"$doc_out" | paste -sd ';')" ""
else
	skip "docs: relative links and anchors" "no python3"
fi

# Every long option of every command's --help, in its docs/usage.md section.
doc_missing=()
doc_nopts=0
for cmd in doctor trace run validate vm report compare; do
	help=$("$FS" "$cmd" --help 2>&1)
	section=$(awk -v h="### \`$cmd\`" '$0 == h { on = 1; next }
		on && /^##/ { on = 0 } on' docs/usage.md)
	[ -n "$section" ] || doc_missing+=("$cmd: no section '### \`$cmd\`'")
	# argp's option column: "  -x, --long" or "      --long" (a
	# description's continuation lines start further in).
	opts=$(grep -oE '^(  -[^ -], |      )--[a-z][a-z-]*' <<<"$help" | grep -oE -- '--[a-z-]+' |
		grep -vxE -- '--(help|usage)' | sort -u)
	[ -n "$opts" ] || doc_missing+=("$cmd: --help printed no options")
	for o in $opts; do
		doc_nopts=$((doc_nopts + 1))
		grep -qE -- "$o([^a-z-]|\$)" <<<"$section" || doc_missing+=("$cmd $o")
	done
done
expect_eq "docs: every long option of --help is in docs/usage.md ($doc_nopts checked)" \
	"$(IFS=';'; echo "${doc_missing[*]}")" ""

# Kernel functions the docs name only in prose: what the shmem read loop
# copies with (not hooked: its chunks come from the iterator), and the
# frames of kernel stacks the docs quote, and the code that makes the
# outcomes racing reads accept possible, and the page-cache invalidation
# behind an open finding of theirs.
doc_prose="copy_page_to_iter folio_wait_bit_common vfs_read filemap_read lo_complete_rq shmem_undo_range truncate_inode_partial_folio truncate_pagecache_range xfs_flush_unmap_range"
doc_tmp=$(mktemp -d /tmp/fs-docs.XXXXXX)
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	awk '$2 == "FUNC" { print substr($3, 2, length($3) - 2) }' |
	sort -u >"$doc_tmp/kfuncs" && [ -s "$doc_tmp/kfuncs" ]; then
	# Function names from the docs' code spans: identifier, then an
	# optional argument list; only spans that are nothing else.
	# shellcheck disable=SC2016 # backquotes, not an expansion
	grep -ho '`[^`]*`' "${doc_files[@]}" | tr -d '`' |
		grep -E '^[A-Za-z_][A-Za-z0-9_]*(\([^()]*\))?$' | grep _ |
		sort -u >"$doc_tmp/spans"
	# Kernel functions src/ names as attach or sub-probe targets.
	grep -rhoE '"[a-z_][a-z0-9_]*"' src/plan src/probe | tr -d '"' |
		sort -u >"$doc_tmp/targets"
	doc_bad=()
	while read -r span; do
		n=${span%%(*}
		if [[ $n =~ ^[a-z0-9]+__[a-z0-9_]+$ ]]; then
			grep -rqE "^([a-z].*[ *])?$n\(" src bpf ||
				doc_bad+=("$span: no such function in src/ or bpf/")
		elif grep -qxF "$n" "$doc_tmp/kfuncs" || [ "$span" != "$n" ]; then
			if grep -qxF "$n" "$doc_tmp/targets" ||
				grep -rqE "\b$n\(" bpf; then
				:
			elif [[ " $doc_prose " == *" $n "* ]]; then
				grep -qxF "$n" "$doc_tmp/kfuncs" ||
					grep -qE " $n$" /proc/kallsyms ||
					doc_bad+=("$span: prose kernel function not in this kernel")
			elif [ "$span" != "$n" ] && ! grep -qxF "$n" "$doc_tmp/kfuncs" &&
				grep -rqE "\b$n\(" src; then
				# A system call or libc function user space makes.
				:
			else
				doc_bad+=("$span: kernel function folioscope neither attaches to nor calls")
			fi
		elif ! grep -rqF --exclude=docs.sh -- "$n" src bpf \
			vmlinux/vmlinux.h bench tests; then
			doc_bad+=("$span: found nowhere in the code or vmlinux.h")
		fi
	done <"$doc_tmp/spans"
	expect_eq "docs: code-formatted names exist ($(wc -l <"$doc_tmp/spans") checked)" \
		"$(IFS=';'; echo "${doc_bad[*]}")" ""
else
	skip "docs: code-formatted names" "no kernel BTF to check kernel functions against"
fi
rm -rf "$doc_tmp"
