// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Statistics from log2 buckets, and the G-test of homogeneity used to say
 * whether two kernels' distributions differ (and by how much: with
 * millions of events any difference is "significant", so the effect size
 * is what a reader should look at).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"

bool cmp__at_lower_bounds(const struct fs_histogram *h)
{
	unsigned __int128 lo_sum = 0;
	struct fs_bucket b;

	for (int s = 0; s < FS_SLOTS; s++) {
		if (!h->slot[s])
			continue;
		model__bucket(h, s, &b);
		lo_sum += (unsigned __int128)b.lo * b.count;
	}
	return lo_sum == h->sum;
}

/* A value inside bucket b: exact where the bucket or the data allow. */
static double bucket_point(const struct fs_histogram *h, int slot,
			   const struct fs_bucket *b, double f, bool at_lo)
{
	double v;

	if (slot == 0 || h->spec->kind == FS_KIND_ALIGN || at_lo ||
	    slot == FS_SLOTS - 1)
		return (double)b->lo;
	/* Log-uniform inside [lo, 2 lo): the log2 bucket's natural scale. */
	v = (double)b->lo * exp2(f);
	return v > (double)b->hi ? (double)b->hi : v;
}

bool cmp__quantile(const struct fs_histogram *h, double q, double *out)
{
	bool at_lo = cmp__at_lower_bounds(h);
	double rank, cum = 0;
	struct fs_bucket b;
	int last = -1;

	if (!h->count)
		return false;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = q * (double)h->count;
	for (int s = 0; s < FS_SLOTS; s++) {
		double c = (double)h->slot[s];

		if (!h->slot[s])
			continue;
		last = s;
		/* rank 0 (q = 0) lands in the first non-empty bucket. */
		if (cum + c >= rank) {
			model__bucket(h, s, &b);
			*out = bucket_point(h, s, &b, (rank - cum) / c, at_lo);
			return true;
		}
		cum += c;
	}
	/* Rounding left rank just above the total: the last bucket. */
	model__bucket(h, last, &b);
	*out = bucket_point(h, last, &b, 1.0, at_lo);
	return true;
}

bool cmp__mean(const struct fs_histogram *h, double *out)
{
	if (!h->count)
		return false;
	*out = (double)h->sum / (double)h->count;
	return true;
}

bool cmp__min(const struct fs_histogram *h, double *out)
{
	struct fs_bucket b;
	int first, last;

	if (!model__range(h, &first, &last))
		return false;
	model__bucket(h, first, &b);
	*out = (double)b.lo;
	return true;
}

bool cmp__max(const struct fs_histogram *h, double *out)
{
	struct fs_bucket b;
	int first, last;

	if (!model__range(h, &first, &last))
		return false;
	model__bucket(h, last, &b);
	*out = cmp__at_lower_bounds(h) ? (double)b.lo : (double)b.hi;
	return true;
}

/*
 * Regularized upper incomplete gamma Q(a, x): the power series of P for
 * x < a + 1, else the continued fraction of Q (modified Lentz), both until
 * the next term no longer changes the result. log-space prefactor, so a
 * large x underflows to 0 instead of overflowing on the way.
 */
