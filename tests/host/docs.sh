# README.md's code-formatted names against the code and the kernel
# (sourced by tests/check.sh). Every `identifier` with an underscore (or
# `name()`, `name(args)`) in README.md must be:
#  - folioscope's (`module__function`): a function defined in src/ or bpf/;
#  - a kernel function (in this kernel's BTF, or written as a call): one
#    src/ names as an attach or sub-probe target (a string literal), one
#    bpf/ calls, or one of the few named only in prose below, each of
#    which this kernel has (BTF or /proc/kallsyms);
#  - anything else (a struct member, JSON key or suffix, macro, config
#    option, tracepoint): text of src/, bpf/, vmlinux/vmlinux.h, bench/ or
#    tests/.
# shellcheck shell=bash
# Kernel functions README names only in prose: what the shmem read loop
# copies with (not hooked: its chunks come from the iterator).
doc_prose="copy_page_to_iter"
doc_tmp=$(mktemp -d /tmp/fs-docs.XXXXXX)
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	awk '$2 == "FUNC" { print substr($3, 2, length($3) - 2) }' |
	sort -u >"$doc_tmp/kfuncs" && [ -s "$doc_tmp/kfuncs" ]; then
	# Function names from README's code spans: identifier, then an
	# optional argument list; only spans that are nothing else.
	# shellcheck disable=SC2016 # backquotes, not an expansion
	grep -o '`[^`]*`' README.md | tr -d '`' |
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
			else
				doc_bad+=("$span: kernel function folioscope neither attaches to nor calls")
			fi
		elif ! grep -rqF --exclude=docs.sh -- "$n" src bpf \
			vmlinux/vmlinux.h bench tests; then
			doc_bad+=("$span: found nowhere in the code or vmlinux.h")
		fi
	done <"$doc_tmp/spans"
	expect_eq "README: code-formatted names exist ($(wc -l <"$doc_tmp/spans") checked)" \
		"$(IFS=';'; echo "${doc_bad[*]}")" ""
else
	skip "README: code-formatted names" "no kernel BTF to check kernel functions against"
fi
rm -rf "$doc_tmp"
