// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The JSON report (schema folioscope/1) read back into the model, with
 * json-c: it accepts what json.c writes, and says where the first thing
 * it cannot accept is.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "report/report.h"
#include "json_names.h"
#include "util/fs.h"
#include "util/util.h"
#include "util/err.h"

/*
 * A run's report is a few hundred KiB; trace -i adds a few KiB per
 * interval (hours of them at -i 1). Refuse to slurp anything larger.
 */
#define JSON_MAX_INPUT (64u << 20)

struct reader {
	/* First problem found, as "where: what"; later ones add nothing. */
	char msg[512];
};

__attribute__((format(printf, 2, 3))) static int bad(struct reader *rd,
						     const char *fmt, ...)
{
	va_list ap;

	if (!rd->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(rd->msg, sizeof(rd->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Member key of o, which must exist and be of type type. */
static int get(struct reader *rd, struct json_object *o, const char *where,
	       const char *key, enum json_type type, struct json_object **out)
{
	if (!json_object_object_get_ex(o, key, out))
		return bad(rd, "%s%s%s: missing", where, *where ? "." : "",
			   key);
	if (!json_object_is_type(*out, type))
		return bad(rd, "%s%s%s: expected %s, got %s", where,
			   *where ? "." : "", key, json_type_to_name(type),
			   json_type_to_name(json_object_get_type(*out)));
	return 0;
}

/* A JSON integer as __u64; negative values are not counts. */
static int as_u64(struct reader *rd, struct json_object *v, const char *where,
		  const char *key, __u64 *out)
{
	if (!json_object_is_type(v, json_type_int))
		return bad(rd, "%s.%s: expected a non-negative integer", where,
			   key);
	/* get_int64 clamps values above INT64_MAX to it: still >= 0. */
	if (json_object_get_int64(v) < 0)
		return bad(rd, "%s.%s: negative value", where, key);
	*out = json_object_get_uint64(v);
	return 0;
}

static int get_u64(struct reader *rd, struct json_object *o, const char *where,
		   const char *key, __u64 *out)
{
	struct json_object *v;
	int err;

	err = get(rd, o, where, key, json_type_int, &v);
	return err ?: as_u64(rd, v, where, key, out);
}

/* A JSON string into a fixed model buffer; too long is an error, not a cut. */
static int as_str(struct reader *rd, struct json_object *v, const char *where,
		  const char *key, char *buf, size_t cap)
{
	const char *s = json_object_get_string(v);
	size_t len = json_object_get_string_len(v);

	if (len >= cap)
		return bad(rd, "%s.%s: longer than %zu bytes", where, key,
			   cap - 1);
	if (memchr(s, '\0', len))
		return bad(rd, "%s.%s: contains a NUL character", where, key);
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

static int get_str(struct reader *rd, struct json_object *o, const char *where,
		   const char *key, char *buf, size_t cap)
{
	struct json_object *v;
	int err;

	err = get(rd, o, where, key, json_type_string, &v);
	return err ?: as_str(rd, v, where, key, buf, cap);
}

/* get_str into a char array, sized by the array itself. */
#define GET_STR(rd, o, where, key, arr)                                        \
	get_str(rd, o, where, key, arr, sizeof(arr))

static int get_bool(struct reader *rd, struct json_object *o, const char *where,
		    const char *key, bool *out)
{
	struct json_object *v;
	int err;

	err = get(rd, o, where, key, json_type_boolean, &v);
	if (!err)
		*out = json_object_get_boolean(v);
	return err;
}

/* One bucket back into its slot; lo/hi must be exactly a model bucket. */
static int parse_bucket(struct reader *rd, struct fs_histogram *h,
			struct json_object *e, const char *where, __u64 *seen,
			__u64 *total)
{
	struct fs_bucket want;
	__u64 lo, hi, count;
	int err, slot;

	if (!json_object_is_type(e, json_type_object))
		return bad(rd, "%s: expected object", where);
	err = get_u64(rd, e, where, "lo", &lo);
	err = err ?: get_u64(rd, e, where, "hi", &hi);
	err = err ?: get_u64(rd, e, where, "count", &count);
	if (err)
		return err;
	slot = lo ? (int)fs_log2_slot(lo) : 0;
	model__bucket(h, slot, &want);
	if (want.lo != lo || want.hi != hi)
		return bad(
			rd,
			"%s: [%llu, %llu] is not a bucket of %s "
			"histogram",
			where, (unsigned long long)lo, (unsigned long long)hi,
			h->spec->kind == FS_KIND_ALIGN ? "an align" : "a log2");
	if (*seen & (1ULL << slot))
		return bad(rd, "%s: bucket %llu listed twice", where,
			   (unsigned long long)lo);
	*seen |= 1ULL << slot;
	if (*total + count < *total)
		return bad(rd, "%s: counts overflow", where);
	h->slot[slot] = count;
	*total += count;
	return 0;
}

static int parse_hist(struct reader *rd, struct fs_histogram *h,
		      struct json_object *o, const char *where)
{
	const struct fs_hist_spec *sp = h->spec;
	struct json_object *v, *arr;
	char w[160];
	__u64 count, sum, total = 0, seen = 0;
	int err;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	err = get(rd, o, where, "unit", json_type_string, &v);
	if (err)
		return err;
	if (strcmp(json_object_get_string(v), sp->unit))
		return bad(rd, "%s.unit: '%s', expected '%s'", where,
			   json_object_get_string(v), sp->unit);
	err = get(rd, o, where, "kind", json_type_string, &v);
	if (err)
		return err;
	if (strcmp(json_object_get_string(v), json__kind_name(sp->kind)))
		return bad(rd, "%s.kind: '%s', expected '%s'", where,
			   json_object_get_string(v),
			   json__kind_name(sp->kind));
	err = get_bool(rd, o, where, "measured", &h->measured);
	if (err)
		return err;

	if (!h->measured) {
		if (json_object_object_get_ex(o, "buckets", NULL))
			return bad(rd,
				   "%s: buckets in a histogram that was "
				   "not measured",
				   where);
		return GET_STR(rd, o, where, "why", h->why);
	}

	err = get_u64(rd, o, where, "count", &count);
	err = err ?: get_u64(rd, o, where, "sum", &sum);
	err = err ?: get(rd, o, where, "buckets", json_type_array, &arr);
	if (err)
		return err;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		snprintf(w, sizeof(w), "%s.buckets[%zu]", where, i);
		err = parse_bucket(rd, h, json_object_array_get_idx(arr, i), w,
				   &seen, &total);
		if (err)
			return err;
	}
	if (total != count)
		return bad(rd, "%s: count %llu but buckets add up to %llu",
			   where, (unsigned long long)count,
			   (unsigned long long)total);
	h->count = count;
	h->sum = sum;
	return 0;
}

static int parse_counters(struct reader *rd, struct fs_target_report *tr,
			  struct json_object *o, const char *where)
{
	bool seen[FS_MAX_COUNTERS] = { false };
	int c, err;

	json_object_object_foreach(o, key, val)
	{
		c = model__counter_of(tr, key);
		if (c < 0)
			return bad(rd, "%s.%s: unknown counter", where, key);
		err = as_u64(rd, val, where, key, &tr->counter[c]);
		if (err)
			return err;
		seen[c] = true;
	}
	for (c = 0; c < tr->ncounters; c++)
		if (!seen[c] && !tr->counter_spec[c].optional)
			return bad(rd, "%s.%s: missing", where,
				   tr->counter_spec[c].name);
	return 0;
}

static int parse_hists(struct reader *rd, struct fs_target_report *tr,
		       struct json_object *o, const char *where)
{
	bool seen[FS_MAX_HISTS] = { false };
	char w[128];
	int i, err;

	json_object_object_foreach(o, key, val)
	{
		snprintf(w, sizeof(w), "%s.%s", where, key);
		i = model__hist_of(tr, key);
		if (i < 0)
			return bad(rd, "%s: unknown histogram", w);
		err = parse_hist(rd, &tr->hist[i], val, w);
		if (err)
			return err;
		seen[i] = true;
	}
	/* A missing one would look like "no events": refuse instead,
	 * unless reports may lack it. */
	for (i = 0; i < tr->nhists; i++) {
		if (seen[i])
			continue;
		if (!tr->hist[i].spec->optional)
			return bad(rd, "%s.%s: missing", where,
				   tr->hist[i].spec->name);
		tr->hist[i].measured = false;
		snprintf(tr->hist[i].why, sizeof(tr->hist[i].why),
			 "not in this report");
	}
	return 0;
}

/* A target; with_attach: the whole target's, not a breakdown row's. */
static int parse_target(struct reader *rd, struct fs_target_report *tr,
			struct json_object *o, const char *where,
			bool with_attach)
{
	static const char *const top[] = { "calls", "errors" };
	struct fs_attach_info *a = &tr->attach;
	struct json_object *v;
	char w[96];
	__u64 u;
	int c, err;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	tr->enabled = true;
	if (!with_attach)
		goto counters;

	err = get(rd, o, where, "attach", json_type_object, &v);
	if (err)
		return err;
	snprintf(w, sizeof(w), "%s.attach", where);
	err = GET_STR(rd, v, w, "function", a->function);
	err = err ?: GET_STR(rd, v, w, "symbol", a->symbol);
	err = err ?: GET_STR(rd, v, w, "mechanism", a->mechanism);
	err = err ?: get_bool(rd, v, w, "inlined", &a->inlined);
	err = err ?: GET_STR(rd, v, w, "reason", a->reason);
	/* Only a target that says what it covers has "covers". */
	a->covers[0] = '\0';
	if (!err && json_object_object_get_ex(v, "covers", NULL))
		err = GET_STR(rd, v, w, "covers", a->covers);
	/* Only a kprobe-inline attach has its sites and DWARF. */
	a->inline_sites = 0;
	a->dwarf[0] = '\0';
	if (!err && json_object_object_get_ex(v, "inline_sites", NULL)) {
		u = 0;
		err = get_u64(rd, v, w, "inline_sites", &u);
		if (!err && u > FS_INLINE_MAX_SITES)
			err = bad(rd, "%s.inline_sites: more than %d", w,
				  FS_INLINE_MAX_SITES);
		a->inline_sites = (int)u;
		err = err ?: GET_STR(rd, v, w, "dwarf", a->dwarf);
	}
	if (err)
		return err;

counters:
	err = get(rd, o, where, "counters", json_type_object, &v);
	if (err)
		return err;
	snprintf(w, sizeof(w), "%s.counters", where);
	err = parse_counters(rd, tr, v, w);
	if (err)
		return err;
	/* The top-level copies are redundant; they must at least agree. */
	for (size_t i = 0; i < ARRAY_SIZE(top); i++) {
		c = model__counter_of(tr, top[i]);
		if (c < 0 || !json_object_object_get_ex(o, top[i], &v))
			continue;
		err = as_u64(rd, v, where, top[i], &u);
		if (err)
			return err;
		if (u != tr->counter[c])
			return bad(rd,
				   "%s.%s: %llu disagrees with counters "
				   "(%llu)",
				   where, top[i], (unsigned long long)u,
				   (unsigned long long)tr->counter[c]);
	}

	err = get(rd, o, where, "histograms", json_type_object, &v);
	if (err)
		return err;
	snprintf(w, sizeof(w), "%s.histograms", where);
	return parse_hists(rd, tr, v, w);
}

/* The other row's "keys" and "keys_full" of target t into k. */
static int parse_part_keys(struct reader *rd, struct json_object *o,
			   const char *where, const char *target,
			   struct fs_part_key *k)
{
	struct json_object *v;
	char w[96];
	int err;

	snprintf(w, sizeof(w), "%s.keys", where);
	err = get(rd, o, where, "keys", json_type_object, &v);
	err = err ?: get_u64(rd, v, w, target, &k->nother);
	snprintf(w, sizeof(w), "%s.keys_full", where);
	err = err ?: get(rd, o, where, "keys_full", json_type_object, &v);
	return err ?: get_bool(rd, v, w, target, &k->nother_more);
}

/* One row of a breakdown (parts_to_json). */
static int parse_part(struct reader *rd, struct fs_report *r,
		      struct json_object *o, const char *where)
{
	static const struct fs_stats none;
	char comm[16], cgroup[256], w[96];
	struct fs_part_key k = { .comm = comm, .cgroup = cgroup };
	struct json_object *targets;
	__u64 pid = 0;
	int t, err;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	cgroup[0] = '\0';
	err = get_bool(rd, o, where, "other", &k.other);
	err = err ?: GET_STR(rd, o, where, "comm", comm);
	if (!err && !k.other && r->by == FS_BY_CGROUP) {
		err = GET_STR(rd, o, where, "cgroup", cgroup);
		err = err ?: get_u64(rd, o, where, "id", &k.cgroup_id);
	} else if (!err && !k.other) {
		err = get_u64(rd, o, where, "pid", &pid);
		if (!err && (!pid || pid > 0x3fffffff))
			err = bad(rd, "%s.pid: not a pid", where);
		k.pid = (__u32)pid;
	}
	err = err ?: get(rd, o, where, "targets", json_type_object, &targets);
	if (err)
		return err;
	json_object_object_foreach(targets, key, val)
	{
		snprintf(w, sizeof(w), "%s.targets.%s", where, key);
		t = model__target_from_name(key);
		if (t < 0 || !r->target[t].enabled)
			return bad(rd, "%s: not a target of the run", w);
		if (k.other)
			err = parse_part_keys(rd, o, where, key, &k);
		err = err ?: model__part_add(r, &k, t, &none);
		if (err == -ENOMEM)
			return bad(rd, "%s: out of memory", w);
		err = err
			      ?: parse_target(
					 rd, &r->parts[r->nparts - 1].target[t],
					 val, w, false);
		if (err)
			return err;
	}
	return 0;
}

static int parse_parts(struct reader *rd, struct fs_report *r,
		       struct json_object *arr)
{
	const char *what = r->by == FS_BY_CGROUP ? "cgroups" : "processes";
	char w[64];
	int err = 0;

	if (!json_object_is_type(arr, json_type_array))
		return bad(rd, "%s: expected array", what);
	for (size_t i = 0; i < json_object_array_length(arr) && !err; i++) {
		int n = r->nparts;

		snprintf(w, sizeof(w), "%s[%zu]", what, i);
		err = parse_part(rd, r, json_object_array_get_idx(arr, i), w);
		/* model__part_add merges a key met twice: a row per key. */
		if (!err && r->nparts != n + 1)
			err = bad(rd, "%s: a row listed twice", w);
	}
	return err;
}

static int parse_filters(struct reader *rd, struct fs_report *r,
			 struct json_object *o)
{
	static const char where[] = "filters";
	struct fs_filters *f = &r->filters;
	const struct {
		const char *key;
		char *buf;
		size_t cap;
	} strs[] = {
		{ "comm", f->comm, sizeof(f->comm) },
		{ "cgroup", f->cgroup, sizeof(f->cgroup) },
		{ "dev", f->dev, sizeof(f->dev) },
		{ "fs", f->fs, sizeof(f->fs) },
		{ "command", f->command, sizeof(f->command) },
	};
	struct json_object *v;
	char w[32];
	__u64 pid;
	int err = 0;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	json_object_object_foreach(o, key, val)
	{
		(void)val;
		if (strcmp(key, "pids") && strcmp(key, "comm") &&
		    strcmp(key, "cgroup") && strcmp(key, "dev") &&
		    strcmp(key, "fs") && strcmp(key, "command"))
			return bad(rd, "%s.%s: unknown filter", where, key);
	}
	if (json_object_object_get_ex(o, "pids", &v)) {
		err = get(rd, o, where, "pids", json_type_array, &v);
		if (!err && json_object_array_length(v) > FS_MAX_PIDS)
			err = bad(rd, "%s.pids: more than %d", where,
				  FS_MAX_PIDS);
		for (size_t i = 0; !err && i < json_object_array_length(v);
		     i++) {
			snprintf(w, sizeof(w), "pids[%zu]", i);
			err = as_u64(rd, json_object_array_get_idx(v, i), where,
				     w, &pid);
			if (!err && (!pid || pid > 0x3fffffff))
				err = bad(rd, "%s.%s: not a pid", where, w);
			if (!err)
				f->pids[f->npids++] = (__u32)pid;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(strs) && !err; i++)
		if (json_object_object_get_ex(o, strs[i].key, &v))
			err = get_str(rd, o, where, strs[i].key, strs[i].buf,
				      strs[i].cap);
	return err;
}

static int parse_workload(struct reader *rd, struct fs_report *r,
			  struct json_object *o)
{
	static const char where[] = "workload";
	struct fs_kv kv;
	int err;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	err = GET_STR(rd, o, where, "name", r->workload_name);
	if (err)
		return err;
	json_object_object_foreach(o, key, val)
	{
		if (!strcmp(key, "name"))
			continue;
		/* The model drops what does not fit; a reader must not. */
		if (strlen(key) >= sizeof(kv.key))
			return bad(rd, "%s.%s: key longer than %zu bytes",
				   where, key, sizeof(kv.key) - 1);
		if (r->nkv >= FS_MAX_KV)
			return bad(rd, "%s: more than %d values", where,
				   FS_MAX_KV);
		if (json_object_is_type(val, json_type_int)) {
			err = as_u64(rd, val, where, key, &kv.u);
			if (!err)
				model__kv_u64(r, key, kv.u);
		} else if (json_object_is_type(val, json_type_string)) {
			err = as_str(rd, val, where, key, kv.s, sizeof(kv.s));
			if (!err)
				model__kv_str(r, key, kv.s);
		} else {
			err = bad(rd, "%s.%s: expected integer or string",
				  where, key);
		}
		if (err)
			return err;
	}
	return 0;
}

/* {"KIND": count}: counts that add up to failures. */
static int parse_kinds(struct reader *rd, struct fs_kinds *k,
		       struct json_object *o, const char *where, __u64 failures)
{
	__u64 sum = 0, u;
	int err;

	if (!json_object_is_type(o, json_type_object) ||
	    json_object_object_length(o) > FS_MAX_KINDS)
		return bad(rd, "%s.kinds: expected an object of at most %d",
			   where, FS_MAX_KINDS);
	json_object_object_foreach(o, key, val)
	{
		if (strlen(key) >= sizeof(k->k[0].kind))
			return bad(rd, "%s.kinds.%s: longer than %zu bytes",
				   where, key, sizeof(k->k[0].kind) - 1);
		err = as_u64(rd, val, where, key, &u);
		if (err)
			return err;
		snprintf(k->k[k->n].kind, sizeof(k->k[k->n].kind), "%s", key);
		k->k[k->n++].count = u;
		sum += u;
	}
	if (sum != failures)
		return bad(rd, "%s.kinds: %llu failures by kind for %llu",
			   where, (unsigned long long)sum,
			   (unsigned long long)failures);
	return 0;
}

/* "groups": their checks and failures within the run's. */
static int parse_groups(struct reader *rd, struct fs_validation *v,
			struct json_object *arr)
{
	__u64 checks = 0, failures = 0;
	char w[64];
	size_t n;
	int err;

	if (!json_object_is_type(arr, json_type_array) ||
	    json_object_array_length(arr) > FS_MAX_VGROUPS)
		return bad(rd,
			   "validation.groups: expected an array of at "
			   "most %d",
			   FS_MAX_VGROUPS);
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i), *k;
		struct fs_vgroup *g = &v->groups[i];

		snprintf(w, sizeof(w), "validation.groups[%zu]", i);
		if (!json_object_is_type(e, json_type_object))
			return bad(rd, "%s: expected object", w);
		err = GET_STR(rd, e, w, "name", g->name);
		err = err ?: get_u64(rd, e, w, "checks", &g->checks);
		err = err ?: get_u64(rd, e, w, "failures", &g->failures);
		if (!err && json_object_object_get_ex(e, "kinds", &k))
			err = parse_kinds(rd, &g->kinds, k, w, g->failures);
		if (!err && json_object_object_get_ex(e, "note", NULL))
			err = GET_STR(rd, e, w, "note", g->note);
		if (err)
			return err;
		if (g->failures > g->checks)
			return bad(rd, "%s: %llu failures in %llu checks", w,
				   (unsigned long long)g->failures,
				   (unsigned long long)g->checks);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v->groups[j].name, g->name))
				return bad(rd, "%s: group '%s' twice", w,
					   g->name);
		checks += g->checks;
		failures += g->failures;
	}
	v->ngroups = (int)n;
	if (checks > v->checks || failures > v->failures)
		return bad(rd,
			   "validation.groups: %llu checks, %llu failures "
			   "in groups of a run of %llu, %llu",
			   (unsigned long long)checks,
			   (unsigned long long)failures,
			   (unsigned long long)v->checks,
			   (unsigned long long)v->failures);
	return 0;
}

/* An optional "group": NAME of one of the groups, as 1 + its index. */
static int parse_group_ref(struct reader *rd, const struct fs_validation *v,
			   struct json_object *o, const char *where, int *out)
{
	char name[sizeof(v->groups[0].name)];
	int err;

	*out = 0;
	if (!json_object_object_get_ex(o, "group", NULL))
		return 0;
	err = GET_STR(rd, o, where, "group", name);
	if (err)
		return err;
	for (int g = 0; g < v->ngroups; g++)
		if (!strcmp(v->groups[g].name, name)) {
			*out = g + 1;
			return 0;
		}
	return bad(rd, "%s.group: no group '%s'", where, name);
}

static int parse_validation(struct reader *rd, struct fs_report *r,
			    struct json_object *o)
{
	static const char where[] = "validation";
	struct fs_validation *v = &r->validation;
	struct json_object *arr, *e;
	__u64 kept;
	char w[64];
	size_t n;
	int err;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	err = get_u64(rd, o, where, "checks", &v->checks);
	err = err ?: get_u64(rd, o, where, "failures", &v->failures);
	err = err ?: get(rd, o, where, "cases", json_type_array, &arr);
	if (err)
		return err;
	if (v->failures > v->checks)
		return bad(rd, "%s: %llu failures in %llu checks", where,
			   (unsigned long long)v->failures,
			   (unsigned long long)v->checks);
	/* Absent from reports of versions that did not count them. */
	if (json_object_object_get_ex(o, "kinds", &e)) {
		err = parse_kinds(rd, &v->kinds, e, where, v->failures);
		if (err)
			return err;
	}
	if (json_object_object_get_ex(o, "groups", &e)) {
		err = parse_groups(rd, v, e);
		if (err)
			return err;
	}
	if (json_object_object_get_ex(o, "cases_per_group", &e)) {
		__u64 u;

		err = as_u64(rd, e, where, "cases_per_group", &u);
		if (!err && (!u || u > FS_MAX_CASES))
			err = bad(rd, "%s.cases_per_group: %llu (want 1 .. %d)",
				  where, (unsigned long long)u, FS_MAX_CASES);
		if (err)
			return err;
		v->cases_per_group = (int)u;
	}
	/* The writer keeps the first FS_MAX_CASES failures, no fewer; a
	 * report of merged runs the first ones of each. */
	n = json_object_array_length(arr);
	kept = v->failures < FS_MAX_CASES ? v->failures : FS_MAX_CASES;
	if (v->cases_per_group ? n > kept : n != kept)
		return bad(rd,
			   "%s.cases: %zu cases for %llu failures (want "
			   "%s%llu)",
			   where, n, (unsigned long long)v->failures,
			   v->cases_per_group ? "at most " : "",
			   (unsigned long long)kept);
	for (size_t i = 0; i < n; i++) {
		struct fs_case *c = &v->cases[i];

		snprintf(w, sizeof(w), "%s.cases[%zu]", where, i);
		e = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(e, json_type_object))
			return bad(rd, "%s: expected object", w);
		/* A case without a kind is a wrong answer. */
		if (json_object_object_get_ex(e, "kind", NULL))
			err = GET_STR(rd, e, w, "kind", c->kind);
		else
			snprintf(c->kind, sizeof(c->kind), "%s",
				 FS_CASE_ANSWER);
		err = err ?: GET_STR(rd, e, w, "layout", c->layout);
		err = err ?: GET_STR(rd, e, w, "expected", c->expected);
		err = err ?: GET_STR(rd, e, w, "got", c->got);
		err = err ?: parse_group_ref(rd, v, e, w, &c->group);
		if (err)
			return err;
	}
	v->ncases = (int)n;
	v->ran = true;
	if (v->cases_per_group) {
		for (int g = 0; g <= v->ngroups; g++) {
			int in = 0;

			for (size_t i = 0; i < n; i++)
				in += v->cases[i].group == g;
			if (in > v->cases_per_group)
				return bad(rd,
					   "%s.cases: %d of group '%s' (at "
					   "most %d)",
					   where, in,
					   g ? v->groups[g - 1].name : "none",
					   v->cases_per_group);
		}
	}
	/* Absent when no failure was replayed. */
	if (json_object_object_get_ex(o, "replays", &arr)) {
		if (!json_object_is_type(arr, json_type_array) ||
		    json_object_array_length(arr) > FS_MAX_REPLAYS)
			return bad(
				rd,
				"%s.replays: expected an array of at most %d",
				where, FS_MAX_REPLAYS);
		n = json_object_array_length(arr);
		for (size_t i = 0; i < n; i++) {
			struct fs_replay *p = &v->replays[i];

			snprintf(w, sizeof(w), "%s.replays[%zu]", where, i);
			e = json_object_array_get_idx(arr, i);
			if (!json_object_is_type(e, json_type_object))
				return bad(rd, "%s: expected object", w);
			err = GET_STR(rd, e, w, "command", p->cmd);
			err = err ?: parse_group_ref(rd, v, e, w, &p->group);
			if (err)
				return err;
		}
		v->nreplays = (int)n;
	}
	/* Absent when nothing was skipped. */
	if (json_object_object_get_ex(o, "skipped", &arr)) {
		if (!json_object_is_type(arr, json_type_array) ||
		    json_object_array_length(arr) > FS_MAX_SKIPS)
			return bad(
				rd,
				"%s.skipped: expected an array of at most %d",
				where, FS_MAX_SKIPS);
		n = json_object_array_length(arr);
		for (size_t i = 0; i < n; i++) {
			struct fs_skip *k = &v->skips[i];

			snprintf(w, sizeof(w), "%s.skipped[%zu]", where, i);
			e = json_object_array_get_idx(arr, i);
			if (!json_object_is_type(e, json_type_object))
				return bad(rd, "%s: expected object", w);
			err = GET_STR(rd, e, w, "layout", k->what);
			err = err ?: GET_STR(rd, e, w, "why", k->why);
			if (err)
				return err;
		}
		v->nskips = (int)n;
	}
	/* Absent when the run was not disturbed. */
	if (!json_object_object_get_ex(o, "disturbed", &e))
		return 0;
	snprintf(w, sizeof(w), "%s.disturbed", where);
	if (!json_object_is_type(e, json_type_object))
		return bad(rd, "%s: expected object", w);
	err = GET_STR(rd, e, w, "reason", v->disturbed);
	err = err ?: get_u64(rd, e, w, "unjudged", &v->unjudged);
	if (!err && !v->disturbed[0])
		return bad(rd, "%s.reason: empty", w);
	return err;
}

