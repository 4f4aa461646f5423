// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the read engine (src/workload/read*.c): the ways' table,
 * what one call counts at each level the probes see, the verdict on a
 * call's buffer (every failure kind, with the texts a report keeps), and
 * real reads of a temp file by every way that needs no root, their bytes
 * brought back from the pipe, socket or output file they went to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "workload/pattern.h"
#include "workload/read.h"

#define PAGE 4096ULL
#define FILE_SIZE (3 * 65536ULL + 1234)

static void test_table(void **state)
{
	(void)state;
	for (int w = 0; w < WL_WAY_NR; w++) {
		const struct wl_way_info *wi = wl_way__info(w);

		assert_int_equal(wl_way__parse(wl_way__name(w)), w);
		/* A way that needs io_uring is seen as io_uring's; one
		 * that puts its bytes elsewhere than the buffer goes
		 * through a pipe in the kernel. */
		assert_int_equal(wi->need == WL_NEED_URING,
				 wi->seen == WL_SEEN_URING);
		assert_int_equal(wi->back != WL_BACK_USER,
				 wi->seen == WL_SEEN_PIPED);
		assert_int_equal(wi->sectors, w == WL_WAY_LOOP);
		assert_false(wi->moves && wi->seen != WL_SEEN_SYSCALL);
	}
	assert_int_equal(wl_way__parse("sendfile-socket"),
			 WL_WAY_SENDFILE_SOCK);
	assert_int_equal(wl_way__parse("preadv"), -1);
	assert_int_equal(wl_way__info(WL_WAY_SENDFILE_SOCK)->need,
			 WL_NEED_SOCKET);
	assert_true(wl_way__info(WL_WAY_COPY_OTHER_FS)->other_fs);
	assert_true(wl_way__info(WL_WAY_COPY_SAME)->same_file);
}

static void count(enum wl_way w, int rwf, __u64 pos, __u64 len, bool made,
		  ssize_t ret, int err, struct wl_totals *t)
{
	struct wl_read_req q = { .pos = pos, .len = len };
	struct wl_read_res res = { .made = made, .ret = ret, .err = err };

	memset(t, 0, sizeof(*t));
	wl_read__count(w, rwf, &q, &res, PAGE, t);
}

static void test_count(void **state)
{
	struct wl_totals t;

	(void)state;
	/* A read syscall: one call at both levels. */
	count(WL_WAY_READV, 0, 0, 100, true, 60, 0, &t);
	assert_int_equal(t.sys.calls, 1);
	assert_int_equal(t.sys.bytes, 60);
	assert_int_equal(t.func.calls, 1);
	assert_int_equal(t.func.bytes, 60);
	count(WL_WAY_PREAD, 0, 0, 100, true, -1, EIO, &t);
	assert_int_equal(t.sys.errors, 1);
	assert_int_equal(t.func.errors, 1);
	/* A flag the filesystem refuses never reaches the function; a
	 * read that would block does. */
	count(WL_WAY_PREADV2, RWF_NOWAIT, 0, 100, true, -1, EOPNOTSUPP, &t);
	assert_int_equal(t.sys.calls, 1);
	assert_int_equal(t.func.calls, 0);
	count(WL_WAY_PREADV2, RWF_NOWAIT, 0, 100, true, -1, EAGAIN, &t);
	assert_int_equal(t.func.calls, 1);
	assert_int_equal(t.func.errors, 1);
	/* io_uring: no syscall; a short read may be read once more. */
	count(WL_WAY_URING_READ, 0, 0, 100, true, 60, 0, &t);
	assert_int_equal(t.sys.calls, 0);
	assert_int_equal(t.func.calls, 1);
	assert_int_equal(t.func.calls_slack, 1);
	assert_int_equal(t.via_uring, 1);
	/* Through a pipe: a call per pipe's worth, one a page at most. */
	count(WL_WAY_SPLICE, 0, 100, 3 * PAGE, true, (ssize_t)(3 * PAGE), 0,
	      &t);
	assert_int_equal(t.func.calls, 1);
	assert_int_equal(t.func.bytes, 3 * PAGE);
	assert_int_equal(t.func.calls_slack, 3);
	assert_int_equal(t.via_pipe, 1);
	count(WL_WAY_SENDFILE, 0, 0, 100, true, 0, 0, &t);
	assert_int_equal(t.func.calls, 0);
	assert_int_equal(t.func.calls_slack, 1);
	count(WL_WAY_COPY_RANGE, 0, 0, 100, true, -1, EXDEV, &t);
	assert_int_equal(t.func.calls + t.func.calls_slack + t.func.errors, 0);
	assert_int_equal(t.via_pipe, 1);
	/* The loop worker's reads are none of this process's. */
	count(WL_WAY_LOOP, 0, 0, 512, true, 512, 0, &t);
	assert_int_equal(t.func.calls + t.sys.calls, 0);
	assert_int_equal(t.via_loop, 1);
	/* A call not made counts nothing. */
	count(WL_WAY_READ, 0, 0, 100, false, 0, 0, &t);
	assert_int_equal(t.sys.calls + t.func.calls + t.via_pipe, 0);
}

