#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds a small x86_64 test kernel from Debian's linux-source-SERIES,
# optionally with patches, for `folioscope vm --kernel`.
#
#   tests/kernels/build.sh [-s SERIES] [-k] [-f FRAGMENT] [-d] [-c] [-n NAME] [-j JOBS] [PATCH...]
#
# -s: 6.1 (default) or 6.12, the Debian 12 source package it builds from
# ($FS_KERNEL_SERIES sets the default).
# Config: `make tinyconfig` + tests/kernels/config.fragment (and
# config-SERIES.fragment when there is one) + olddefconfig.
# Everything the guest needs is built in, so no modules dir is needed.
# -k adds tests/kernels/kasan.fragment (generic KASAN; and
# kasan-SERIES.fragment when there is one): a base of its own,
# a full build (the whole kernel is instrumented), patched builds on top of
# it as usual. -f FRAGMENT (repeatable) adds a config fragment of its own
# after those (contrib/lava/lava.fragment): hashed into the key, a base of
# its own too. -d drops a patched build's tree once its bzImage is out
# (2.4 GB each; a later build of the same patches just boots the bzImage).
# -c builds nothing: it prints the cached kernel's path, or exits 3 when
# the kernel is not built yet (make check's tier: a base build takes 25
# minutes and more).
#
# Cache: $FOLIOSCOPE_CACHE, $XDG_CACHE_HOME/folioscope or ~/.cache/folioscope,
# under kernels-built/:
#   base-KEY/     KEY = hash(source package version, fragments, BUILD_REV)
#                 (base-kasan-KEY/ with -k)
#   patch-KEY/    KEY = hash(base KEY, each patch's content, in order)
# each holding linux/ (the build tree), bzImage, config and build.log. A
# patched build copies the base tree with its objects and timestamps
# (cp -a: hard links would let make rewrite the base's objects in place),
# applies the patches and runs an incremental make at the base tree's path
# (see build_patched), so only the patched files, vmlinux and its BTF are
# redone. build/kernels/NAME links to the result; the last line printed is
# the bzImage path. Each tree takes about 2.4 GB: remove kernels-built/ to
# get the space back.
set -euo pipefail

# Bump when the way a tree is built changes (not the fragment: it is hashed).
BUILD_REV=1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
series=${FS_KERNEL_SERIES:-6.1}
jobs=$(nproc)
name=
kasan=
drop=
cached_only=
extra_fragments=()

die() {
	echo "kernel: $*" >&2
	exit 2
}

while getopts "s:kf:dcn:j:h" o; do
	case $o in
	s) series=$OPTARG ;;
	k) kasan=1 ;;
	f) [ -r "$OPTARG" ] || die "cannot read fragment '$OPTARG'"
	   extra_fragments+=("$(cd "$(dirname "$OPTARG")" && pwd)/$(basename "$OPTARG")") ;;
	c) cached_only=1 ;;
	d) drop=1 ;;
	n) name=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $series in
6.1 | 6.12) ;;
*) die "no series '$series' (want 6.1 or 6.12)" ;;
esac
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-$series.tar.xz}
fragments=("$here/config.fragment")
[ ! -f "$here/config-$series.fragment" ] || fragments+=("$here/config-$series.fragment")
if [ -n "$kasan" ]; then
	fragments+=("$here/kasan.fragment")
	[ ! -f "$here/kasan-$series.fragment" ] || fragments+=("$here/kasan-$series.fragment")
fi
fragments+=(${extra_fragments[@]+"${extra_fragments[@]}"})
patches=()
for p in "$@"; do
	[ -r "$p" ] || die "cannot read patch '$p'"
	patches+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done

# Debian's source of the series, installed here when it is missing (make
# deps installs the 6.1 one only: the other is a tarball of its own that
# only its test kernels need).
if [ ! -r "$tarball" ] && [ -z "${LINUX_SOURCE_TARBALL:-}" ]; then
	if [ "$(id -u)" != 0 ]; then
		die "no $tarball: as root, apt-get install linux-source-$series"
	fi
	echo "build: installing linux-source-$series (apt-get)" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		"linux-source-$series" >"${TMPDIR:-/tmp}/fs-apt-linux-source.log" 2>&1 ||
		die "apt-get install linux-source-$series failed: $(tail -1 "${TMPDIR:-/tmp}/fs-apt-linux-source.log")"