/* One target of a coverage group: the sizes back into log2 slots. */
static int parse_cov_target(struct reader *rd, struct fs_cov_group *g, int t,
			    struct json_object *o, const char *where)
{
	struct json_object *arr, *e;
	char w[128];
	size_t n;
	int err;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	err = get(rd, o, where, "folio_sizes", json_type_array, &arr);
	if (err)
		return err;
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		__u64 size, count;

		snprintf(w, sizeof(w), "%s.folio_sizes[%zu]", where, i);
		e = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(e, json_type_object))
			return bad(rd, "%s: expected object", w);
		err = get_u64(rd, e, w, "size", &size);
		err = err ?: get_u64(rd, e, w, "count", &count);
		if (err)
			return err;
		/* Folio sizes are powers of two: a log2 slot's low end. */
		if (!size || (size & (size - 1)))
			return bad(rd, "%s.size: %llu is not a power of two", w,
				   (unsigned long long)size);
		g->slot[t][fs_log2_slot(size)] = count;
	}
	return 0;
}

static int parse_coverage(struct reader *rd, struct fs_report *r,
			  struct json_object *o)
{
	static const char where[] = "coverage";
	struct json_object *e, *jt;
	char w[96], large[16];
	size_t n;
	int err;

	if (!json_object_is_type(o, json_type_array))
		return bad(rd, "%s: expected array", where);
	n = json_object_array_length(o);
	if (n > FS_MAX_COV)
		return bad(rd, "%s: %zu groups (at most %d)", where, n,
			   FS_MAX_COV);
	for (size_t i = 0; i < n; i++) {
		struct fs_cov_group *g = &r->coverage.g[i];

		snprintf(w, sizeof(w), "%s[%zu]", where, i);
		e = json_object_array_get_idx(o, i);
		if (!json_object_is_type(e, json_type_object))
			return bad(rd, "%s: expected object", w);
		err = GET_STR(rd, e, w, "group", g->name);
		err = err ?: GET_STR(rd, e, w, "large_folios", large);
		err = err ?: GET_STR(rd, e, w, "large_why", g->large_why);
		err = err
			      ?: get_bool(rd, e, w, "warn_on_gap",
					  &r->coverage.warn);
		err = err ?: get(rd, e, w, "targets", json_type_object, &jt);
		if (err)
			return err;
		g->large = -2;
		for (int k = 0; k < 3; k++)
			if (!strcmp(large, json_large_names[k]))
				g->large = k - 1;
		if (g->large == -2)
			return bad(rd, "%s.large_folios: '%s'", w, large);
		json_object_object_foreach(jt, key, val)
		{
			char tw[128];
			int t = model__target_from_name(key);

			snprintf(tw, sizeof(tw), "%s.targets.%s", w, key);
			if (t < 0 || !r->target[t].enabled)
				return bad(rd, "%s: not a target of the run",
					   tw);
			g->traced[t] = true;
			err = parse_cov_target(rd, g, t, val, tw);
			if (err)
				return err;
		}
	}
	r->coverage.ngroups = (int)n;
	return 0;
}

