// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests: slot math of bpf/shared.h and the histogram model. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "model/model.h"
#include "version.h"

#define MIB2 (1ULL << 21)

/* Independent reference: floor(log2(v)) + 1, clamped to the last slot. */
static unsigned int ref_slot(__u64 v)
{
	unsigned int s;

	if (!v)
		return 0;
	s = 64 - __builtin_clzll(v);
	return s < FS_SLOTS ? s : FS_SLOTS - 1;
}

static void test_log2_slot_points(void **state)
{
	assert_int_equal(fs_log2_slot(0), 0);
	assert_int_equal(fs_log2_slot(1), 1);
	assert_int_equal(fs_log2_slot(2), 2);
	assert_int_equal(fs_log2_slot(3), 2);
	assert_int_equal(fs_log2_slot(4), 3);
	assert_int_equal(fs_log2_slot(4095), 12);
	assert_int_equal(fs_log2_slot(4096), 13);
	assert_int_equal(fs_log2_slot(4097), 13);
	assert_int_equal(fs_log2_slot((1ULL << 62) - 1), 62);
	assert_int_equal(fs_log2_slot(1ULL << 62), 63);
	assert_int_equal(fs_log2_slot(1ULL << 63), 63);
	assert_int_equal(fs_log2_slot(UINT64_MAX), 63);
}

/* Every power of two and its neighbours, against the reference. */
static void test_log2_slot_all_edges(void **state)
{
	for (int k = 0; k < 64; k++) {
		__u64 p = 1ULL << k;

		assert_int_equal(fs_log2_slot(p), ref_slot(p));
		assert_int_equal(fs_log2_slot(p - 1), ref_slot(p - 1));
		assert_int_equal(fs_log2_slot(p + 1), ref_slot(p + 1));
	}
}

/* Values of every length, against the reference (a fixed LCG: the same
 * values every run). */
static void test_log2_slot_spread(void **state)
{
	__u64 x = 88172645463325252ULL;

	for (int i = 0; i < 100000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__u64 v = x >> (i % 64);

		assert_int_equal(fs_log2_slot(v), ref_slot(v));
	}
}

/* The alignment histograms' shortcut: the slot of 0 and of each power of
 * two, as the general slot math has it, and the table one to one. */
static void test_pow2_slot(void **state)
{
	int seen[64] = { 0 };

	assert_int_equal(fs_pow2_slot(0), 0);
	for (int k = 0; k < 64; k++) {
		assert_int_equal(fs_pow2_slot(1ULL << k), ref_slot(1ULL << k));
		assert_int_equal(fs_log2_pow2(1ULL << k), k);
		seen[fs_log2_table[k]]++;
	}
	for (int k = 0; k < 64; k++)
		assert_int_equal(seen[k], 1);
}

static void test_alignment(void **state)
{
	/* Offset 0 has no largest power of two dividing it: 0, in slot 0,
	 * the slot every report labels "offset 0". */
	assert_int_equal(fs_alignment(0), 0);
	assert_int_equal(fs_log2_slot(fs_alignment(0)), 0);
	assert_int_equal(fs_alignment(1), 1);
	assert_int_equal(fs_alignment(3), 1);
	assert_int_equal(fs_alignment(5), 1);
	assert_int_equal(fs_alignment(4097), 1);
	assert_int_equal(fs_alignment(UINT64_MAX), 1);
	assert_int_equal(fs_alignment(6), 2);
	assert_int_equal(fs_alignment(4096), 4096);
	assert_int_equal(fs_alignment(4096 * 3), 4096);
	assert_int_equal(fs_alignment(MIB2 + 4096), 4096);
	assert_int_equal(fs_alignment(1ULL << 21), MIB2);
	assert_int_equal(fs_alignment(1ULL << 22), MIB2);
	assert_int_equal(fs_alignment(1ULL << 40), MIB2);
	assert_int_equal(fs_alignment(1ULL << 63), MIB2);
}

/* An alignment 2^j must sit alone in slot j + 1 of an align histogram. */
static void test_alignment_slot(void **state)
{
	struct fs_report r;
	const struct fs_histogram *h;
	struct fs_bucket b;

	model__init(&r);
	h = &r.target[FS_TGT_DEDUPE].hist[FS_DD_SRC_ALIGN];
	for (int k = 0; k < 64; k++) {
		__u64 v = (1ULL << k) * 3, a = fs_alignment(v);
		unsigned int s = fs_log2_slot(a);

		model__bucket(h, s, &b);
		assert_int_equal(b.lo, a);
		assert_int_equal(b.hi, a);
		assert_int_equal(s, (k < 21 ? k : 21) + 1);
	}
}