fi
[ -r "$tarball" ] ||
	die "no $tarball: apt-get install linux-source-$series"
for t in gcc make bc bison flex pahole xz cpio patch; do
	command -v "$t" >/dev/null || die "'$t' missing: run make deps"
done

if [ -n "${FOLIOSCOPE_CACHE:-}" ]; then
	cache=$FOLIOSCOPE_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	cache=$XDG_CACHE_HOME/folioscope
else
	cache=$HOME/.cache/folioscope
fi
built=$cache/kernels-built
mkdir -p "$built"

# The package version names the source; a tarball from elsewhere is hashed.
srcver=$(dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null || true)
if [ -z "$srcver" ] || [ -n "${LINUX_SOURCE_TARBALL:-}" ]; then
	srcver=$(sha256sum "$tarball" | cut -c1-16)
fi
hash16() { sha256sum | cut -c1-16; }
base_key=$({ echo "rev $BUILD_REV src $srcver"; cat "${fragments[@]}"; } | hash16)
if [ -n "$kasan" ]; then
	base_key=kasan-$base_key
fi
base=$built/base-$base_key

# Runs make in a tree, output to the build log; on failure shows its tail.
kmake() {
	local tree=$1 log=$2
	shift 2
	if ! make -C "$tree" ARCH=x86_64 "$@" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "make $* failed in $tree, full log: $log"
	fi
}