/*
 * One interval's target: counters and histograms as in the totals, each
 * measured exactly where the totals are.
 */
static int parse_interval_target(struct reader *rd, const struct fs_report *r,
				 struct fs_report *iv, const char *key,
				 struct json_object *o, const char *where)
{
	struct fs_target_report *tr;
	struct json_object *v;
	char w[128];
	int t, err;

	t = model__target_from_name(key);
	if (t < 0 || !r->target[t].enabled)
		return bad(rd, "%s: not a target of the totals", where);
	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s: expected object", where);
	tr = &iv->target[t];
	tr->enabled = true;
	err = get(rd, o, where, "counters", json_type_object, &v);
	if (err)
		return err;
	snprintf(w, sizeof(w), "%s.counters", where);
	err = parse_counters(rd, tr, v, w);
	err = err ?: get(rd, o, where, "histograms", json_type_object, &v);
	if (err)
		return err;
	snprintf(w, sizeof(w), "%s.histograms", where);
	err = parse_hists(rd, tr, v, w);
	if (err)
		return err;
	for (int i = 0; i < tr->nhists; i++)
		if (tr->hist[i].measured != r->target[t].hist[i].measured)
			return bad(rd,
				   "%s.%s: measured here but not in the "
				   "totals, or the other way round",
				   w, tr->hist[i].spec->name);
	return 0;
}