static void test_bucket_log2(void **state)
{
	struct fs_report r;
	struct fs_histogram *h;
	struct fs_bucket b;

	model__init(&r);
	h = &r.target[FS_TGT_DEDUPE].hist[FS_DD_BYTES];
	assert_int_equal(h->spec->kind, FS_KIND_LOG2);
	h->slot[13] = 42;

	model__bucket(h, 0, &b);
	assert_int_equal(b.lo, 0);
	assert_int_equal(b.hi, 0);
	model__bucket(h, 1, &b);
	assert_int_equal(b.lo, 1);
	assert_int_equal(b.hi, 1);
	model__bucket(h, 2, &b);
	assert_int_equal(b.lo, 2);
	assert_int_equal(b.hi, 3);
	model__bucket(h, 13, &b);
	assert_int_equal(b.lo, 4096);
	assert_int_equal(b.hi, 8191);
	assert_int_equal(b.count, 42);
	model__bucket(h, 62, &b);
	assert_int_equal(b.lo, 1ULL << 61);
	assert_int_equal(b.hi, (1ULL << 62) - 1);
	assert_int_equal(b.count, 0);
	/* The last slot is open-ended. */
	model__bucket(h, FS_SLOTS - 1, &b);
	assert_int_equal(b.lo, 1ULL << 62);
	assert_int_equal(b.hi, UINT64_MAX);
}

/* Buckets tile [0, UINT64_MAX] and each value's slot contains it. */
static void test_bucket_log2_contains(void **state)
{
	struct fs_report r;
	const struct fs_histogram *h;
	struct fs_bucket b, prev = { 0, 0, 0 };

	model__init(&r);
	h = &r.target[FS_TGT_SHMEM].hist[FS_SH_LATENCY];
	for (int s = 1; s < FS_SLOTS; s++) {
		model__bucket(h, s, &b);
		assert_int_equal(b.lo, prev.hi + 1);
		assert_int_equal(fs_log2_slot(b.lo), s);
		assert_int_equal(fs_log2_slot(b.hi), s);
		prev = b;
	}
	assert_int_equal(prev.hi, UINT64_MAX);
}

static void test_bucket_align(void **state)
{
	struct fs_report r;
	struct fs_histogram *h;
	struct fs_bucket b;

	model__init(&r);
	h = &r.target[FS_TGT_SHMEM].hist[FS_SH_POS_ALIGN];
	assert_int_equal(h->spec->kind, FS_KIND_ALIGN);
	h->slot[22] = 7;

	model__bucket(h, 0, &b);
	assert_int_equal(b.lo, 0);
	assert_int_equal(b.hi, 0);
	model__bucket(h, 1, &b);
	assert_int_equal(b.lo, 1);
	assert_int_equal(b.hi, 1);
	model__bucket(h, 13, &b);
	assert_int_equal(b.lo, 4096);
	assert_int_equal(b.hi, 4096);
	model__bucket(h, 22, &b);
	assert_int_equal(b.lo, MIB2);
	assert_int_equal(b.hi, MIB2);
	assert_int_equal(b.count, 7);
	model__bucket(h, FS_SLOTS - 1, &b);
	assert_int_equal(b.lo, 1ULL << 62);
	assert_int_equal(b.hi, 1ULL << 62);
}

static void test_range(void **state)
{
	struct fs_report r;
	struct fs_histogram *h;
	int first, last;

	model__init(&r);
	h = &r.target[FS_TGT_DEDUPE].hist[FS_DD_BYTES];
	assert_false(model__range(h, &first, &last));

	h->slot[5] = 1;
	assert_true(model__range(h, &first, &last));
	assert_int_equal(first, 5);
	assert_int_equal(last, 5);

	h->slot[0] = 2;
	h->slot[FS_SLOTS - 1] = 3;
	assert_true(model__range(h, &first, &last));
	assert_int_equal(first, 0);
	assert_int_equal(last, FS_SLOTS - 1);
}

static void test_init(void **state)
{
	struct fs_report r;
	const struct fs_target_report *dd, *sh;

	model__init(&r);
	dd = &r.target[FS_TGT_DEDUPE];
	sh = &r.target[FS_TGT_SHMEM];
	assert_string_equal(r.tool_version, FOLIOSCOPE_VERSION);
	assert_int_equal(r.page_size, (__u64)sysconf(_SC_PAGESIZE));
	assert_true(r.kernel[0] != '\0');
	assert_string_equal(r.workload_name, "");
	assert_int_equal(r.nkv, 0);

	assert_false(dd->enabled);
	assert_false(sh->enabled);
	assert_string_equal(dd->name, "dedupe");
	assert_string_equal(sh->name, "shmem");
	assert_int_equal(dd->nhists, FS_DD_NHIST);
	assert_int_equal(sh->nhists, FS_SH_NHIST);
	assert_int_equal(dd->ncounters, FS_DD_NCOUNTERS);
	assert_int_equal(sh->ncounters, FS_SH_NCOUNTERS);
	assert_string_equal(dd->attach.mechanism, "none");
	for (int i = 0; i < dd->nhists; i++) {
		assert_true(dd->hist[i].measured);
		assert_int_equal(dd->hist[i].count, 0);
	}
	assert_string_equal(dd->hist[FS_DD_LATENCY].spec->unit, "ns");
	assert_int_equal(dd->hist[FS_DD_DST_ALIGN].spec->kind, FS_KIND_ALIGN);
	assert_int_equal(sh->hist[FS_SH_BUF_ALIGN].spec->kind, FS_KIND_ALIGN);
	assert_int_equal(sh->hist[FS_SH_COPY_BYTES].spec->kind, FS_KIND_LOG2);
	assert_string_equal(sh->hist[FS_SH_REQ_BYTES].spec->name, "req_bytes");

	model__enable(&r, FS_TGT_SHMEM, true);
	assert_true(sh->enabled);
	assert_false(dd->enabled);
	model__enable(&r, FS_TGT_SHMEM, false);
	assert_false(sh->enabled);
}

