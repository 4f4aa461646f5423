#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Make a kernel BTF that differs in one function, for --btf tests.

btf-edit.py IN OUT proto FUNC DONOR   FUNC gets DONOR's prototype
btf-edit.py IN OUT drop FUNC          FUNC is no longer a BTF func

IN is raw BTF (/sys/kernel/btf/vmlinux). Everything else stays as it is,
so CO-RE against OUT works as against the kernel's own BTF.
"""
import struct
import sys

# Bytes that follow the 12-byte struct btf_type, per kind (vlen = count).
EXTRA = {1: lambda v: 4, 3: lambda v: 12, 4: lambda v: 12 * v,
         5: lambda v: 12 * v, 6: lambda v: 8 * v, 13: lambda v: 8 * v,
         14: lambda v: 4, 15: lambda v: 12 * v, 17: lambda v: 4,
         19: lambda v: 12 * v}
KIND_FUNC = 12


def main():
    src, dst, op, func = sys.argv[1:5]
    data = bytearray(open(src, 'rb').read())
    magic, _, _, hdr_len, type_off, type_len, str_off, _ = \
        struct.unpack_from('<HBBIIIII', data, 0)
    if magic != 0xeb9f:
        sys.exit(f'btf-edit: {src}: not little-endian raw BTF')
    types = hdr_len + type_off
    strs = hdr_len + str_off

    def name(off):
        end = data.index(b'\0', strs + off)
        return data[strs + off:end].decode()

    funcs = {}  # name -> offset of its struct btf_type
    pos = types
    while pos < types + type_len:
        name_off, info, _ = struct.unpack_from('<III', data, pos)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        if kind == KIND_FUNC:
            funcs.setdefault(name(name_off), pos)
        pos += 12 + EXTRA.get(kind, lambda v: 0)(vlen)
    if func not in funcs:
        sys.exit(f'btf-edit: no BTF func {func} in {src}')
    at = funcs[func]
    if op == 'proto':
        donor = sys.argv[5]
        if donor not in funcs:
            sys.exit(f'btf-edit: no BTF func {donor} in {src}')
        proto = struct.unpack_from('<I', data, funcs[donor] + 8)[0]
        struct.pack_into('<I', data, at + 8, proto)
    elif op == 'drop':
        # Point the name past its first character: the func is now
        # called FUNC[1:], a name no kernel function has.
        name_off = struct.unpack_from('<I', data, at)[0]
        struct.pack_into('<I', data, at, name_off + 1)
    else:
        sys.exit(f'btf-edit: unknown operation {op}')
    open(dst, 'wb').write(data)


main()
