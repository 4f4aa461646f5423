#!/usr/bin/env bash
# Install every build and test dependency from Debian packages.
set -euo pipefail
pkgs=(make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
      libjson-c-dev libcmocka-dev pkg-config qemu-system-x86 busybox-static
      cpio kmod btrfs-progs xfsprogs jq util-linux cppcheck clang-format)
# src/dwarf: inline sites from a kernel's DWARF (elfutils' libdw) and the
# exits of their machine code (capstone); the static binary also needs the
# archives of libdw's compression libraries. The unit test compares with
# binutils' readelf/objdump and llvm-dwarfdump (llvm above).
pkgs+=(libdw-dev libcapstone-dev liblzma-dev libbz2-dev binutils)
# shmem-read's io_uring entry points.
pkgs+=(liburing-dev)
# make bench: the peers folioscope is measured against; make
# bench-profile decodes the programs' machine code with capstone;
# tests/host/profile.sh runs its qemu plugin in qemu's user mode.
pkgs+=(bpftrace fio duperemove python3-capstone qemu-user)
# make kernel / make ab: test kernels from Debian's 6.1 source, BTF by pahole.
pkgs+=(linux-source-6.1 build-essential bc bison flex libssl-dev dwarves
       xz-utils patch)
# Export tests: libmicrohttpd for /metrics; promtool and a real
# Prometheus, headless Chromium for the HTML report, curl and python3's
# csv module in tests/host/export.sh.
pkgs+=(libmicrohttpd-dev prometheus chromium fonts-dejavu-core curl python3)
# libFuzzer's runtime (make fuzz), valgrind (tests/host/valgrind.sh).
pkgs+=(libclang-rt-14-dev valgrind)
# make install: man pages from --help (help2man); tests/host/install.sh:
# bash completion, systemd-analyze for the exporter unit, setpriv.
pkgs+=(help2man bash-completion man-db systemd util-linux)
# make deb: Debian's packaging tools; tests/host/deb.sh runs lintian.
pkgs+=(debhelper dpkg-dev lintian)
# tests/host/peers.sh: real tools under trace -- CMD.
pkgs+=(fio duperemove)
missing=()
for p in "${pkgs[@]}"; do
	grep -q 'ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