static void test_names(void **state)
{
	struct fs_report r;

	model__init(&r);
	assert_string_equal(model__target_name(FS_TGT_DEDUPE), "dedupe");
	assert_string_equal(model__target_name(FS_TGT_SHMEM), "shmem");
	assert_int_equal(model__target_from_name("dedupe"), FS_TGT_DEDUPE);
	assert_int_equal(model__target_from_name("shmem"), FS_TGT_SHMEM);
	assert_int_equal(model__target_from_name("xfs"), -1);
	assert_int_equal(model__target_from_name(""), -1);

	assert_int_equal(model__counter_index(&r, FS_TGT_DEDUPE, "calls"),
			 FS_DD_CALLS);
	assert_int_equal(model__counter_index(&r, FS_TGT_DEDUPE, "differs"),
			 FS_DD_DIFFERS);
	assert_int_equal(model__counter_index(&r, FS_TGT_SHMEM, "errors"),
			 FS_SH_ERRORS);
	assert_int_equal(model__counter_index(&r, FS_TGT_SHMEM, "same"), -1);
	assert_int_equal(model__counter_of(&r.target[FS_TGT_SHMEM], "calls"),
			 FS_SH_CALLS);
	assert_int_equal(model__hist_of(&r.target[FS_TGT_SHMEM], "copy_bytes"),
			 FS_SH_COPY_BYTES);
	assert_int_equal(model__hist_of(&r.target[FS_TGT_DEDUPE], "copy_bytes"),
			 -1);
}

/* Two CPUs' values of the per-CPU stats map add up. */
static void test_add_stats(void **state)
{
	static struct fs_stats cpu0, cpu1;
	struct fs_target_report *tr;
	struct fs_report r;

	memset(&cpu0, 0, sizeof(cpu0));
	memset(&cpu1, 0, sizeof(cpu1));
	cpu0.hist[FS_DD_BYTES].slot[13] = 3;
	cpu0.hist[FS_DD_BYTES].sum = 3 * 4096;
	cpu1.hist[FS_DD_BYTES].slot[13] = 2;
	cpu1.hist[FS_DD_BYTES].slot[14] = 1;
	cpu1.hist[FS_DD_BYTES].sum = 2 * 4096 + 8192;
	cpu0.hist[FS_DD_LATENCY].slot[FS_SLOTS - 1] = 1;
	cpu1.hist[FS_DD_LATENCY].slot[0] = 4;
	cpu0.counter[FS_DD_CALLS] = 3;
	cpu1.counter[FS_DD_CALLS] = 3;
	cpu1.counter[FS_DD_ERRORS] = 1;
	/* Past nhists: must not leak into the target. */
	cpu0.hist[FS_DD_NHIST].slot[1] = 9;

	model__init(&r);
	model__add_stats(&r, FS_TGT_DEDUPE, &cpu0);
	model__add_stats(&r, FS_TGT_DEDUPE, &cpu1);
	tr = &r.target[FS_TGT_DEDUPE];

	assert_int_equal(tr->hist[FS_DD_BYTES].slot[13], 5);
	assert_int_equal(tr->hist[FS_DD_BYTES].slot[14], 1);
	assert_int_equal(tr->hist[FS_DD_BYTES].count, 6);
	assert_int_equal(tr->hist[FS_DD_BYTES].sum, 5 * 4096 + 8192);
	assert_int_equal(tr->hist[FS_DD_LATENCY].slot[0], 4);
	assert_int_equal(tr->hist[FS_DD_LATENCY].slot[FS_SLOTS - 1], 1);
	assert_int_equal(tr->hist[FS_DD_LATENCY].count, 5);
	assert_int_equal(tr->hist[FS_DD_SRC_ALIGN].count, 0);
	assert_int_equal(tr->hist[FS_DD_NHIST].count, 0);
	assert_int_equal(tr->counter[FS_DD_CALLS], 6);
	assert_int_equal(tr->counter[FS_DD_ERRORS], 1);
	assert_int_equal(tr->counter[FS_DD_SAME], 0);
	/* The other target is untouched. */
	assert_int_equal(r.target[FS_TGT_SHMEM].hist[FS_SH_BYTES].count, 0);
	assert_int_equal(r.target[FS_TGT_SHMEM].counter[FS_SH_CALLS], 0);
}

