// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The comparison as a picture: the --expect verdicts at the top, the
 * sides' facts, then per histogram base and new on one log2 axis as
 * fractions of each side's events (so runs of different lengths
 * compare), the spread among a side's runs, p50/p90/p99 of both and the
 * G-test beside it. HTML (inline SVG, no script, nothing fetched) or one
 * SVG document. Base bars are solid, new bars hatched, markers and
 * labels say which side they are: readable without colour.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"
#include "report/report.h"

#define CW REPORT_CHART_W /* chart width, height */
#define CH 374
#define ML 74
#define MR 20
#define MT 138 /* title, statistics, noise, percentile labels */
#define MB 74
#define PW (CW - ML - MR)
#define PH (CH - MT - MB)
#define MIN_BARS 6
#define PAD 20
#define WRAP_CHARS 118 /* SVG document lines, at 11-13 px */

static const double pcts[] = { 50, 90, 99 };

struct pic {
	FILE *f;
	bool html;
	int y; /* SVG document: baseline of the next line */
	const struct cmp_side *side[2];
};

/* What the SVG document's body needs besides the picture. */
struct pic_body {
	struct pic *p;
	const struct cmp_rule *rule;
	int nrules;
	const char *warning;
};

static void esc(FILE *f, const char *s)
{
	report__xml_escape(f, s);
}

/* One line of text: a paragraph in HTML, a <text> in the SVG document. */
static void line(struct pic *p, const char *cls, const char *color, int size,
		 const char *text)
{
	const struct report_svg_text st = {
		.cls = cls,
		.x = PAD,
		.size = size,
		.wrap = WRAP_CHARS,
		.color = color,
	};

	if (p->html) {
		fprintf(p->f, "<p class=\"%s\">", cls);
		esc(p->f, text);
		fputs("</p>\n", p->f);
		return;
	}
	p->y = report__svg_lines(p->f, &st, p->y, text);
}

/* ---- the rules ---- */

static int rules(struct pic *p, const struct cmp_rule *rule, int nrules)
{
	struct cmp_verdict v;
	char l[32], r[32], text[640];
	int failed = 0;

	if (!nrules)
		return 0;
	if (p->html)
		fputs("<h2>Rules</h2>\n<ul class=\"rules\">\n", p->f);
	for (int i = 0; i < nrules; i++) {
		cmp__rule_eval(&rule[i], p->side[0], p->side[1], &v);
		if (!v.evaluated) {
			snprintf(text, sizeof(text), "FAIL %s: no value (%s)",
				 rule[i].text, v.why);
		} else {
			cmp__fmt_value(l, sizeof(l), v.lhs, NULL);
			cmp__fmt_value(r, sizeof(r), v.rhs, NULL);
			snprintf(text, sizeof(text), "%s %s: new %s %s %s%s",
				 v.pass ? "ok" : "FAIL", rule[i].text, l,
				 cmp__op_str(rule[i].op), r,
				 rule[i].rhs_base ? " (from base)" : "");
		}
		failed += !v.pass;
		if (p->html) {
			fprintf(p->f,
				"<li class=\"rule %s\" data-verdict=\"%s\">",
				v.pass ? "pass" : "fail",
				v.pass ? "pass" : "fail");
			esc(p->f, text);
			fputs("</li>\n", p->f);
		} else {
			line(p, v.pass ? "rule pass" : "rule fail",
			     v.pass ? REPORT_COLOR_PASS : REPORT_COLOR_FAIL, 13,
			     text);
		}
	}
	if (p->html)
		fputs("</ul>\n", p->f);
	snprintf(text, sizeof(text), "%d of %d rules hold", nrules - failed,
		 nrules);
	line(p, failed ? "rules-total fail" : "rules-total pass",
	     failed ? REPORT_COLOR_FAIL : REPORT_COLOR_PASS, 13, text);
	return failed;
}

/* ---- the sides' facts ---- */

/* Each run's filters when they differ among a side's runs, else one. */
static void filters_line(struct pic *p, const struct cmp_side *sd)
{
	char text[1200], filt[900];
	bool same = true;

	for (int i = 1; i < sd->nruns; i++) {
		char a[900];

		model__filters_text(&sd->runs[0].filters, filt, sizeof(filt));
		model__filters_text(&sd->runs[i].filters, a, sizeof(a));
		same &= !strcmp(a, filt);
	}
	for (int i = 0; i < (same ? 1 : sd->nruns); i++) {
		model__filters_text(&sd->runs[i].filters, filt, sizeof(filt));
		snprintf(text, sizeof(text), "%s filters%s%s%s: %s", sd->label,
			 same ? "" : " (", same ? "" : sd->paths[i],
			 same ? "" : ")", filt);
		line(p, "filters", REPORT_COLOR_TEXT, 12, text);
	}
}

