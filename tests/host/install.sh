# make install / uninstall, the man pages against --help, bash completion,
# and the exporter's systemd unit (verified, and its capability set tried
# for real with setpriv).
# shellcheck shell=bash
inst=$(mktemp -d "${TMPDIR:-/tmp}/install.XXXXXX")
inst_make() { make --no-print-directory -s OUT="$BUILD" "$@" >"$inst/make.log" 2>&1; }

# Long options of one command, from its own --help.
inst_opts() { "$FS" "$1" --help | grep -oE '^ +(-[A-Za-z?], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'; }
inst_cmds() { "$FS" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'; }

# --- DESTDIR + PREFIX: the files, and uninstall removes exactly them.
d=$inst/dest
if inst_make install DESTDIR="$d" PREFIX=/usr; then
	want="/usr/bin/folioscope
/usr/lib/systemd/system/folioscope-exporter.service
/usr/share/bash-completion/completions/folioscope
/usr/share/man/man1/folioscope.1"
	for c in $(inst_cmds); do want+=$'\n'"/usr/share/man/man1/folioscope-$c.1"; done
	expect_eq "install: DESTDIR files" "$(cd "$d" && find . -type f | sed 's|^\.||' | sort)" "$(sort <<<"$want")"
	expect_eq "install: the binary runs" "$("$d/usr/bin/folioscope" --version)" "$("$FS" --version)"
	expect_eq "install: the unit runs the installed binary" \
		"$(grep -oE '^ExecStart=[^ ]+' "$d/usr/lib/systemd/system/folioscope-exporter.service")" \
		"ExecStart=/usr/bin/folioscope"
	inst_make uninstall DESTDIR="$d" PREFIX=/usr
	expect_eq "uninstall: no file left" "$(find "$d" -type f)" ""
else
	bad "install: DESTDIR" "$(tail -3 "$inst/make.log")"
fi

# --- PREFIX alone: what man, bash and systemd see.
p=$inst/prefix
if ! inst_make install PREFIX="$p"; then
	bad "install: PREFIX" "$(tail -3 "$inst/make.log")"
else
	# man folioscope finds the page; each command's page names every
	# option its --help gives.
	expect_eq "man: folioscope found" "$(MANPATH=$p/share/man man -w folioscope)" \
		"$p/share/man/man1/folioscope.1"
	for c in $(inst_cmds); do
		page=$(MANPATH=$p/share/man MANWIDTH=300 man folioscope-"$c" 2>/dev/null)
		missing=
		for o in $(inst_opts "$c"); do
			grep -qF -- "$o" <<<"$page" || missing+=" $o"
		done
		n=$(inst_opts "$c" | wc -l)
		if [ -z "$page" ]; then
			bad "man: folioscope-$c" "no page"
		elif [ -n "$missing" ]; then
			bad "man: folioscope-$c has every --help option" "missing:$missing"
		elif [ "$n" -lt 3 ]; then
			bad "man: folioscope-$c has every --help option" "only $n options read from --help"
		else
			ok "man: folioscope-$c has every --help option ($n)"
		fi
	done
	expect_match "man: folioscope lists the command pages" \
		"$(MANPATH=$p/share/man MANWIDTH=300 man folioscope 2>/dev/null)" \
		"folioscope-trace\(1\).*folioscope-compare\(1\)"

	# Completion as bash does it: COMP_WORDS split at '=' as readline
	# splits them (COMP_WORDBREAKS), the function the file registers.
	comp() {
		# shellcheck disable=SC2016
		PATH=$p/bin:$PATH bash -c '
			. /usr/share/bash-completion/bash_completion
			. "$0"
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			COMP_LINE="$*"; COMP_LINE=${COMP_LINE// = /=}; COMP_POINT=${#COMP_LINE}
			$(complete -p folioscope | grep -oE "\-F [^ ]+" | cut -c4-) folioscope
			printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
			"$p/share/bash-completion/completions/folioscope" "$@" 2>/dev/null
	}
	if [ -r /usr/share/bash-completion/bash_completion ]; then
		expect_eq "completion: commands" "$(comp folioscope '')" \
			"$(inst_cmds | sort | tr '\n' ' ')"
		expect_eq "completion: a command's prefix" "$(comp folioscope do)" "doctor "
		expect_eq "completion: targets" "$(comp folioscope trace -t '')" "all dedupe shmem "
		expect_eq "completion: modes" "$(comp folioscope trace --mode = '')" \
			"auto fentry kprobe syscall "
		expect_eq "completion: workloads" "$(comp folioscope run '')" "dedupe shmem-read "
		expect_eq "completion: options from --help" "$(comp folioscope run shmem-read --hu)" "--huge= "
		expect_eq "completion: after vm --" "$(comp folioscope vm --accel tcg -- run --fs '')" "btrfs xfs "
		# Each value list the completion names is in that option's help.
		vals_bad=
		while read -r c o; do
			v=$(bash -c '. "$0"; _folioscope_values "$1" "$2"' \
				"$p/share/bash-completion/completions/folioscope" "$c" "$o")
			h=$("$FS" "$c" --help | tr -s ' \n' ' ')
			for x in $v; do
				grep -qF -- "$x" <<<"${h#*"$o"}" || vals_bad+=" $c $o $x;"
			done
		done <<-EOF
			trace --target
			trace --mode
			trace --format
			trace --fs
			run --fs
			run --syscall
			run --huge
			run --fill
			run --differ
			validate --only
			validate --tiers
			vm --accel
		EOF
		expect_eq "completion: every value is in --help" "$vals_bad" ""
	else
		skip "completion" "no /usr/share/bash-completion/bash_completion (package bash-completion)"
	fi

	# The unit: systemd's own verifier, its exposure score, and the
	# capability bounding set it declares tried for real.
	unit=$p/lib/systemd/system/folioscope-exporter.service
	if command -v systemd-analyze >/dev/null; then
		out=$(MANPATH=$p/share/man systemd-analyze verify "$unit" 2>&1)
		expect_eq "systemd: verify" "$?:$out" "0:"
		out=$(systemd-analyze security --offline=yes --threshold=30 "$unit" 2>&1)
		expect_eq "systemd: exposure at most 3.0 ($(grep -oE 'level for .*: [0-9.]+' <<<"$out" | grep -oE '[0-9.]+$'))" "$?" 0
	else
		skip "systemd" "no systemd-analyze"
	fi
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
	shm=${TMPDIR:-/tmp}
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" == tmpfs ] && shm=/dev/shm
	serve_with() {
		local set=$1 port=$2
		head -c 65536 /dev/zero >"$inst/data"
		cp "$inst/data" "$shm/folioscope-install-$$"
		# The traced command reads the tmpfs file in 4 calls, then
		# takes /metrics from the server running as nobody.
		timeout 60 setpriv --bounding-set=-all,"$set" "$p/bin/folioscope" trace -t shmem -q \
			--serve 127.0.0.1:"$port" --user nobody -- sh -c '
			dd if="$1" of=/dev/null bs=16K count=4 2>/dev/null
			curl -sf http://127.0.0.1:"$2"/metrics' sh "$shm/folioscope-install-$$" "$port" \
			>"$inst/metrics" 2>"$inst/serve.err"
		local rc=$?
		rm -f "$shm/folioscope-install-$$"
		return $rc
	}
	if [ "$shm" != /dev/shm ] || ! command -v setpriv >/dev/null; then
		skip "systemd: capability set" "no tmpfs /dev/shm or no setpriv"
	elif serve_with "$caps" 19471; then
		expect_eq "systemd: the unit's capabilities ($caps) serve the reads" \
			"$(grep -oE '^folioscope_shmem_calls_total\{[^}]*\} [0-9]+' "$inst/metrics" | awk '{ print $2 }')" 4
		# Without CAP_BPF the same command cannot attach: the set is
		# what makes it work, not something else in this test.
		serve_with "${caps/+bpf,/}" 19472
		expect_eq "systemd: without CAP_BPF it cannot attach" \
			"$?:$(grep -c 'cannot attach' "$inst/serve.err")" "1:1"
	else
		bad "systemd: the unit's capabilities ($caps) serve the reads" "$(head -3 "$inst/serve.err")"
	fi
fi
rm -rf "$inst"