# The fragments as merged: every line but the symbols a series fragment
# drops ("# drop CONFIG_X": the series has no such symbol; if its tree
# still defines one, that is an error, not a line to skip).
fragment_write() {
	local tree=$1 out=$2 drops=() d sym
	mapfile -t drops < <(sed -n 's/^# drop \(CONFIG_[A-Z0-9_]*\)$/\1/p' "${fragments[@]}")
	for d in "${drops[@]}"; do
		sym=${d#CONFIG_}
		if grep -rqx --include='Kconfig*' "config $sym" "$tree"; then
			die "a fragment drops $d, but linux-source-$series defines it"
		fi
	done
	cat "${fragments[@]}" |
		if [ ${#drops[@]} -gt 0 ]; then
			grep -vE "^($(IFS='|'; echo "${drops[*]}"))=|^# ($(IFS='|'; echo "${drops[*]}")) is not set"
		else
			cat
		fi >"$out"
}

# Every line of the merged fragment must hold in the final .config.
config_check() {
	local cfg=$1 missing=() line opt
	while read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$cfg" || missing+=("$line") ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$cfg" && missing+=("$line") ;;
		esac
	done <"$2"
	if [ ${#missing[@]} -gt 0 ]; then
		die "config fragment lines lost to Kconfig dependencies: ${missing[*]}"
	fi
}

build_base() {
	# Built in place (bzImage is the done-stamp): kbuild's dependency
	# files would survive a rename, but there is no need to find out.
	local tmp=$base log
	log=$tmp/build.log
	# A build that was interrupted (or OOM-killed) after configuring
	# resumes where make stopped.
	if [ -f "$tmp/configured" ]; then
		echo "kernel: base $base_key: resuming an interrupted build, log $log" >&2
		kmake "$tmp/linux" "$log" -j"$jobs" bzImage
		base_finish "$tmp"
		return
	fi
	rm -rf "$tmp"
	mkdir -p "$tmp"
	echo "kernel: base $base_key: extracting $(basename "$tarball") ($srcver)" >&2
	tar -C "$tmp" -xf "$tarball"
	mv "$tmp"/linux-source-* "$tmp/linux"
	echo "kernel: base $base_key: configuring" >&2
	kmake "$tmp/linux" "$log" tinyconfig
	fragment_write "$tmp/linux" "$tmp/fragment"
	(cd "$tmp/linux" &&
		scripts/kconfig/merge_config.sh -m .config "$tmp/fragment") >>"$log" 2>&1 ||
		die "merge_config failed, see $log"
	kmake "$tmp/linux" "$log" olddefconfig
	config_check "$tmp/linux/.config" "$tmp/fragment"
	touch "$tmp/configured"
	echo "kernel: base $base_key: building with -j$jobs (10-15 min on 2 cores, KASAN 25-40), log $log" >&2
	kmake "$tmp/linux" "$log" -j"$jobs" bzImage
	base_finish "$tmp"
}

base_finish() {
	local tmp=$1

	cp "$tmp/linux/.config" "$tmp/config"
	cp "$tmp/linux/arch/x86/boot/bzImage" "$tmp/bzImage.tmp"
	echo "source $srcver" >"$tmp/info"
	mv "$tmp/bzImage.tmp" "$tmp/bzImage"
}

build_patched() {
	local dir=$1 tmp=$1 log p
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log=$tmp/build.log
	echo "kernel: $(basename "$dir"): copying base tree $base_key" >&2
	cp -a "$base/linux" "$tmp/linux"
	for p in "${patches[@]}"; do
		echo "kernel: $(basename "$dir"): applying $(basename "$p")" >&2
		if ! (cd "$tmp/linux" && patch -p1 --forward --batch <"$p") \
			>>"$log" 2>&1; then
			tail -n 10 "$log" >&2
			rm -rf "$tmp"
			die "patch $(basename "$p") does not apply to linux-source $srcver"
		fi
		cp "$p" "$tmp/"
	done
	echo "kernel: $(basename "$dir"): incremental build" >&2
	# objtool and resolve_btfids are built with absolute paths in their
	# command lines; at another path make would rebuild them, and every
	# object after them. So the copy is built where the base tree was,
	# by a bind mount only this make sees (a private mount namespace).
	if unshare -m --propagation private true 2>/dev/null; then
		if ! unshare -m --propagation private sh -c \
			'mount --bind "$1" "$2" && exec make -C "$2" ARCH=x86_64 -j"$3" bzImage' \
			sh "$tmp/linux" "$base/linux" "$jobs" >>"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "incremental make failed in $tmp/linux, full log: $log"
		fi
	else
		echo "kernel: no mount namespace (not root?): a full rebuild" >&2
		kmake "$tmp/linux" "$log" -j"$jobs" bzImage
	fi
	cp "$tmp/linux/.config" "$tmp/config"
	cp "$tmp/linux/arch/x86/boot/bzImage" "$tmp/bzImage.tmp"
	{ echo "source $srcver"; echo "base $base_key"; } >"$tmp/info"
	mv "$tmp/bzImage.tmp" "$tmp/bzImage"
	[ -z "$drop" ] || rm -rf "$tmp/linux"
}

# One builder per cache entry (`make ab` and a manual `make kernel` may
# race); different entries build side by side. A finished base is only read
# (copied), so a patched build lets go of the base's lock once it exists.
start=$(date +%s)
exec 8>"$built/.lock-base-$base_key"
flock 8
if [ -f "$base/bzImage" ]; then
	echo "kernel: base $base_key cached" >&2
elif [ -n "$cached_only" ]; then
	echo "kernel: base $base_key not built (-c: make kernel builds it, about 25 min)" >&2
	exit 3
else
	build_base
fi
exec 8>&-
result=$base
if [ ${#patches[@]} -gt 0 ]; then
	key=$({ echo "base $base_key"; for p in "${patches[@]}"; do
		sha256sum <"$p"; done; } | hash16)
	result=$built/patch-$key
	exec 9>"$built/.lock-patch-$key"
	flock 9
	if [ -f "$result/bzImage" ]; then
		echo "kernel: patch-$key cached" >&2
	elif [ -n "$cached_only" ]; then
		echo "kernel: patch-$key ($(for p in "${patches[@]}"; do basename "$p"; done | paste -sd' ')) not built (-c: make kernel PATCHES=... builds it)" >&2
		exit 3
	else
		build_patched "$result"
	fi
fi

if [ -z "$name" ]; then
	name=base
	[ -z "$kasan" ] || name=kasan
	if [ ${#patches[@]} -gt 0 ]; then
		name=$(for p in "${patches[@]}"; do basename "$p" .patch; done |
			paste -sd+)
		[ -z "$kasan" ] || name=kasan+$name
	fi
	# 6.1's names stay as they were; another series' carry it.
	[ "$series" = 6.1 ] || name=$name-$series
fi
mkdir -p "$repo/build/kernels"
ln -sfn "$result" "$repo/build/kernels/$name"
echo "kernel: $name ready in $(($(date +%s) - start)) s, $(du -h "$result/bzImage" | cut -f1) bzImage" >&2
echo "$repo/build/kernels/$name/bzImage"