/* "intervals" of trace -i: in order, and adding up to the totals. */
static int parse_intervals(struct reader *rd, struct fs_report *r,
			   struct json_object *arr)
{
	struct fs_report *iv;
	struct json_object *e, *v;
	__u64 start, end, prev = 0;
	char w[64], tw[96], why[192];
	int err = 0;

	if (!json_object_is_type(arr, json_type_array))
		return bad(rd, "intervals: expected array");
	iv = malloc(sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(arr) && !err; i++) {
		snprintf(w, sizeof(w), "intervals[%zu]", i);
		e = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(e, json_type_object)) {
			err = bad(rd, "%s: expected object", w);
			break;
		}
		err = get_u64(rd, e, w, "start_ms", &start);
		err = err ?: get_u64(rd, e, w, "end_ms", &end);
		err = err ?: get(rd, e, w, "targets", json_type_object, &v);
		if (err)
			break;
		if (end < start || start < prev) {
			err = bad(rd, "%s: [%llu, %llu] ms out of order", w,
				  (unsigned long long)start,
				  (unsigned long long)end);
			break;
		}
		prev = end;
		model__init(iv);
		json_object_object_foreach(v, key, val)
		{
			snprintf(tw, sizeof(tw), "%s.targets.%s", w, key);
			err = parse_interval_target(rd, r, iv, key, val, tw);
			if (err)
				break;
		}
		for (int t = 0; t < FS_TGT_NR && !err; t++)
			if (r->target[t].enabled && !iv->target[t].enabled)
				err = bad(rd, "%s.targets.%s: missing", w,
					  r->target[t].name);
		if (!err)
			err = model__interval_add(r, start, end, iv);
	}
	free(iv);
	if (!err && !model__intervals_add_up(r, why, sizeof(why)))
		err = bad(rd, "intervals: do not add up to the totals: %s",
			  why);
	return err;
}

