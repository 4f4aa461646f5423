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

# benchtool btf: the offsets and enumerators bench/ftrace.sh gives its
# kprobe events, from this kernel's BTF (any kernel's layout will do).
BTOOL=$BUILD/bench/benchtool
if [ -x "$BTOOL" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	expect_match "benchtool btf off: a member" \
		"$("$BTOOL" btf off kiocb ki_pos)" '^[0-9]+$'
	expect_match "benchtool btf off: in an anonymous union" \
		"$("$BTOOL" btf off iov_iter ubuf)" '^[0-9]+$'
	expect_eq "benchtool btf off: a path of members" \
		"$("$BTOOL" btf off folio page.flags)" "$("$BTOOL" btf off page flags)"
	expect_match "benchtool btf enum" "$("$BTOOL" btf enum PG_head)" '^[0-9]+$'
	expect_error "benchtool btf off: no such type" 1 "no struct or union 'nosuchtype'" \
		"$BTOOL" btf off nosuchtype x
	expect_error "benchtool btf off: no such member" 1 "kiocb: no member 'nosuch'" \
		"$BTOOL" btf off kiocb nosuch
	expect_error "benchtool btf enum: no such enumerator" 1 "no enumerator 'NO_SUCH'" \
		"$BTOOL" btf enum NO_SUCH
	# (kiocb *iocb, iov_iter *to): bench/measure.sh numbers bpftrace's
	# argN by it (the lookup's foliop is argument 2 on 6.1, 3 on 6.12).
	expect_eq "benchtool btf arg: parameter indexes" \
		"$("$BTOOL" btf arg shmem_file_read_iter iocb) $("$BTOOL" btf arg shmem_file_read_iter to)" "0 1"
	expect_error "benchtool btf arg: no such parameter" 1 "shmem_file_read_iter has no parameter 'nosuch'" \
		"$BTOOL" btf arg shmem_file_read_iter nosuch
	expect_error "benchtool btf arg: no such function" 1 "no function 'nosuchfn'" \
		"$BTOOL" btf arg nosuchfn x
	expect_error "benchtool btf: unreadable file" 1 "cannot load /nonexistent" \
		"$BTOOL" btf -f /nonexistent off kiocb ki_pos
	"$BTOOL" btf off kiocb 2>/dev/null
	expect_eq "benchtool btf: bad usage" "$?" 2
else
	skip "benchtool btf" "no $BTOOL (make bench-tools) or no kernel BTF"
fi
# benchtool sigdfl: a shell's background job starts with SIGINT ignored
# and cannot trap it; through sigdfl it can (ftrace.sh's teardown).
if [ -x "$BTOOL" ]; then
	"$BTOOL" sigdfl sh -c 'trap "exit 7" INT; kill -INT $$; sleep 5; exit 1' &
	wait $!
	expect_eq "benchtool sigdfl: a background job traps SIGINT" "$?" 7
fi