static void facts(struct pic *p, const char *warning)
{
	char text[2048];
	int n;

	if (warning) {
		snprintf(text, sizeof(text),
			 "compared with --force although runs differ: %s",
			 warning);
		line(p, "warning", REPORT_COLOR_FAIL, 12, text);
	}
	for (int s = 0; s < 2; s++) {
		const struct cmp_side *sd = p->side[s];
		const struct fs_report *r = &sd->pooled;

		n = snprintf(text, sizeof(text), "%s: %d run%s (", sd->label,
			     sd->nruns, sd->nruns == 1 ? "" : "s");
		for (int i = 0; i < sd->nruns && n < (int)sizeof(text); i++)
			n += snprintf(text + n, sizeof(text) - n, "%s%s",
				      i ? ", " : "", sd->paths[i]);
		if (n < (int)sizeof(text))
			snprintf(text + n, sizeof(text) - n,
				 "), kernel %s, %s, page size %llu",
				 r->kernel[0] ? r->kernel : "-",
				 r->machine[0] ? r->machine : "-",
				 (unsigned long long)r->page_size);
		line(p, "side", REPORT_COLOR_TEXT, 12, text);
		filters_line(p, sd);
		for (int t = 0; t < FS_TGT_NR; t++) {
			if (!r->target[t].enabled)
				continue;
			report__attach_line(text, sizeof(text), sd->label,
					    &r->target[t]);
			line(p, "attach", REPORT_COLOR_MUTED, 11, text);
		}
		/* The first run's: pooling adds numbers up, parameters too. */
		n = snprintf(text, sizeof(text), "%s workload%s %s", sd->label,
			     sd->nruns > 1 ? " (first run)" : "",
			     r->workload_name[0] ? r->workload_name : "none");
		report__kv_append(text, sizeof(text), n, sd->runs[0].kv,
				  sd->runs[0].nkv);
		line(p, "workload", REPORT_COLOR_MUTED, 11, text);
	}
	line(p, "note", REPORT_COLOR_MUTED, 11,
	     "Bars: each side's share of its own events per log2 bucket "
	     "(base solid, new hatched); whiskers: min..max over a side's "
	     "runs; dashed lines: p50/p90/p99 (b = base, n = new).");
}

/* ---- one chart ---- */

static double frac(const struct fs_histogram *h, int s)
{
	return h->count ? (double)h->slot[s] / (double)h->count : 0;
}

/* Where value v sits on the axis of slots first..: log2 inside a log2
 * bucket, the middle of an alignment bucket. */
static double value_x(const struct fs_hist_spec *sp, double v, int first,
		      int last, double slot_w)
{
	double pos;
	int k;

	if (v < 1) {
		pos = 0.5;
	} else if (sp->kind == FS_KIND_ALIGN) {
		k = (int)fs_log2_slot((__u64)v);
		pos = k + 0.5;
	} else {
		pos = log2(v) + 1;
		if (pos > FS_SLOTS)
			pos = FS_SLOTS;
	}
	pos -= first;
	if (pos < 0)
		pos = 0;
	if (pos > last - first + 1)
		pos = last - first + 1;
	return ML + pos * slot_w;
}

static const char *x_title(const struct fs_hist_spec *sp)
{
	if (sp->kind == FS_KIND_ALIGN)
		return "alignment in bytes (power of two; offset 0 apart)";
	if (!strcmp(sp->unit, "ns"))
		return "time per call (ns/µs/ms), log2 buckets, label = bucket "
		       "start";
	return "bytes (B/KiB/MiB), log2 buckets, label = bucket start";
}

/* min..max of a slot's fraction over a side's runs. */
static void spread(const struct cmp_side *sd, int t, int hi, int s, double *lo,
		   double *hi_out)
{
	*lo = 1;
	*hi_out = 0;
	for (int i = 0; i < sd->nruns; i++) {
		double v = frac(&sd->runs[i].target[t].hist[hi], s);

		if (v < *lo)
			*lo = v;
		if (v > *hi_out)
			*hi_out = v;
	}
}

static double nice_top(double max)
{
	static const double steps[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.25 };
	double top;

	if (max <= 0)
		return 0.1;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		top = ceil(max / steps[i] - 1e-9) * steps[i];
		if (top / steps[i] <= 5)
			return top > 1 ? 1 : top;
	}
	return 1;
}

