// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sides of a comparison: pooling repeated runs, and refusing to compare
 * runs that did not measure the same thing the same way.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "compare/compare.h"
#include "util/util.h"

/* Groups of one name add up over the runs (validate: per tier). */
static void pool_groups(struct fs_validation *p, const struct fs_validation *v)
{
	for (int g = 0; g < v->ngroups; g++) {
		const struct fs_vgroup *src = &v->groups[g];
		struct fs_vgroup *dst = NULL;

		for (int i = 0; i < p->ngroups && !dst; i++)
			if (!strcmp(p->groups[i].name, src->name))
				dst = &p->groups[i];
		if (!dst) {
			if (p->ngroups >= FS_MAX_VGROUPS)
				continue;
			dst = &p->groups[p->ngroups++];
			*dst = *src;
			continue;
		}
		dst->checks += src->checks;
		dst->failures += src->failures;
		for (int k = 0; k < src->kinds.n; k++)
			model__kinds_add(&dst->kinds, src->kinds.k[k].kind,
					 src->kinds.k[k].count);
	}
}

void cmp__pool(struct cmp_side *side)
{
	struct fs_report *p = &side->pooled;

	*p = side->runs[0];
	for (int i = 1; i < side->nruns; i++) {
		const struct fs_report *r = &side->runs[i];
		const struct fs_validation *v = &r->validation;

		for (int t = 0; t < FS_TGT_NR; t++) {
			struct fs_target_report *pt = &p->target[t];
			const struct fs_target_report *rt = &r->target[t];

			if (!pt->enabled || !rt->enabled)
				continue;
			for (int h = 0; h < pt->nhists; h++) {
				struct fs_histogram *ph = &pt->hist[h];
				const struct fs_histogram *rh = &rt->hist[h];

				/* Measured only if measured in every run:
				 * a missing run must not read as zeros. */
				if (ph->measured && !rh->measured) {
					ph->measured = false;
					memcpy(ph->why, rh->why,
					       sizeof(ph->why));
				}
				for (int s = 0; s < FS_SLOTS; s++)
					ph->slot[s] += rh->slot[s];
				ph->count += rh->count;
				ph->sum += rh->sum;
			}
			for (int c = 0; c < pt->ncounters; c++)
				pt->counter[c] += rt->counter[c];
		}
		if (v->ran) {
			p->validation.ran = true;
			p->validation.checks += v->checks;
			p->validation.failures += v->failures;
			for (int c = 0; c < v->ncases &&
					p->validation.ncases < FS_MAX_CASES;
			     c++)
				p->validation.cases[p->validation.ncases++] =
					v->cases[c];
			pool_groups(&p->validation, v);
		}
		/* Numbers add up (shown and tested per run); strings are
		 * parameters, which cmp__mismatch() made sure agree. */
		for (int k = 0; k < p->nkv; k++) {
			const struct fs_kv *kv =
				model__kv_find(r, p->kv[k].key);

			if (kv && kv->type == FS_KV_U64 &&
			    p->kv[k].type == FS_KV_U64)
				p->kv[k].u += kv->u;
		}
	}
}

/*
 * Workload values that are settings, not results: runs with different
 * settings measure different things. Strings are settings too (fs, huge,
 * mode, fill, syscall), except the few that report an outcome.
 */
static const char *const param_keys[] = {
	"range",     "count",	  "dests",	"files",
	"file_size", "size",	  "bs",		"offset",
	"length",    "buf_align", "iovecs",	"readers",
	"cases",     "plans",	  "block_size", "throughput_passes",
};

static const char *const result_strings[] = { "reconcile", "huge_folios",
					      "kernel_log", "ways_missed" };

static bool in(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, list[i]))
			return true;
	return false;
}

static bool is_param(const struct fs_kv *kv)
{
	if (kv->type == FS_KV_STR)
		return !in(kv->key, result_strings, ARRAY_SIZE(result_strings));
	return in(kv->key, param_keys, ARRAY_SIZE(param_keys));
}

struct why {
	char *buf;
	size_t n, len;
	int count;
};

