// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests: text and JSON reporters, JSON write/read round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "report/report.h"
#include "version.h"
#include "util/util.h"

#define STARS40 "****************************************"
#define BLANK40 "                                        "

/* ---- fixtures ---- */

static void set_str(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s);
}

#define SET(field, s) set_str(field, sizeof(field), s)

/*
 * A dedupe run: every kind of histogram state (ranges with a gap, align,
 * not measured, empty, the open-ended last slot), plus a workload.
 * shmem is disabled.
 */
static void make_report(struct fs_report *r)
{
	static struct fs_stats st;
	struct fs_target_report *tr = &r->target[FS_TGT_DEDUPE];

	model__init(r);
	/* Fixed host facts, so the text does not depend on the machine. */
	memset(r->kernel, 0, sizeof(r->kernel));
	memset(r->machine, 0, sizeof(r->machine));
	SET(r->kernel, "6.1.0-test");
	SET(r->machine, "x86_64");
	r->page_size = 4096;

	model__enable(r, FS_TGT_DEDUPE, true);
	SET(tr->attach.function, "vfs_dedupe_file_range_compare");
	SET(tr->attach.symbol, "vfs_dedupe_file_range_compare");
	SET(tr->attach.mechanism, "fentry");
	SET(tr->attach.reason, "symbol and BTF present: fentry");

	memset(&st, 0, sizeof(st));
	st.hist[FS_DD_BYTES].slot[13] = 3;
	st.hist[FS_DD_BYTES].slot[15] = 1;
	st.hist[FS_DD_BYTES].sum = 3 * 4096 + 16384;
	st.hist[FS_DD_SRC_ALIGN].slot[13] = 2;
	st.hist[FS_DD_SRC_ALIGN].slot[22] = 5;
	st.hist[FS_DD_SRC_ALIGN].sum = 2 * 4096 + 5 * (1ULL << 21);
	st.hist[FS_DD_LATENCY].slot[11] = 7;
	st.hist[FS_DD_LATENCY].slot[FS_SLOTS - 1] = 1;
	st.hist[FS_DD_LATENCY].sum = 12345;
	st.counter[FS_DD_CALLS] = 4;
	st.counter[FS_DD_SAME] = 3;
	st.counter[FS_DD_DIFFERS] = 1;
	model__add_stats(r, FS_TGT_DEDUPE, &st);
	model__not_measured(r, FS_TGT_DEDUPE, FS_DD_DST_ALIGN,
			    "no offset argument on this kernel");

	SET(r->workload_name, "dedupe-bench");
	model__kv_u64(r, "files", 4);
	model__kv_str(r, "mode", "random");
	model__kv_u64(r, "max", UINT64_MAX);
}

/* Both targets, extreme values: what the round trip must carry. */
static void make_full_report(struct fs_report *r)
{
	struct fs_target_report *sh = &r->target[FS_TGT_SHMEM];

	make_report(r);
	SET(r->target[FS_TGT_DEDUPE].attach.mechanism, "kprobe-inline");
	r->target[FS_TGT_DEDUPE].attach.inline_sites = 1;
	SET(r->target[FS_TGT_DEDUPE].attach.dwarf,
	    "/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64 (distribution "
	    "path)");
	model__enable(r, FS_TGT_SHMEM, true);
	SET(sh->attach.function, "shmem_file_read_iter");
	SET(sh->attach.symbol, "filemap_read");
	SET(sh->attach.mechanism, "kprobe");
	sh->attach.inlined = true;
	SET(sh->attach.reason, "inlined into its caller; \"quoted\" \\ and "
			       "a tab\there");
	sh->hist[FS_SH_BYTES].slot[0] = 1;
	sh->hist[FS_SH_BYTES].slot[FS_SLOTS - 1] = UINT64_MAX - 1;
	sh->hist[FS_SH_BYTES].count = UINT64_MAX;
	sh->hist[FS_SH_BYTES].sum = UINT64_MAX;
	sh->hist[FS_SH_BUF_ALIGN].slot[1] = 9;
	sh->hist[FS_SH_BUF_ALIGN].count = 9;
	sh->hist[FS_SH_BUF_ALIGN].sum = 9;
	sh->counter[FS_SH_CALLS] = UINT64_MAX;
	sh->counter[FS_SH_ERRORS] = 2;
	model__not_measured(r, FS_TGT_SHMEM, FS_SH_FOLIO_SIZE,
			    "folio not reachable from kprobe args");
	model__not_measured(r, FS_TGT_SHMEM, FS_SH_COPY_BYTES, "");
	model__kv_str(r, "empty", "");
	model__kv_u64(r, "zero", 0);
}

/* ---- helpers ---- */

static char *text_of(const struct fs_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report__text(f, r), 0);
	fclose(f);
	return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing from output:\n%s\n--- output:\n%s", needle,
			 hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("unexpected in output:\n%s", needle);
}

static struct json_object *child(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no key '%s'", key);
	return v;
}

