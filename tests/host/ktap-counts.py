#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Parse a KTAP file with the kernel's own parser and print its counts.

Usage: ktap-counts.py KUNIT_DIR FILE, KUNIT_DIR being the kernel's
tools/testing/kunit/ (tests/lib.sh: kunit_parser_dir). Prints "PASSED
FAILED CRASHED SKIPPED ERRORS STATUS" as kunit_parser counts them: leaves
only, a test with subtests counting through them.
"""
import io
import sys

sys.path.insert(0, sys.argv[1])
import kunit_printer  # noqa: E402

# The parser prints every test it reads; only its counts are wanted.
kunit_printer.stdout = kunit_printer.Printer(io.StringIO())
import kunit_parser  # noqa: E402

with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
    test = kunit_parser.parse_run_tests(f)
c = test.counts
print(c.passed, c.failed, c.crashed, c.skipped, c.errors, test.status.name)