static void test_not_measured(void **state)
{
	struct fs_target_report *tr;
	struct fs_report r;
	char longwhy[400];

	model__init(&r);
	tr = &r.target[FS_TGT_SHMEM];
	model__not_measured(&r, FS_TGT_SHMEM, FS_SH_FOLIO_SIZE,
			    "no folio argument on this kernel");
	assert_false(tr->hist[FS_SH_FOLIO_SIZE].measured);
	assert_string_equal(tr->hist[FS_SH_FOLIO_SIZE].why,
			    "no folio argument on this kernel");
	assert_true(tr->hist[FS_SH_BYTES].measured);
	assert_true(r.target[FS_TGT_DEDUPE].hist[FS_DD_FOLIO_SIZE].measured);

	/* An over-long reason is cut, still terminated. */
	memset(longwhy, 'x', sizeof(longwhy) - 1);
	longwhy[sizeof(longwhy) - 1] = '\0';
	model__not_measured(&r, FS_TGT_SHMEM, FS_SH_LATENCY, longwhy);
	assert_int_equal(strlen(tr->hist[FS_SH_LATENCY].why),
			 sizeof(tr->hist[FS_SH_LATENCY].why) - 1);
}

static void test_kv(void **state)
{
	const struct fs_kv *kv;
	struct fs_report r;
	char key[16], longkey[100];

	model__init(&r);
	model__kv_u64(&r, "files", 4);
	model__kv_str(&r, "mode", "random");
	model__kv_u64(&r, "max", UINT64_MAX);
	assert_int_equal(r.nkv, 3);

	kv = model__kv_find(&r, "files");
	assert_non_null(kv);
	assert_int_equal(kv->type, FS_KV_U64);
	assert_int_equal(kv->u, 4);
	kv = model__kv_find(&r, "mode");
	assert_non_null(kv);
	assert_int_equal(kv->type, FS_KV_STR);
	assert_string_equal(kv->s, "random");
	assert_int_equal(model__kv_find(&r, "max")->u, UINT64_MAX);
	assert_null(model__kv_find(&r, "nope"));

	/* Same key again replaces in place, even with another type. */
	model__kv_str(&r, "files", "four");
	assert_int_equal(r.nkv, 3);
	kv = model__kv_find(&r, "files");
	assert_int_equal(kv->type, FS_KV_STR);
	assert_string_equal(kv->s, "four");
	assert_ptr_equal(kv, &r.kv[0]);

	/* Keys are cut to fit. */
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	model__kv_u64(&r, longkey, 1);
	assert_int_equal(strlen(r.kv[3].key), sizeof(r.kv[3].key) - 1);

	/* A full table drops new keys. */
	for (int i = 0; i < FS_MAX_KV + 5; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		model__kv_u64(&r, key, i);
	}
	assert_int_equal(r.nkv, FS_MAX_KV);
	assert_non_null(model__kv_find(&r, "k0"));
	snprintf(key, sizeof(key), "k%d", FS_MAX_KV + 4);
	assert_null(model__kv_find(&r, key));
}

/* Interval deltas: (b - a) + (c - b) == c - a, exactly. */
static void test_stats_delta(void **state)
{
	struct fs_stats a = {}, b = {}, c = {}, d1, d2;

	a.hist[1].slot[13] = 5;
	a.hist[1].sum = 5 * 4096;
	a.counter[0] = 5;
	b = a;
	b.hist[1].slot[13] += 3;
	b.hist[1].sum += 3 * 4096;
	b.counter[0] += 3;
	c = b;
	c.hist[1].slot[22] += 1;
	c.counter[0] += 1;
	d1 = b;
	model__stats_sub(&d1, &a);
	d2 = c;
	model__stats_sub(&d2, &b);
	assert_int_equal(d1.counter[0], 3);
	assert_int_equal(d1.hist[1].slot[13], 3);
	assert_int_equal(d2.hist[1].slot[22], 1);
	assert_int_equal(d2.hist[1].slot[13], 0);
	model__stats_add(&d1, &d2);
	model__stats_add(&d1, &a);
	assert_memory_equal(&d1, &c, sizeof(c));
}

static int part_add(struct fs_report *r, __u32 pid, const char *comm,
		    bool other, const struct fs_stats *st)
{
	struct fs_part_key k = {
		.other = other, .nother = 5, .pid = pid, .comm = comm
	};

	return model__part_add(r, &k, FS_TGT_SHMEM, st);
}