__attribute__((format(printf, 2, 3))) static void add(struct why *w,
						      const char *fmt, ...)
{
	va_list ap;
	int r;

	/* The first few differences say enough; keep the line short. */
	if (++w->count > 4 || w->len >= w->n)
		return;
	if (w->len) {
		r = snprintf(w->buf + w->len, w->n - w->len, "; ");
		w->len += r > 0 ? (size_t)r : 0;
		if (w->len >= w->n)
			return;
	}
	va_start(ap, fmt);
	r = vsnprintf(w->buf + w->len, w->n - w->len, fmt, ap);
	va_end(ap);
	w->len += r > 0 ? (size_t)r : 0;
}

static void kv_str(const struct fs_kv *kv, char *buf, size_t n)
{
	if (!kv)
		snprintf(buf, n, "(none)");
	else if (kv->type == FS_KV_U64)
		snprintf(buf, n, "%llu", (unsigned long long)kv->u);
	else
		snprintf(buf, n, "%s", kv->s);
}

/*
 * The part of a run's filters that says what was measured: which
 * filters were used, and the values that mean the same on every boot
 * (task name, cgroup directory, file system type, command). A pid or a
 * device number names one process or disk of one boot: two runs on two
 * kernels cannot share them, so only their presence counts.
 */
static void filter_setting(const struct fs_filters *f, char *buf, size_t n)
{
	struct fs_filters s = *f;

	memset(s.pids, 0, sizeof(s.pids));
	s.npids = s.npids ? 1 : 0;
	if (s.dev[0])
		snprintf(s.dev, sizeof(s.dev), "(a device)");
	model__filters_text(&s, buf, n);
}

static void diff_runs(struct why *w, const struct fs_report *a, const char *an,
		      const struct fs_report *b, const char *bn)
{
	char sa[900], sb[900];

	filter_setting(&a->filters, sa, sizeof(sa));
	filter_setting(&b->filters, sb, sizeof(sb));
	if (strcmp(sa, sb)) {
		model__filters_text(&a->filters, sa, sizeof(sa));
		model__filters_text(&b->filters, sb, sizeof(sb));
		add(w, "filters (%s) in %s but (%s) in %s", sa, an, sb, bn);
	}

	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_attach_info *x = &a->target[t].attach;
		const struct fs_attach_info *y = &b->target[t].attach;

		if (a->target[t].enabled != b->target[t].enabled) {
			add(w, "%s traced in %s only", model__target_name(t),
			    a->target[t].enabled ? an : bn);
			continue;
		}
		if (!a->target[t].enabled)
			continue;
		if (strcmp(x->mechanism, y->mechanism) ||
		    strcmp(x->symbol, y->symbol))
			add(w, "%s attached by %s %s in %s but %s %s in %s",
			    model__target_name(t), x->mechanism, x->symbol, an,
			    y->mechanism, y->symbol, bn);
	}
	if (strcmp(a->workload_name, b->workload_name)) {
		add(w, "workload '%s' in %s but '%s' in %s", a->workload_name,
		    an, b->workload_name, bn);
		return;
	}
	for (int k = 0; k < a->nkv; k++) {
		const struct fs_kv *x = &a->kv[k];
		const struct fs_kv *y = model__kv_find(b, x->key);

		if (!is_param(x) && !(y && is_param(y)))
			continue;
		kv_str(x, sa, sizeof(sa));
		kv_str(y, sb, sizeof(sb));
		if (strcmp(sa, sb))
			add(w, "workload %s=%s in %s but %s in %s", x->key, sa,
			    an, sb, bn);
	}
	/* Settings only the second run has. */
	for (int k = 0; k < b->nkv; k++) {
		const struct fs_kv *y = &b->kv[k];

		if (!is_param(y) || model__kv_find(a, y->key))
			continue;
		kv_str(y, sb, sizeof(sb));
		add(w, "workload %s=(none) in %s but %s in %s", y->key, an, sb,
		    bn);
	}
}

int cmp__mismatch(const struct cmp_side *base, const struct cmp_side *new,
		  char *buf, size_t n)
{
	const struct fs_report *ref = &base->runs[0];
	struct why w = { .buf = buf, .n = n };
	const struct cmp_side *sides[2] = { base, new };

	buf[0] = '\0';
	for (int s = 0; s < 2; s++)
		for (int i = s ? 0 : 1; i < sides[s]->nruns; i++)
			diff_runs(&w, ref, base->paths[0], &sides[s]->runs[i],
				  sides[s]->paths[i]);
	if (w.count > 4 && w.len + 16 < n)
		snprintf(buf + w.len, n - w.len, "; and %d more", w.count - 4);
	return w.count ? 1 : 0;
}