static double gamma_q(double a, double x)
{
	const double eps = DBL_EPSILON, tiny = DBL_MIN / DBL_EPSILON;
	double pre, sum, term, b, c, d, h, an, del;

	if (x <= 0)
		return 1.0;
	pre = -x + a * log(x) - lgamma(a);
	if (x < a + 1) {
		sum = term = 1.0 / a;
		for (int n = 1; n < 100000; n++) {
			term *= x / (a + n);
			sum += term;
			if (fabs(term) < fabs(sum) * eps)
				break;
		}
		return 1.0 - sum * exp(pre);
	}
	b = x + 1 - a;
	c = 1.0 / tiny;
	d = 1.0 / b;
	h = d;
	for (int i = 1; i < 100000; i++) {
		an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return exp(pre) * h;
}

double cmp__chi2_sf(double x, int df)
{
	double q;

	if (df <= 0)
		return x > 0 ? 0.0 : 1.0;
	q = gamma_q(df / 2.0, x / 2.0);
	if (q < 0)
		return 0.0;
	return q > 1 ? 1.0 : q;
}

/* Max rows (runs) x columns (buckets) a test takes. */
#define CMP_MAX_ROWS 64

int cmp__homogeneity(const __u64 *counts, int nrows, int ncols,
		     struct cmp_test *t)
{
	double rsum[CMP_MAX_ROWS], csum[FS_SLOTS * 2];
	int rows[CMP_MAX_ROWS], cols[FS_SLOTS * 2];
	double n = 0, e, o;
	int nr = 0, nc = 0, k;

	if (nrows < 1 || nrows > CMP_MAX_ROWS || ncols < 1 ||
	    ncols > FS_SLOTS * 2)
		return -EINVAL;
	*t = (struct cmp_test){ .p = 1.0 };
	for (int r = 0; r < nrows; r++) {
		double s = 0;

		for (int c = 0; c < ncols; c++)
			s += (double)counts[r * ncols + c];
		if (s > 0) {
			rsum[nr] = s;
			rows[nr++] = r;
		}
		n += s;
	}
	for (int c = 0; c < ncols; c++) {
		double s = 0;

		for (int r = 0; r < nrows; r++)
			s += (double)counts[r * ncols + c];
		if (s > 0) {
			csum[nc] = s;
			cols[nc++] = c;
		}
	}
	t->rows = nr;
	t->cols = nc;
	t->n = (__u64)n;
	if (nr < 2 || nc < 2)
		return 0;
	for (int i = 0; i < nr; i++) {
		for (int j = 0; j < nc; j++) {
			o = (double)counts[rows[i] * ncols + cols[j]];
			e = rsum[i] * csum[j] / n;
			if (e < 5)
				t->sparse++;
			if (o > 0)
				t->g += 2 * o * log(o / e);
			t->chi2 += (o - e) * (o - e) / e;
		}
	}
	t->df = (nr - 1) * (nc - 1);
	t->p = cmp__chi2_sf(t->g, t->df);
	k = nr < nc ? nr : nc;
	t->cramers_v = sqrt(t->chi2 / (n * (k - 1)));
	if (t->cramers_v > 1)
		t->cramers_v = 1; /* rounding */
	return 0;
}

const char *cmp__effect_word(double v, int dfs)
{
	/* Cohen (1988): small/medium/large thresholds shrink with min(r,c)-1.
	 */
	static const double th[4][3] = {
		{ 0.10, 0.30, 0.50 },
		{ 0.07, 0.21, 0.35 },
		{ 0.06, 0.17, 0.29 },
		{ 0.05, 0.15, 0.25 },
	};
	const double *t = th[dfs < 1 ? 0 : dfs > 4 ? 3 : dfs - 1];

	if (v >= t[2])
		return "large";
	if (v >= t[1])
		return "medium";
	if (v >= t[0])
		return "small";
	return "negligible";
}

bool cmp__test_text(char *buf, size_t n, const struct fs_histogram *hb,
		    const struct fs_histogram *hn)
{
	__u64 two[2 * FS_SLOTS];
	struct cmp_test tt;
	char pv[32];
	int k;

	memcpy(two, hb->slot, sizeof(hb->slot));
	memcpy(two + FS_SLOTS, hn->slot, sizeof(hn->slot));
	if (cmp__homogeneity(two, 2, FS_SLOTS, &tt) || tt.df == 0) {
		snprintf(buf, n, "G-test: nothing to test (%s)",
			 !hb->count || !hn->count ? "a side has no events"
						  : "both in one bucket");
		return false;
	}
	if (tt.p == 0)
		snprintf(pv, sizeof(pv), "p < 1e-300");
	else
		snprintf(pv, sizeof(pv), "p = %.3g", tt.p);
	k = (tt.rows < tt.cols ? tt.rows : tt.cols) - 1;
	snprintf(buf, n,
		 "G-test: G = %.4g, df = %d, %s; Cramér's V = %.3f (%s)%s",
		 tt.g, tt.df, pv, tt.cramers_v,
		 cmp__effect_word(tt.cramers_v, k),
		 tt.sparse ? "; some expected counts < 5, p is rough" : "");
	return true;
}

/* Bucket counts of histogram hi of target t, one row per run of s. */
static void rows_of(const struct cmp_side *s, int t, int hi, __u64 *rows)
{
	for (int i = 0; i < s->nruns; i++)
		memcpy(rows + (size_t)i * FS_SLOTS,
		       s->runs[i].target[t].hist[hi].slot,
		       sizeof(__u64) * FS_SLOTS);
}

bool cmp__run_noise(const struct cmp_side *base, const struct cmp_side *new,
		    int t, int hi, double *vb, double *vn)
{
	__u64 runs[CMP_NOISE_MAX_RUNS * FS_SLOTS];
	struct cmp_test tb, tn;

	if (base->nruns < 2 || new->nruns < 2 ||
	    base->nruns > CMP_NOISE_MAX_RUNS || new->nruns > CMP_NOISE_MAX_RUNS)
		return false;
	rows_of(base, t, hi, runs);
	if (cmp__homogeneity(runs, base->nruns, FS_SLOTS, &tb))
		return false;
	rows_of(new, t, hi, runs);
	if (cmp__homogeneity(runs, new->nruns, FS_SLOTS, &tn))
		return false;
	*vb = tb.cramers_v;
	*vn = tn.cramers_v;
	return true;
}

bool cmp__noise_text(char *buf, size_t n, const struct cmp_side *base,
		     const struct cmp_side *new, int t, int hi)
{
	double vb, vn;

	if (cmp__run_noise(base, new, t, hi, &vb, &vn)) {
		snprintf(buf, n,
			 "run to run: Cramér's V = %.3f among base runs, "
			 "%.3f among new runs",
			 vb, vn);
		return true;
	}
	snprintf(buf, n,
		 "run to run: not measured (%d base run%s, %d new run%s; it "
		 "takes 2 or more per side)",
		 base->nruns, base->nruns == 1 ? "" : "s", new->nruns,
		 new->nruns == 1 ? "" : "s");
	return false;
}
