# make deb: the package is built from the binary already made and leaves
# the source tree as it was; it holds what make install installs; lintian
# finds no error or warning in it nor in the source; and its life with dpkg,
# in a scratch root: installed, `doctor` run from it, its files where
# dpkg -L says, the exporter's unit not enabled (and kept enabled across an
# upgrade once the admin has enabled it), removed and purged with nothing
# of it left.
#
# The scratch root keeps the machine's own package database and systemd
# out of it. It holds no shell, so the maintainer scripts run outside it
# (dpkg --force-script-chrootless, with DPKG_ROOT set): the state they
# keep goes through deb-systemd-helper, which works under DPKG_ROOT. The
# postrm's daemon-reload is guarded only by /run/systemd/system, so
# systemctl and deb-systemd-invoke on the scripts' PATH are stand-ins that
# only record their arguments, as does a wrapper of deb-systemd-helper.
# shellcheck shell=bash

deb_main() {
	local v deb out st0 st1 want got pkgfiles n c f
	if [ -n "${SAN:-}" ]; then
		skip "deb" "the package holds the static build, not SAN=1's"
		return
	fi
	for c in dpkg-buildpackage dh dpkg-deb; do
		if ! command -v "$c" >/dev/null; then
			skip "deb" "no $c (make deps installs debhelper and dpkg-dev)"
			return
		fi
	done
	scratch_setup deb
	v=$("$FS" --version | awk '{ print $2 }')

	# --- make deb, from the binary already built, into a dir of our own.
	st0=$(git status --porcelain 2>/dev/null)
	if ! make --no-print-directory -s OUT="$BUILD" DEB_DIR="$SCRATCH/deb" deb \
		>"$SCRATCH/make.log" 2>&1; then
		bad "deb: make deb" "$(tail -5 "$SCRATCH/make.log")"
		return
	fi
	deb=$SCRATCH/deb/folioscope_${v}_amd64.deb
	if [ ! -f "$deb" ]; then
		bad "deb: make deb" "no $deb: $(ls "$SCRATCH/deb")"
		return
	fi
	ok "deb: make deb ($(du -k "$deb" | cut -f1) KiB)"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		st1=$(git status --porcelain)
		expect_eq "deb: the source tree is left as it was" "$st1" "$st0"
	else
		skip "deb: the source tree is left as it was" "not a git work tree"
	fi
	expect_eq "deb: the package's version is the binary's" "$(dpkg-deb -f "$deb" Version)" "$v"
	expect_eq "deb: the copy it was built in is removed" \
		"$(find "$SCRATCH/deb" -mindepth 1 -type d)" ""

	# The packaged files are make install's (man pages compressed, the
	# unit where Debian 12 keeps units), besides the docs and overrides.
	if make --no-print-directory -s OUT="$BUILD" install DESTDIR="$SCRATCH/mi" \
		PREFIX=/usr UNITDIR=/lib/systemd/system >"$SCRATCH/mi.log" 2>&1; then
		want=$(cd "$SCRATCH/mi" && find . -type f | sed 's|^\.||; s|/man1/.*\.1$|&.gz|' | sort)
		got=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\.||' | grep -v '/$' |
			grep -vE '^/usr/share/(doc|lintian)/' | sort)
		expect_eq "deb: it holds what make install installs" "$got" "$want"
	else
		bad "deb: make install to compare with" "$(tail -3 "$SCRATCH/mi.log")"
	fi

	# Run-time dependencies: the binary is static, so no library; the
	# tools of `vm` recommended.
	if grep -q NEEDED <<<"$(readelf -d "$FS" 2>/dev/null)"; then
		expect_match "deb: Depends names the libraries of the dynamic binary" \
			"$(dpkg-deb -f "$deb" Depends)" 'libc6'
	else
		expect_eq "deb: no Depends for the static binary" "$(dpkg-deb -f "$deb" Depends)" ""
	fi
	expect_match "deb: qemu and busybox recommended for vm" "$(dpkg-deb -f "$deb" Recommends)" \
		'busybox-static.*qemu-system-x86'
	expect_match "deb: Built-Using names the archives linked in" \
		"$(dpkg-deb -f "$deb" Built-Using)" '^(.*, )?glibc \(= .*libbpf \(= '

	# --- lintian on the package and on a source package of the tree
	# (git's files, committed or not): no error and no warning; what it
	# says below that is explained in debian/*lintian-overrides.
	if command -v lintian >/dev/null; then
		lintian "$SCRATCH"/deb/*.changes >"$SCRATCH/lintian.out" 2>"$SCRATCH/lintian.err"
		expect_eq "deb: lintian, package: no E: or W:" \
			"$(grep -E '^[EW]:' "$SCRATCH/lintian.out")" ""
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			mkdir -p "$SCRATCH/src/folioscope-$v"
			git ls-files -co --exclude-standard -z | tar -c --null -T - -f - |
				tar -x -C "$SCRATCH/src/folioscope-$v"
			if (cd "$SCRATCH/src" && dpkg-source -b "folioscope-$v") >"$SCRATCH/src.log" 2>&1; then
				lintian "$SCRATCH/src/folioscope_$v.dsc" >"$SCRATCH/lintian-src.out" 2>&1
				expect_eq "deb: lintian, source: no E: or W:" \
					"$(grep -E '^[EW]:' "$SCRATCH/lintian-src.out")" ""
			else
				bad "deb: dpkg-source -b" "$(tail -3 "$SCRATCH/src.log")"
			fi
		else
			skip "deb: lintian, source" "not a git work tree"
		fi
	else
		skip "deb: lintian" "no lintian (make deps installs it)"
	fi

	# --- dpkg in a scratch root.
	if [ "$(id -u)" != 0 ]; then
		skip "deb: dpkg in a scratch root" "not root (dpkg installs as root, in a scratch root too)"
		return
	elif [ ! -x /usr/bin/deb-systemd-helper ]; then
		skip "deb: dpkg in a scratch root" "no deb-systemd-helper (init-system-helpers) for the scripts"
		return
	fi
	local root=$SCRATCH/root shim=$SCRATCH/shim calls=$SCRATCH/calls
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$shim"
	: >"$root/var/lib/dpkg/status"
	for c in systemctl deb-systemd-invoke; do
		printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$calls" >"$shim/$c"
	done
	printf '#!/bin/sh\necho "deb-systemd-helper $*" >>"%s"\nexec /usr/bin/deb-systemd-helper "$@"\n' \
		"$calls" >"$shim/deb-systemd-helper"
	chmod +x "$shim"/*
	: >"$calls"
	deb_dpkg() {
		PATH=$shim:$PATH dpkg --root="$root" --force-script-chrootless \
			--log="$SCRATCH/dpkg.log" "$@" >>"$SCRATCH/dpkg.out" 2>&1
	}
	# Every file (not dir) but dpkg's own database.
	deb_files() { (cd "$root" && find . -mindepth 1 ! -type d | grep -v '^\./var/lib/dpkg' | sort); }
	local before unit=folioscope-exporter.service
	before=$(deb_files)

	if ! deb_dpkg -i "$deb"; then
		bad "deb: dpkg -i" "$(tail -5 "$SCRATCH/dpkg.out")"
		return
	fi
	ok "deb: dpkg -i into a scratch root"
	# dpkg -L's paths, without "/." (the root itself).
	pkgfiles=$(dpkg --root="$root" -L folioscope | grep -vx '/\.')
	out=$("$root/usr/bin/folioscope" doctor 2>&1)
	expect_eq "deb: doctor from the installed binary exits 0" "$?" 0
	expect_match "deb: doctor from the installed binary prints the kernel" "$out" '^kernel: '
	expect_eq "deb: the installed binary is this one" \
		"$("$root/usr/bin/folioscope" --version)" "$("$FS" --version)"

	# Where the package says: every command's man page, the completion,
	# the unit, and each listed file is there.
	want=/usr/share/man/man1/folioscope.1.gz
	for c in $("$FS" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
		want+=$'\n'"/usr/share/man/man1/folioscope-$c.1.gz"
	done
	expect_eq "deb: a man page per command" \
		"$(grep '/man1/.' <<<"$pkgfiles" | sort)" "$(sort <<<"$want")"
	n=0
	while read -r f; do
		grep -q '^\.TH ' <<<"$(zcat "$root$f" 2>/dev/null)" || { bad "deb: man page $f" "no .TH in it"; n=$((n + 1)); }
	done < <(grep '/man1/.' <<<"$pkgfiles")
	[ $n -eq 0 ] && ok "deb: the man pages are man pages"
	expect_match "deb: the completion" "$pkgfiles" '^/usr/share/bash-completion/completions/folioscope$'
	# shellcheck disable=SC2016 # expanded by the inner bash
	expect_eq "deb: the completion registers itself" \
		"$(bash -c '. "$0" && complete -p folioscope >/dev/null && echo yes' \
			"$root/usr/share/bash-completion/completions/folioscope" 2>&1)" yes
	expect_match "deb: the unit" "$pkgfiles" "^/lib/systemd/system/$unit\$"
	expect_eq "deb: the unit runs the installed binary" \
		"$(grep -oE '^ExecStart=[^ ]+' "$root/lib/systemd/system/$unit")" "ExecStart=/usr/bin/folioscope"
	n=0
	while read -r f; do
		[ -e "$root$f" ] || { bad "deb: $f" "in dpkg -L, not in the root"; n=$((n + 1)); }
	done <<<"$pkgfiles"
	[ $n -eq 0 ] && ok "deb: every file dpkg -L lists is there ($(wc -l <<<"$pkgfiles") paths)"

	# Not enabled, not started, by the install nor by an upgrade.
	deb_not_enabled() {
		expect_eq "deb: $1: the unit is not enabled" \
			"$(systemctl --root="$root" is-enabled "$unit" 2>&1)" disabled
		expect_eq "deb: $1: no symlink in the root" "$(cd "$root" && find . -type l)" ""
		expect_eq "deb: $1: the scripts neither enable nor start it" \
			"$(grep -E ' enable|start|restart' "$calls")" ""
	}
	deb_not_enabled install
	: >"$calls"
	if deb_dpkg -i "$deb"; then
		deb_not_enabled upgrade
	else
		bad "deb: dpkg -i once more (upgrade)" "$(tail -5 "$SCRATCH/dpkg.out")"
	fi

	# Removed: none of its files left; only deb-systemd-helper's record
	# of the unit, for purge.
	if deb_dpkg -r folioscope; then
		n=0
		while read -r f; do
			[ -d "$root$f" ] || [ ! -e "$root$f" ] || n=$((n + 1))
		done <<<"$pkgfiles"
		expect_eq "deb: dpkg -r: none of its files left" "$n" 0
		expect_eq "deb: dpkg -r: only the unit's state record left" "$(deb_files)" \
			"./var/lib/systemd/deb-systemd-helper-enabled/$unit.dsh-also"
	else
		bad "deb: dpkg -r" "$(tail -5 "$SCRATCH/dpkg.out")"
	fi
	if deb_dpkg --purge folioscope; then
		expect_eq "deb: dpkg --purge: no file left" "$(deb_files)" "$before"
		expect_eq "deb: dpkg --purge: no path of dpkg -L left" \
			"$(while read -r f; do [ -e "$root$f" ] && echo "$f"; done <<<"$pkgfiles")" ""
	else
		bad "deb: dpkg --purge" "$(tail -5 "$SCRATCH/dpkg.out")"
	fi

	# The admin enables it: an upgrade keeps it enabled, purge removes
	# the symlink too.
	: >"$calls"
	if deb_dpkg -i "$deb" &&
		systemctl --root="$root" enable "$unit" >/dev/null 2>&1 && deb_dpkg -i "$deb"; then
		expect_eq "deb: enabled by the admin, still after an upgrade" \
			"$(systemctl --root="$root" is-enabled "$unit" 2>&1)" enabled
		if deb_dpkg --purge folioscope; then
			expect_eq "deb: enabled, then purged: no file or symlink left" "$(deb_files)" "$before"
		else
			bad "deb: dpkg --purge of an enabled unit" "$(tail -5 "$SCRATCH/dpkg.out")"
		fi
	else
		bad "deb: dpkg -i, systemctl enable, dpkg -i" "$(tail -5 "$SCRATCH/dpkg.out")"
	fi
	# Empty dirs may stay: deb-systemd-helper's /var/lib/systemd and
	# systemctl's /etc/systemd/system, which on a real system are systemd's.
	expect_eq "deb: only empty dirs not of the package left" \
		"$(cd "$root" && find . -mindepth 1 -type d ! -empty | grep -v '^\./var/lib/dpkg' |
			grep -vxE '\./(var|var/lib|etc|etc/systemd)')" ""
}
deb_main
