// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SVG reporter: bar charts of the histograms, one per measured histogram,
 * with axis labels in human units; as a whole SVG document with the run's
 * facts above the charts, and chart by chart for the HTML reporter.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

#define ML 76 /* left margin: y tick labels and title */
#define MR 20
#define MT 56 /* title and subtitle */
#define MB 78 /* x labels (maybe rotated) and x title */
#define PW (REPORT_CHART_W - ML - MR)
#define PH (REPORT_CHART_H - MT - MB)

#define MIN_BARS 6

#define DOC_PAD 20
#define DOC_W (REPORT_CHART_W + 2 * DOC_PAD)
#define LINE_H 18
#define WRAP_CHARS 112

/* Counts for tick labels: exact below 10000, else 3 digits and SI. */
static void fmt_count(char *buf, size_t n, double v)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	int i = 0;

	if (v < 10000) {
		snprintf(buf, n, "%.0f", v);
		return;
	}
	while (i < 6 && v >= 999.5) {
		v /= 1000;
		i++;
	}
	snprintf(buf, n, "%.3g%s", v, si[i]);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about 4 ticks. */
static __u64 tick_step(__u64 max)
{
	__u64 raw = max / 4 + 1, mag = 1;

	while (mag <= raw / 10)
		mag *= 10;
	if (raw <= mag)
		return mag;
	if (raw <= 2 * mag)
		return 2 * mag;
	if (raw <= 5 * mag)
		return 5 * mag;
	return 10 * mag;
}

static const struct fs_hist_spec *chart_spec(const struct report_chart *c)
{
	return c->a ? c->a->spec : c->b->spec;
}

static bool usable(const struct fs_histogram *h)
{
	return h && h->measured;
}

/* Union of the non-empty slot ranges of the measured histograms. */
static bool chart_range(const struct report_chart *c, int *first, int *last)
{
	const struct fs_histogram *hs[2] = { c->a, c->b };
	int f, l;

	*first = FS_SLOTS;
	*last = -1;
	for (int i = 0; i < 2; i++) {
		if (!usable(hs[i]) || !model__range(hs[i], &f, &l))
			continue;
		if (f < *first)
			*first = f;
		if (l > *last)
			*last = l;
	}
	if (*last < 0)
		return false;
	report__slots_pad(chart_spec(c), MIN_BARS, first, last);
	return true;
}

/* Tooltip: exact edges, in the unit and in human form. */
static void bucket_title(FILE *f, const struct fs_hist_spec *sp, int slot,
			 const struct fs_bucket *b, const char *series)
{
	char lo[32], hi[32];

	report__human(lo, sizeof(lo), sp->unit, b->lo);
	report__human(hi, sizeof(hi), sp->unit, b->hi);
	fputs("<title>", f);
	if (series) {
		report__xml_escape(f, series);
		fputs(": ", f);
	}
	if (report__align_zero(sp, slot))
		fprintf(f, "%s: %llu</title>", REPORT_OFFSET0,
			(unsigned long long)b->count);
	else if (report__align_cap(sp, slot))
		fprintf(f, "%s or more (%llu %s or more): %llu</title>", lo,
			(unsigned long long)b->lo, sp->unit,
			(unsigned long long)b->count);
	else if (b->lo == b->hi)
		fprintf(f, "%s (%llu %s): %llu</title>", lo,
			(unsigned long long)b->lo, sp->unit,
			(unsigned long long)b->count);
	else
		fprintf(f, "%s to %s (%llu to %llu %s): %llu</title>", lo, hi,
			(unsigned long long)b->lo, (unsigned long long)b->hi,
			sp->unit, (unsigned long long)b->count);
}

static void chart_subtitle(FILE *f, const struct report_chart *c)
{
	const struct fs_hist_spec *sp = chart_spec(c);
	const struct fs_histogram *hs[2] = { c->a, c->b };
	const char *names[2] = { c->a_label, c->b_label };
	char sum[32];
	bool ab = c->b != NULL;

	report__xml_escape(f, sp->help);
	for (int i = 0; i < (ab ? 2 : 1); i++) {
		const struct fs_histogram *h = hs[i];

		fputs(i ? "; " : " — ", f);
		if (ab) {
			report__xml_escape(f, names[i] ? names[i] : "?");
			fputc(' ', f);
		}
		if (!h || !h->measured) {
			fputs("not measured", f);
			continue;
		}
		report__human(sum, sizeof(sum), sp->unit, h->sum);
		fprintf(f, "count %llu, sum %s", (unsigned long long)h->count,
			sum);
	}
}