static void chart_head(struct pic *p, const struct fs_hist_spec *sp,
		       const char *target, const char *stats, const char *noise,
		       int x, int y)
{
	const struct report_frame fr = {
		.cls = "ab",
		.x = x,
		.y = y,
		.height = CH,
		.target = target,
		.sp = sp,
	};
	FILE *f = p->f;

	report__svg_frame(f, &fr);
	fprintf(f, "<text x=\"12\" y=\"40\" font-size=\"11\" fill=\"%s\">",
		REPORT_COLOR_MUTED);
	esc(f, sp->help);
	fputs("</text>\n", f);
	fprintf(f,
		"<text class=\"stats\" x=\"12\" y=\"56\" font-size=\"11\" "
		"fill=\"%s\">",
		REPORT_COLOR_TEXT);
	esc(f, stats);
	fputs("</text>\n", f);
	fprintf(f,
		"<text class=\"noise\" x=\"12\" y=\"70\" font-size=\"11\" "
		"fill=\"%s\">",
		REPORT_COLOR_TEXT);
	esc(f, noise);
	fputs("</text>\n", f);
}

static void chart_pattern(FILE *f, const char *id)
{
	fprintf(f,
		"<defs><pattern id=\"%s\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" "
		"patternTransform=\"rotate(45)\"><rect width=\"6\" "
		"height=\"6\" fill=\"#ffffff\"/><rect width=\"3\" height=\"6\" "
		"fill=\"%s\"/></pattern></defs>\n",
		id, REPORT_COLOR_B);
}