static __u64 u64_of(struct json_object *o, const char *key)
{
	struct json_object *v = child(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_uint64(v);
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v = child(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static bool has(struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

static void assert_bucket(struct json_object *arr, size_t i, __u64 lo, __u64 hi,
			  __u64 count)
{
	struct json_object *b = json_object_array_get_idx(arr, i);

	assert_non_null(b);
	assert_int_equal(json_object_object_length(b), 3);
	assert_int_equal(u64_of(b, "lo"), lo);
	assert_int_equal(u64_of(b, "hi"), hi);
	assert_int_equal(u64_of(b, "count"), count);
}

static char *make_dir(void)
{
	char *dir = strdup("/tmp/folioscope-unit.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void remove_dir(char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static int count_entries(const char *dir)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *path_in(const char *dir, const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void write_text_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/*
 * Point fd (stdout or stderr) at a temp file around a call. No cmocka
 * assertion may run while redirected: a failure would longjmp out with the
 * stream still captured.
 */
struct capture {
	int fd, saved, tmp;
	char path[64];
};

static void capture_start(struct capture *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	snprintf(c->path, sizeof(c->path), "/tmp/folioscope-cap.XXXXXX");
	c->tmp = mkstemp(c->path);
	c->saved = dup(fd);
	if (c->tmp >= 0 && c->saved >= 0)
		dup2(c->tmp, fd);
}

static char *capture_stop(struct capture *c)
{
	char *buf = calloc(1, 65536);
	ssize_t n = 0;

	fflush(stdout);
	fflush(stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	if (buf && c->tmp >= 0)
		n = pread(c->tmp, buf, 65535, 0);
	close(c->tmp);
	unlink(c->path);
	assert_non_null(buf);
	assert_true(n >= 0);
	return buf;
}

static void assert_same_report(const struct fs_report *a,
			       const struct fs_report *b)
{
	assert_string_equal(a->tool_version, b->tool_version);
	assert_string_equal(a->kernel, b->kernel);
	assert_string_equal(a->machine, b->machine);
	assert_int_equal(a->page_size, b->page_size);
	assert_int_equal(a->filters.npids, b->filters.npids);
	for (int i = 0; i < a->filters.npids; i++)
		assert_int_equal(a->filters.pids[i], b->filters.pids[i]);
	assert_string_equal(a->filters.comm, b->filters.comm);
	assert_string_equal(a->filters.cgroup, b->filters.cgroup);
	assert_string_equal(a->filters.dev, b->filters.dev);
	assert_string_equal(a->filters.fs, b->filters.fs);
	assert_string_equal(a->filters.command, b->filters.command);
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *x = &a->target[t];
		const struct fs_target_report *y = &b->target[t];

		assert_int_equal(x->enabled, y->enabled);
		if (!x->enabled)
			continue;
		assert_ptr_equal(x->name, y->name);
		assert_string_equal(x->attach.function, y->attach.function);
		assert_string_equal(x->attach.symbol, y->attach.symbol);
		assert_string_equal(x->attach.mechanism, y->attach.mechanism);
		assert_int_equal(x->attach.inlined, y->attach.inlined);
		assert_string_equal(x->attach.reason, y->attach.reason);
		assert_int_equal(x->attach.inline_sites,
				 y->attach.inline_sites);
		assert_string_equal(x->attach.dwarf, y->attach.dwarf);
		assert_int_equal(x->ncounters, y->ncounters);
		assert_ptr_equal(x->counter_spec, y->counter_spec);
		for (int c = 0; c < x->ncounters; c++)
			assert_int_equal(x->counter[c], y->counter[c]);
		assert_int_equal(x->nhists, y->nhists);
		for (int i = 0; i < x->nhists; i++) {
			const struct fs_histogram *g = &x->hist[i];
			const struct fs_histogram *h = &y->hist[i];

			assert_ptr_equal(g->spec, h->spec);
			assert_int_equal(g->measured, h->measured);
			assert_string_equal(g->why, h->why);
			assert_memory_equal(g->slot, h->slot, sizeof(g->slot));
			assert_int_equal(g->count, h->count);
			assert_int_equal(g->sum, h->sum);
		}
	}
	assert_string_equal(a->workload_name, b->workload_name);
	assert_int_equal(a->nkv, b->nkv);
	for (int i = 0; i < a->nkv; i++) {
		assert_string_equal(a->kv[i].key, b->kv[i].key);
		assert_int_equal(a->kv[i].type, b->kv[i].type);
		if (a->kv[i].type == FS_KV_U64)
			assert_int_equal(a->kv[i].u, b->kv[i].u);
		else
			assert_string_equal(a->kv[i].s, b->kv[i].s);
	}
}

/* ---- text ---- */

static void test_text_target(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	out = text_of(&r);
	assert_contains(out, "folioscope " FOLIOSCOPE_VERSION
			     ", kernel 6.1.0-test, x86_64, page size 4096\n");
	assert_contains(out,
			"\ndedupe:\n"
			"  function:  vfs_dedupe_file_range_compare\n"
			"  symbol:    vfs_dedupe_file_range_compare\n"
			"  mechanism: fentry\n"
			"  inlined:   no\n"
			"  reason:    symbol and BTF present: fentry\n"
			"  counters:  calls 4, same 3, differs 1, "
			"errors 0, dropped 0, missed 0, compat_skipped 0\n");
	/* Nothing skipped: no line about it. */
	assert_lacks(out, "skipped:");
	/* Disabled targets are not shown at all. */
	assert_lacks(out, "shmem");
	free(out);
}

/* What the syscall level counted apart, spelled out under the counters. */
static void test_text_skips(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	model__enable(&r, FS_TGT_SHMEM, true);
	r.target[FS_TGT_SHMEM].counter[FS_SH_IOV_BEYOND] = 3;
	r.target[FS_TGT_DEDUPE].counter[FS_DD_COMPAT] = 5;
	out = text_of(&r);
	assert_contains(out, "compat_skipped 5\n"
			     "  32-bit (compat) syscalls skipped: 5, not "
			     "decoded (not in any histogram)\n");
	assert_contains(out, "iov_beyond 3, compat_skipped 0\n"
			     "  iovecs beyond 64: 3 calls counted, req_bytes "
			     "partial (their first 64 iovecs summed)\n");
	free(out);
}

/* The event counters: a line of their own, when events were selected or
 * counted, never on the counters line. */
static void test_text_events(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	model__enable(&r, FS_TGT_SHMEM, true);
	out = text_of(&r);
	assert_lacks(out, "  events ");
	free(out);
	r.target[FS_TGT_DEDUPE].events = true;
	r.target[FS_TGT_SHMEM].counter[FS_SH_EVENTS] = 7;
	r.target[FS_TGT_SHMEM].counter[FS_SH_EV_LOST] = 3;
	out = text_of(&r);
	assert_contains(out, "missed 0, compat_skipped 0\n"
			     "  events 0, events lost 0\n");
	assert_contains(out, "compat_skipped 0\n"
			     "  events 7, events lost 3\n");
	assert_lacks(out, "events_lost");
	free(out);
}

static void test_text_log2(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	out = text_of(&r);
	assert_contains(out, "  bytes (bytes): length compared per call; "
			     "count 4, sum 28672 (28K)\n"
			     "     bytes               : count    "
			     "distribution\n"
			     "        4K -> 8K-1       : 3        |" STARS40
			     "| 4096 -> 8191\n"
			     "        8K -> 16K-1      : 0        |" BLANK40
			     "| 8192 -> 16383\n"
			     "       16K -> 32K-1      : 1        "
			     "|*************                           "
			     "| 16384 -> 32767\n");
	/* Only first..last non-empty slot. */
	assert_lacks(out, "2K -> 4K-1");
	assert_lacks(out, "32K -> 64K-1");
	/* ns in decimal units; the last slot runs to UINT64_MAX. */
	assert_contains(out, "     1.02us -> 2.05us       : 7        |" STARS40
			     "| 1024 -> 2047\n");
	assert_contains(out, "|*****                                   "
			     "| 4611686018427387904 -> 18446744073709551615\n");
	free(out);
}

static void test_text_align(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	out = text_of(&r);
	assert_contains(out, "  src_align (bytes): alignment of the source "
			     "file offset; count 7, sum 10493952 (10.0M)\n"
			     "     bytes : count    distribution\n"
			     "        4K : 2        "
			     "|****************                        | 4096\n"
			     "        8K : 0        |" BLANK40 "| 8192\n");
	/* The cap holds 2 MiB and more. */
	assert_contains(out, "       2M+ : 5        |" STARS40 "| 2097152\n");
	/* Single values, never ranges. */
	assert_lacks(out, "4K -> 4K");
	free(out);
}

/* Offset 0 in slot 0, labelled so, and the rows go on at the next
 * non-empty slot. */
static void test_text_align_offset0(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	r.target[FS_TGT_DEDUPE].hist[FS_DD_SRC_ALIGN].slot[0] = 1;
	r.target[FS_TGT_DEDUPE].hist[FS_DD_SRC_ALIGN].count++;
	out = text_of(&r);
	assert_contains(out, "     bytes : count    distribution\n"
			     "  offset 0 : 1        |********"
			     "                                |\n"
			     "        4K : 2        ");
	free(out);
}

static void test_text_not_measured_and_empty(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	out = text_of(&r);
	assert_contains(out, "\n  dst_align: not measured "
			     "(no offset argument on this kernel)\n");
	/* Never a histogram header that could read as zero events. */
	assert_lacks(out, "dst_align (");
	assert_contains(out, "\n  folio_size: no events\n");
	assert_lacks(out, "folio_size (");
	free(out);
}

static void test_text_small_values(void **state)
{
	static struct fs_report r;
	struct fs_target_report *sh;
	char *out;

	model__init(&r);
	model__enable(&r, FS_TGT_SHMEM, true);
	sh = &r.target[FS_TGT_SHMEM];
	sh->hist[FS_SH_REQ_BYTES].slot[0] = 2;
	sh->hist[FS_SH_REQ_BYTES].slot[2] = 1;
	sh->hist[FS_SH_REQ_BYTES].count = 3;
	sh->hist[FS_SH_REQ_BYTES].sum = 3;
	out = text_of(&r);
	/* Plain numbers need no exact copy after the bar. */
	assert_contains(out,
			"         0 -> 0          : 2        |" STARS40 "|\n"
			"         1 -> 1          : 0        |" BLANK40 "|\n"
			"         2 -> 3          : 1        "
			"|********************                    |\n");
	assert_contains(out, "  mechanism: none\n");
	assert_contains(out, "  symbol:    -\n");
	assert_lacks(out, "workload");
	free(out);
}

static void test_text_workload(void **state)
{
	static struct fs_report r;
	char *out;

	make_report(&r);
	out = text_of(&r);
	assert_contains(out, "\nworkload: dedupe-bench\n"
			     "  files: 4\n"
			     "  mode: random\n"
			     "  max: 18446744073709551615\n");
	free(out);
}

static void test_text_nothing_enabled(void **state)
{
	static struct fs_report r;
	char *out;

	model__init(&r);
	out = text_of(&r);
	assert_contains(out, "no target enabled\n");
	free(out);
}

static void test_text_write_error(void **state)
{
	static struct fs_report r;
	FILE *f;

	f = fopen("/dev/full", "w");
	if (!f)
		skip();
	make_report(&r);
	assert_int_equal(report__text(f, &r), -EIO);
	fclose(f);
}

/* ---- JSON ---- */

static void test_json_schema(void **state)
{
	static struct fs_report r;
	struct json_object *root, *o, *dd, *h;

	make_report(&r);
	root = report__to_json(&r);
	assert_non_null(root);

	assert_int_equal(json_object_object_length(root), 5);
	assert_string_equal(str_of(root, "schema"), "folioscope/1");
	assert_string_equal(str_of(child(root, "tool"), "version"),
			    FOLIOSCOPE_VERSION);
	o = child(root, "host");
	assert_int_equal(json_object_object_length(o), 3);
	assert_string_equal(str_of(o, "kernel"), "6.1.0-test");
	assert_string_equal(str_of(o, "machine"), "x86_64");
	assert_int_equal(u64_of(o, "page_size"), 4096);

	/* Only enabled targets. */
	o = child(root, "targets");
	assert_int_equal(json_object_object_length(o), 1);
	assert_false(has(o, "shmem"));
	dd = child(o, "dedupe");
	o = child(dd, "attach");
	assert_int_equal(json_object_object_length(o), 5);
	assert_string_equal(str_of(o, "function"),
			    "vfs_dedupe_file_range_compare");
	assert_string_equal(str_of(o, "symbol"),
			    "vfs_dedupe_file_range_compare");
	assert_string_equal(str_of(o, "mechanism"), "fentry");
	assert_true(
		json_object_is_type(child(o, "inlined"), json_type_boolean));
	assert_false(json_object_get_boolean(child(o, "inlined")));
	assert_string_equal(str_of(o, "reason"),
			    "symbol and BTF present: fentry");
	assert_int_equal(u64_of(dd, "calls"), 4);
	assert_int_equal(u64_of(dd, "errors"), 0);
	o = child(dd, "counters");
	/* calls, same, differs, errors, dropped, missed */
	assert_int_equal(json_object_object_length(o), FS_DD_NCOUNTERS);
	assert_int_equal(u64_of(o, "calls"), 4);
	assert_int_equal(u64_of(o, "same"), 3);
	assert_int_equal(u64_of(o, "differs"), 1);
	assert_int_equal(u64_of(o, "errors"), 0);
	h = child(dd, "histograms");
	assert_int_equal(json_object_object_length(h), FS_DD_NHIST);

	o = child(h, "bytes");
	assert_int_equal(json_object_object_length(o), 6);
	assert_string_equal(str_of(o, "unit"), "bytes");
	assert_string_equal(str_of(o, "kind"), "log2");
	assert_true(json_object_get_boolean(child(o, "measured")));
	assert_int_equal(u64_of(o, "count"), 4);
	assert_int_equal(u64_of(o, "sum"), 28672);
	o = child(o, "buckets");
	assert_int_equal(json_object_array_length(o), 3);
	assert_bucket(o, 0, 4096, 8191, 3);
	assert_bucket(o, 1, 8192, 16383, 0);
	assert_bucket(o, 2, 16384, 32767, 1);

	o = child(h, "src_align");
	assert_string_equal(str_of(o, "kind"), "align");
	assert_int_equal(u64_of(o, "count"), 7);
	o = child(o, "buckets");
	assert_int_equal(json_object_array_length(o), 10);
	assert_bucket(o, 0, 4096, 4096, 2);
	assert_bucket(o, 1, 8192, 8192, 0);
	assert_bucket(o, 9, 1ULL << 21, 1ULL << 21, 5);

	o = child(h, "dst_align");
	assert_int_equal(json_object_object_length(o), 4);
	assert_false(json_object_get_boolean(child(o, "measured")));
	assert_string_equal(str_of(o, "why"),
			    "no offset argument on this kernel");
	assert_false(has(o, "buckets"));
	assert_false(has(o, "count"));

	o = child(h, "folio_size");
	assert_true(json_object_get_boolean(child(o, "measured")));
	assert_int_equal(u64_of(o, "count"), 0);
	assert_int_equal(json_object_array_length(child(o, "buckets")), 0);

	o = child(h, "latency_ns");
	assert_string_equal(str_of(o, "unit"), "ns");
	o = child(o, "buckets");
	assert_int_equal(json_object_array_length(o), FS_SLOTS - 11);
	assert_bucket(o, 0, 1024, 2047, 7);
	assert_bucket(o, FS_SLOTS - 12, 1ULL << 62, UINT64_MAX, 1);

	o = child(root, "workload");
	assert_int_equal(json_object_object_length(o), 4);
	assert_string_equal(str_of(o, "name"), "dedupe-bench");
	assert_int_equal(u64_of(o, "files"), 4);
	assert_string_equal(str_of(o, "mode"), "random");
	assert_int_equal(u64_of(o, "max"), UINT64_MAX);

	/* u64 must not go through int64 or double on the way out. */
	assert_non_null(strstr(json_object_to_json_string(root),
			       "18446744073709551615"));
	json_object_put(root);
}

static void test_json_no_workload(void **state)
{
	static struct fs_report r;
	struct json_object *root;

	model__init(&r);
	root = report__to_json(&r);
	assert_non_null(root);
	assert_false(has(root, "workload"));
	assert_int_equal(json_object_object_length(child(root, "targets")), 0);
	json_object_put(root);
}

/* ---- write / read ---- */

static void test_json_round_trip(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), *path = path_in(dir, "report.json");
	struct stat st;
	mode_t old = umask(022);

	make_full_report(&r);
	assert_int_equal(report__json_write(&r, path), 0);
	umask(old);
	/* Renamed into place: no temp file left beside it. */
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	memset(&back, 0xa5, sizeof(back));
	assert_int_equal(report__json_read(path, &back), 0);
	assert_same_report(&r, &back);

	/* Overwriting an existing report works the same way. */
	r.target[FS_TGT_DEDUPE].counter[FS_DD_ERRORS] = 17;
	model__kv_str(&r, "mode", "sequential");
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_same_report(&r, &back);

	free(path);
	remove_dir(dir);
}

static void test_json_round_trip_minimal(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), *path = path_in(dir, "r.json");

	model__init(&r);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_same_report(&r, &back);
	assert_false(back.target[FS_TGT_DEDUPE].enabled);
	assert_false(back.target[FS_TGT_SHMEM].enabled);
	assert_int_equal(back.nkv, 0);
	free(path);
	remove_dir(dir);
}

static void test_json_stdout(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), *path = path_in(dir, "out.json");
	struct capture c;
	char *out;
	int err;

	make_full_report(&r);
	capture_start(&c, STDOUT_FILENO);
	err = report__json_write(&r, "-");
	out = capture_stop(&c);
	assert_int_equal(err, 0);
	assert_true(strlen(out) > 0 && out[strlen(out) - 1] == '\n');
	write_text_file(path, out);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_same_report(&r, &back);
	free(out);
	free(path);
	remove_dir(dir);
}

static void test_json_write_unwritable(void **state)
{
	static const char bad_path[] = "/nonexistent/dir/x.json";
	static struct fs_report r;
	struct capture c;
	char *err_text;
	int err;

	make_report(&r);
	capture_start(&c, STDERR_FILENO);
	err = report__json_write(&r, bad_path);
	err_text = capture_stop(&c);
	assert_int_equal(err, -ENOENT);
	assert_int_equal(access(bad_path, F_OK), -1);
	assert_string_equal(err_text, "folioscope: cannot write "
				      "'/nonexistent/dir/x.json': No such "
				      "file or directory\n");
	free(err_text);
}

/* Failure after the temp file exists (rename onto a directory). */
static void test_json_write_fails_late(void **state)
{
	static struct fs_report r;
	char *dir = make_dir(), *sub = path_in(dir, "sub");
	struct capture c;
	char *err_text;
	int err;

	assert_int_equal(mkdir(sub, 0755), 0);
	make_report(&r);
	capture_start(&c, STDERR_FILENO);
	err = report__json_write(&r, sub);
	err_text = capture_stop(&c);
	assert_true(err < 0);
	/* Only "sub": the temp file was removed. */
	assert_int_equal(count_entries(dir), 1);
	assert_non_null(strstr(err_text, "folioscope: cannot write '"));
	assert_non_null(strchr(err_text, '\n'));
	assert_int_equal(strchr(err_text, '\n')[1], '\0');
	free(err_text);
	free(sub);
	remove_dir(dir);
}

/*
 * Read path and expect err; r must stay untouched and stderr must get
 * exactly one line containing what.
 */
static void expect_read_error(const char *path, int want, const char *what)
{
	static struct fs_report r, before;
	struct capture c;
	char *err_text;
	int err;

	memset(&r, 0x5a, sizeof(r));
	before = r;
	capture_start(&c, STDERR_FILENO);
	err = report__json_read(path, &r);
	err_text = capture_stop(&c);
	if (err != want)
		fail_msg("%s: got %d, want %d (%s)", path, err, want, err_text);
	assert_memory_equal(&r, &before, sizeof(r));
	if (!strstr(err_text, what))
		fail_msg("stderr lacks '%s': %s", what, err_text);
	assert_true(!strncmp(err_text, "folioscope: ", 12));
	assert_non_null(strchr(err_text, '\n'));
	assert_int_equal(strchr(err_text, '\n')[1], '\0');
	free(err_text);
}

static void expect_text_rejected(const char *dir, const char *text,
				 const char *what)
{
	char *path = path_in(dir, "bad.json");

	write_text_file(path, text);
	expect_read_error(path, -EINVAL, what);
	free(path);
}

static void test_json_read_malformed(void **state)
{
	char *dir = make_dir();

	expect_text_rejected(dir, "", "unexpected end of input");
	expect_text_rejected(dir, "{", "unexpected end of input");
	expect_text_rejected(dir, "{\"schema\": \"folioscope/1\"",
			     "malformed JSON");
	expect_text_rejected(dir, "{\"schema\": \"folioscope/1\",}",
			     "malformed JSON");
	expect_text_rejected(dir, "{\"schema\": \"folioscope/1\"} x",
			     "trailing data");
	expect_text_rejected(dir, "[]", "expected object");
	expect_text_rejected(dir, "42", "expected object");
	expect_text_rejected(dir, "{}", "schema: missing");
	expect_text_rejected(dir, "{\"schema\": 1}", "schema: expected string");
	remove_dir(dir);
}

static void test_json_read_wrong_schema(void **state)
{
	char *dir = make_dir();

	expect_text_rejected(dir, "{\"schema\": \"folioscope/2\"}",
			     "schema 'folioscope/2', expected 'folioscope/1'");
	expect_text_rejected(dir, "{\"schema\": \"something-else\"}",
			     "schema 'something-else'");
	remove_dir(dir);
}

static void test_json_read_missing_file(void **state)
{
	expect_read_error("/nonexistent/dir/x.json", -ENOENT,
			  "cannot read '/nonexistent/dir/x.json': No such "
			  "file or directory");
}

/* Take a valid report's JSON, break one thing, expect rejection. */
typedef void (*mutate_fn)(struct json_object *root);

static struct json_object *dd_of(struct json_object *root)
{
	return child(child(root, "targets"), "dedupe");
}

static struct json_object *hist_obj(struct json_object *root, const char *name)
{
	return child(child(dd_of(root), "histograms"), name);
}

static void rename_key(struct json_object *o, const char *from, const char *to)
{
	json_object_object_add(o, to, json_object_get(child(o, from)));
	json_object_object_del(o, from);
}

static void set_key(struct json_object *o, const char *key,
		    struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static void m_unknown_target(struct json_object *root)
{
	rename_key(child(root, "targets"), "dedupe", "xfs");
}

static void m_unknown_hist(struct json_object *root)
{
	rename_key(child(dd_of(root), "histograms"), "bytes", "bites");
}

static void m_missing_hist(struct json_object *root)
{
	json_object_object_del(child(dd_of(root), "histograms"), "bytes");
}

static void m_unknown_counter(struct json_object *root)
{
	set_key(child(dd_of(root), "counters"), "retries",
		json_object_new_uint64(1));
}

static void m_bad_bucket_lo(struct json_object *root)
{
	struct json_object *b;

	b = json_object_array_get_idx(child(hist_obj(root, "bytes"), "buckets"),
				      0);
	set_key(b, "lo", json_object_new_uint64(4000));
}

static void m_bad_bucket_hi(struct json_object *root)
{
	struct json_object *b;

	/* An align bucket is a single value: hi == lo. */
	b = json_object_array_get_idx(
		child(hist_obj(root, "src_align"), "buckets"), 0);
	set_key(b, "hi", json_object_new_uint64(8191));
}

static void m_count_mismatch(struct json_object *root)
{
	set_key(hist_obj(root, "bytes"), "count", json_object_new_uint64(5));
}

static void m_negative(struct json_object *root)
{
	set_key(child(dd_of(root), "counters"), "same",
		json_object_new_int64(-1));
}

static void m_wrong_kind(struct json_object *root)
{
	set_key(hist_obj(root, "bytes"), "kind",
		json_object_new_string("align"));
}

static void m_why_missing(struct json_object *root)
{
	json_object_object_del(hist_obj(root, "dst_align"), "why");
}

static void m_calls_disagree(struct json_object *root)
{
	set_key(dd_of(root), "calls", json_object_new_uint64(5));
}

static void m_long_string(struct json_object *root)
{
	char s[100];

	memset(s, 'f', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	set_key(child(dd_of(root), "attach"), "function",
		json_object_new_string(s));
}

static void m_kv_type(struct json_object *root)
{
	set_key(child(root, "workload"), "ratio", json_object_new_double(0.5));
}

static void test_json_read_rejects(void **state)
{
	static const struct {
		mutate_fn fn;
		const char *what;
	} cases[] = {
		{ m_unknown_target, "targets.xfs: unknown target" },
		{ m_unknown_hist,
		  "targets.dedupe.histograms.bites: unknown histogram" },
		{ m_missing_hist, "targets.dedupe.histograms.bytes: missing" },
		{ m_unknown_counter, "retries: unknown counter" },
		{ m_bad_bucket_lo,
		  "[4000, 8191] is not a bucket of a log2 histogram" },
		{ m_bad_bucket_hi,
		  "[4096, 8191] is not a bucket of an align histogram" },
		{ m_count_mismatch, "count 5 but buckets add up to 4" },
		{ m_negative, "counters.same: negative value" },
		{ m_wrong_kind, "bytes.kind: 'align', expected 'log2'" },
		{ m_why_missing, "dst_align.why: missing" },
		{ m_calls_disagree, "dedupe.calls: 5 disagrees" },
		{ m_long_string, "attach.function: longer than 63 bytes" },
		{ m_kv_type, "workload.ratio: expected integer or string" },
	};
	static struct fs_report r;
	char *dir = make_dir(), *path = path_in(dir, "bad.json");

	make_report(&r);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct json_object *root = report__to_json(&r);

		assert_non_null(root);
		cases[i].fn(root);
		write_text_file(path, json_object_to_json_string(root));
		json_object_put(root);
		expect_read_error(path, -EINVAL, cases[i].what);
	}
	free(path);
	remove_dir(dir);
}

/*
 * make_report's dedupe totals split into two intervals: the first holds
 * the 4 KiB compares and calls 1..3, the second the rest.
 */
static void make_intervals(struct fs_report *r)
{
	static struct fs_report d1, d2;
	struct fs_target_report *a, *b;

	make_report(r);
	model__init(&d1);
	model__enable(&d1, FS_TGT_DEDUPE, true);
	a = &d1.target[FS_TGT_DEDUPE];
	a->hist[FS_DD_BYTES].slot[13] = 3;
	a->hist[FS_DD_BYTES].count = 3;
	a->hist[FS_DD_BYTES].sum = 3 * 4096;
	a->counter[FS_DD_CALLS] = 3;
	a->counter[FS_DD_SAME] = 3;
	memcpy(&d2, r, sizeof(d2));
	b = &d2.target[FS_TGT_DEDUPE];
	b->hist[FS_DD_BYTES].slot[13] -= 3;
	b->hist[FS_DD_BYTES].count -= 3;
	b->hist[FS_DD_BYTES].sum -= 3 * 4096;
	b->counter[FS_DD_CALLS] -= 3;
	b->counter[FS_DD_SAME] -= 3;
	assert_int_equal(model__interval_add(r, 0, 1000, &d1), 0);
	assert_int_equal(model__interval_add(r, 1000, 2500, &d2), 0);
}

static void test_json_intervals(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), *path = path_in(dir, "iv.json");
	struct json_object *root, *arr, *h;
	char why[128];

	make_intervals(&r);
	assert_true(model__intervals_add_up(&r, why, sizeof(why)));
	root = report__to_json(&r);
	assert_non_null(root);
	arr = child(root, "intervals");
	assert_int_equal(json_object_array_length(arr), 2);
	assert_int_equal(u64_of(json_object_array_get_idx(arr, 1), "start_ms"),
			 1000);
	assert_int_equal(u64_of(json_object_array_get_idx(arr, 1), "end_ms"),
			 2500);
	h = child(
		child(child(child(json_object_array_get_idx(arr, 0), "targets"),
			    "dedupe"),
		      "histograms"),
		"bytes");
	assert_int_equal(u64_of(h, "count"), 3);
	assert_int_equal(json_object_array_length(child(h, "buckets")), 1);
	assert_bucket(child(h, "buckets"), 0, 4096, 8191, 3);
	h = child(
		child(child(child(json_object_array_get_idx(arr, 1), "targets"),
			    "dedupe"),
		      "histograms"),
		"dst_align");
	assert_false(json_object_get_boolean(child(h, "measured")));
	json_object_put(root);

	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_same_report(&r, &back);
	assert_int_equal(back.nintervals, 2);
	assert_memory_equal(back.intervals, r.intervals,
			    2 * sizeof(*r.intervals));
	model__free(&back);

	/* The totals as the intervals' sum: what trace --serve's page
	 * shows while tracing. */
	memcpy(&back, &r, sizeof(back));
	memset(back.target[FS_TGT_DEDUPE].counter, 0xff,
	       sizeof(back.target[FS_TGT_DEDUPE].counter));
	memset(back.target[FS_TGT_DEDUPE].hist[FS_DD_BYTES].slot, 0,
	       sizeof(back.target[FS_TGT_DEDUPE].hist[FS_DD_BYTES].slot));
	back.target[FS_TGT_DEDUPE].hist[FS_DD_LATENCY].sum = 1;
	model__totals_from_intervals(&back);
	assert_same_report(&r, &back);

	/* One more call in an interval than in the totals: refused. */
	r.intervals[1].target[FS_TGT_DEDUPE].counter[FS_DD_DIFFERS]++;
	assert_false(model__intervals_add_up(&r, why, sizeof(why)));
	assert_string_equal(why, "dedupe.differs: intervals 2, totals 1");
	assert_int_equal(report__json_write(&r, path), 0);
	expect_read_error(path, -EINVAL,
			  "intervals: do not add up to the totals: "
			  "dedupe.differs: intervals 2, totals 1");
	r.intervals[1].target[FS_TGT_DEDUPE].counter[FS_DD_DIFFERS]--;
	r.intervals[1].target[FS_TGT_DEDUPE].slot[FS_DD_BYTES][15]--;
	r.intervals[0].target[FS_TGT_DEDUPE].slot[FS_DD_BYTES][15]++;
	r.intervals[0].target[FS_TGT_DEDUPE].count[FS_DD_BYTES]++;
	r.intervals[1].target[FS_TGT_DEDUPE].count[FS_DD_BYTES]--;
	/* Moving a bucket between intervals keeps the totals. */
	assert_true(model__intervals_add_up(&r, why, sizeof(why)));

	/* Out of order, and a target the totals do not have. */
	r.intervals[1].start_ms = 900;
	assert_int_equal(report__json_write(&r, path), 0);
	expect_read_error(path, -EINVAL,
			  "intervals[1]: [900, 2500] ms out of order");
	r.intervals[1].start_ms = 1000;
	root = report__to_json(&r);
	arr = child(
		child(json_object_array_get_idx(child(root, "intervals"), 0),
		      "targets"),
		"dedupe");
	json_object_object_add(
		child(json_object_array_get_idx(child(root, "intervals"), 0),
		      "targets"),
		"shmem", json_object_get(arr));
	write_text_file(path, json_object_to_json_string(root));
	json_object_put(root);
	expect_read_error(path, -EINVAL,
			  "intervals[0].targets.shmem: not a target of the "
			  "totals");
	model__free(&r);
	free(path);
	remove_dir(dir);
}

/* trace's filters: only those given, in the JSON and read back. */
static void test_json_filters(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), *path = path_in(dir, "f.json");
	struct json_object *root, *f;
	char text[512];

	make_report(&r);
	root = report__to_json(&r);
	assert_false(json_object_object_get_ex(root, "filters", &f));
	json_object_put(root);
	model__filters_text(&r.filters, text, sizeof(text));
	assert_string_equal(text, "none");

	r.filters.npids = 2;
	r.filters.pids[0] = 12;
	r.filters.pids[1] = 4000000;
	snprintf(r.filters.comm, sizeof(r.filters.comm), "dd");
	snprintf(r.filters.dev, sizeof(r.filters.dev), "8:1");
	snprintf(r.filters.command, sizeof(r.filters.command),
		 "sh -c \"cat /dev/shm/x\"");
	model__filters_text(&r.filters, text, sizeof(text));
	assert_string_equal(text, "pid 12, 4000000; comm dd; dev 8:1; "
				  "command sh -c \"cat /dev/shm/x\"");
	root = report__to_json(&r);
	f = child(root, "filters");
	assert_int_equal(json_object_object_length(f), 4);
	assert_int_equal(json_object_array_length(child(f, "pids")), 2);
	assert_string_equal(json_object_get_string(child(f, "comm")), "dd");
	assert_false(json_object_object_get_ex(f, "cgroup", NULL));
	json_object_put(root);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_same_report(&r, &back);
	model__free(&back);

	/* A pid of 0 is no process. */
	r.filters.pids[1] = 0;
	assert_int_equal(report__json_write(&r, path), 0);
	expect_read_error(path, -EINVAL, "filters.pids[1]: not a pid");
	model__free(&r);
	free(path);
	remove_dir(dir);
}

/*
 * A report of a version that did not count the syscall level's skips
 * reads back with them as 0; a counter every version had is still
 * required.
 */
static void test_json_read_older_counters(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), *path = path_in(dir, "old.json");
	struct json_object *root;

	make_report(&r);
	r.target[FS_TGT_DEDUPE].counter[FS_DD_COMPAT] = 7;
	root = report__to_json(&r);
	assert_non_null(root);
	json_object_object_del(child(dd_of(root), "counters"),
			       "compat_skipped");
	write_text_file(path, json_object_to_json_string(root));
	json_object_put(root);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_int_equal(back.target[FS_TGT_DEDUPE].counter[FS_DD_COMPAT], 0);
	assert_int_equal(back.target[FS_TGT_DEDUPE].counter[FS_DD_CALLS], 4);
	model__free(&back);

	root = report__to_json(&r);
	json_object_object_del(child(dd_of(root), "counters"), "missed");
	write_text_file(path, json_object_to_json_string(root));
	json_object_put(root);
	expect_read_error(path, -EINVAL, "counters.missed: missing");
	free(path);
	remove_dir(dir);
}

/* The intervals as heatmaps: a column per interval, its cells' counts. */
static void test_heatmap(void **state)
{
	static struct fs_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	make_intervals(&r);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report__html(f, &r, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<figure class=\"heatmap\" "
				    "data-target=\"dedupe\" "
				    "data-histogram=\"bytes\">"));
	assert_non_null(strstr(buf, "data-histogram=\"bytes\" "
				    "data-intervals=\"2\""));
	/* dst_align is not measured: no heatmap. */
	assert_null(strstr(buf, "<figure class=\"heatmap\" "
				"data-target=\"dedupe\" "
				"data-histogram=\"dst_align\">"));
	assert_non_null(strstr(buf, "<rect class=\"cell\" data-interval=\"1\" "
				    "data-slot=\"13\" data-lo=\"4096\" "
				    "data-count=\"3\""));
	assert_non_null(strstr(buf, "<rect class=\"cell\" data-interval=\"2\" "
				    "data-slot=\"13\" data-lo=\"4096\" "
				    "data-count=\"0\""));
	assert_non_null(strstr(buf, "<rect class=\"cell\" data-interval=\"2\" "
				    "data-slot=\"15\" data-lo=\"16384\" "
				    "data-count=\"1\""));
	assert_non_null(strstr(buf, "<rect class=\"mode\" data-interval=\"1\" "
				    "data-slot=\"13\""));
	assert_non_null(strstr(buf, "<rect class=\"total\" data-interval=\"2\" "
				    "data-count=\"1\""));
	assert_non_null(strstr(buf, "2, 0 s to 2.5 s since tracing began"));
	free(buf);

	/* Without intervals: no heatmap, and the facts say so. */
	model__free(&r);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report__svg(f, &r, NULL), 0);
	fclose(f);
	assert_null(strstr(buf, "class=\"heatmap\""));
	assert_non_null(strstr(buf, "intervals: none (trace -i SECONDS -j FILE "
				    "keeps them)"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_target),
		cmocka_unit_test(test_text_skips),
		cmocka_unit_test(test_text_events),
		cmocka_unit_test(test_text_log2),
		cmocka_unit_test(test_text_align),
		cmocka_unit_test(test_text_align_offset0),
		cmocka_unit_test(test_text_not_measured_and_empty),
		cmocka_unit_test(test_text_small_values),
		cmocka_unit_test(test_text_workload),
		cmocka_unit_test(test_text_nothing_enabled),
		cmocka_unit_test(test_text_write_error),
		cmocka_unit_test(test_json_schema),
		cmocka_unit_test(test_json_no_workload),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_read_older_counters),
		cmocka_unit_test(test_json_intervals),
		cmocka_unit_test(test_json_filters),
		cmocka_unit_test(test_heatmap),
		cmocka_unit_test(test_json_round_trip_minimal),
		cmocka_unit_test(test_json_stdout),
		cmocka_unit_test(test_json_write_unwritable),
		cmocka_unit_test(test_json_write_fails_late),
		cmocka_unit_test(test_json_read_malformed),
		cmocka_unit_test(test_json_read_wrong_schema),
		cmocka_unit_test(test_json_read_missing_file),
		cmocka_unit_test(test_json_read_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
