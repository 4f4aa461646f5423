// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The comparison as text: per target, counters, then per histogram both
 * distributions side by side, statistics with their change, the spread of
 * repeated runs beside it, and the homogeneity test with its effect size.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "compare/compare.h"
#include "util/util.h"

void cmp__fmt_value(char *buf, size_t n, double v, const char *unit)
{
	static const char *const bsuf[] = { "", "K", "M", "G", "T", "P" };
	double a = fabs(v);
	int i = 0;

	if (unit && !strcmp(unit, "ns")) {
		if (a < 1e3)
			snprintf(buf, n, "%.0fns", v);
		else if (a < 1e6)
			snprintf(buf, n, "%.3gus", v / 1e3);
		else if (a < 1e9)
			snprintf(buf, n, "%.3gms", v / 1e6);
		else
			snprintf(buf, n, "%.3gs", v / 1e9);
		return;
	}
	if (unit && !strcmp(unit, "bytes")) {
		while (a >= 1024 && i < 5) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		if (v == floor(v))
			snprintf(buf, n, "%.0f%s", v, bsuf[i]);
		else
			snprintf(buf, n, "%.3g%s", v, bsuf[i]);
		return;
	}
	/* Counts: integers stay integers, per-run means get a decimal. */
	if (v == floor(v) && a < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.1f", v);
}

/* "+12.3%", "-100%", "=", "new" (from zero); ratio added when large. */
static void fmt_change(char *buf, size_t n, double base, double new)
{
	double pct;

	if (base == new) {
		snprintf(buf, n, "=");
		return;
	}
	if (base == 0) {
		snprintf(buf, n, "from 0");
		return;
	}
	pct = (new - base) / fabs(base) * 100;
	if (new / base >= 2 || (new / base <= 0.5 && new / base > 0))
		snprintf(buf, n, "%+.1f%% (x%.3g)", pct, new / base);
	else
		snprintf(buf, n, "%+.1f%%", pct);
}

/* Bucket label: "0", "4K" (an alignment), "[4K, 8K)" (a log2 range). */
static void fmt_bucket(char *buf, size_t n, const struct fs_histogram *h,
		       int slot)
{
	char lo[32], hi[32];
	struct fs_bucket b;

	model__bucket(h, slot, &b);
	cmp__fmt_value(lo, sizeof(lo), (double)b.lo, h->spec->unit);
	if (slot == 0 || h->spec->kind == FS_KIND_ALIGN || b.lo == b.hi) {
		snprintf(buf, n, "%s", lo);
		return;
	}
	if (slot == FS_SLOTS - 1) {
		snprintf(buf, n, ">= %s", lo);
		return;
	}
	cmp__fmt_value(hi, sizeof(hi), (double)b.hi + 1, h->spec->unit);
	snprintf(buf, n, "[%s, %s)", lo, hi);
}

/*
 * Spread of q over a side's runs: min and max of the per-run values.
 * False with one run, or when a run has no value.
 */
static bool spread(const struct cmp_side *s, const struct cmp_quantity *q,
		   double *lo, double *hi)
{
	char why[256];
	double v;

	if (s->nruns < 2)
		return false;
	for (int i = 0; i < s->nruns; i++) {
		if (!cmp__run_value(&s->runs[i], q, &v, why, sizeof(why)))
			return false;
		if (!i || v < *lo)
			*lo = v;
		if (!i || v > *hi)
			*hi = v;
	}
	return true;
}

void cmp__not_measured_text(char *buf, size_t n, const struct fs_histogram *hb,
			    const struct fs_histogram *hn)
{
	snprintf(buf, n, "not measured%s%s%s%s%s",
		 hb->measured ? "" : " on base: ", hb->measured ? "" : hb->why,
		 !hb->measured && !hn->measured ? ";" : "",
		 hn->measured ? "" : " on new: ", hn->measured ? "" : hn->why);
}

/* printf a line without the trailing blanks of empty last columns. */
__attribute__((format(printf, 2, 3))) static void line_end(FILE *f,
							   const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	fprintf(f, "%s\n", buf);
}

/* One statistic: base, new, change, and the runs' spread beside it. */
static void stat_line(FILE *f, const char *label, const char *unit,
		      const struct cmp_side *base, const struct cmp_side *new,
		      const struct cmp_quantity *q)
{
	char b[32], nw[32], ch[48], why[256], sp[96] = "";
	double bv, nv, blo, bhi, nlo, nhi;
	bool hb, hn, sb, sn;

	hb = cmp__value(base, q, &bv, why, sizeof(why));
	hn = cmp__value(new, q, &nv, why, sizeof(why));
	if (hb)
		cmp__fmt_value(b, sizeof(b), bv, unit);
	else
		snprintf(b, sizeof(b), "-");
	if (hn)
		cmp__fmt_value(nw, sizeof(nw), nv, unit);
	else
		snprintf(nw, sizeof(nw), "-");
	if (hb && hn)
		fmt_change(ch, sizeof(ch), bv, nv);
	else
		snprintf(ch, sizeof(ch), "-");
	sb = spread(base, q, &blo, &bhi);
	sn = spread(new, q, &nlo, &nhi);
	if (sb && sn) {
		char a1[32], a2[32], a3[32], a4[32];

		cmp__fmt_value(a1, sizeof(a1), blo, unit);
		cmp__fmt_value(a2, sizeof(a2), bhi, unit);
		cmp__fmt_value(a3, sizeof(a3), nlo, unit);
		cmp__fmt_value(a4, sizeof(a4), nhi, unit);
		/* Disjoint run ranges: the change is larger than the noise
		 * these runs showed; overlapping ones: it is not. */
		snprintf(sp, sizeof(sp), "%s..%s | %s..%s  %s", a1, a2, a3, a4,
			 bv == nv		    ? ""
			 : (bhi < nlo || nhi < blo) ? "runs separate"
						    : "runs overlap");
	}
	line_end(f, "    %-7s %12s %12s  %-22s %s", label, b, nw, ch, sp);
}

static void counters(FILE *f, const struct cmp_side *base,
		     const struct cmp_side *new, int t)
{
	const struct fs_target_report *tr = &base->pooled.target[t];
	struct cmp_quantity q = { .kind = CMP_Q_COUNTER, .target = t };

	line_end(f, "  %-9s %14s %12s  %-22s %s", "counters", "base", "new",
		 "change (per run)",
		 base->nruns > 1 && new->nruns > 1 ? "runs: base | new" : "");
	for (int c = 0; c < tr->ncounters; c++) {
		q.index = c;
		stat_line(f, tr->counter_spec[c].name, NULL, base, new, &q);
	}
}

static void test_line(FILE *f, const struct cmp_side *base,
		      const struct cmp_side *new, int t, int hi)
{
	char text[320];
	bool tested;

	tested = cmp__test_text(text, sizeof(text),
				&base->pooled.target[t].hist[hi],
				&new->pooled.target[t].hist[hi]);
	fprintf(f, "    %s\n", text);
	/* Run-to-run heterogeneity within each side: the noise floor the
	 * effect size above should be read against. */
	if (tested && cmp__noise_text(text, sizeof(text), base, new, t, hi))
		fprintf(f, "    %s\n", text);
}

static int nonempty(const struct fs_histogram *h)
{
	int n = 0;

	for (int s = 0; s < FS_SLOTS; s++)
		n += h->slot[s] != 0;
	return n;
}

static void stat_value(char *buf, size_t n, const struct cmp_side *s,
		       const struct cmp_quantity *q, const char *unit)
{
	char why[256];
	double v;

	if (cmp__value(s, q, &v, why, sizeof(why)))
		cmp__fmt_value(buf, n, v, unit);
	else
		snprintf(buf, n, "-");
}

static void histogram(FILE *f, const struct cmp_side *base,
		      const struct cmp_side *new, int t, int hi)
{
	const struct fs_histogram *hb = &base->pooled.target[t].hist[hi];
	const struct fs_histogram *hn = &new->pooled.target[t].hist[hi];
	const struct fs_hist_spec *sp = hb->spec;
	struct cmp_quantity q = { .kind = CMP_Q_HIST,
				  .target = t,
				  .index = hi };
	static const struct {
		const char *label;
		enum cmp_stat stat;
		double pct;
	} stats[] = {
		{ "count", CMP_ST_COUNT, 0 }, { "mean", CMP_ST_MEAN, 0 },
		{ "p50", CMP_ST_PCT, 50 },    { "p90", CMP_ST_PCT, 90 },
		{ "p99", CMP_ST_PCT, 99 },    { "max", CMP_ST_MAX, 0 },
	};
	int f1, l1, f2, l2, first, last;
	bool e1, e2;
	char lab[48];

	fprintf(f, "\n  %s.%s (%s): %s\n", base->pooled.target[t].name,
		sp->name, sp->unit, sp->help);
	if (!hb->measured || !hn->measured) {
		char why[560];

		/* Never compared as zeros: an unmeasured side has no data. */
		cmp__not_measured_text(why, sizeof(why), hb, hn);
		fprintf(f, "    %s\n", why);
		return;
	}
	e1 = model__range(hb, &f1, &l1);
	e2 = model__range(hn, &f2, &l2);
	if (!e1 && !e2) {
		fprintf(f, "    no events on either side\n");
		return;
	}
	if (base->nruns == new->nruns &&
	    !memcmp(hb->slot, hn->slot, sizeof(hb->slot))) {
		/* Nothing to see side by side: say so in one line. */
		q.stat = CMP_ST_PCT;
		q.pct = 50;
		stat_value(lab, sizeof(lab), base, &q, sp->unit);
		fprintf(f,
			"    identical on both sides: %llu values in %d "
			"bucket%s, p50 %s\n",
			(unsigned long long)hb->count, nonempty(hb),
			nonempty(hb) > 1 ? "s" : "", lab);
		return;
	}
	first = !e1 ? f2 : !e2 ? f1 : f1 < f2 ? f1 : f2;
	last = !e1 ? l2 : !e2 ? l1 : l1 > l2 ? l1 : l2;
	fprintf(f, "    %-18s %12s %7s %12s %7s  %s\n", "bucket", "base",
		"share", "new", "share", "change");
	for (int s = first; s <= last; s++) {
		double sb = hb->count ? 100.0 * hb->slot[s] / hb->count : 0;
		double sn = hn->count ? 100.0 * hn->slot[s] / hn->count : 0;

		if (!hb->slot[s] && !hn->slot[s])
			continue;
		fmt_bucket(lab, sizeof(lab), hb, s);
		fprintf(f,
			"    %-18s %12llu %6.1f%% %12llu %6.1f%%  %+.1f pp\n",
			lab, (unsigned long long)hb->slot[s], sb,
			(unsigned long long)hn->slot[s], sn, sn - sb);
	}
	line_end(f, "    %-7s %12s %12s  %-22s %s", "stat", "base", "new",
		 "change",
		 base->nruns > 1 && new->nruns > 1 ? "runs: base | new" : "");
	for (size_t i = 0; i < ARRAY_SIZE(stats); i++) {
		q.stat = stats[i].stat;
		q.pct = stats[i].pct;
		stat_line(f, stats[i].label,
			  stats[i].stat == CMP_ST_COUNT ? NULL : sp->unit, base,
			  new, &q);
	}
	test_line(f, base, new, t, hi);
}

/* A group's verdict in a cell: "ok, 14620 checks", "FAIL 23 of 14620
 * (stale x23)", "SKIP" (nothing checked), "-" (not on that side). */
static void group_cell(char *buf, size_t n, const struct fs_validation *v,
		       const char *name)
{
	const struct fs_vgroup *g = NULL;
	size_t len;

	for (int i = 0; i < v->ngroups && !g; i++)
		if (!strcmp(v->groups[i].name, name))
			g = &v->groups[i];
	if (!g) {
		snprintf(buf, n, "-");
	} else if (!g->checks) {
		snprintf(buf, n, "SKIP");
	} else if (!g->failures) {
		snprintf(buf, n, "ok, %llu checks",
			 (unsigned long long)g->checks);
	} else {
		snprintf(buf, n, "FAIL %llu of %llu",
			 (unsigned long long)g->failures,
			 (unsigned long long)g->checks);
		for (int k = 0; k < g->kinds.n; k++) {
			len = strlen(buf);
			snprintf(buf + len, n - len, "%s%s x%llu",
				 k ? ", " : " (", g->kinds.k[k].kind,
				 (unsigned long long)g->kinds.k[k].count);
		}
		len = strlen(buf);
		if (g->kinds.n)
			snprintf(buf + len, n - len, ")");
	}
}

/* Whether v's groups are the runs of a report of several (validate's
 * tiers, each with a note), not one run's groups of layouts. */
static bool tiered(const struct fs_validation *v)
{
	for (int g = 0; g < v->ngroups; g++)
		if (v->groups[g].note[0])
			return true;
	return false;
}

/* Reports of validate: each tier's verdict on both sides, side by
 * side, the tiers of either side in the order they ran. */
static void tiers(FILE *f, const struct cmp_side *base,
		  const struct cmp_side *new)
{
	const struct fs_validation *vb = &base->pooled.validation;
	const struct fs_validation *vn = &new->pooled.validation;
	const struct fs_validation *sides[2] = { vb, vn };
	char cb[160], cn[160];

	if (!tiered(vb) && !tiered(vn))
		return;
	fprintf(f, "  %-16s %-40s %s\n", "tier", base->label, new->label);
	for (int s = 0; s < 2; s++)
		for (int g = 0; g < sides[s]->ngroups; g++) {
			const char *name = sides[s]->groups[g].name;
			bool seen = false;

			/* Once: base's tiers, then new's own. */
			for (int i = 0; s && i < vb->ngroups && !seen; i++)
				seen = !strcmp(vb->groups[i].name, name);
			if (seen)
				continue;
			group_cell(cb, sizeof(cb), vb, name);
			group_cell(cn, sizeof(cn), vn, name);
			fprintf(f, "  %-16s %-40s %s\n", name, cb, cn);
		}
}

static void validation(FILE *f, const struct cmp_side *base,
		       const struct cmp_side *new)
{
	struct cmp_quantity q = { .kind = CMP_Q_VALIDATION };
	const struct cmp_side *sides[2] = { base, new };
	double fl, ch;
	char why[256];

	fprintf(f, "\nvalidation (kernel answers vs ground truth)\n");
	for (int s = 0; s < 2; s++) {
		const struct fs_report *p = &sides[s]->pooled;

		snprintf(q.key, sizeof(q.key), "failures");
		if (!cmp__run_value(p, &q, &fl, why, sizeof(why))) {
			fprintf(f, "  %-5s %s\n", sides[s]->label, why);
			continue;
		}
		snprintf(q.key, sizeof(q.key), "checks");
		if (cmp__run_value(p, &q, &ch, why, sizeof(why)))
			fprintf(f,
				"  %-5s %s: %.0f failures in %.0f checks over "
				"%d run%s\n",
				sides[s]->label, fl ? "FAIL" : "ok", fl, ch,
				sides[s]->nruns,
				sides[s]->nruns > 1 ? "s" : "");
		else
			fprintf(f, "  %-5s %s: %.0f failures over %d run%s\n",
				sides[s]->label, fl ? "FAIL" : "ok", fl,
				sides[s]->nruns,
				sides[s]->nruns > 1 ? "s" : "");
		for (int c = 0; c < p->validation.ncases && c < 5; c++)
			fprintf(f, "        (%s) %s: expected %s, got %s\n",
				p->validation.cases[c].kind,
				p->validation.cases[c].layout,
				p->validation.cases[c].expected,
				p->validation.cases[c].got);
	}
	tiers(f, base, new);
}

/*
 * What a workload measured besides the histograms (run shmem-read
 * --throughput): each side's per-run mean, the change, and the runs'
 * spread, so a throughput change is read against its noise.
 */
static const struct {
	const char *key, *what;
} results[] = {
	{ "mb_per_s", "read throughput, MB/s (middle timed pass)" },
	{ "cpu_us_per_gib", "CPU time per GiB read, us (user + system)" },
};

static void workload_results(FILE *f, const struct cmp_side *base,
			     const struct cmp_side *new)
{
	struct cmp_quantity q = { .kind = CMP_Q_WORKLOAD };
	bool head = false;

	for (size_t i = 0; i < ARRAY_SIZE(results); i++) {
		if (!model__kv_find(&base->pooled, results[i].key) ||
		    !model__kv_find(&new->pooled, results[i].key))
			continue;
		if (!head) {
			fprintf(f, "\nworkload results:\n");
			line_end(f, "  %-9s %14s %12s  %-22s %s", "", "base",
				 "new", "change (per run)",
				 base->nruns > 1 && new->nruns > 1
					 ? "runs: base | new"
					 : "");
			head = true;
		}
		fprintf(f, "  workload.%s: %s\n", results[i].key,
			results[i].what);
		snprintf(q.key, sizeof(q.key), "%s", results[i].key);
		stat_line(f, "mean", NULL, base, new, &q);
	}
}

int cmp__report(FILE *f, const struct cmp_side *base,
		const struct cmp_side *new)
{
	const struct fs_report *b = &base->pooled, *n = &new->pooled;

	fprintf(f, "base: kernel %s, %d run%s (%s%s)\n", b->kernel, base->nruns,
		base->nruns > 1 ? "s" : "", base->paths[0],
		base->nruns > 1 ? ", ..." : "");
	fprintf(f, "new:  kernel %s, %d run%s (%s%s)\n", n->kernel, new->nruns,
		new->nruns > 1 ? "s" : "", new->paths[0],
		new->nruns > 1 ? ", ..." : "");
	if (model__filtered(&b->filters) || model__filtered(&n->filters)) {
		char fb[900], fn[900];

		model__filters_text(&b->filters, fb, sizeof(fb));
		model__filters_text(&n->filters, fn, sizeof(fn));
		fprintf(f, "base filters: %s\nnew filters:  %s\n", fb, fn);
	}
	if (b->workload_name[0]) {
		fprintf(f, "workload: %s", b->workload_name);
		for (int k = 0; k < b->nkv; k++)
			if (b->kv[k].type == FS_KV_STR &&
			    strcmp(b->kv[k].key, "reconcile") &&
			    strcmp(b->kv[k].key, "huge_folios"))
				fprintf(f, " %s=%s", b->kv[k].key, b->kv[k].s);
		fprintf(f, "\n");
	}
	fprintf(f, "mean and counts are exact; percentiles are estimated "
		   "inside log2 buckets (exact where every value is a "
		   "bucket's lower bound)\n");
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tb = &b->target[t];
		const struct fs_target_report *tn = &n->target[t];

		if (!tb->enabled || !tn->enabled)
			continue;
		fprintf(f, "\n%s: %s via %s %s (base) / %s %s (new)\n",
			tb->name, tb->attach.function, tb->attach.mechanism,
			tb->attach.symbol, tn->attach.mechanism,
			tn->attach.symbol);
		counters(f, base, new, t);
		for (int h = 0; h < tb->nhists; h++)
			histogram(f, base, new, t, h);
	}
	workload_results(f, base, new);
	validation(f, base, new);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