static void chart(struct pic *p, int t, int hi, int x, int y)
{
	const struct cmp_side *sd[2] = { p->side[0], p->side[1] };
	const struct fs_histogram *h[2] = {
		&sd[0]->pooled.target[t].hist[hi],
		&sd[1]->pooled.target[t].hist[hi],
	};
	const struct fs_hist_spec *sp = h[0]->spec;
	const char *target = sd[0]->pooled.target[t].name;
	int first = FS_SLOTS, last = -1, f0, l0, nb;
	char stats[640], test[320], noise[160], id[64], fill[80], lbl[32];
	double max = 0, top, slot_w, lo, hi_v;
	FILE *f = p->f;
	struct fs_bucket b;

	cmp__test_text(test, sizeof(test), h[0], h[1]);
	snprintf(stats, sizeof(stats), "base %llu events, new %llu events; %s",
		 (unsigned long long)h[0]->count,
		 (unsigned long long)h[1]->count, test);
	/* The run-to-run V is the noise floor to read the G-test's V
	 * against: a difference between the sides no larger than the
	 * differences among one side's runs is not the kernel's. */
	cmp__noise_text(noise, sizeof(noise), sd[0], sd[1], t, hi);
	chart_head(p, sp, target, stats, noise, x, y);
	snprintf(id, sizeof(id), "hatch-%s-%s", target, sp->name);
	chart_pattern(f, id);
	snprintf(fill, sizeof(fill), "url(#%s)", id);
	/* Legend, so the picture needs no colour to tell the sides. */
	fprintf(f,
		"<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" "
		"fill=\"%s\"/>"
		"<text x=\"%d\" y=\"18\" font-size=\"11\" fill=\"%s\">base "
		"(solid)</text>"
		"<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" "
		"fill=\"url(#%s)\" stroke=\"%s\"/>"
		"<text x=\"%d\" y=\"18\" font-size=\"11\" fill=\"%s\">new "
		"(hatched)</text>\n",
		CW - 230, REPORT_COLOR_A, CW - 214, REPORT_COLOR_TEXT, CW - 120,
		id, REPORT_COLOR_B, CW - 104, REPORT_COLOR_TEXT);

	for (int i = 0; i < 2; i++)
		if (model__range(h[i], &f0, &l0)) {
			first = f0 < first ? f0 : first;
			last = l0 > last ? l0 : last;
		}
	if (last < 0) {
		fprintf(f,
			"<text class=\"empty\" x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\" font-size=\"14\" "
			"fill=\"%s\">no events on either side</text>\n</svg>\n",
			ML + PW / 2, MT + PH / 2, REPORT_COLOR_MUTED);
		return;
	}
	report__slots_pad(sp, MIN_BARS, &first, &last);
	for (int s = first; s <= last; s++)
		for (int i = 0; i < 2; i++) {
			if (frac(h[i], s) > max)
				max = frac(h[i], s);
			spread(sd[i], t, hi, s, &lo, &hi_v);
			if (sd[i]->nruns > 1 && hi_v > max)
				max = hi_v;
		}
	top = nice_top(max);
	nb = last - first + 1;
	slot_w = (double)PW / nb;

	/* y axis: fraction of each side's events. */
	for (int k = 0; k <= 5; k++) {
		double v = top * k / 5, yy = MT + PH - (double)k / 5 * PH;

		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"%s\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\" font-size=\"11\" fill=\"%s\">"
			"%.3g</text>\n",
			ML, yy, ML + PW, yy,
			k ? REPORT_COLOR_GRID : REPORT_COLOR_TEXT, ML - 6,
			yy + 4, REPORT_COLOR_MUTED, v);
	}
	fprintf(f,
		"<text transform=\"translate(16 %d) rotate(-90)\" "
		"text-anchor=\"middle\" font-size=\"12\" fill=\"%s\">"
		"fraction of the side's events</text>\n",
		MT + PH / 2, REPORT_COLOR_TEXT);
	fprintf(f,
		"<g class=\"plot\" data-top=\"%.6f\" data-y0=\"%d\" "
		"data-height=\"%d\">\n",
		top, MT + PH, PH);

	for (int s = first; s <= last; s++) {
		double x0 = ML + (s - first) * slot_w;

		for (int i = 0; i < 2; i++) {
			double fr = frac(h[i], s), bh = fr / top * PH;
			double bx = x0 + slot_w * (0.1 + 0.4 * i);

			model__bucket(h[i], s, &b);
			fprintf(f,
				"<rect class=\"bar\" data-side=\"%s\" "
				"data-slot=\"%d\" data-lo=\"%llu\" "
				"data-count=\"%llu\" data-fraction=\"%.6f\" "
				"x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\" stroke=\"%s\">",
				sd[i]->label, s, (unsigned long long)b.lo,
				(unsigned long long)b.count, fr, bx,
				MT + PH - bh, slot_w * 0.4, bh,
				i ? fill : REPORT_COLOR_A,
				i ? REPORT_COLOR_B : REPORT_COLOR_A);
			fputs("</rect>\n", f);
			if (sd[i]->nruns < 2)
				continue;
			spread(sd[i], t, hi, s, &lo, &hi_v);
			fprintf(f,
				"<path class=\"spread\" data-side=\"%s\" "
				"data-slot=\"%d\" data-min=\"%.6f\" "
				"data-max=\"%.6f\" d=\"M%.2f %.2fV%.2fM%.2f "
				"%.2fh%.2fM%.2f %.2fh%.2f\" stroke=\"%s\" "
				"fill=\"none\"/>\n",
				sd[i]->label, s, lo, hi_v, bx + slot_w * 0.2,
				MT + PH - lo / top * PH,
				MT + PH - hi_v / top * PH, bx + slot_w * 0.1,
				MT + PH - lo / top * PH, slot_w * 0.2,
				bx + slot_w * 0.1, MT + PH - hi_v / top * PH,
				slot_w * 0.2, REPORT_COLOR_TEXT);
		}
		model__bucket(h[0], s, &b);
		report__slot_label(lbl, sizeof(lbl), sp, s, b.lo,
				   report__human);
		if (slot_w < 16 && (s - first) % 2)
			continue;
		report__svg_slot_label(f, x0 + slot_w / 2, MT + PH, true, lbl);
	}
	fputs("</g>\n", f);

	/* Percentile markers of both sides. */
	for (int i = 0; i < 2; i++) {
		for (size_t q = 0; q < sizeof(pcts) / sizeof(pcts[0]); q++) {
			double v, px;
			char val[32];

			if (!cmp__quantile(h[i], pcts[q] / 100, &v))
				continue;
			px = value_x(sp, v, first, last, slot_w);
			cmp__fmt_value(val, sizeof(val), v, sp->unit);
			fprintf(f,
				"<g class=\"pct\" data-side=\"%s\" "
				"data-q=\"%g\" data-value=\"%.6g\">"
				"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
				"y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\" "
				"stroke-dasharray=\"%s\"/>"
				"<text x=\"%.2f\" y=\"%d\" font-size=\"9\" "
				"text-anchor=\"middle\" fill=\"%s\">p%g%s "
				"%s</text><title>%s p%g = %s</title></g>\n",
				sd[i]->label, pcts[q], v, px, MT, px, MT + PH,
				i ? REPORT_COLOR_B : REPORT_COLOR_A,
				i ? "2 2" : "6 3", px,
				86 + (i * 3 + (int)q) * 9,
				i ? REPORT_COLOR_B : REPORT_COLOR_A, pcts[q],
				i ? "n" : "b", val, sd[i]->label, pcts[q], val);
		}
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-size=\"12\" fill=\"%s\">%s</text>\n</svg>\n",
		ML + PW / 2, CH - 8, REPORT_COLOR_TEXT, x_title(sp));
}

