#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Read pictures back from the DOM Chromium dumped (tests/host/export.sh).

ab DOM BASE.json NEW.json: per chart of the compare page, "TARGET HIST
sides=base,new bars=N fraction-errors=E height-errors=E", where a fraction
error is a bar whose data-fraction is not the JSON's count/total for its
bucket, and a height error a bar whose height is not fraction/top of the
plot's height; then "rule VERDICT TEXT" per rule.

heatmap DOM TARGET HIST: per interval column of that heatmap, "I LO"
for the bucket (lo) holding most of the column's events, or "I -" for
an empty column.
"""
import json
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []
        self.charts = []  # (attrs, [element attrs...])
        self.rules = []
        self.rule = None
        self.heat = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        a['_tag'] = tag
        cls = a.get('class', '').split()
        if tag == 'figure' and 'ab-chart' in cls:
            self.charts.append((a, []))
        elif tag == 'svg' and 'heatmap' in cls:
            self.heat.append((a, []))
        elif self.charts and tag in ('rect', 'g', 'path'):
            self.charts[-1][1].append(a)
        if self.heat and tag == 'rect':
            self.heat[-1][1].append(a)
        if tag == 'li' and 'rule' in cls:
            self.rule = [a.get('data-verdict'), '']

    def handle_endtag(self, tag):
        if tag == 'li' and self.rule:
            self.rules.append(self.rule)
            self.rule = None

    def handle_data(self, data):
        if self.rule is not None:
            self.rule[1] += data


def parse(path):
    d = Dom()
    with open(path, encoding='utf-8') as f:
        d.feed(f.read())
    return d


def fractions(report, target, hist):
    h = report['targets'][target]['histograms'][hist]
    total = h['count']
    return {b['lo']: (b['count'] / total if total else 0) for b in h['buckets']}


def ab(dom, base, new):
    runs = {}
    for side, path in (('base', base), ('new', new)):
        with open(path, encoding='utf-8') as f:
            runs[side] = json.load(f)
    d = parse(dom)
    for attrs, els in d.charts:
        t, h = attrs['data-target'], attrs['data-histogram']
        plot = [e for e in els if e['_tag'] == 'g' and 'plot' in e.get('class', '')][0]
        top, ph = float(plot['data-top']), float(plot['data-height'])
        bars = [e for e in els if e.get('class') == 'bar']
        sides = sorted({b['data-side'] for b in bars if float(b['data-fraction']) > 0})
        ferr = herr = 0
        for b in bars:
            want = fractions(runs[b['data-side']], t, h).get(int(b['data-lo']), 0)
            got = float(b['data-fraction'])
            if abs(got - want) > 1e-6:
                ferr += 1
            if abs(float(b['height']) - want / top * ph) > 0.01:
                herr += 1
        print(f"{t} {h} sides={','.join(sides)} bars={len(bars)} "
              f"fraction-errors={ferr} height-errors={herr}")
    for verdict, text in d.rules:
        print(f"rule {verdict} {' '.join(text.split())}")


def heatmap(dom, target, hist):
    d = parse(dom)
    for attrs, els in d.heat:
        if attrs.get('data-target') != target or attrs.get('data-histogram') != hist:
            continue
        cols = {}
        for e in els:
            if e.get('class') != 'cell':
                continue
            i, lo, n = int(e['data-interval']), int(e['data-lo']), int(e['data-count'])
            cols.setdefault(i, []).append((n, lo))
        for i in sorted(cols):
            n, lo = max(cols[i])
            print(f"{i} {lo if n else '-'}")


if __name__ == '__main__':
    if sys.argv[1] == 'ab':
        ab(*sys.argv[2:5])
    else:
        heatmap(*sys.argv[2:5])
