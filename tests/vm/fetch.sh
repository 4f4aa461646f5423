# vm's Debian kernel and -dbg downloads (sourced by tests/check.sh), with
# apt-cache and apt-get played by scripts that build real .debs from
# trees made here, and the guest by tests/vm/fake-qemu: what lands in the
# cache, that a second run fetches nothing, and the one-line errors for a
# download that leaves no .deb or a .deb that lacks the file vm needs.
# shellcheck shell=bash
ft=$(mktemp -d "${TMPDIR:-/tmp}/fs-fetch.XXXXXX")
mkdir -p "$ft/bin" "$ft/trees"
cp tests/vm/fake-qemu "$ft/bin/qemu-system-x86_64"
cat >"$ft/bin/apt-cache" <<'FAKE'
#!/bin/sh
# apt-cache depends META: META depends on $FAKE_APT_PKG.
echo "$2"
echo "  Depends: $FAKE_APT_PKG"
FAKE
cat >"$ft/bin/apt-get" <<'FAKE'
#!/bin/sh
# apt-get download PKG: PKG's .deb built from $FAKE_APT_TREES/PKG, or
# nothing with FAKE_APT_NODEB set.
[ "$1" = download ] || exit 100
[ -n "${FAKE_APT_NODEB:-}" ] && exit 0
d=$(mktemp -d) || exit 1
mkdir -p "$d/DEBIAN"
printf 'Package: %s\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: fake\n' "$2" >"$d/DEBIAN/control"
cp -a "$FAKE_APT_TREES/$2/." "$d/" &&
	dpkg-deb -Zgzip --build "$d" "./$2_1_amd64.deb" >/dev/null
st=$?
rm -rf "$d"
exit $st
FAKE
chmod +x "$ft/bin/"*

# The kernel image is a real one (vm reads its release from the header).
kcache=${FOLIOSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/folioscope}/kernels
fimg=$(find "$kcache"/linux-image-6.1.0-*/boot -name 'vmlinuz-*' 2>/dev/null | head -n 1)
if [ -z "$fimg" ]; then
	skip "vm downloads (fake apt)" "no cached Debian 6.1 kernel image in $kcache to put in the fake .deb"
	rm -rf "$ft"
	return 0 2>/dev/null || exit 0
fi
frel=${fimg##*/vmlinuz-}
fpkg=linux-image-$frel
mkdir -p "$ft/trees/$fpkg/boot" "$ft/trees/$fpkg/lib/modules/$frel" \
	"$ft/trees/$fpkg-dbg/usr/lib/debug/boot"
cp "$fimg" "$ft/trees/$fpkg/boot/"
echo "not really DWARF" >"$ft/trees/$fpkg-dbg/usr/lib/debug/boot/vmlinux-$frel"

# fetch_vm NAME CACHE ARGS...: vm ARGS -- doctor with the fakes; sets st,
# err (stderr) and leftover (staging dirs left in the cache).
fetch_vm() {
	local log=$LOGDIR/vm-fetch-$1 c=$2
	shift 2
	mkdir -p "$c"
	(cd "$ft" && PATH=$ft/bin:$PATH FAKE_APT_PKG=$fpkg \
		FAKE_APT_TREES=$ft/trees FOLIOSCOPE_CACHE=$c \
		FOLIOSCOPE_QEMU=$ft/bin/qemu-system-x86_64 \
		"$FS" vm --accel tcg "$@" -- doctor) >"$log.out" 2>"$log.err"
	st=$?
	err=$(cat "$log.err")
	leftover=$(find "$c" -name '.tmp-*' | wc -l)
}

fetch_vm first "$ft/c1"
expect_eq "vm: the Debian kernel downloaded once, the guest booted" "$st|$err|$leftover" \
	"0|folioscope: vm: downloading $fpkg (once, into $ft/c1/kernels)|0"
expect_eq "vm: the cached kernel is the package's, stamped complete" \
	"$(cmp "$fimg" "$ft/c1/kernels/$fpkg/boot/vmlinuz-$frel" && echo same) $(cat "$ft/c1/kernels/$fpkg/.folioscope-complete")" \
	"same $fpkg"
expect_eq "vm: depmod ran on the package's modules" \
	"$([ -f "$ft/c1/kernels/$fpkg/lib/modules/$frel/modules.dep" ] && echo yes)" yes
fetch_vm again "$ft/c1"
expect_eq "vm: a second run downloads nothing" "$st|$err" "0|"

fetch_vm dbg "$ft/c1" --debuginfo
expect_eq "vm --debuginfo: the -dbg package downloaded once, its vmlinux kept" \
	"$st|$(grep -c "downloading $fpkg-dbg (once" <<<"$err")|$(cat "$ft/c1/debuginfo/$fpkg-dbg/usr/lib/debug/boot/vmlinux-$frel")|$(cat "$ft/c1/debuginfo/$fpkg-dbg/.folioscope-complete")|$leftover" \
	"0|1|not really DWARF|$fpkg-dbg|0"
fetch_vm dbg-again "$ft/c1" --debuginfo
expect_eq "vm --debuginfo: a second run downloads nothing" "$st|$err" "0|"

FAKE_APT_NODEB=1 fetch_vm nodeb "$ft/c2"
expect_eq "vm: apt-get leaves no .deb: one line, exit 1, no staging dir left" "$st|$err|$leftover" \
	"1|folioscope: vm: downloading $fpkg (once, into $ft/c2/kernels)
folioscope: vm: no Debian 6.1 kernel: apt-get download $fpkg left no .deb|0"

mv "$ft/trees/$fpkg/boot/vmlinuz-$frel" "$ft/vmlinuz"
fetch_vm novmlinuz "$ft/c3"
expect_eq "vm: a package without the kernel image: one line, exit 1, nothing cached" \
	"$st|$(tail -n 1 <<<"$err")|$leftover|$(ls "$ft/c3/kernels")" \
	"1|folioscope: vm: no Debian 6.1 kernel: $fpkg has no boot/vmlinuz-$frel|0|"
mv "$ft/vmlinuz" "$ft/trees/$fpkg/boot/vmlinuz-$frel"

rm "$ft/trees/$fpkg-dbg/usr/lib/debug/boot/vmlinux-$frel"
fetch_vm nodbg "$ft/c3" --debuginfo
expect_eq "vm --debuginfo: a -dbg package without the vmlinux: exit 1, named, nothing cached" \
	"$st|$(tail -n 1 <<<"$err")|$leftover|$(ls "$ft/c3/debuginfo")" \
	"1|folioscope: vm: --debuginfo: $fpkg-dbg has no /usr/lib/debug/boot/vmlinux-$frel|0|"
rm -rf "$ft"
