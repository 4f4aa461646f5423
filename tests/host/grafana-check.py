#!/usr/bin/env python3
"""Every query of a Grafana dashboard, evaluated by a real Prometheus and
held against the exporters it scrapes.

    grafana-check.py DASHBOARD.json PROMETHEUS_API WINDOW \\
        [--exporter INSTANCE=URL]... [--skip REGEX=REASON]...

For each panel target (and each query variable): the dashboard's
variables are replaced ($instance, $cgroup by .*, $__rate_interval and
$__range by WINDOW), Prometheus evaluates the query at this instant, and
it must return data with no negative or NaN value. Its instant
counterpart (rate(X[w]) and increase(X[w]) replaced by X) is then
evaluated twice: by Prometheus, and here on the samples each exporter's
/metrics gives now (curl's view, labelled with its instance as the
scrape labels it). Both must give the same series with the same values:
a sum over instances is the sum of the exporters' own totals, a value
per instance each exporter's. The exporters must be at rest (their
counts no longer moving) and scraped since, or the two views differ.

The counterpart is evaluated only for the PromQL a dashboard like this
needs: a selector, under sum/min/max [by (labels)], compared with a
number or not. Any other query fails as one the checker cannot hold
against the exporters, so a dashboard's queries stay that simple.

An empty result is not a failure in two cases, each printed as a skip
with the reason: the query matches a --skip REGEX (families an exporter
here cannot have yet), or its histogram is not measured by any exporter
(folioscope_measured 0, whose reason is given). A filter that keeps
nothing (X == 0 when no series is 0) passes when the unfiltered query has
data and the exporters agree that none matches.

One line per check on stdout, tab-separated: "ok NAME", "FAIL NAME WHY"
or "skip NAME WHY", NAME being "PANEL: QUERY". Exit status 1 if any
check failed.
"""
import json
import math
import re
import sys
import urllib.parse
import urllib.request

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
MATCHER = re.compile(r'\s*([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
SAMPLE = re.compile(r'^(' + NAME + r')(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$')
LABEL = re.compile(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)",?')
CMP = re.compile(r'^(.*?)\s*(==|!=|>=|<=|>|<)\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)$', re.S)
AGG = re.compile(r'^(sum|min|max)\s*(?:by\s*\(([^)]*)\))?\s*\((.*)\)$', re.S)
SEL = re.compile(r'^(' + NAME + r')\s*(?:\{(.*)\})?$', re.S)
OVER_TIME = re.compile(r'\b(?:rate|irate|increase)\((' + NAME + r'(?:\{[^}]*\})?)\[[^\]]+\]\)')
# Labels a comparison of two views leaves out: the job is the scrape
# config's, and whether a comparison keeps the name is PromQL's business.
IGNORED = ('__name__', 'job')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), v)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def parse_exposition(text, instance):
    """Samples of a 0.0.4 page as (labels dict, value)."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError('unparsable sample line: %r' % line)
        labels = {k: unescape(v) for k, v in LABEL.findall(m.group(2) or '')}
        labels['__name__'] = m.group(1)
        labels['instance'] = instance
        out.append((labels, float(m.group(3))))
    return out


def matchers(sel):
    m = SEL.match(sel.strip())
    if not m:
        return None
    ms = [('__name__', '=', m.group(1))]
    body = m.group(2) or ''
    pos = 0
    while pos < len(body):
        mm = MATCHER.match(body, pos)
        if not mm:
            return None
        ms.append((mm.group(1), mm.group(2), unescape(mm.group(3))))
        pos = mm.end()
    return ms


def selects(ms, labels):
    for k, op, v in ms:
        have = labels.get(k, '')
        if op == '=' and have != v or op == '!=' and have == v:
            return False
        if op in ('=~', '!~') and bool(re.fullmatch(v, have)) != (op == '=~'):
            return False
    return True


def key(labels):
    return tuple(sorted((k, v) for k, v in labels.items() if k not in IGNORED))


def evaluate(expr, samples):
    """The exporters' answer to expr as {label key: value}, or None when
    expr is not PromQL this checker evaluates."""
    expr = expr.strip()
    cmp = None
    m = CMP.match(expr)
    if m:
        expr, cmp = m.group(1).strip(), (m.group(2), float(m.group(3)))
    agg = AGG.match(expr)
    if agg:
        expr = agg.group(3)
    ms = matchers(expr)
    if ms is None:
        return None
    rows = [(lab, v) for lab, v in samples if selects(ms, lab)]
    if agg:
        by = [b.strip() for b in (agg.group(2) or '').split(',') if b.strip()]
        fn = {'sum': sum, 'min': min, 'max': max}[agg.group(1)]
        groups = {}
        for lab, v in rows:
            groups.setdefault(tuple((b, lab[b]) for b in sorted(by) if lab.get(b)), []).append(v)
        out = {k: fn(vs) for k, vs in groups.items()}
    else:
        out = {key(lab): v for lab, v in rows}
    if cmp:
        op, n = cmp
        test = {'==': n.__eq__, '!=': n.__ne__, '>': n.__lt__, '<': n.__gt__,
                '>=': n.__le__, '<=': n.__ge__}[op]
        out = {k: v for k, v in out.items() if test(v)}
    return out


class Checker:
    def __init__(self, api, window, exporters, skips):
        self.api = api
        self.window = window
        self.skips = skips
        self.samples = []
        for inst, url in exporters:
            self.samples += parse_exposition(get(url), inst)
        self.failed = False

    def say(self, what, name, why=''):
        print('\t'.join([what, name] + ([why] if why else [])), flush=True)
        self.failed |= what == 'FAIL'

    def prom(self, expr):
        q = urllib.parse.urlencode({'query': expr})
        r = json.loads(get('%s/query?%s' % (self.api, q)))
        if r.get('status') != 'success':
            raise ValueError('Prometheus: %s' % r.get('error'))
        if r['data']['resultType'] != 'vector':
            raise ValueError('Prometheus: a %s, not a vector' % r['data']['resultType'])
        return {key(s['metric']): float(s['value'][1]) for s in r['data']['result']}

    def substitute(self, expr):
        for var in ('$instance', '${instance}', '$cgroup', '${cgroup}'):
            expr = expr.replace(var, '.*')
        for var in ('$__rate_interval', '${__rate_interval}', '$__range', '${__range}'):
            expr = expr.replace(var, self.window)
        return expr

    def skip_reason(self, expr):
        for rx, why in self.skips:
            if re.search(rx, expr):
                return why
        return None

    def not_measured(self, expr):
        """The reason no exporter measures the histogram expr reads, or
        None if some exporter does (or it reads no histogram)."""
        m = re.search(r'\b(folioscope_(\w+?)_\w+?)(?:_bucket|_count|_sum)\b', expr)
        if not m:
            return None
        fam, target = m.group(1), m.group(2)
        rows = [(lab, v) for lab, v in self.samples
                if lab['__name__'] == 'folioscope_measured' and lab.get('target') == target
                and fam in ('folioscope_%s_%s' % (target, h) for h in (
                    re.sub(r'_ns$', '_seconds', lab['histogram']), lab['histogram'],
                    lab['histogram'] + '_bytes'))]
        if not rows or any(v != 0 for _, v in rows):
            return None
        return 'not measured by any exporter: ' + sorted({lab['reason'] for lab, _ in rows})[0]

    def agree(self, name, expr):
        """Prometheus and the exporters give expr the same series and
        values; False (with the failure said) if not."""
        mine = evaluate(expr, self.samples)
        if mine is None:
            self.say('FAIL', name, 'not PromQL this checker evaluates: %s' % expr)
            return False
        theirs = self.prom(expr)
        if set(mine) != set(theirs):
            self.say('FAIL', name, '%s: series differ: Prometheus only %s, exporters only %s' % (
                expr, sorted(set(theirs) - set(mine))[:3], sorted(set(mine) - set(theirs))[:3]))
            return False
        off = [(k, theirs[k], mine[k]) for k in mine
               if not math.isclose(theirs[k], mine[k], rel_tol=1e-9, abs_tol=1e-12)]
        if off:
            self.say('FAIL', name, '%s: %d series differ from the exporters, e.g. %s: Prometheus %r, exporters %r' % (
                expr, len(off), dict(off[0][0]), off[0][1], off[0][2]))
            return False
        return True

    def target(self, title, raw):
        name = '%s: %s' % (title, raw)
        expr = self.substitute(raw)
        try:
            got = self.prom(expr)
            if not got:
                why = self.skip_reason(expr) or self.not_measured(expr)
                if why:
                    self.say('skip', name, why)
                    return
                m = CMP.match(expr)
                if not m:
                    self.say('FAIL', name, 'no data')
                elif not self.prom(m.group(1)):
                    self.say('FAIL', name, 'no data, unfiltered either')
                elif self.agree(name, expr):
                    self.say('ok', name + ' (no series matches, nor on the exporters)')
                return
            bad = [(k, v) for k, v in got.items() if math.isnan(v) or v < 0]
            if bad:
                self.say('FAIL', name, '%d negative or NaN values, e.g. %s = %r' % (len(bad), dict(bad[0][0]), bad[0][1]))
                return
            inst = OVER_TIME.sub(r'\1', expr)
            if self.agree(name, inst):
                self.say('ok', name + ('' if inst == expr else ' (and %s as the exporters)' % inst))
        except Exception as e:  # one query's trouble is its own failure
            self.say('FAIL', name, '%s: %s' % (type(e).__name__, e))

    def variable(self, var):
        q = var.get('query')
        q = q.get('query') if isinstance(q, dict) else q
        name = 'variable %s: %s' % (var['name'], q)
        m = re.fullmatch(r'label_values\((.+),\s*(\w+)\)', q or '')
        if not m:
            self.say('FAIL', name, 'not label_values(SELECTOR, LABEL)')
            return
        sel, label = self.substitute(m.group(1)), m.group(2)
        ms = matchers(sel)
        url = '%s/series?%s' % (self.api, urllib.parse.urlencode({'match[]': sel}))
        have = {s.get(label) for s in json.loads(get(url))['data']} - {None}
        want = {lab.get(label) for lab, _ in self.samples if ms and selects(ms, lab)} - {None, ''}
        if not have and not want:
            why = self.skip_reason(sel)
            self.say('skip' if why else 'FAIL', name, why or 'no values')
        elif have != want:
            self.say('FAIL', name, 'values %s, exporters %s' % (sorted(have), sorted(want)))
        else:
            self.say('ok', name + ' (%s)' % ', '.join(sorted(have)))


def main(argv):
    dash, api, window = argv[1:4]
    exporters, skips = [], []
    rest = argv[4:]
    while rest:
        opt, val = rest[0], rest[1]
        a, _, b = val.partition('=')
        (exporters if opt == '--exporter' else skips).append((a, b))
        rest = rest[2:]
    d = json.load(open(dash))
    c = Checker(api, window, exporters, skips)
    for var in d.get('templating', {}).get('list', []):
        if var.get('type') == 'query':
            c.variable(var)
    panels = []
    for p in d.get('panels', []):
        panels += [p] + p.get('panels', [])
    for p in panels:
        for t in p.get('targets', []):
            if t.get('expr'):
                c.target(p.get('title', '?'), t['expr'])
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