static void test_part_add(void **state)
{
	struct fs_report r;
	struct fs_stats st = {};

	model__init(&r);
	r.by = FS_BY_PROCESS;
	model__not_measured(&r, FS_TGT_SHMEM, FS_SH_FOLIO_SIZE,
			    "syscall level");
	st.counter[FS_SH_CALLS] = 2;
	st.hist[FS_SH_BYTES].slot[13] = 2;
	st.hist[FS_SH_BYTES].sum = 8192;
	assert_int_equal(part_add(&r, 42, "cat", false, &st), 0);
	assert_int_equal(part_add(&r, 43, "dd", false, &st), 0);
	/* Same pid again (two stats entries raced): merged. */
	assert_int_equal(part_add(&r, 42, "cat", false, &st), 0);
	assert_int_equal(part_add(&r, 0, "", true, &st), 0);
	assert_int_equal(r.nparts, 3);
	assert_int_equal(r.parts[0].pid, 42);
	assert_string_equal(r.parts[0].comm, "cat");
	assert_int_equal(r.parts[0].target[FS_TGT_SHMEM].counter[FS_SH_CALLS],
			 4);
	assert_int_equal(r.parts[0].target[FS_TGT_SHMEM].hist[FS_SH_BYTES].sum,
			 16384);
	assert_false(r.parts[0].target[FS_TGT_DEDUPE].enabled);
	assert_false(r.parts[1]
			     .target[FS_TGT_SHMEM]
			     .hist[FS_SH_FOLIO_SIZE]
			     .measured);
	assert_true(r.parts[2].other);
	assert_string_equal(r.parts[2].comm, "other");
	assert_int_equal(r.parts[2].nother[FS_TGT_SHMEM], 5);
	assert_int_equal(r.parts[2].nother[FS_TGT_DEDUPE], 0);
	model__free(&r);
	assert_null(r.parts);
	assert_int_equal(r.nparts, 0);
}

/* By cgroup, rows are one per cgroup id, whatever process read. */
static void test_part_add_cgroup(void **state)
{
	struct fs_part_key a = {
		.pid = 7, .comm = "cat", .cgroup_id = 900, .cgroup = "/a"
	};
	struct fs_part_key a2 = {
		.pid = 8, .comm = "dd", .cgroup_id = 900, .cgroup = "/a"
	};
	struct fs_part_key b = {
		.pid = 7, .comm = "cat", .cgroup_id = 901, .cgroup = "/b"
	};
	struct fs_report r;
	struct fs_stats st = {};

	model__init(&r);
	r.by = FS_BY_CGROUP;
	st.counter[FS_SH_CALLS] = 3;
	assert_int_equal(model__part_add(&r, &a, FS_TGT_SHMEM, &st), 0);
	assert_int_equal(model__part_add(&r, &a2, FS_TGT_SHMEM, &st), 0);
	/* The same pid in another cgroup (it moved): a row of its own. */
	assert_int_equal(model__part_add(&r, &b, FS_TGT_SHMEM, &st), 0);
	assert_int_equal(r.nparts, 2);
	assert_string_equal(r.parts[0].cgroup, "/a");
	assert_int_equal(r.parts[0].cgroup_id, 900);
	assert_int_equal(r.parts[0].target[FS_TGT_SHMEM].counter[FS_SH_CALLS],
			 6);
	assert_string_equal(r.parts[1].cgroup, "/b");
	assert_int_equal(r.parts[1].target[FS_TGT_SHMEM].counter[FS_SH_CALLS],
			 3);
	assert_string_equal(model__by_name(r.by), "cgroup");
	assert_null(model__by_name(FS_BY_NONE));
	model__free(&r);
}

/* A delta report (one group's events): dedupe met these folio sizes. */
static void delta_with(struct fs_report *d, const __u64 *sizes,
		       const __u64 *counts, int n)
{
	struct fs_histogram *h;

	model__init(d);
	model__enable(d, FS_TGT_DEDUPE, true);
	h = &d->target[FS_TGT_DEDUPE].hist[FS_DD_FOLIO_SIZE];
	for (int i = 0; i < n; i++) {
		h->slot[fs_log2_slot(sizes[i])] += counts[i];
		h->count += counts[i];
		h->sum += sizes[i] * counts[i];
	}
}

static void test_coverage_sizes(void **state)
{
	static struct fs_report r, d;
	static const __u64 sz[] = { 131072, 4096, 65536 }, ct[] = { 2, 7, 3 };
	struct fs_cov_size out[FS_SLOTS];

	(void)state;
	model__init(&r);
	model__enable(&r, FS_TGT_DEDUPE, true);
	delta_with(&d, sz, ct, 3);
	assert_int_equal(model__coverage_add(&r, "xfs bs=1024", 1, "yes", &d),
			 0);
	assert_int_equal(r.coverage.ngroups, 1);
	assert_string_equal(r.coverage.g[0].name, "xfs bs=1024");
	/* Smallest first, each the exact folio size with its count. */
	assert_int_equal(
		model__coverage_sizes(&r, 0, FS_TGT_DEDUPE, out, FS_SLOTS), 3);
	assert_int_equal(out[0].size, 4096);
	assert_int_equal(out[0].count, 7);
	assert_int_equal(out[1].size, 65536);
	assert_int_equal(out[1].count, 3);
	assert_int_equal(out[2].size, 131072);
	assert_int_equal(out[2].count, 2);
	/* At most max. */
	assert_int_equal(model__coverage_sizes(&r, 0, FS_TGT_DEDUPE, out, 1),
			 1);
	assert_int_equal(out[0].size, 4096);
	/* A target that is off, a group that does not exist. */
	assert_int_equal(
		model__coverage_sizes(&r, 0, FS_TGT_SHMEM, out, FS_SLOTS), -1);
	assert_int_equal(
		model__coverage_sizes(&r, 1, FS_TGT_DEDUPE, out, FS_SLOTS), -1);
	/* Large folios met: no gap. */
	assert_false(model__coverage_gap(&r, 0, FS_TGT_DEDUPE));
}