/* ---- the verdict on a call's buffer ---- */

static unsigned char file_bytes[FILE_SIZE];

static size_t bytes_diff(const void *ctx, __u64 off, const void *buf,
			 size_t len)
{
	return wl_bytes__first_diff(buf, (const unsigned char *)ctx + off, len);
}

static unsigned char bytes_byte(const void *ctx, __u64 off)
{
	return ((const unsigned char *)ctx)[off];
}

struct call {
	unsigned char *mem;
	struct wl_rbuf b;
	struct wl_read_res res;
	struct wl_read_truth t;
	struct wl_read_verdict v;
};

/* A call of len bytes at pos in n iovecs that returned ret, its bytes
 * the file's. */
static void call_init(struct call *c, __u64 pos, __u64 len, __u32 n,
		      ssize_t ret)
{
	__u64 done = 0;

	c->mem = calloc(1, PAGE + wl_rbuf__span(len, n));
	assert_non_null(c->mem);
	wl_rbuf__layout(&c->b, c->mem + PAGE, len, n);
	wl_rbuf__poison(&c->b, WL_POISON_BASE + 77);
	for (__u32 j = 0; j < n && ret > 0 && done < (__u64)ret; j++) {
		__u64 k = c->b.iov[j].iov_len;

		if (k > ret - done)
			k = ret - done;
		memcpy(c->b.iov[j].iov_base, file_bytes + pos + done, k);
		done += k;
	}
	memset(&c->res, 0, sizeof(c->res));
	c->res.made = true;
	c->res.ret = ret;
	c->res.back = ret > 0 ? ret : 0;
	memset(&c->t, 0, sizeof(c->t));
	c->t.want = (__u64)ret;
	c->t.diff = bytes_diff;
	c->t.byte = bytes_byte;
	c->t.ctx = file_bytes;
}

/* The verdict's kind, NULL for a pass. */
static const char *verdict(struct call *c, __u64 pos)
{
	return wl_read__check(&c->b, pos, &c->res, &c->t, &c->v) ? NULL
								 : c->v.kind;
}

static void test_verdicts(void **state)
{
	struct call c;
	unsigned char *p;

	(void)state;
	wl_pattern__fill(file_bytes, 0, sizeof(file_bytes));
	/* Right: pass. */
	call_init(&c, 100, 5000, 3, 5000);
	assert_null(verdict(&c, 100));
	/* A wrong count. */
	c.t.want = 4999;
	assert_string_equal(verdict(&c, 100), FS_CASE_ANSWER);
	assert_string_equal(c.v.got, "ret=5000");
	/* Fewer, but not none, is right for a way through a pipe. */
	c.t.want = 6000;
	c.t.short_ok = true;
	assert_null(verdict(&c, 100));
	c.res.ret = 0;
	assert_string_equal(verdict(&c, 100), FS_CASE_ANSWER);
	free(c.mem);
	/* RWF_NOWAIT: EAGAIN and EOPNOTSUPP are answers too. */
	call_init(&c, 0, 100, 1, -1);
	c.t.want = 100;
	c.res.err = EAGAIN;
	assert_string_equal(verdict(&c, 0), FS_CASE_ANSWER);
	assert_string_equal(c.v.got, "error -11 (Resource temporarily "
				     "unavailable)");
	c.t.nowait = true;
	assert_null(verdict(&c, 0));
	free(c.mem);
	/* Bytes that did not come back whole: short, failed, with and
	 * without an errno; a step before the call that failed. */
	call_init(&c, 0, 100, 1, 100);
	c.res.back = 60;
	c.res.back_from = "the pipe";
	assert_string_equal(verdict(&c, 0), WL_KIND_READ_BACK);
	assert_string_equal(c.v.got,
			    "ret=100, 60 of its bytes came back from the pipe");
	c.res.back = -1;
	c.res.back_failed = "recv from the socket";
	c.res.back_err = ECONNRESET;
	assert_string_equal(verdict(&c, 0), WL_KIND_READ_BACK);
	assert_string_equal(c.v.got, "ret=100, recv from the socket failed: "
				     "Connection reset by peer");
	c.res.back_err = 0;
	verdict(&c, 0);
	assert_string_equal(c.v.got, "ret=100, recv from the socket failed: "
				     "no errno set");
	c.res.made = false;
	c.res.back_failed = "empty the output file";
	c.res.back_err = EIO;
	assert_string_equal(verdict(&c, 0), WL_KIND_READ_BACK);
	assert_string_equal(c.v.got, "empty the output file failed: "
				     "Input/output error");
	free(c.mem);
	/* A byte left as the poison was, and a wrong one. */
	call_init(&c, 8, 64, 2, 64);
	p = c.b.iov[1].iov_base;
	wl_poison__fill(p + 3, c.b.seed + c.b.iov[0].iov_len + 3, 4);
	assert_string_equal(verdict(&c, 8), WL_KIND_UNWRITTEN);
	assert_true(strstr(c.v.got, "file offset 43: ") != NULL);
	assert_true(strstr(c.v.got, "(not written)") != NULL);
	memcpy(p + 3, file_bytes + 43, 4);
	p[5] ^= 0x40;
	assert_string_equal(verdict(&c, 8), WL_KIND_DATA);
	p[5] ^= 0x40;
	assert_null(verdict(&c, 8));
	/* --inject-wrong-expectation: the first byte expected flipped. */
	c.t.inject = true;
	assert_string_equal(verdict(&c, 8), WL_KIND_DATA);
	c.t.inject = false;
	free(c.mem);
	/* A short read that wrote past its return, then into a gap and a
	 * guard. */
	call_init(&c, 0, 64, 2, 40);
	c.t.want = 40;
	p = c.b.iov[1].iov_base;
	p[10] ^= 1;
	assert_string_equal(verdict(&c, 0), WL_KIND_PAST);
	assert_string_equal(c.v.got, "ret=40, wrote iovec 1 byte 10 (buffer "
				     "byte 42) past ret");
	p[10] ^= 1;
	/* The gap between the iovecs (32 bytes each), the last guard, the
	 * first guard. */
	p[-2] = 0;
	assert_string_equal(verdict(&c, 0), WL_KIND_GUARD);
	assert_string_equal(c.v.got,
			    "ret=40, wrote outside the buffer at base+33");
	p[-2] = 0xa5;
	p[32 + 5] = 0;
	verdict(&c, 0);
	assert_string_equal(c.v.got,
			    "ret=40, wrote outside the buffer at base+72");
	p[32 + 5] = 0xa5;
	c.b.base[-1] = 0;
	verdict(&c, 0);
	assert_string_equal(c.v.got,
			    "ret=40, wrote outside the buffer at base-1");
	free(c.mem);
}

