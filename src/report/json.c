// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * JSON reporter (schema folioscope/1), with json-c; json_read.c reads it
 * back, so a report can be saved on one machine (or in the VM guest) and
 * reported or compared elsewhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/report.h"
#include "json_names.h"
#include "util/jsonb.h"
#include "util/util.h"
#include "util/err.h"

#define JSON_FLAGS                                                             \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |                   \
	 JSON_C_TO_STRING_NOSLASHESCAPE)

static void hist_to_json(struct jsonb *b, struct json_object *hists,
			 const struct fs_histogram *h)
{
	const struct fs_hist_spec *sp = h->spec;
	struct json_object *o, *arr, *e;
	struct fs_bucket bk;
	int first, last;

	o = jsonb__put(b, hists, sp->name, json_object_new_object());
	jsonb__put(b, o, "unit", json_object_new_string(sp->unit));
	jsonb__put(b, o, "kind",
		   json_object_new_string(json__kind_name(sp->kind)));
	jsonb__put(b, o, "measured", json_object_new_boolean(h->measured));
	if (!h->measured) {
		/* No count/sum/buckets: zeros would read as "nothing seen". */
		jsonb__put(b, o, "why", JSONB_STR(h->why));
		return;
	}
	jsonb__put(b, o, "count", json_object_new_uint64(h->count));
	jsonb__put(b, o, "sum", json_object_new_uint64(h->sum));
	arr = jsonb__put(b, o, "buckets", json_object_new_array());
	if (!model__range(h, &first, &last))
		return;
	for (int s = first; s <= last; s++) {
		model__bucket(h, s, &bk);
		e = jsonb__push(b, arr, json_object_new_object());
		jsonb__put(b, e, "lo", json_object_new_uint64(bk.lo));
		jsonb__put(b, e, "hi", json_object_new_uint64(bk.hi));
		jsonb__put(b, e, "count", json_object_new_uint64(bk.count));
	}
}

/* with_attach: false for a process's view, which has none of its own. */
static void target_to_json(struct jsonb *b, struct json_object *targets,
			   const struct fs_target_report *tr, bool with_attach)
{
	static const char *const top[] = { "calls", "errors" };
	const struct fs_attach_info *a = &tr->attach;
	struct json_object *t, *o;
	int c;

	t = jsonb__put(b, targets, tr->name, json_object_new_object());
	if (with_attach) {
		o = jsonb__put(b, t, "attach", json_object_new_object());
		jsonb__put(b, o, "function", JSONB_STR(a->function));
		jsonb__put(b, o, "symbol", JSONB_STR(a->symbol));
		jsonb__put(b, o, "mechanism", JSONB_STR(a->mechanism));
		jsonb__put(b, o, "inlined",
			   json_object_new_boolean(a->inlined));
		jsonb__put(b, o, "reason", JSONB_STR(a->reason));
		if (a->covers[0])
			jsonb__put(b, o, "covers", JSONB_STR(a->covers));
		if (a->inline_sites) {
			jsonb__put(b, o, "inline_sites",
				   json_object_new_int(a->inline_sites));
			jsonb__put(b, o, "dwarf", JSONB_STR(a->dwarf));
		}
	}
	/* calls/errors also at the top for quick jq queries. */
	for (size_t i = 0; i < ARRAY_SIZE(top); i++) {
		c = model__counter_of(tr, top[i]);
		if (c >= 0)
			jsonb__put(b, t, top[i],
				   json_object_new_uint64(tr->counter[c]));
	}
	o = jsonb__put(b, t, "counters", json_object_new_object());
	for (c = 0; c < tr->ncounters; c++)
		jsonb__put(b, o, tr->counter_spec[c].name,
			   json_object_new_uint64(tr->counter[c]));
	o = jsonb__put(b, t, "histograms", json_object_new_object());
	for (int i = 0; i < tr->nhists; i++)
		hist_to_json(b, o, &tr->hist[i]);
}