static void test_coverage_gap(void **state)
{
	static struct fs_report r, d;
	static const __u64 small[] = { 4096 }, n[] = { 500 };
	static const __u64 big[] = { 4096, 16384 }, nb[] = { 500, 1 };
	struct fs_cov_size out[FS_SLOTS];

	(void)state;
	model__init(&r);
	model__enable(&r, FS_TGT_DEDUPE, true);
	delta_with(&d, small, n, 1);
	/* Only page-sized folios where the kernel makes large ones: a gap;
	 * where it does not, or is not judged, none. */
	assert_int_equal(model__coverage_add(&r, "xfs bs=4096", 1, "yes", &d),
			 0);
	assert_int_equal(model__coverage_add(&r, "xfs bs=2048", 0, "no", &d),
			 0);
	assert_int_equal(
		model__coverage_add(&r, "btrfs bs=4096", -1, "not judged", &d),
		0);
	delta_with(&d, big, nb, 2);
	assert_int_equal(model__coverage_add(&r, "xfs bs=1024", 1, "yes", &d),
			 0);
	delta_with(&d, NULL, NULL, 0);
	assert_int_equal(model__coverage_add(&r, "xfs empty", 1, "yes", &d), 0);
	assert_true(model__coverage_gap(&r, 0, FS_TGT_DEDUPE));
	/* A gap warns only in a coverage that warns (a matrix's). */
	assert_false(model__coverage_warning(&r, 0));
	r.coverage.warn = true;
	assert_true(model__coverage_warning(&r, 0));
	assert_false(model__coverage_warning(&r, 1));
	assert_false(model__coverage_warning(&r, 3));
	assert_false(model__coverage_gap(&r, 1, FS_TGT_DEDUPE));
	assert_false(model__coverage_gap(&r, 2, FS_TGT_DEDUPE));
	/* One 16 KiB folio is enough. */
	assert_false(model__coverage_gap(&r, 3, FS_TGT_DEDUPE));
	/* A group that met no folio at all did not run the compare: no
	 * claim about its folio sizes. */
	assert_int_equal(
		model__coverage_sizes(&r, 4, FS_TGT_DEDUPE, out, FS_SLOTS), 0);
	assert_false(model__coverage_gap(&r, 4, FS_TGT_DEDUPE));
	/* Not measured (a syscall-level plan): no sizes, no gap. */
	model__not_measured(&r, FS_TGT_DEDUPE, FS_DD_FOLIO_SIZE,
			    "syscall-level plan");
	assert_int_equal(model__coverage_sizes(&r, 0, FS_TGT_DEDUPE, NULL, 0),
			 -1);
	assert_false(model__coverage_gap(&r, 0, FS_TGT_DEDUPE));
}

static void test_coverage_full(void **state)
{
	static struct fs_report r, d;

	(void)state;
	model__init(&r);
	model__init(&d);
	for (int i = 0; i < FS_MAX_COV; i++) {
		char name[8];

		snprintf(name, sizeof(name), "g%d", i);
		assert_int_equal(model__coverage_add(&r, name, 1, "yes", &d),
				 0);
	}
	assert_int_equal(model__coverage_add(&r, "one more", 1, "yes", &d),
			 -ENOSPC);
	assert_int_equal(r.coverage.ngroups, FS_MAX_COV);
	/* A group already there takes more events, whatever their number. */
	assert_int_equal(model__coverage_add(&r, "g3", 1, "yes", &d), 0);
	assert_int_equal(r.coverage.ngroups, FS_MAX_COV);
}