/* ---- per target ---- */

static void histograms(struct pic *p, int t)
{
	const struct fs_target_report *tb = &p->side[0]->pooled.target[t];
	const struct fs_target_report *tn = &p->side[1]->pooled.target[t];
	char text[640];

	if (!tb->enabled && !tn->enabled)
		return;
	if (p->html)
		fprintf(p->f, "<h2 id=\"%s\">%s</h2>\n", tb->name, tb->name);
	if (!tb->enabled || !tn->enabled) {
		snprintf(text, sizeof(text),
			 "%s: traced on %s only, nothing to compare", tb->name,
			 tb->enabled ? "base" : "new");
		line(p, "one-sided", REPORT_COLOR_MUTED, 12, text);
		return;
	}
	for (int i = 0; i < tb->nhists; i++) {
		const struct fs_histogram *hb = &tb->hist[i],
					  *hn = &tn->hist[i];

		if (!hb->measured || !hn->measured) {
			char why[560];

			cmp__not_measured_text(why, sizeof(why), hb, hn);
			snprintf(text, sizeof(text), "%s %s: %s", tb->name,
				 hb->spec->name, why);
			line(p, "not-measured", REPORT_COLOR_MUTED, 12, text);
			continue;
		}
		if (p->html) {
			fprintf(p->f,
				"<figure class=\"ab-chart\" data-target=\"%s\" "
				"data-histogram=\"%s\">\n",
				tb->name, hb->spec->name);
			chart(p, t, i, 0, 0);
			fputs("</figure>\n", p->f);
		} else {
			fputs("<g class=\"ab-chart\">\n", p->f);
			chart(p, t, i, PAD, p->y);
			fputs("</g>\n", p->f);
			p->y += CH + 16;
		}
	}
}

/* After the CSS every page shares (src/report/markup.c). */
static const char style[] =
	"h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #ccc}"
	"p{margin:3px 0;font-size:13px}p.attach,p.workload,p.note,"
	"p.not-measured,p.one-sided{color:#666;font-size:12px}"
	"ul.rules{padding-left:0;list-style:none;font-size:14px}"
	"li.rule{padding:3px 8px;margin:2px 0;border-left:6px solid}"
	"li.pass{border-color:#17692b}"
	"li.fail{color:#b00020;font-weight:bold;border-color:#b00020;"
	"background:#fde8ec}"
	".fail{color:#b00020}.warning{color:#b00020;font-weight:bold}"
	"figure.ab-chart{margin:10px 0}"
	"figure.ab-chart svg{max-width:100%;height:auto}";

static void body(struct pic *p, const struct cmp_rule *rule, int nrules,
		 const char *warning)
{
	if (p->html)
		fputs("<h1>folioscope compare: base vs new</h1>\n", p->f);
	else
		line(p, "title", REPORT_COLOR_TEXT, 20,
		     "folioscope compare: base vs new");
	rules(p, rule, nrules);
	if (p->html)
		fputs("<h2>Runs</h2>\n", p->f);
	facts(p, warning);
	p->y += 8;
	for (int t = 0; t < FS_TGT_NR; t++)
		histograms(p, t);
}

/* The SVG document's body, to f; returns the height it takes. */
static int svg_body(FILE *f, void *arg)
{
	struct pic_body *b = arg;

	b->p->f = f;
	body(b->p, b->rule, b->nrules, b->warning);
	return b->p->y + PAD;
}

int cmp__picture(FILE *f, bool html, const struct cmp_side *base,
		 const struct cmp_side *new, const struct cmp_rule *rule,
		 int nrules, const char *warning)
{
	struct pic p = { .f = f, .html = html, .y = PAD + 20 };
	struct pic_body b = {
		.p = &p, .rule = rule, .nrules = nrules, .warning = warning
	};
	const struct report_page pg = {
		.title = "folioscope compare",
		.kernel = base->pooled.kernel,
		.vs_kernel = new->pooled.kernel,
		.css = style,
	};

	p.side[0] = base;
	p.side[1] = new;
	if (!html)
		return report__svg_document(f, CW + 2 * PAD, svg_body, &b);
	report__html_head(f, &pg);
	body(&p, rule, nrules, warning);
	return report__html_foot(f);
}