static void chart_axes(FILE *f, __u64 top, __u64 step)
{
	char lbl[32];

	for (__u64 v = 0;; v += step) {
		double y = MT + PH - (double)v / (double)top * PH;

		fmt_count(lbl, sizeof(lbl), (double)v);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"%s\"/>",
			ML, y, ML + PW, y,
			v ? REPORT_COLOR_GRID : REPORT_COLOR_AXIS);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"11\" fill=\"%s\">%s</text>\n",
			ML - 6, y + 4, REPORT_COLOR_MUTED, lbl);
		/* top is a multiple of step; stop there, never overflow. */
		if (v >= top || top - v < step)
			break;
	}
	fprintf(f,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"%s\"/>\n",
		ML, MT, ML, MT + PH, REPORT_COLOR_AXIS);
	fprintf(f,
		"<text transform=\"translate(16 %d) rotate(-90)\" "
		"text-anchor=\"middle\" font-size=\"12\" fill=\"%s\">"
		"count</text>\n",
		MT + PH / 2, REPORT_COLOR_TEXT);
}

static void chart_bars(FILE *f, const struct report_chart *c, int first,
		       int last, __u64 top)
{
	const struct fs_hist_spec *sp = chart_spec(c);
	const struct fs_histogram *hs[2] = { c->a, c->b };
	const char *names[2] = { c->a_label, c->b_label };
	const char *colors[2] = { REPORT_COLOR_A, REPORT_COLOR_B };
	int nb = last - first + 1, nseries = c->b ? 2 : 1;
	double slot_w = (double)PW / nb;
	bool rotate = slot_w < 64;
	int every = slot_w < 16 ? 2 : 1;
	struct fs_bucket b;
	char lbl[32];

	for (int s = first; s <= last; s++) {
		double x0 = ML + (s - first) * slot_w;
		double bw = slot_w * 0.8 / nseries;

		for (int i = 0; i < nseries; i++) {
			double h, x = x0 + slot_w * 0.1 + i * bw;

			if (!usable(hs[i]))
				continue;
			model__bucket(hs[i], s, &b);
			h = (double)b.count / (double)top * PH;
			fprintf(f,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
				"width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
				x, MT + PH - h, bw, h, colors[i]);
			bucket_title(f, sp, s, &b, c->b ? names[i] : NULL);
			fputs("</rect>\n", f);
			/* Exact counts over the bars while they fit. */
			if (bw >= 26 && b.count) {
				fmt_count(lbl, sizeof(lbl), (double)b.count);
				fprintf(f,
					"<text x=\"%.1f\" y=\"%.1f\" "
					"text-anchor=\"middle\" "
					"font-size=\"10\" "
					"fill=\"%s\">%s</text>\n",
					x + bw / 2, MT + PH - h - 3,
					REPORT_COLOR_TEXT, lbl);
			}
		}
		if ((s - first) % every)
			continue;
		model__bucket(usable(c->a) ? c->a : c->b, s, &b);
		report__slot_label(lbl, sizeof(lbl), sp, s, b.lo,
				   report__human);
		report__svg_slot_label(f, x0 + slot_w / 2, MT + PH, rotate,
				       lbl);
	}
}

static void chart_legend(FILE *f, const struct report_chart *c)
{
	const char *names[2] = { c->a_label, c->b_label };
	const char *colors[2] = { REPORT_COLOR_A, REPORT_COLOR_B };
	int x = ML + PW - 250;

	for (int i = 0; i < 2; i++) {
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
			"fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"11\" "
			"fill=\"%s\">",
			x + i * 125, 6, colors[i], x + i * 125 + 14, 15,
			REPORT_COLOR_TEXT);
		report__xml_escape(f, names[i] ? names[i] : "?");
		fputs("</text>\n", f);
	}
}