static int parse_report(struct reader *rd, struct json_object *root,
			struct fs_report *r)
{
	struct json_object *v, *targets;
	char w[64];
	int t, err;

	if (!json_object_is_type(root, json_type_object))
		return bad(rd, "top level: expected object, got %s",
			   json_type_to_name(json_object_get_type(root)));
	err = get(rd, root, "", "schema", json_type_string, &v);
	if (err)
		return err;
	if (strcmp(json_object_get_string(v), FS_REPORT_SCHEMA))
		return bad(rd, "schema '%s', expected '%s'",
			   json_object_get_string(v), FS_REPORT_SCHEMA);

	err = get(rd, root, "", "tool", json_type_object, &v);
	err = err ?: GET_STR(rd, v, "tool", "version", r->tool_version);
	err = err ?: get(rd, root, "", "host", json_type_object, &v);
	err = err ?: GET_STR(rd, v, "host", "kernel", r->kernel);
	err = err ?: GET_STR(rd, v, "host", "machine", r->machine);
	err = err ?: get_u64(rd, v, "host", "page_size", &r->page_size);
	err = err ?: get(rd, root, "", "targets", json_type_object, &targets);
	if (err)
		return err;
	/* Absent when not made in a guest of folioscope vm. */
	if (json_object_object_get_ex(root, "vm", &v)) {
		err = GET_STR(rd, v, "vm", "accel", r->vm.accel);
		err = err ?: get_u64(rd, v, "vm", "reboots", &r->vm.reboots);
		if (err)
			return err;
		if (!r->vm.accel[0])
			return bad(rd, "vm.accel: empty");
	}

