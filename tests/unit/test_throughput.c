// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The timed passes of run shmem-read --throughput
 * (src/workload/throughput.c): every pass reads the file from its start
 * to its end in bs-sized calls, with read(2) or pread(2); the run's figure
 * is the middle pass by rate, its spread the slowest and fastest.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "workload/throughput.h"

/* A regular file of size bytes, unlinked: its fd. */
static int file_of(__u64 size)
{
	char path[] = "/tmp/test-throughput-XXXXXX";
	char buf[4096];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	memset(buf, 0x5a, sizeof(buf));
	for (__u64 done = 0; done < size;) {
		size_t n =
			size - done < sizeof(buf) ? size - done : sizeof(buf);

		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	return fd;
}

static void test_passes_read_the_whole_file(void **state)
{
	/* 100000 bytes in 16 KiB calls: 6 full ones and a short one. */
	struct wl_tput_opts o = { .size = 100000, .bs = 16384, .passes = 3 };
	struct wl_tput *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	o.fd = file_of(o.size);
	for (int pr = 0; pr < 2; pr++) {
		o.way = pr ? WL_WAY_PREAD : WL_WAY_READ;
		/* read(2) starts where the last pass left the offset. */
		assert_int_equal(lseek(o.fd, 12345, SEEK_SET), 12345);
		assert_int_equal(wl_tput__run(&o, t), 0);
		assert_int_equal(t->npasses, 3);
		assert_int_equal(t->calls, 3 * 7);
		assert_int_equal(t->bytes, 3 * 100000);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(t->pass[i].bytes, 100000);
			assert_int_equal(t->pass[i].calls, 7);
			assert_true(t->pass[i].wall_ns > 0);
		}
		assert_true(t->bytes_per_s > 0);
		assert_true(t->min_bytes_per_s <= t->bytes_per_s);
		assert_true(t->bytes_per_s <= t->max_bytes_per_s);
	}
	/* A file shorter than the size asked for: a pass ends at EOF, with
	 * the call that returned 0. */
	o.size = 200000;
	o.way = WL_WAY_PREAD;
	assert_int_equal(wl_tput__run(&o, t), 0);
	assert_int_equal(t->pass[0].bytes, 100000);
	assert_int_equal(t->pass[0].calls, 8);
	close(o.fd);
	/* A bad descriptor: the error, and the call it took. */
	o.fd = -1;
	assert_int_equal(wl_tput__run(&o, t), -EBADF);
	assert_int_equal(t->npasses, 0);
	assert_int_equal(t->calls, 1);
	o.passes = 0;
	assert_int_equal(wl_tput__run(&o, t), -EINVAL);
	o.passes = WL_TPUT_MAX_PASSES + 1;
	assert_int_equal(wl_tput__run(&o, t), -EINVAL);
	free(t);
}

static void set_pass(struct wl_tput *t, int i, __u64 bytes, __u64 wall_ns,
		     __u64 cpu_ns)
{
	t->pass[i].bytes = bytes;
	t->pass[i].wall_ns = wall_ns;
	t->pass[i].cpu_ns = cpu_ns;
}

static void test_middle_pass(void **state)
{
	struct wl_tput *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	/* 1 GiB in 2 s, 1 s and 4 s: the 1 s pass is the fastest, the
	 * middle one by rate is the 2 s pass, with its own CPU time. */
	set_pass(t, 0, 1ULL << 30, 2000000000, 500000000);
	set_pass(t, 1, 1ULL << 30, 1000000000, 900000000);
	set_pass(t, 2, 1ULL << 30, 4000000000, 100000000);
	t->npasses = 3;
	wl_tput__summarize(t);
	assert_float_equal(t->bytes_per_s, (double)(1ULL << 30) / 2, 1e-6);
	assert_float_equal(t->min_bytes_per_s, (double)(1ULL << 30) / 4, 1e-6);
	assert_float_equal(t->max_bytes_per_s, (double)(1ULL << 30), 1e-6);
	assert_float_equal(t->cpu_ns_per_gib, 500000000, 1e-6);
	/* An even count: the slower of the two middle passes. */
	set_pass(t, 3, 1ULL << 29, 250000000, 0);
	t->npasses = 4;
	wl_tput__summarize(t);
	assert_float_equal(t->bytes_per_s, (double)(1ULL << 30) / 2, 1e-6);
	assert_float_equal(t->max_bytes_per_s, (double)(1ULL << 31), 1e-6);
	/* A pass the clock could not time has no rate. */
	set_pass(t, 0, 4096, 0, 0);
	t->npasses = 1;
	wl_tput__summarize(t);
	assert_float_equal(t->bytes_per_s, 0, 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes_read_the_whole_file),
		cmocka_unit_test(test_middle_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