/* "filters": only the filters given; absent when none was. */
static void filters_to_json(struct jsonb *b, struct json_object *root,
			    const struct fs_filters *f)
{
	struct json_object *o, *arr;

	o = jsonb__put(b, root, "filters", json_object_new_object());
	if (f->npids) {
		arr = jsonb__put(b, o, "pids", json_object_new_array());
		for (int i = 0; i < f->npids; i++)
			jsonb__push(b, arr, json_object_new_uint64(f->pids[i]));
	}
	if (f->comm[0])
		jsonb__put(b, o, "comm", JSONB_STR(f->comm));
	if (f->cgroup[0])
		jsonb__put(b, o, "cgroup", JSONB_STR(f->cgroup));
	if (f->dev[0])
		jsonb__put(b, o, "dev", JSONB_STR(f->dev));
	if (f->fs[0])
		jsonb__put(b, o, "fs", JSONB_STR(f->fs));
	if (f->command[0])
		jsonb__put(b, o, "command", JSONB_STR(f->command));
}

static void workload_to_json(struct jsonb *b, struct json_object *root,
			     const struct fs_report *r)
{
	struct json_object *w;

	w = jsonb__put(b, root, "workload", json_object_new_object());
	jsonb__put(b, w, "name", JSONB_STR(r->workload_name));
	for (int i = 0; i < r->nkv; i++) {
		const struct fs_kv *kv = &r->kv[i];

		/* "name" is the workload's own name in this schema. */
		if (!strcmp(kv->key, "name"))
			continue;
		if (kv->type == FS_KV_U64)
			jsonb__put(b, w, kv->key,
				   json_object_new_uint64(kv->u));
		else
			jsonb__put(b, w, kv->key, JSONB_STR(kv->s));
	}
}

/* {"KIND": count, ...}: every failure by its kind. */
static void kinds_to_json(struct jsonb *b, struct json_object *o,
			  const struct fs_kinds *k)
{
	struct json_object *e =
		jsonb__put(b, o, "kinds", json_object_new_object());

	for (int i = 0; i < k->n; i++)
		jsonb__put(b, e, k->k[i].kind,
			   json_object_new_uint64(k->k[i].count));
}

/* The name of group g (1 + index), NULL for none. */
static const char *group_name(const struct fs_validation *v, int g)
{
	return g > 0 && g <= v->ngroups ? v->groups[g - 1].name : NULL;
}

/* "validation": {"checks", "failures", "kinds", "cases": [{"kind",
 * "layout", "expected", "got", "group"}]}; cases are the first failures,
 * FS_MAX_CASES at most (with "cases_per_group": the first of each group,
 * that many at most). "groups": [{"name", "checks", "failures", "kinds",
 * "note"}] the groups of layouts; "replays": [{"command", "group"}] the
 * commands that replay a failure. A run the environment disturbed adds
 * "disturbed": {"reason", "unjudged"}. */
