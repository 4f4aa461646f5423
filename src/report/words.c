// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The words every format uses for the same things, so that a value, a
 * bucket or a verdict reads alike in text, SVG, HTML and KTAP, and in
 * compare's picture: values in human units, the bucket labels, the
 * validation verdict, a coverage group's line, a target's attach plan,
 * a breakdown row's title and the workload's values.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"

static const char *const byte_units[] = { "B",	 "KiB", "MiB", "GiB",
					  "TiB", "PiB", "EiB" };
static const char *const ns_units[] = { "ns", "µs", "ms", "s" };

static void human_bytes(char *buf, size_t n, __u64 v)
{
	int i = 0;
	double d;

	while (i < 6 && v >= (1ULL << (10 * (i + 1))))
		i++;
	if (!(v & ((1ULL << (10 * i)) - 1))) {
		/* Bucket edges are powers of two: exact. */
		snprintf(buf, n, "%llu %s", (unsigned long long)(v >> (10 * i)),
			 byte_units[i]);
		return;
	}
	d = (double)v / (double)(1ULL << (10 * i));
	snprintf(buf, n, "%.3g %s", d, byte_units[i]);
}

static void human_ns(char *buf, size_t n, __u64 v)
{
	double d = (double)v;
	int i = 0;

	/* Change unit before %.3g would print "1e+03". */
	while (i < 3 && d >= 999.5) {
		d /= 1000;
		i++;
	}
	if (d >= 999.5)
		snprintf(buf, n, "%.0f %s", d, ns_units[i]);
	else
		snprintf(buf, n, "%.3g %s", d, ns_units[i]);
}

