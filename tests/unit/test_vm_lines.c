// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The guest's output passed on by whole lines (src/vm/lines.c): chunks
 * of stdout and stderr that cut lines anywhere, both going to one file,
 * come out as whole lines; a partial line waits for its quiet time, and
 * the other channel waits for a partial line that went out to end.
 * Times are given, not measured: every case is exact.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "vm/vm_internal.h"

enum { OUT, ERR, CON };

struct fixture {
	struct vm_lines l;
	int fd;	 /* the one file all channels write to */
	int fd2; /* a second file, for CON where a case wants it */
	char got[1 << 20];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[] = "/tmp/test-vm-lines-XXXXXX";
	char path2[] = "/tmp/test-vm-lines-XXXXXX";

	assert_non_null(f);
	f->fd = mkstemp(path);
	f->fd2 = mkstemp(path2);
	assert_true(f->fd >= 0 && f->fd2 >= 0);
	unlink(path);
	unlink(path2);
	vm_lines__init(&f->l);
	vm_lines__set_fd(&f->l, OUT, f->fd);
	vm_lines__set_fd(&f->l, ERR, f->fd);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vm_lines__free(&f->l);
	close(f->fd);
	close(f->fd2);
	free(f);
	return 0;
}

/* What the file holds so far. */
static const char *got(struct fixture *f, int fd)
{
	ssize_t n = pread(fd, f->got, sizeof(f->got) - 1, 0);

	assert_true(n >= 0);
	f->got[n] = '\0';
	return f->got;
}

static void add(struct fixture *f, int ci, const char *s, double now)
{
	assert_int_equal(vm_lines__add(&f->l, ci, s, strlen(s), now), 0);
}

/* The case of the failed CI run: a stderr line arriving while a stdout
 * line is half way through. */
static void test_interleaved_halves(void **state)
{
	struct fixture *f = *state;

	add(f, OUT, "folioscope 0.1.0, ", 0.0);
	add(f, ERR, "folioscope: run: WARNING: xfs bs=102", 0.01);
	add(f, OUT, "kernel 6.1.0\n", 0.02);
	assert_string_equal(got(f, f->fd), "folioscope 0.1.0, kernel 6.1.0\n");
	add(f, ERR, "4: dedupe met only 4096-byte folios\n", 0.03);
	assert_string_equal(got(f, f->fd),
			    "folioscope 0.1.0, kernel 6.1.0\n"
			    "folioscope: run: WARNING: xfs bs=1024: dedupe met "
			    "only 4096-byte folios\n");
	assert_float_equal(vm_lines__due_in(&f->l, 0.04), -1, 0);
}

/* Long lines cut into small chunks on both channels at once, in an
 * order that interleaves them: every line of the file is whole. */
static void test_long_lines_chunked(void **state)
{
	struct fixture *f = *state;
	char line[2][3000];
	size_t pos[2] = { 0, 0 }, chunk = 7;
	int lines[2] = { 0, 0 }, want = 40;
	double t = 0;

	for (int c = 0; c < 2; c++) {
		memset(line[c], c ? 'e' : 'o', sizeof(line[c]) - 2);
		line[c][sizeof(line[c]) - 2] = '\n';
		line[c][sizeof(line[c]) - 1] = '\0';
	}
	while (lines[0] < want || lines[1] < want) {
		for (int c = 0; c < 2; c++) {
			size_t len = strlen(line[c]), n;

			if (lines[c] >= want)
				continue;
			n = len - pos[c] < chunk ? len - pos[c] : chunk;
			assert_int_equal(
				vm_lines__add(&f->l, c, line[c] + pos[c], n, t),
				0);
			pos[c] += n;
			if (pos[c] == len) {
				pos[c] = 0;
				lines[c]++;
			}
			chunk = chunk * 7 % 991 + 1;
		}
		t += 0.001;
		vm_lines__tick(&f->l, t);
	}
	vm_lines__flush(&f->l, false, t);
	{
		const char *s = got(f, f->fd), *nl;
		int n[2] = { 0, 0 };

		while ((nl = strchr(s, '\n'))) {
			size_t len = (size_t)(nl - s) + 1;
			int c = s[0] == 'e';

			assert_int_equal(len, strlen(line[c]));
			assert_memory_equal(s, line[c], len);
			n[c]++;
			s = nl + 1;
		}
		assert_string_equal(s, "");
		assert_int_equal(n[0], want);
		assert_int_equal(n[1], want);
	}
}

