# shellcheck shell=bash
# Sourced by tests/check.sh (host): the VM runner's options for the
# benchmark (vm --with, vm --exec), bad input only: no guest boots here.
# The aggregation itself is covered by build/tests/test_bench.
help=$("$FS" vm --help 2>&1)
expect_match "vm --help: --with" "$help" "--with=PATH"
expect_match "vm --help: --exec" "$help" "--exec=SCRIPT"
expect_error "vm --exec: missing script" 1 "cannot read script '/nonexistent/guest.sh'" \
	"$FS" vm --exec /nonexistent/guest.sh
expect_error "vm --with: missing file" 1 "cannot read '/nonexistent/tool'" \
	"$FS" vm --with /nonexistent/tool -- doctor
expect_error "vm: no command and no --exec" 2 "missing the folioscope ARGS" \
	"$FS" vm --with /bin/sh