	json_object_object_foreach(targets, key, val)
	{
		snprintf(w, sizeof(w), "targets.%s", key);
		t = model__target_from_name(key);
		if (t < 0)
			return bad(rd, "%s: unknown target", w);
		err = parse_target(rd, &r->target[t], val, w, true);
		if (err)
			return err;
	}

	/* Absent without a breakdown; never both. */
	if (json_object_object_get_ex(root, "processes", &v) &&
	    json_object_object_get_ex(root, "cgroups", NULL))
		return bad(rd, "both processes and cgroups");
	if (json_object_object_get_ex(root, "processes", &v) ||
	    json_object_object_get_ex(root, "cgroups", &v)) {
		r->by = json_object_object_get_ex(root, "cgroups", NULL)
				? FS_BY_CGROUP
				: FS_BY_PROCESS;
		err = parse_parts(rd, r, v);
		if (err)
			return err;
	}
	/* Absent when trace was given no filter. */
	if (json_object_object_get_ex(root, "filters", &v)) {
		err = parse_filters(rd, r, v);
		if (err)
			return err;
	}
	/* Absent when no workload ran. */
	if (json_object_object_get_ex(root, "workload", &v)) {
		err = parse_workload(rd, r, v);
		if (err)
			return err;
	}
	/* Absent when nothing was checked. */
	if (json_object_object_get_ex(root, "validation", &v)) {
		err = parse_validation(rd, r, v);
		if (err)
			return err;
	}
	/* Absent unless a run reported its groups of layouts. */
	if (json_object_object_get_ex(root, "coverage", &v)) {
		err = parse_coverage(rd, r, v);
		if (err)
			return err;
	}
	/* Absent unless trace -i wrote them. */
	if (json_object_object_get_ex(root, "intervals", &v))
		return parse_intervals(rd, r, v);
	return 0;
}