void report__human(char *buf, size_t n, const char *unit, __u64 v)
{
	if (!strcmp(unit, "bytes"))
		human_bytes(buf, n, v);
	else if (!strcmp(unit, "ns"))
		human_ns(buf, n, v);
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

bool report__align_zero(const struct fs_hist_spec *sp, int slot)
{
	return sp->kind == FS_KIND_ALIGN && slot == 0;
}

bool report__align_cap(const struct fs_hist_spec *sp, int slot)
{
	return sp->kind == FS_KIND_ALIGN && slot == FS_ALIGN_CAP_SHIFT + 1;
}

/*
 * The model keeps checks in struct fs_validation; runs saved before that
 * existed (and JSON, which does not carry it yet) only have the
 * workload's "validation_failures" and "reconcile" values, so use those
 * when no check was counted.
 */
void report__verdict(char *buf, size_t n, const struct fs_report *r)
{
	const struct fs_validation *v = &r->validation;
	const struct fs_kv *fails = model__kv_find(r, "validation_failures");
	const struct fs_kv *rec = model__kv_find(r, "reconcile");
	char tail[160] = "";

	if (rec && rec->type == FS_KV_STR)
		snprintf(tail, sizeof(tail), "; reconcile %s", rec->s);
	/* Disturbed first: its failures, if any, are still the kernel's,
	 * but a run that could not judge everything has not passed. */
	if (v->ran && v->disturbed[0])
		snprintf(buf, n,
			 "DISTURBED: %s; unjudged answers: %llu; %llu "
			 "of %llu checks failed%s",
			 v->disturbed, (unsigned long long)v->unjudged,
			 (unsigned long long)v->failures,
			 (unsigned long long)v->checks, tail);
	else if (v->ran && v->failures)
		snprintf(buf, n, "FAILED: %llu of %llu checks%s",
			 (unsigned long long)v->failures,
			 (unsigned long long)v->checks, tail);
	/* Nothing checked, every layout skipped: not a pass. */
	else if (v->ran && v->nskips && !v->checks)
		snprintf(buf, n, "SKIPPED: %s: %s%s", v->skips[0].what,
			 v->skips[0].why, tail);
	else if (v->ran && v->nskips)
		snprintf(buf, n, "passed: %llu checks, %d layout%s skipped%s",
			 (unsigned long long)v->checks, v->nskips,
			 v->nskips == 1 ? "" : "s", tail);
	else if (v->ran)
		snprintf(buf, n, "passed: %llu checks%s",
			 (unsigned long long)v->checks, tail);
	else if (fails && fails->type == FS_KV_U64 && fails->u)
		snprintf(buf, n, "FAILED: %llu validation failures%s",
			 (unsigned long long)fails->u, tail);
	else if (fails && fails->type == FS_KV_U64)
		snprintf(buf, n, "passed: no validation failures%s", tail);
	else if (tail[0])
		snprintf(buf, n, "no validating workload%s", tail);
	else
		snprintf(buf, n, "no validating workload");
}

void report__coverage_line(char *buf, size_t n, const struct fs_report *r,
			   int g)
{
	const struct fs_cov_group *cg = &r->coverage.g[g];
	struct fs_cov_size sz[FS_SLOTS];
	size_t len;

	snprintf(buf, n, "%s:", cg->name);
	for (int t = 0; t < FS_TGT_NR; t++) {
		int k;

		if (!r->target[t].enabled || !cg->traced[t])
			continue;
		k = model__coverage_sizes(r, g, t, sz, FS_SLOTS);
		len = strlen(buf);
		snprintf(buf + len, n - len, " %s", model__target_name(t));
		if (k < 0) {
			len = strlen(buf);
			snprintf(buf + len, n - len, " not measured");
		} else if (!k) {
			len = strlen(buf);
			snprintf(buf + len, n - len, " no folios");
		}
		for (int i = 0; i < k; i++) {
			char h[32];

			human_bytes(h, sizeof(h), sz[i].size);
			len = strlen(buf);
			snprintf(buf + len, n - len, "%s %s x%llu",
				 i ? "," : "", h,
				 (unsigned long long)sz[i].count);
		}
		len = strlen(buf);
		snprintf(buf + len, n - len, ";");
	}
	len = strlen(buf);
	snprintf(buf + len, n - len, " large folios: %s%s", cg->large_why,
		 model__coverage_warning(r, g)
			 ? " -- WARNING: only page-sized folios met"
			 : "");
}

void report__slot_label(char *buf, size_t n, const struct fs_hist_spec *sp,
			int slot, __u64 lo, report_units_fn *units)
{
	if (report__align_zero(sp, slot)) {
		snprintf(buf, n, "%s", REPORT_OFFSET0);
		return;
	}
	units(buf, n, sp->unit, lo);
	if (report__align_cap(sp, slot) && strlen(buf) + 1 < n)
		strcat(buf, "+");
}

void report__attach_line(char *buf, size_t n, const char *label,
			 const struct fs_target_report *tr)
{
	const struct fs_attach_info *a = &tr->attach;

	snprintf(buf, n, "%s%s%s: %s on %s (function %s%s): %s",
		 label ? label : "", label ? " " : "", tr->name,
		 a->mechanism[0] ? a->mechanism : "none",
		 a->symbol[0] ? a->symbol : "-",
		 a->function[0] ? a->function : "-",
		 a->inlined ? ", inlined" : "", a->reason[0] ? a->reason : "-");
}

int report__kv_append(char *buf, size_t n, int len, const struct fs_kv *kv,
		      int nkv)
{
	for (int i = 0; i < nkv && len < (int)n; i++) {
		if (kv[i].type == FS_KV_U64)
			len += snprintf(buf + len, n - len, "%s %s=%llu",
					i ? "," : ":", kv[i].key,
					(unsigned long long)kv[i].u);
		else
			len += snprintf(buf + len, n - len, "%s %s=%s",
					i ? "," : ":", kv[i].key, kv[i].s);
	}
	return len;
}

/* " (4 KiB, 2 MiB)", " (4 KiB .. 2 MiB)" for more than two sizes, or
 * what is not known of group g's folio sizes. */
static void sizes_text(char *buf, size_t n, const struct fs_report *r, int g)
{
	struct fs_cov_size sz[FS_SLOTS];
	char lo[32], hi[32];
	int k = -1;

	snprintf(buf, n, " (folio sizes not measured)");
	for (int t = 0; t < FS_TGT_NR && k < 0; t++)
		if (r->coverage.g[g].traced[t])
			k = model__coverage_sizes(r, g, t, sz, FS_SLOTS);
	if (k == 0)
		snprintf(buf, n, " (no folios)");
	if (k <= 0)
		return;
	human_bytes(lo, sizeof(lo), sz[0].size);
	human_bytes(hi, sizeof(hi), sz[k - 1].size);
	if (k == 1)
		snprintf(buf, n, " (%s)", lo);
	else
		snprintf(buf, n, " (%s%s%s)", lo, k == 2 ? ", " : " .. ", hi);
}

int report__covered(FILE *f, const struct fs_report *r, const char *prefix)
{
	const struct fs_kv *reached = model__kv_find(r, "ways_reached");
	const struct fs_kv *ways = model__kv_find(r, "ways");
	const struct fs_kv *missed = model__kv_find(r, "ways_missed");
	const struct fs_validation *v = &r->validation;
	bool done[FS_MAX_COV] = { false };
	char sizes[64];

	if (reached && ways && missed && missed->type == FS_KV_STR)
		fprintf(f, "%sways into a read: %llu of %llu%s%s%s\n", prefix,
			(unsigned long long)reached->u,
			(unsigned long long)ways->u,
			strcmp(missed->s, "none") ? " (not reached: " : "",
			strcmp(missed->s, "none") ? missed->s : "",
			strcmp(missed->s, "none") ? ")" : "");
	/* A line per filesystem, its groups in the order they ran. */
	for (int g = 0; g < r->coverage.ngroups; g++) {
		const char *name = r->coverage.g[g].name;
		size_t fs = strcspn(name, " ");

		if (done[g])
			continue;
		fprintf(f, "%s%.*s:", prefix, (int)fs, name);
		for (int h = g; h < r->coverage.ngroups; h++) {
			const char *other = r->coverage.g[h].name;

			if (done[h] || strncmp(other, name, fs) ||
			    (other[fs] != ' ' && other[fs]))
				continue;
			done[h] = true;
			sizes_text(sizes, sizeof(sizes), r, h);
			fprintf(f, "%s %s%s", h == g ? "" : ",",
				other[fs] ? other + fs + 1 : other, sizes);
		}
		fputc('\n', f);
	}
	/* Skips by why: the same reason skips a way in every tier. */
	for (int i = 0; i < v->nskips; i++) {
		int n = 0;
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(v->skips[j].why, v->skips[i].why);
		if (seen)
			continue;
		for (int j = i; j < v->nskips; j++)
			n += !strcmp(v->skips[j].why, v->skips[i].why);
		fprintf(f, "%sskipped (%d layout%s): %s\n", prefix, n,
			n == 1 ? "" : "s", v->skips[i].why);
	}
	return ferror(f) ? -EIO : 0;
}

/* How many keys "other" holds: one number when the targets agree. */
static void part__nother(const struct fs_part *p, char *buf, size_t n)
{
	size_t len = 0;
	int shown = 0, first = -1;
	bool same = true;

	for (int t = 0; t < FS_TGT_NR; t++) {
		if (!p->target[t].enabled)
			continue;
		if (first < 0)
			first = t;
		else if (p->nother[t] != p->nother[first] ||
			 p->nother_more[t] != p->nother_more[first])
			same = false;
	}
	buf[0] = '\0';
	for (int t = 0; t < FS_TGT_NR && len < n; t++) {
		int w;

		if (!p->target[t].enabled || (same && t != first))
			continue;
		w = snprintf(buf + len, n - len, "%s%s%s%llu",
			     shown++ ? ", " : "",
			     same ? "" : model__target_name(t), same ? "" : " ",
			     (unsigned long long)p->nother[t]);
		len += w > 0 ? (size_t)w : 0;
		if (p->nother_more[t] && len < n) {
			w = snprintf(buf + len, n - len, " or more");
			len += w > 0 ? (size_t)w : 0;
		}
	}
}

void report__part_title(const struct fs_report *r, const struct fs_part *p,
			char *buf, size_t n)
{
	char count[96];

	if (p->other) {
		part__nother(p, count, sizeof(count));
		snprintf(buf, n, "other %s: %s past the table's %d",
			 r->by == FS_BY_CGROUP ? "cgroups" : "processes", count,
			 FS_BY_SLOTS);
	} else if (r->by == FS_BY_CGROUP) {
		snprintf(buf, n, "cgroup %s", p->cgroup);
	} else {
		snprintf(buf, n, "process %u (%s)", p->pid, p->comm);
	}
}
