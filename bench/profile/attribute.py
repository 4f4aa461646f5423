#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Name every instruction a traced call adds, from a profile run.

    attribute.py RAW COUNTS [--lines N] [--funcs N]

RAW: bench/measure.sh --profile's records (profwin, profsym, profjit,
profksym); COUNTS: the insncount plugin's blocks per window. Window k of
the run is the loop between snapshots 2k and 2k+1. Prints Markdown: per
benchmark, each variant's instructions per call over the untraced loop;
per function, what folioscope adds over the empty probes on its attach
points (floorall); per line of BPF source, where its programs spend them.
Blocks are decoded with capstone, so that a block's instructions fall on
the source lines their addresses are in.
"""
import argparse
import bisect
import collections
import sys

import capstone

NS_PER_INSN = 8  # qemu -icount shift=3
USER = "(user space)"


class Window:
    def __init__(self, bench, variant, calls):
        self.bench, self.variant, self.calls = bench, variant, calls
        self.syms = []  # (addr, name) of BPF programs and trampolines
        self.progs = {}  # id -> (name, ksym, code)
        self.lines = collections.defaultdict(list)  # id -> [(addr, where)]
        self.blocks = collections.Counter()  # (vaddr, insns) -> runs


def read_raw(path):
    wins, ksyms, scope, release = [], [], "?", ""
    for line in open(path, errors="replace"):
        kind, _, rest = line.rstrip("\n").partition(" ")
        if kind == "profwin":
            scope, bench, variant, calls = rest.split()
            wins.append(Window(bench, variant, int(calls)))
        elif kind == "profsym":
            a, n = rest.split()
            wins[-1].syms.append((int(a, 16), n))
        elif kind == "profjit":
            f = rest.split(" ", 4)
            if f[0] == "prog":
                wins[-1].progs[f[1]] = (f[2], int(f[3], 16), bytes.fromhex(f[4]))
            elif f[0] == "line":
                wins[-1].lines[f[1]].append((int(f[2], 16), f[3] + " " + (f[4] if len(f) > 4 else "")))
        elif kind == "profksym":
            a, n = rest.split()
            ksyms.append((int(a, 16), n))
        elif kind == "env" and " kernel " in line:
            release = line.split()[-1]
    return scope, release, wins, sorted(ksyms)


def read_counts(path, wins):
    k = None
    for line in open(path):
        if line.startswith("window "):
            s = int(line.split()[1])
            k = s // 2 if s % 2 == 0 else None
            continue
        if k is None or k >= len(wins) or line.startswith("blocks "):
            continue
        va, n, runs = line.split()
        wins[k].blocks[(int(va, 16), int(n))] += int(runs)


def by_function(w, ksyms):
    syms = sorted(ksyms + w.syms)
    addrs = [a for a, _ in syms]
    out = collections.Counter()
    for (va, n), runs in w.blocks.items():
        if va < 1 << 63:
            name = USER
        else:
            i = bisect.bisect_right(addrs, va) - 1
            name = syms[i][1] if i >= 0 else "?"
            if name.startswith("bpf_prog_"):  # bpf_prog_TAG_NAME
                name = "prog " + name.split("_", 3)[-1]
            elif name.startswith("bpf_trampoline_"):
                name = "bpf_trampoline"
        out[name] += n * runs
    return out


def by_line(w):
    """Per program: instructions per source line, and its total."""
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    res = {}
    for pid, (name, ksym, code) in w.progs.items():
        insns = [i.address for i in md.disasm(code, ksym)]
        lines = sorted(w.lines.get(pid, []))
        la = [a for a, _ in lines]
        per = collections.Counter()
        for (va, n), runs in w.blocks.items():
            if not ksym <= va < ksym + len(code):
                continue
            j = bisect.bisect_left(insns, va)
            for a in insns[j:j + n]:
                k = bisect.bisect_right(la, a) - 1
                per[lines[k][1] if k >= 0 else "(prologue)"] += runs
        if per:
            res[name] = per
    return res


def short(where):
    path, _, text = where.partition(" ")
    return f"{path.rsplit('/', 1)[-1]}: `{' '.join(text.split())[:90]}`"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("counts")
    ap.add_argument("--lines", type=int, default=12)
    ap.add_argument("--funcs", type=int, default=14)
    a = ap.parse_args()
    scope, release, wins, ksyms = read_raw(a.raw)
    read_counts(a.counts, wins)
    print(f"## {scope}{' (' + release + ')' if release else ''}")
    for bench in dict.fromkeys(w.bench for w in wins):
        ws = {w.variant: w for w in wins if w.bench == bench}
        base = ws.get("untraced")
        if not base or not base.blocks:
            print(f"\n{bench}: no untraced window", file=sys.stderr)
            continue
        f0 = by_function(base, ksyms)
        per = {v: by_function(w, ksyms) for v, w in ws.items()}

        def added(v, keys=None):
            w = ws[v]
            return sum(per[v][k] / w.calls - f0[k] / base.calls
                       for k in (keys if keys is not None else set(per[v]) | set(f0)))

        print(f"\n### {bench}: instructions a call adds over the untraced loop\n")
        print("| variant | insns/call | ns/call | in its BPF programs | in BPF trampolines |")
        print("|---|---:|---:|---:|---:|")
        for v in ws:
            if v == "untraced":
                continue
            progs = [k for k in per[v] if k.startswith("prog ")]
            print(f"| {v} | {added(v):.0f} | {added(v) * NS_PER_INSN:.0f} | "
                  f"{added(v, progs):.0f} | {added(v, ['bpf_trampoline']):.0f} |")
        for v in ws:
            mech = v.rsplit("-", 1)[-1]
            floor = ws.get(f"floorall-{mech}")
            if not v.startswith("folioscope-") or not floor:
                continue
            fw = per[f"floorall-{mech}"]
            diff = {k: per[v][k] / ws[v].calls - fw[k] / floor.calls
                    for k in set(per[v]) | set(fw)}
            tot = sum(diff.values())
            print(f"\n#### {bench} {v}: {tot:.0f} insns/call over floorall-{mech}, by function\n")
            print("| function | insns/call |")
            print("|---|---:|")
            shown = 0
            # Largest first; ties by name, so that a run prints the same.
            ranked = sorted(diff.items(), key=lambda kv: (-abs(kv[1]), kv[0]))
            for k, d in ranked:
                if shown == a.funcs or abs(d) < 1:
                    break
                print(f"| {k} | {d:.0f} |")
                shown += 1
            rest = tot - sum(d for _, d in ranked[:shown])
            print(f"| everything else | {rest:.0f} |")
            for name, lines in sorted(by_line(ws[v]).items()):
                n = ws[v].calls
                files = collections.Counter()
                for where, c in lines.items():
                    files[where.partition(":")[0].rsplit("/", 1)[-1]] += c
                per_file = ", ".join(f"{f} {c / n:.0f}" for f, c in files.most_common())
                print(f"\n{v} `{name}`: {sum(lines.values()) / n:.0f} insns/call ({per_file}); its costliest lines:\n")
                for where, c in sorted(lines.items(), key=lambda kv: (-kv[1], kv[0]))[:a.lines]:
                    print(f"- {c / n:.0f}: {short(where)}")


if __name__ == "__main__":
    main()