static const char *x_title(const struct fs_hist_spec *sp)
{
	if (sp->kind == FS_KIND_ALIGN)
		return "alignment (power of two, 2 MiB+ = 2 MiB or more; "
		       "offset 0 apart)";
	if (!strcmp(sp->unit, "ns"))
		return "time, log2 buckets (label: bucket start)";
	if (strcmp(sp->unit, "bytes"))
		return "count, log2 buckets (label: bucket start)";
	return "bytes, log2 buckets (label: bucket start)";
}

void report__svg_chart(FILE *f, const struct report_chart *c)
{
	const struct fs_hist_spec *sp = chart_spec(c);
	const struct fs_histogram *hs[2] = { c->a, c->b };
	struct fs_bucket b;
	int first, last;
	__u64 max = 0, step, top;

	struct report_frame fr = { .cls = "bars",
				   .x = c->x,
				   .y = c->y,
				   .height = REPORT_CHART_H,
				   .target = c->target,
				   .sp = sp };

	report__svg_frame(f, &fr);
	fprintf(f, "<text x=\"12\" y=\"40\" font-size=\"11\" fill=\"%s\">",
		REPORT_COLOR_MUTED);
	chart_subtitle(f, c);
	fputs("</text>\n", f);
	if (c->b)
		chart_legend(f, c);

	if (!chart_range(c, &first, &last)) {
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"14\" fill=\"%s\">no events</text>\n",
			ML + PW / 2, MT + PH / 2, REPORT_COLOR_MUTED);
		fputs("</svg>\n", f);
		return;
	}
	for (int i = 0; i < 2; i++) {
		if (!usable(hs[i]))
			continue;
		for (int s = first; s <= last; s++) {
			model__bucket(hs[i], s, &b);
			if (b.count > max)
				max = b.count;
		}
	}
	step = tick_step(max);
	/* Round the axis up to a whole step, without overflowing. */
	top = max / step * step;
	if (top < max)
		top = top > UINT64_MAX - step ? UINT64_MAX : top + step;
	chart_axes(f, top, step);
	chart_bars(f, c, first, last, top);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-size=\"12\" "
		"fill=\"%s\">%s</text>\n",
		ML + PW / 2, REPORT_CHART_H - 8, REPORT_COLOR_TEXT,
		x_title(sp));
	fputs("</svg>\n", f);
}

/* ---- the SVG document ---- */

struct doc {
	FILE *f;
	int y; /* baseline of the next line */
	const struct fs_report *base, *next;
};

/* One line of text, or several when longer than WRAP_CHARS. */
static void doc_text(struct doc *d, const char *text, int size,
		     const char *color, bool bold)
{
	const struct report_svg_text st = {
		.x = DOC_PAD,
		.size = size,
		.wrap = WRAP_CHARS,
		.color = color,
		.bold = bold,
	};

	d->y = report__svg_lines(d->f, &st, d->y, text);
}

static void doc_host(struct doc *d, const struct fs_report *r,
		     const char *label)
{
	char line[1024], filt[900];

	snprintf(line, sizeof(line),
		 "%s%skernel %s · %s · page size %llu · folioscope %s",
		 label ? label : "", label ? ": " : "",
		 r->kernel[0] ? r->kernel : "-",
		 r->machine[0] ? r->machine : "-",
		 (unsigned long long)r->page_size, r->tool_version);
	doc_text(d, line, 13, REPORT_COLOR_TEXT, false);
	model__filters_text(&r->filters, filt, sizeof(filt));
	snprintf(line, sizeof(line), "%s%sfilters: %s", label ? label : "",
		 label ? ": " : "", filt);
	doc_text(d, line, 12, REPORT_COLOR_TEXT, false);
}

static void doc_target(struct doc *d, const struct fs_target_report *tr,
		       const char *label)
{
	char line[1600];
	int n;

	report__attach_line(line, sizeof(line), label, tr);
	doc_text(d, line, 12, REPORT_COLOR_TEXT, false);
	n = snprintf(line, sizeof(line), "counters:");
	for (int c = 0; c < tr->ncounters && n < (int)sizeof(line); c++)
		n += snprintf(line + n, sizeof(line) - n, "%s %s %llu",
			      c ? "," : "", tr->counter_spec[c].name,
			      (unsigned long long)tr->counter[c]);
	doc_text(d, line, 12, REPORT_COLOR_MUTED, false);
}

