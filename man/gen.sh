#!/usr/bin/env bash
# man/gen.sh FOLIOSCOPE OUTDIR: man pages from the --help texts, so the
# pages cannot drift from the options: folioscope.1 (the command list plus
# man/folioscope.h2m) and folioscope-CMD.1 for every command that
# 'folioscope --help' lists. help2man runs a program by its path, so each
# command gets a one-line wrapper in a temp dir.
set -euo pipefail
bin=$(realpath "$1")
out=$2
ver=$("$bin" --version | awk '{ print $2 }')
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
h2m=(help2man --no-info --no-discard-stderr --version-string="$ver"
     --source=folioscope --section=1)

"${h2m[@]}" --include="$here/folioscope.h2m" \
	--name="per-call histograms of the dedupe compare and tmpfs reads" \
	--output="$out/folioscope.1" "$bin"

# The command list: "  NAME  summary" lines under "commands:".
"$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print }' |
while read -r cmd summary; do
	printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin" "$cmd" >"$tmp/folioscope-$cmd"
	chmod +x "$tmp/folioscope-$cmd"
	# argp prints "Usage: CMD": the page shows the command as typed.
	"${h2m[@]}" --name="$summary" --output="$tmp/page" "$tmp/folioscope-$cmd"
	sed -e "s/^\.B $cmd\$/.B folioscope $cmd/" \
	    -e "s/^$cmd \[/folioscope $cmd [/" \
	    -e "s/^\.B or:  $cmd /.B or:  folioscope $cmd /" \
	    "$tmp/page" >"$out/folioscope-$cmd.1"
done