/* Random layouts end a group each: those of one name add up. */
static void test_coverage_same_name(void **state)
{
	static struct fs_report r, d;
	static const __u64 small[] = { 4096 }, n[] = { 500 };
	static const __u64 big[] = { 4096, 65536 }, nb[] = { 7, 3 };
	struct fs_cov_size out[FS_SLOTS];

	(void)state;
	model__init(&r);
	model__enable(&r, FS_TGT_DEDUPE, true);
	delta_with(&d, small, n, 1);
	for (int i = 0; i < 3 * FS_MAX_COV; i++)
		assert_int_equal(model__coverage_add(&r,
						     i % 2 ? "btrfs bs=4096"
							   : "xfs bs=1024",
						     i % 2 ? -1 : 1, "why", &d),
				 0);
	delta_with(&d, big, nb, 2);
	assert_int_equal(model__coverage_add(&r, "xfs bs=1024", 1, "why", &d),
			 0);
	assert_int_equal(r.coverage.ngroups, 2);
	assert_string_equal(r.coverage.g[1].name, "btrfs bs=4096");
	assert_int_equal(r.coverage.g[1].large, -1);
	assert_int_equal(
		model__coverage_sizes(&r, 0, FS_TGT_DEDUPE, out, FS_SLOTS), 2);
	assert_int_equal(out[0].size, 4096);
	assert_int_equal(out[0].count, 3 * FS_MAX_COV / 2 * 500 + 7);
	assert_int_equal(out[1].size, 65536);
	assert_int_equal(out[1].count, 3);
	/* One large folio in the group's layouts: no gap. */
	assert_false(model__coverage_gap(&r, 0, FS_TGT_DEDUPE));
}

/* Failures by kind: every one counted, past FS_MAX_KINDS - 1 kinds in
 * one "other kinds"; groups count their own. */
static void test_kinds(void **state)
{
	static struct fs_report r;
	char kind[24];

	(void)state;
	model__init(&r);
	model__check_group(&r, "g1");
	for (int i = 0; i < 100; i++)
		model__check_kind(&r, i % 3 != 0, "stale", "l", "e", "g");
	model__check_group(&r, "g2");
	for (int k = 0; k < FS_MAX_KINDS + 2; k++) {
		snprintf(kind, sizeof(kind), "kind%d", k);
		model__check_kind(&r, false, kind, "l", "e", "g");
	}
	model__check_group(&r, NULL);
	assert_int_equal(r.validation.failures, 34 + FS_MAX_KINDS + 2);
	assert_int_equal(model__kinds_count(&r.validation.kinds, "stale"), 34);
	assert_int_equal(r.validation.kinds.n, FS_MAX_KINDS);
	assert_int_equal(model__kinds_count(&r.validation.kinds, "kind5"), 1);
	/* stale and kind0 .. kind5 have slots; kind6 .. kind9 are other. */
	assert_int_equal(model__kinds_count(&r.validation.kinds, FS_KIND_OTHER),
			 4);
	assert_int_equal(model__kinds_count(&r.validation.kinds, "kind7"), 0);
	assert_int_equal(
		model__kinds_count(&r.validation.groups[0].kinds, "stale"), 34);
	assert_int_equal(r.validation.groups[0].kinds.n, 1);
	assert_int_equal(r.validation.groups[1].kinds.n, FS_MAX_KINDS);
	assert_int_equal(model__kinds_count(&r.validation.groups[1].kinds,
					    FS_KIND_OTHER),
			 3);
}

/* One run of a tier: checks in its group, a few of its failures. */
static void tier_run(struct fs_report *r, enum fs_target t, int checks,
		     int failures, const char *kind, const char *cov)
{
	static const __u64 sz[] = { 4096, MIB2 }, ct[] = { 5, 2 };
	static struct fs_report d;

	model__init(r);
	model__enable(r, t, true);
	r->target[t].hist[0].slot[3] = (__u64)checks;
	r->target[t].hist[0].count = (__u64)checks;
	r->target[t].counter[0] = (__u64)checks;
	model__check_group(r, "inner");
	for (int i = 0; i < checks; i++)
		model__check_kind(r, i >= failures, kind, "layout", "e", "g");
	model__check_group(r, NULL);
	model__skip(r, "plan=x", "not here");
	if (failures)
		model__replay(r, "folioscope run x --seed 1");
	delta_with(&d, sz, ct, 2);
	d.target[FS_TGT_DEDUPE].enabled = t == FS_TGT_DEDUPE;
	if (t == FS_TGT_SHMEM) {
		model__enable(&d, FS_TGT_SHMEM, true);
		d.target[FS_TGT_SHMEM].hist[FS_SH_FOLIO_SIZE] =
			d.target[FS_TGT_DEDUPE].hist[FS_DD_FOLIO_SIZE];
	}
	assert_int_equal(model__coverage_add(r, cov, 1, "why", &d), 0);
}

/* Runs merged as groups: events add up, checks stay in their group,
 * each group keeps its first failures and replays. */