static void validation_to_json(struct jsonb *b, struct json_object *root,
			       const struct fs_validation *v)
{
	struct json_object *o, *arr, *e;

	o = jsonb__put(b, root, "validation", json_object_new_object());
	jsonb__put(b, o, "checks", json_object_new_uint64(v->checks));
	jsonb__put(b, o, "failures", json_object_new_uint64(v->failures));
	kinds_to_json(b, o, &v->kinds);
	if (v->cases_per_group)
		jsonb__put(b, o, "cases_per_group",
			   json_object_new_int(v->cases_per_group));
	arr = jsonb__put(b, o, "cases", json_object_new_array());
	for (int i = 0; i < v->ncases && i < FS_MAX_CASES; i++) {
		const struct fs_case *c = &v->cases[i];

		e = jsonb__push(b, arr, json_object_new_object());
		jsonb__put(b, e, "kind", JSONB_STR(c->kind));
		jsonb__put(b, e, "layout", JSONB_STR(c->layout));
		jsonb__put(b, e, "expected", JSONB_STR(c->expected));
		jsonb__put(b, e, "got", JSONB_STR(c->got));
		if (group_name(v, c->group))
			jsonb__put(b, e, "group",
				   JSONB_STR(v->groups[c->group - 1].name));
	}
	if (v->ngroups) {
		arr = jsonb__put(b, o, "groups", json_object_new_array());
		for (int i = 0; i < v->ngroups; i++) {
			const struct fs_vgroup *g = &v->groups[i];

			e = jsonb__push(b, arr, json_object_new_object());
			jsonb__put(b, e, "name", JSONB_STR(g->name));
			jsonb__put(b, e, "checks",
				   json_object_new_uint64(g->checks));
			jsonb__put(b, e, "failures",
				   json_object_new_uint64(g->failures));
			kinds_to_json(b, e, &g->kinds);
			if (g->note[0])
				jsonb__put(b, e, "note", JSONB_STR(g->note));
		}
	}
	if (v->nreplays) {
		arr = jsonb__put(b, o, "replays", json_object_new_array());
		for (int i = 0; i < v->nreplays; i++) {
			const struct fs_replay *p = &v->replays[i];

			e = jsonb__push(b, arr, json_object_new_object());
			jsonb__put(b, e, "command", JSONB_STR(p->cmd));
			if (group_name(v, p->group))
				jsonb__put(
					b, e, "group",
					JSONB_STR(
						v->groups[p->group - 1].name));
		}
	}
	if (v->disturbed[0]) {
		e = jsonb__put(b, o, "disturbed", json_object_new_object());
		jsonb__put(b, e, "reason", JSONB_STR(v->disturbed));
		jsonb__put(b, e, "unjudged",
			   json_object_new_uint64(v->unjudged));
	}
	if (v->nskips) {
		arr = jsonb__put(b, o, "skipped", json_object_new_array());
		for (int i = 0; i < v->nskips && i < FS_MAX_SKIPS; i++) {
			e = jsonb__push(b, arr, json_object_new_object());
			jsonb__put(b, e, "layout", JSONB_STR(v->skips[i].what));
			jsonb__put(b, e, "why", JSONB_STR(v->skips[i].why));
		}
	}
}

/*
 * "coverage": [{"group", "large_folios": "yes"|"no"|"not judged",
 * "large_why", "warn_on_gap", "targets": {TARGET: {"measured",
 * "large_folio_gap", "folio_sizes": [{"size", "count"}]}}}]: per group of
 * layouts, the folio sizes each target met (model__coverage_sizes),
 * smallest first; warn_on_gap is the same in every group.
 */
static void coverage_to_json(struct jsonb *b, struct json_object *root,
			     const struct fs_report *r)
{
	struct json_object *arr, *e, *jt, *t, *sz, *one;
	struct fs_cov_size s[FS_SLOTS];

	arr = jsonb__put(b, root, "coverage", json_object_new_array());
	for (int g = 0; g < r->coverage.ngroups; g++) {
		const struct fs_cov_group *cg = &r->coverage.g[g];
		int large = cg->large < 0 ? 0 : cg->large ? 2 : 1;

		e = jsonb__push(b, arr, json_object_new_object());
		jsonb__put(b, e, "group", JSONB_STR(cg->name));
		jsonb__put(b, e, "large_folios",
			   json_object_new_string(json_large_names[large]));
		jsonb__put(b, e, "large_why", JSONB_STR(cg->large_why));
		jsonb__put(b, e, "warn_on_gap",
			   json_object_new_boolean(r->coverage.warn));
		jt = jsonb__put(b, e, "targets", json_object_new_object());
		for (int k = 0; k < FS_TGT_NR; k++) {
			int n;

			if (!r->target[k].enabled || !cg->traced[k])
				continue;
			n = model__coverage_sizes(r, g, k, s, FS_SLOTS);
			t = jsonb__put(b, jt, r->target[k].name,
				       json_object_new_object());
			jsonb__put(b, t, "measured",
				   json_object_new_boolean(n >= 0));
			jsonb__put(b, t, "large_folio_gap",
				   json_object_new_boolean(
					   model__coverage_gap(r, g, k)));
			sz = jsonb__put(b, t, "folio_sizes",
					json_object_new_array());
			for (int i = 0; i < n; i++) {
				one = jsonb__push(b, sz,
						  json_object_new_object());
				jsonb__put(b, one, "size",
					   json_object_new_uint64(s[i].size));
				jsonb__put(b, one, "count",
					   json_object_new_uint64(s[i].count));
			}
		}
	}
}