static void doc_workload(struct doc *d, const struct fs_report *r,
			 const char *label)
{
	char line[4096], verdict[256];
	int n;

	n = snprintf(line, sizeof(line), "%s%sworkload %s", label ? label : "",
		     label ? " " : "",
		     r->workload_name[0] ? r->workload_name : "none");
	report__kv_append(line, sizeof(line), n, r->kv, r->nkv);
	doc_text(d, line, 12, REPORT_COLOR_TEXT, false);
	report__verdict(verdict, sizeof(verdict), r);
	snprintf(line, sizeof(line), "%s%svalidation: %s", label ? label : "",
		 label ? " " : "", verdict);
	doc_text(d, line, 12,
		 strstr(verdict, "FAILED") ? REPORT_COLOR_FAIL
					   : REPORT_COLOR_TEXT,
		 true);
}

static const struct fs_target_report *target_of(const struct fs_report *r,
						int t)
{
	return r && r->target[t].enabled ? &r->target[t] : NULL;
}

/* The document's body, to f; returns the height it takes. */
static int doc_body(FILE *f, void *arg)
{
	struct doc *d = arg;
	const struct fs_report *base = d->base, *next = d->next;
	const char *la = next ? "A" : NULL, *lb = next ? "B" : NULL;
	char line[512];

	d->f = f;
	doc_text(d, next ? "folioscope A/B report" : "folioscope report", 20,
		 REPORT_COLOR_TEXT, true);
	doc_host(d, base, la);
	if (next)
		doc_host(d, next, lb);
	for (int t = 0; t < FS_TGT_NR; t++) {
		if (target_of(base, t))
			doc_target(d, target_of(base, t), la);
		if (target_of(next, t))
			doc_target(d, target_of(next, t), lb);
	}
	doc_workload(d, base, la);
	if (next)
		doc_workload(d, next, lb);
	if (!next) {
		char iv[128];

		report__intervals_fact(iv, sizeof(iv), base);
		snprintf(line, sizeof(line), "intervals: %s", iv);
		doc_text(d, line, 12, REPORT_COLOR_MUTED, false);
	}
	d->y += 8;

	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *ta = target_of(base, t);
		const struct fs_target_report *tb = target_of(next, t);
		const struct fs_target_report *any = ta ? ta : tb;

		if (!any)
			continue;
		for (int i = 0; i < any->nhists; i++) {
			struct report_chart c = {
				.target = any->name,
				.a = ta ? &ta->hist[i] : NULL,
				.b = tb ? &tb->hist[i] : NULL,
				.a_label = next ? "A (base)" : NULL,
				.b_label = next ? "B (new)" : NULL,
			};

			if (!usable(c.a) && !usable(c.b)) {
				const struct fs_histogram *h = &any->hist[i];

				snprintf(line, sizeof(line),
					 "%s %s: not measured (%s)", any->name,
					 h->spec->name,
					 h->why[0] ? h->why
						   : "no reason given");
				doc_text(d, line, 12, REPORT_COLOR_MUTED,
					 false);
				continue;
			}
			c.x = DOC_PAD;
			c.y = d->y;
			fprintf(d->f, "<g class=\"chart\">\n");
			report__svg_chart(d->f, &c);
			fputs("</g>\n", d->f);
			d->y += REPORT_CHART_H + 16;
		}
		/* One run with trace -i's intervals: its heatmaps. */
		if (next || !ta || !base->nintervals)
			continue;
		for (int i = 0; i < ta->nhists; i++) {
			if (!ta->hist[i].measured)
				continue;
			fputs("<g class=\"heatmap\">\n", d->f);
			report__svg_heatmap(d->f, base, t, i, DOC_PAD, d->y);
			fputs("</g>\n", d->f);
			d->y += report__heatmap_height(&ta->hist[i]) + 16;
		}
	}
	return d->y + DOC_PAD;
}

int report__svg(FILE *f, const struct fs_report *base,
		const struct fs_report *next)
{
	struct doc d = { .y = DOC_PAD + 14, .base = base, .next = next };

	return report__svg_document(f, DOC_W, doc_body, &d);
}