static int parse_text(struct reader *rd, const char *buf, size_t len,
		      struct json_object **out)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	struct json_object *root;
	size_t end;
	int err = 0;

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	/* Trailing text is checked below, with a clearer message. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_ALLOW_TRAILING_CHARS);
	/* len + 1: with the NUL the tokener knows a bare number has ended. */
	root = json_tokener_parse_ex(tok, buf, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue || (!root && end >= len)) {
		err = bad(rd, "malformed JSON: unexpected end of input");
	} else if (!root || jerr != json_tokener_success) {
		err = bad(rd, "malformed JSON at byte %zu: %s", end,
			  json_tokener_error_desc(jerr));
	} else {
		/* The NUL we passed ends the text; anything before it counts.
		 */
		while (end < len && isspace((unsigned char)buf[end]))
			end++;
		if (end < len)
			err = bad(rd,
				  "malformed JSON: trailing data at byte "
				  "%zu",
				  end);
	}
	json_tokener_free(tok);
	if (err)
		json_object_put(root);
	else
		*out = root;
	return err;
}

/* buf of what name names into r, all or nothing. */
static int json_parse(struct reader *rd, const char *buf, size_t len,
		      struct fs_report *r)
{
	struct json_object *root = NULL;
	struct fs_report *tmp = NULL;
	int err;