/*
 * "intervals": [{"start_ms", "end_ms", "targets": {TARGET: {"counters",
 * "histograms"}}}], the histograms shaped as in the totals (not measured
 * ones with their reason), the events of each interval only.
 */
static void intervals_to_json(struct jsonb *b, struct json_object *root,
			      const struct fs_report *r)
{
	struct json_object *arr, *e, *jt, *t, *o;
	struct fs_histogram *h;

	h = malloc(sizeof(*h));
	if (!h) {
		b->oom = true;
		return;
	}
	arr = jsonb__put(b, root, "intervals", json_object_new_array());
	for (int i = 0; i < r->nintervals; i++) {
		const struct fs_interval *iv = &r->intervals[i];

		e = jsonb__push(b, arr, json_object_new_object());
		jsonb__put(b, e, "start_ms",
			   json_object_new_uint64(iv->start_ms));
		jsonb__put(b, e, "end_ms", json_object_new_uint64(iv->end_ms));
		jt = jsonb__put(b, e, "targets", json_object_new_object());
		for (int k = 0; k < FS_TGT_NR; k++) {
			const struct fs_target_report *tr = &r->target[k];
			const struct fs_interval_target *it = &iv->target[k];

			if (!tr->enabled)
				continue;
			t = jsonb__put(b, jt, tr->name,
				       json_object_new_object());
			o = jsonb__put(b, t, "counters",
				       json_object_new_object());
			for (int c = 0; c < tr->ncounters; c++)
				jsonb__put(
					b, o, tr->counter_spec[c].name,
					json_object_new_uint64(it->counter[c]));
			o = jsonb__put(b, t, "histograms",
				       json_object_new_object());
			for (int x = 0; x < tr->nhists; x++) {
				*h = tr->hist[x];
				memcpy(h->slot, it->slot[x], sizeof(h->slot));
				h->count = it->count[x];
				h->sum = it->sum[x];
				hist_to_json(b, o, h);
			}
		}
	}
	free(h);
}

/*
 * A breakdown: "processes" (-P, --by process) or "cgroups" (--by cgroup),
 * rows of {"pid", "comm"} or {"cgroup", "id", "comm"}, "other", and for
 * the other row how many keys it holds per target ("keys") and whether
 * that is only at least ("keys_full"); then "targets".
 */
static void parts_to_json(struct jsonb *b, struct json_object *root,
			  const struct fs_report *r)
{
	bool cg = r->by == FS_BY_CGROUP;
	struct json_object *arr, *jp, *jt, *jk, *jf;

	arr = jsonb__put(b, root, cg ? "cgroups" : "processes",
			 json_object_new_array());
	for (int i = 0; i < r->nparts; i++) {
		const struct fs_part *p = &r->parts[i];

		jp = jsonb__push(b, arr, json_object_new_object());
		if (cg && !p->other) {
			jsonb__put(b, jp, "cgroup", JSONB_STR(p->cgroup));
			jsonb__put(b, jp, "id",
				   json_object_new_uint64(p->cgroup_id));
		} else if (!p->other) {
			jsonb__put(b, jp, "pid",
				   json_object_new_uint64(p->pid));
		}
		jsonb__put(b, jp, "comm", JSONB_STR(p->comm));
		jsonb__put(b, jp, "other", json_object_new_boolean(p->other));
		if (p->other) {
			jk = jsonb__put(b, jp, "keys",
					json_object_new_object());
			jf = jsonb__put(b, jp, "keys_full",
					json_object_new_object());
			for (int t = 0; t < FS_TGT_NR; t++) {
				if (!p->target[t].enabled)
					continue;
				jsonb__put(
					b, jk, p->target[t].name,
					json_object_new_uint64(p->nother[t]));
				jsonb__put(b, jf, p->target[t].name,
					   json_object_new_boolean(
						   p->nother_more[t]));
			}
		}
		jt = jsonb__put(b, jp, "targets", json_object_new_object());
		for (int t = 0; t < FS_TGT_NR; t++)
			if (p->target[t].enabled)
				target_to_json(b, jt, &p->target[t], false);
	}
}

