#!/usr/bin/env python3
"""Relative links of Markdown files: each must name an existing file, and
its #anchor a heading of the target (GitHub's slug of the heading).

    doclinks.py FILE.md...

Prints one line per broken link, "FILE:LINE: [text](target): why", and
the number of links checked on the last line ("checked N"). Links inside
fenced code blocks and code spans are not links; targets with a scheme
(https:, mailto:) are not checked.
"""
import os
import re
import sys

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`]*`")
LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def lines_outside_fences(path):
    """(line number, text) of each line not inside a fenced code block."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line.rstrip("\n")


def slug(text):
    """GitHub's anchor of a heading: the rendered text (no code marks, link
    targets or emphasis), lower case, every character that is not a letter,
    digit, mark, space, hyphen or underscore dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("`", "").replace("*", "")
    out = []
    for c in text.lower():
        if c.isalnum() or c in "-_":
            out.append(c)
        elif c == " ":
            out.append("-")
    return "".join(out)


def anchors(path, cache={}):
    """The anchors of a Markdown file's headings; repeated slugs get -1,
    -2, ... as on GitHub."""
    if path not in cache:
        seen = {}
        found = set()
        for _, line in lines_outside_fences(path):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            if s in seen:
                seen[s] += 1
                s = "%s-%d" % (s, seen[s])
            else:
                seen[s] = 0
            found.add(s)
        cache[path] = found
    return cache[path]


def main(files):
    checked = 0
    bad = []
    for path in files:
        base = os.path.dirname(path)
        for n, line in lines_outside_fences(path):
            for m in LINK.finditer(CODE_SPAN.sub("", line)):
                target = m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                checked += 1
                where = "%s:%d: [%s](%s)" % (path, n, m.group(1), target)
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(base, file_part)) if file_part else path
                if not os.path.exists(dest):
                    bad.append("%s: no file %s" % (where, dest))
                    continue
                if not anchor:
                    continue
                if not dest.endswith(".md") or os.path.isdir(dest):
                    bad.append("%s: an anchor into %s, which is not Markdown" % (where, dest))
                elif anchor not in anchors(dest):
                    bad.append("%s: no heading '#%s' in %s" % (where, anchor, dest))
    for b in bad:
        print(b)
    print("checked %d" % checked)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