	err = parse_text(rd, buf, len, &root);
	if (err)
		goto out;
	/* Build aside, so r stays as it was if the file is bad. */
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		err = -ENOMEM;
		goto out;
	}
	model__init(tmp);
	err = parse_report(rd, root, tmp);
	if (err) {
		model__free(tmp);
		goto out;
	}
	memcpy(r, tmp, sizeof(*r));
out:
	free(tmp);
	json_object_put(root);
	return err;
}

int report__json_parse(const char *buf, size_t len, const char *name,
		       struct fs_report *r)
{
	struct reader rd = { .msg = "" };
	int err = json_parse(&rd, buf, len, r);

	if (rd.msg[0])
		err__print(NULL, 0, "invalid report '%s': %s", name, rd.msg);
	else if (err)
		err__print(NULL, err, "cannot read '%s'", name);
	return err;
}

int report__json_read(const char *path, struct fs_report *r)
{
	struct reader rd = { .msg = "" };
	bool is_stdin = !strcmp(path, "-");
	char *buf = NULL;
	size_t len = 0;
	int fd, err;

	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = fd__read_all(fd, JSON_MAX_INPUT, &buf, &len);
	if (!err)
		err = json_parse(&rd, buf, len, r);
cleanup:
	if (fd >= 0 && !is_stdin)
		close(fd);
	if (rd.msg[0])
		err__print(NULL, 0, "invalid report '%s': %s", path, rd.msg);
	else if (err)
		err__print(NULL, err, "cannot read '%s'", path);
	free(buf);
	return err;
}