struct json_object *report__to_json(const struct fs_report *r)
{
	struct jsonb b = { .oom = false };
	struct json_object *root, *o;

	root = json_object_new_object();
	if (!root)
		return NULL;
	jsonb__put(&b, root, "schema",
		   json_object_new_string(FS_REPORT_SCHEMA));
	o = jsonb__put(&b, root, "tool", json_object_new_object());
	jsonb__put(&b, o, "version", JSONB_STR(r->tool_version));
	o = jsonb__put(&b, root, "host", json_object_new_object());
	jsonb__put(&b, o, "kernel", JSONB_STR(r->kernel));
	jsonb__put(&b, o, "machine", JSONB_STR(r->machine));
	jsonb__put(&b, o, "page_size", json_object_new_uint64(r->page_size));
	/* Only a report made in a guest of folioscope vm. */
	if (r->vm.accel[0]) {
		o = jsonb__put(&b, root, "vm", json_object_new_object());
		jsonb__put(&b, o, "accel", JSONB_STR(r->vm.accel));
		jsonb__put(&b, o, "reboots",
			   json_object_new_uint64(r->vm.reboots));
	}
	o = jsonb__put(&b, root, "targets", json_object_new_object());
	for (int t = 0; t < FS_TGT_NR; t++)
		if (r->target[t].enabled)
			target_to_json(&b, o, &r->target[t], true);
	if (r->nparts)
		parts_to_json(&b, root, r);
	/* Only from a trace given filters. */
	if (model__filtered(&r->filters))
		filters_to_json(&b, root, &r->filters);
	/* No workload object at all when none ran. */
	if (r->workload_name[0] || r->nkv)
		workload_to_json(&b, root, r);
	/* Only when a validating workload ran: no checks is not "passed". */
	if (r->validation.ran)
		validation_to_json(&b, root, &r->validation);
	/* Only from a run that reported its groups of layouts. */
	if (r->coverage.ngroups)
		coverage_to_json(&b, root, r);
	/* Only from trace -i. */
	if (r->nintervals)
		intervals_to_json(&b, root, r);
	if (b.oom) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

int report__json_write(const struct fs_report *r, const char *path)
{
	struct json_object *root;
	const char *text;
	char *buf = NULL;
	int err, len;

	root = report__to_json(r);
	text = root ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
	len = text ? asprintf(&buf, "%s\n", text) : -1;
	if (len < 0) {
		buf = NULL;
		err = -ENOMEM;
	} else {
		/* The same temp + fsync + rename as every export format. */
		err = report__write_atomic(path, buf, (size_t)len);
	}
	if (err)
		err__print(NULL, err, "cannot write '%s'", path);
	free(buf);
	json_object_put(root);
	return err;
}

/* Same flags as report__json_write, so -j and --format json agree. */
int report__json_stream(FILE *f, const struct fs_report *r)
{
	struct json_object *root = report__to_json(r);
	const char *text;
	int err = 0;

	text = root ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
	if (!text)
		err = -ENOMEM;
	else if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
		err = -EIO;
	json_object_put(root);
	return err;
}