/* A partial line goes out after its quiet time, not before; then the
 * other channel waits for it to end, for the hold time at most. */
static void test_quiet_and_hold(void **state)
{
	struct fixture *f = *state;

	add(f, OUT, "prompt> ", 1.0);
	vm_lines__tick(&f->l, 1.0 + VM_LINES_QUIET_S / 2);
	assert_string_equal(got(f, f->fd), "");
	assert_float_equal(vm_lines__due_in(&f->l, 1.0 + VM_LINES_QUIET_S / 2),
			   VM_LINES_QUIET_S / 2, 1e-9);
	vm_lines__tick(&f->l, 1.0 + VM_LINES_QUIET_S);
	assert_string_equal(got(f, f->fd), "prompt> ");
	/* stderr's whole line waits for stdout's to end... */
	add(f, ERR, "an error\n", 2.0);
	assert_string_equal(got(f, f->fd), "prompt> ");
	add(f, OUT, "answer\n", 2.5);
	assert_string_equal(got(f, f->fd), "prompt> answer\nan error\n");
	/* ...but not forever. */
	add(f, OUT, "never ends", 3.0);
	vm_lines__tick(&f->l, 3.0 + VM_LINES_QUIET_S);
	add(f, ERR, "waits\n", 3.6);
	assert_string_equal(got(f, f->fd),
			    "prompt> answer\nan error\nnever ends");
	assert_float_equal(vm_lines__due_in(&f->l, 3.6),
			   3.0 + VM_LINES_QUIET_S + VM_LINES_HOLD_S - 3.6,
			   1e-9);
	vm_lines__tick(&f->l, 3.0 + VM_LINES_QUIET_S + VM_LINES_HOLD_S);
	assert_string_equal(got(f, f->fd),
			    "prompt> answer\nan error\nnever endswaits\n");
}

/* "\r\n" is "\n"; a lone '\r' (a progress line redrawn) ends a line;
 * a '\r' at a chunk's end waits for the next byte to tell which. */
static void test_carriage_returns(void **state)
{
	struct fixture *f = *state;

	add(f, OUT, "one\r", 0);
	assert_string_equal(got(f, f->fd), "");
	add(f, OUT, "\ntwo\r\n", 0);
	assert_string_equal(got(f, f->fd), "one\ntwo\n");
	add(f, ERR, "\rstep 1...\r", 0);
	add(f, ERR, "step 2...", 0);
	assert_string_equal(got(f, f->fd), "one\ntwo\n\rstep 1...\r");
}

/* At the end everything goes; with end_lines an unfinished line gets its
 * '\n' before a line of our own; a channel without an fd drops its
 * bytes. */
static void test_flush(void **state)
{
	struct fixture *f = *state;

	add(f, OUT, "no newline", 0);
	add(f, CON, "console, nowhere\n", 0);
	vm_lines__flush(&f->l, false, 0);
	assert_string_equal(got(f, f->fd), "no newline");
	/* stdout's line is open: it ends first, then stderr's. */
	add(f, ERR, "half", 1);
	vm_lines__flush(&f->l, true, 1);
	assert_string_equal(got(f, f->fd), "no newline\nhalf\n");
	vm_lines__set_fd(&f->l, CON, f->fd2);
	add(f, CON, "console\n", 2);
	assert_string_equal(got(f, f->fd2), "console\n");
}

/* Channels into different files do not wait for each other. */
static void test_separate_files(void **state)
{
	struct fixture *f = *state;

	vm_lines__set_fd(&f->l, ERR, f->fd2);
	add(f, OUT, "prompt> ", 1.0);
	vm_lines__tick(&f->l, 1.0 + VM_LINES_QUIET_S);
	add(f, ERR, "an error\n", 2.0);
	assert_string_equal(got(f, f->fd), "prompt> ");
	assert_string_equal(got(f, f->fd2), "an error\n");
}

/* A line longer than VM_LINES_MAX goes out in pieces rather than
 * growing without end. */
static void test_max(void **state)
{
	struct fixture *f = *state;
	size_t n = VM_LINES_MAX + 10;
	char *big = malloc(n);

	assert_non_null(big);
	memset(big, 'x', n);
	assert_int_equal(vm_lines__add(&f->l, OUT, big, n, 0), 0);
	assert_int_equal(strlen(got(f, f->fd)), n);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_interleaved_halves, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_long_lines_chunked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_quiet_and_hold, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_carriage_returns, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_separate_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_max, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