/* ---- real reads of a temp file, every way that needs no root ---- */

static char dir[] = "/tmp/fs-test-read.XXXXXX";
static char path[sizeof(dir) + 8];

static int setup(void **state)
{
	int fd;

	(void)state;
	wl_pattern__fill(file_bytes, 0, sizeof(file_bytes));
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0 || write(fd, file_bytes, FILE_SIZE) != (ssize_t)FILE_SIZE)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

/* The file read whole by way w in calls of bs: every call checked. */
static void read_whole(enum wl_way w, __u64 bs, __u32 n)
{
	const struct wl_way_info *wi = wl_way__info(w);
	struct wl_reader_opts ro = {
		.way = w,
		.path = path,
		.fd = -1,
		.outdir = dir,
		.bs = bs,
	};
	struct wl_read_truth t = {
		.short_ok = wi->seen == WL_SEEN_PIPED,
		.diff = bytes_diff,
		.byte = bytes_byte,
		.ctx = file_bytes,
	};
	unsigned char *mem = calloc(1, PAGE + wl_rbuf__span(bs, n));
	struct wl_read_verdict v;
	struct wl_read_res res;
	struct wl_totals tot = { 0 };
	struct wl_reader r;
	struct wl_rbuf b;
	const char *failed;
	__u64 pos = 0, calls = 0;
	int err;

	assert_non_null(mem);
	ro.fixed = (struct iovec){ mem, PAGE + wl_rbuf__span(bs, n) };
	wl_rbuf__layout(&b, mem + PAGE, bs, wi->iovecs ? n : 1);
	err = wl_reader__open(&r, &ro, &failed);
	if (err && wi->need == WL_NEED_URING) {
		print_message("%s: skipped, %s: %s\n", wl_way__name(w), failed,
			      strerror(-err));
		goto out;
	}
	assert_int_equal(err, 0);
	for (;;) {
		struct wl_read_req q = { .pos = pos,
					 .len = bs,
					 .buf = b.base,
					 .iov = b.iov,
					 .niov = b.n };

		wl_rbuf__poison(&b, WL_POISON_BASE + calls * 4099);
		wl_reader__read(&r, &q, &res);
		wl_read__count(w, 0, &q, &res, PAGE, &tot);
		t.want = pos < FILE_SIZE
				 ? (FILE_SIZE - pos < bs ? FILE_SIZE - pos : bs)
				 : 0;
		if (!wl_read__check(&b, pos, &res, &t, &v))
			fail_msg("%s at %llu: %s: want %s, got %s",
				 wl_way__name(w), (unsigned long long)pos,
				 v.kind, v.want, v.got);
		calls++;
		if (res.ret <= 0)
			break;
		pos += (__u64)res.ret;
	}
	assert_int_equal(pos, FILE_SIZE);
	/* What the counts say of the bytes: at function level the file
	 * once, for every way but the loop worker's. */
	assert_int_equal(tot.func.bytes, FILE_SIZE);
out:
	wl_reader__close(&r);
	free(mem);
}

static void test_real_reads(void **state)
{
	(void)state;
	for (int w = 0; w < WL_WAY_NR; w++) {
		const struct wl_way_info *wi = wl_way__info(w);

		/* A loop device needs root; another filesystem is the
		 * kernel's own choice to refuse (EXDEV). */
		if (wi->need == WL_NEED_LOOP || wi->other_fs)
			continue;
		read_whole(w, 65536 + 7, 3);
		read_whole(w, 4096, 2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_real_reads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
