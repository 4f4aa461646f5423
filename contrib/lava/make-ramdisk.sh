#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The ramdisk of contrib/lava/qemu-job.yaml.in: a gzipped newc cpio whose
# /init mounts what folioscope needs (proc, sys, devtmpfs, tmpfs on /tmp,
# tracefs, debugfs, bpffs, a ramfs on /out for the outputs) and then gives
# LAVA a shell on the console with the prompt "folioscope# ". It holds
# busybox (busybox-static), the static folioscope and the host's
# mkfs.btrfs/mkfs.xfs with their libraries, as `folioscope vm`'s does; no
# modules: the test kernels (tests/kernels/build.sh) build loop, btrfs and
# xfs in. LAVA's qemu jobs bring their overlay on a disk, which /init links
# in /dev/disk/by-uuid (the kernel needs contrib/lava/lava.fragment).
#
#   contrib/lava/make-ramdisk.sh [FOLIOSCOPE] OUT.cpio.gz
set -eu
[ $# -ge 1 ] || { sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fs=build/folioscope
[ $# -lt 2 ] || { fs=$1; shift; }
out=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
	"$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/out" \
	"$root/root" "$root/run" "$root/etc"
cp /bin/busybox "$root/bin/busybox"
cp "$fs" "$root/bin/folioscope"
for t in mkfs.btrfs mkfs.xfs; do
	p=$(command -v "$t") || { echo "make-ramdisk: no $t on this host" >&2; exit 1; }
	mkdir -p "$root$(dirname "$p")"
	cp "$p" "$root$p"
	# Each library at the path the loader looks for it.
	ldd "$p" | awk '/\//{print ($2 == "=>") ? $3 : $1}' | while read -r l; do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
done
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
# Outputs read back through the page cache alone, not through tmpfs,
# whose reads may be what the kernel under test gets wrong.
mount -t ramfs ramfs /out
# /dev/disk/by-uuid, which LAVA mounts its overlay disk by: no udev and
# no blkid applet here, so read ext2's superblock (magic 0xef53 at byte
# 1080, the UUID's 16 bytes at 1128).
mkdir -p /dev/disk/by-uuid
for d in /dev/vd? /dev/sd?; do
	[ -b "$d" ] || continue
	[ "$(od -An -tx1 -j1080 -N2 "$d" | tr -d ' \n')" = 53ef ] || continue
	u=$(od -An -tx1 -j1128 -N16 "$d" | tr -d ' \n' |
		sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
	ln -sf "$d" "/dev/disk/by-uuid/$u"
done
ulimit -l unlimited
echo "folioscope ramdisk: $(uname -r)"
export PS1='folioscope# '
# A shell with the console as its controlling terminal, for LAVA.
exec setsid cttyhack sh -i
INIT
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -9 >"$out.tmp"
mv "$out.tmp" "$out"