static void test_merge(void **state)
{
	static struct fs_report r, one;
	const struct fs_merge ma = { "shmem ops", 3, 1 };
	const struct fs_merge mb = { "dedupe ops", 3, 1 };
	struct fs_cov_size out[FS_SLOTS];

	(void)state;
	model__init(&r);
	tier_run(&one, FS_TGT_SHMEM, 50, 20, "stale", "tmpfs huge=always");
	assert_int_equal(model__merge(&r, &one, &ma), 0);
	tier_run(&one, FS_TGT_DEDUPE, 40, 0, "none", "xfs bs=1024");
	assert_int_equal(model__merge(&r, &one, &mb), 0);
	/* A second run of the same tier joins its group. */
	tier_run(&one, FS_TGT_DEDUPE, 10, 4, "wrong answer", "xfs bs=1024");
	assert_int_equal(model__merge(&r, &one, &mb), 0);

	assert_true(r.validation.ran);
	assert_int_equal(r.validation.checks, 100);
	assert_int_equal(r.validation.failures, 24);
	assert_int_equal(r.validation.ngroups, 2);
	assert_string_equal(r.validation.groups[0].name, "shmem ops");
	assert_int_equal(r.validation.groups[0].checks, 50);
	assert_int_equal(r.validation.groups[0].failures, 20);
	assert_int_equal(r.validation.groups[1].checks, 50);
	assert_int_equal(r.validation.groups[1].failures, 4);
	assert_int_equal(model__kinds_count(&r.validation.groups[1].kinds,
					    "wrong answer"),
			 4);
	assert_int_equal(model__kinds_count(&r.validation.kinds, "stale"), 20);
	/* Three cases a group; the second group's from its second run. */
	assert_int_equal(r.validation.cases_per_group, 3);
	assert_int_equal(r.validation.ncases, 6);
	assert_int_equal(r.validation.cases[0].group, 1);
	assert_int_equal(r.validation.cases[5].group, 2);
	assert_string_equal(r.validation.cases[5].kind, "wrong answer");
	/* A check made later in a full group counts, its case not kept. */
	model__check_group(&r, "shmem ops");
	model__check_kind(&r, false, "no verdict", "run", "e", "g");
	model__check_group(&r, NULL);
	assert_int_equal(r.validation.ncases, 6);
	assert_int_equal(r.validation.groups[0].failures, 21);
	/* The skip once; a replay per failed run, in its group. */
	assert_int_equal(r.validation.nskips, 1);
	assert_int_equal(r.validation.nreplays, 2);
	assert_int_equal(r.validation.replays[0].group, 1);
	assert_int_equal(r.validation.replays[1].group, 2);
	/* Both targets, their events summed. */
	assert_true(r.target[FS_TGT_SHMEM].enabled);
	assert_true(r.target[FS_TGT_DEDUPE].enabled);
	assert_int_equal(r.target[FS_TGT_DEDUPE].counter[0], 50);
	assert_int_equal(r.target[FS_TGT_DEDUPE].hist[0].slot[3], 50);
	assert_int_equal(r.target[FS_TGT_SHMEM].hist[0].count, 50);
	/* Coverage by name, each group with the target traced there. */
	assert_int_equal(r.coverage.ngroups, 2);
	assert_true(r.coverage.g[0].traced[FS_TGT_SHMEM]);
	assert_false(r.coverage.g[0].traced[FS_TGT_DEDUPE]);
	assert_int_equal(
		model__coverage_sizes(&r, 0, FS_TGT_DEDUPE, out, FS_SLOTS), -1);
	assert_int_equal(
		model__coverage_sizes(&r, 1, FS_TGT_DEDUPE, out, FS_SLOTS), 2);
	assert_int_equal(out[0].count, 10);
	assert_int_equal(out[1].size, MIB2);
	assert_int_equal(out[1].count, 4);
}

/* A replay too long to keep is not kept cut short. */
static void test_replay_too_long(void **state)
{
	static struct fs_report r;
	static char cmd[2048];

	(void)state;
	model__init(&r);
	memset(cmd, 'x', sizeof(cmd) - 1);
	model__replay(&r, cmd);
	model__replay(&r, "folioscope run dedupe --ops 3 --seed 1");
	assert_int_equal(r.validation.nreplays, 2);
	assert_null(strchr(r.validation.replays[0].cmd, 'x'));
	assert_string_equal(r.validation.replays[1].cmd,
			    "folioscope run dedupe --ops 3 --seed 1");
	for (int i = 0; i < FS_MAX_REPLAYS; i++)
		model__replay(&r, "again");
	assert_int_equal(r.validation.nreplays, FS_MAX_REPLAYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_slot_points),
		cmocka_unit_test(test_log2_slot_all_edges),
		cmocka_unit_test(test_log2_slot_spread),
		cmocka_unit_test(test_pow2_slot),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_alignment_slot),
		cmocka_unit_test(test_bucket_log2),
		cmocka_unit_test(test_bucket_log2_contains),
		cmocka_unit_test(test_bucket_align),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_add_stats),
		cmocka_unit_test(test_not_measured),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_stats_delta),
		cmocka_unit_test(test_part_add),
		cmocka_unit_test(test_part_add_cgroup),
		cmocka_unit_test(test_coverage_sizes),
		cmocka_unit_test(test_coverage_gap),
		cmocka_unit_test(test_coverage_full),
		cmocka_unit_test(test_coverage_same_name),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_replay_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
