#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Hold a lava-run log (its stdout, YAML/JSON lines) of contrib/lava's job to
folioscope's own JSON report, which the test definition prints between
FOLIOSCOPE-JSON-BEGIN/END in base64:

  check-results.py LAVA-RUN.log [--expect-fail]

Checks: the job finished; a case per group (validation.groups) named as
ktap-to-lava.sh names it, fail exactly when the group has failures, its
measurement the group's passing checks; as many failed checks (cases
GROUP.check_N.KIND) as validation.failures, their kinds those of
validation.kinds; a skip per validation.skipped; reconcile present; the
`folioscope` case pass exactly when there were no failures. --expect-fail:
the run must have failures (a mutant). Exit 0 when all hold."""
import base64
import json
import re
import sys

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def clean(s):
    return re.sub(r"[^A-Za-z0-9._-]", "_", s)


log, expect_fail = sys.argv[1], "--expect-fail" in sys.argv[2:]
cases, target, job = {}, [], None
for line in open(log, errors="replace"):
    # Each line a YAML flow mapping (results carry "! " tags: not JSON).
    try:
        d = yaml.load(line, Loader=Loader)
    except yaml.YAMLError:
        continue
    if not isinstance(d, dict):
        continue
    msg = d.get("msg")
    if d.get("lvl") == "results" and isinstance(msg, dict):
        if msg.get("definition") == "lava" and msg.get("case") == "job":
            job = msg
        elif msg.get("definition", "").endswith("folioscope"):
            cases[msg["case"]] = msg
    elif d.get("lvl") == "target" and isinstance(msg, str):
        target.append(msg)
b64, inside, m = [], False, False
for t in target:
    if t.strip() == "FOLIOSCOPE-JSON-BEGIN":
        inside = True
    elif t.strip() == "FOLIOSCOPE-JSON-END":
        m = inside
        inside = False
    elif inside and re.fullmatch(r"[A-Za-z0-9+/=]+", t.strip()):
        b64.append(t.strip())  # not the shell's "+ base64 ..." trace
bad = []
if not job or job.get("result") != "pass":
    bad.append("job did not pass: %s" % (job,))
if not m:
    sys.exit("check-lava: no JSON report in %s; %s" % (log, "; ".join(bad)))
v = json.loads(base64.b64decode("".join(b64)))["validation"]

for g in v["groups"]:
    c = cases.get(clean(g["name"]))
    want = "fail" if g["failures"] else "pass"
    if not c:
        bad.append("no case for group %r" % g["name"])
        continue
    if c["result"] != want:
        bad.append("%s: %s, JSON says %s" % (c["case"], c["result"], want))
    passed = g["checks"] - g["failures"]
    if float(c.get("measurement", -1)) != passed:
        bad.append("%s: measurement %s, JSON %d passing checks" % (c["case"], c.get("measurement"), passed))
failed = [c for c in cases.values() if ".check_" in c["case"] and c["result"] == "fail"]
if len(failed) != v["failures"]:
    bad.append("%d failed checks in LAVA, %d in JSON" % (len(failed), v["failures"]))
kinds = {clean(k) for k in v.get("kinds", {})}
seen = {c["case"].rsplit(".", 1)[1] for c in failed}
if seen != kinds:
    bad.append("failure kinds in LAVA %s, in JSON %s" % (sorted(seen), sorted(kinds)))
skips = [c for c in cases.values() if c["result"] == "skip"]
if len(skips) != len(v.get("skipped", [])):
    bad.append("%d skips in LAVA, %d in JSON" % (len(skips), len(v.get("skipped", []))))
if "reconcile" not in cases:
    bad.append("no reconcile case")
fs = cases.get("folioscope", {}).get("result")
if fs != ("fail" if v["failures"] else "pass"):
    bad.append("folioscope case %s with %d failures" % (fs, v["failures"]))
if expect_fail and not v["failures"]:
    bad.append("expected failures (a mutant), got none")
if not expect_fail and v["failures"]:
    bad.append("%d failures: %s" % (v["failures"], ", ".join(sorted(v["kinds"]))))
print("check-lava: %d cases; JSON: %d checks, %d failures %s, %d skipped" % (
    len(cases), v["checks"], v["failures"], sorted(v.get("kinds", {})), len(v.get("skipped", []))))
for b in bad:
    print("check-lava: FAIL:", b)
sys.exit(1 if bad else 0)
