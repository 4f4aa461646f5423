// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Heatmaps of trace -i's intervals: time on x (one column per interval),
 * log2 bucket on y, the count as colour, a strip of each interval's
 * events above. Without colour the picture still reads: every column's
 * busiest bucket is outlined, counts are printed in the cells while they
 * fit, and every cell has a tooltip with its numbers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"

#define ML 84
#define MR 20
#define STRIP_Y 58 /* the totals strip */
#define STRIP_H 44
#define MT 128 /* the cells */
#define MB 62
#define PW (REPORT_CHART_W - ML - MR)
#define MAX_ROW_H 18
#define MIN_ROWS 4

/* Rows: the totals' non-empty slots, at least MIN_ROWS. */
static bool rows_of(const struct fs_histogram *h, int *first, int *last)
{
	if (!model__range(h, first, last))
		return false;
	report__slots_pad(h->spec, MIN_ROWS, first, last);
	return true;
}

static int row_h(int nrows)
{
	int h = 240 / nrows;

	return h > MAX_ROW_H ? MAX_ROW_H : h < 4 ? 4 : h;
}

int report__heatmap_height(const struct fs_histogram *h)
{
	int first, last;

	if (!rows_of(h, &first, &last))
		return MT + MB;
	return MT + (last - first + 1) * row_h(last - first + 1) + MB;
}

/* White to dark blue by the log of the count: a few events still show. */
static void cell_color(char *buf, size_t n, __u64 c, __u64 max)
{
	double v = c && max ? log1p((double)c) / log1p((double)max) : 0;
	int r = (int)(255 - v * (255 - 8)), g = (int)(255 - v * (255 - 48)),
	    b = (int)(255 - v * (255 - 107));

	snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

static void fmt_count(char *buf, size_t n, __u64 v)
{
	if (v < 1000)
		snprintf(buf, n, "%llu", (unsigned long long)v);
	else if (v < 1000000)
		snprintf(buf, n, "%.3gk", v / 1e3);
	else
		snprintf(buf, n, "%.3gM", v / 1e6);
}

static void secs(char *buf, size_t n, __u64 ms)
{
	snprintf(buf, n, "%.3g s", ms / 1000.0);
}

void report__svg_heatmap(FILE *f, const struct fs_report *r, int t, int hi,
			 int x, int y)
{
	const struct fs_target_report *tr = &r->target[t];
	const struct fs_histogram *h = &tr->hist[hi];
	const struct fs_hist_spec *sp = h->spec;
	int n = r->nintervals, first, last, nrows, rh, height;
	__u64 max = 0, smax = 0, c;
	double cw;
	char col[16], lbl[32], a[32], b[32], attrs[32];
	struct report_frame fr = { .cls = "heatmap",
				   .x = x,
				   .y = y,
				   .target = tr->name,
				   .sp = sp,
				   .attrs = attrs,
				   .title_tail = " over time" };
	struct fs_bucket bk;

	height = report__heatmap_height(h);
	snprintf(attrs, sizeof(attrs), "data-intervals=\"%d\"", n);
	fr.height = height;
	report__svg_frame(f, &fr);
	fprintf(f,
		"<text x=\"12\" y=\"40\" font-size=\"11\" fill=\"%s\">%d "
		"intervals; colour: events in the bucket (darker = more, log "
		"scale), outlined: each interval's busiest bucket</text>\n",
		REPORT_COLOR_MUTED, n);
	if (!rows_of(h, &first, &last) || !n) {
		fprintf(f,
			"<text class=\"empty\" x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\" font-size=\"14\" "
			"fill=\"%s\">%s</text>\n</svg>\n",
			ML + PW / 2, MT + 12, REPORT_COLOR_MUTED,
			n ? "no events" : "no intervals");
		return;
	}
	nrows = last - first + 1;
	rh = row_h(nrows);
	cw = (double)PW / n;
	for (int i = 0; i < n; i++) {
		const struct fs_interval_target *it =
			&r->intervals[i].target[t];

		if (it->count[hi] > smax)
			smax = it->count[hi];
		for (int s = first; s <= last; s++)
			if (it->slot[hi][s] > max)
				max = it->slot[hi][s];
	}

	/* The strip: events per interval. */
	fmt_count(lbl, sizeof(lbl), smax);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" "
		"fill=\"%s\">%s</text><text x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\" font-size=\"10\" fill=\"%s\">events/"
		"interval</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
		"font-size=\"10\" fill=\"%s\">0</text>\n",
		ML - 6, STRIP_Y + 8, REPORT_COLOR_MUTED, lbl, ML - 6,
		STRIP_Y + STRIP_H / 2 + 4, REPORT_COLOR_TEXT, ML - 6,
		STRIP_Y + STRIP_H, REPORT_COLOR_MUTED);
	fprintf(f,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"%s\"/>\n",
		ML, STRIP_Y + STRIP_H, ML + PW, STRIP_Y + STRIP_H,
		REPORT_COLOR_TEXT);
	for (int i = 0; i < n; i++) {
		const struct fs_interval *iv = &r->intervals[i];
		double bh;

		c = iv->target[t].count[hi];
		bh = smax ? (double)c / (double)smax * STRIP_H : 0;
		secs(a, sizeof(a), iv->start_ms);
		secs(b, sizeof(b), iv->end_ms);
		fprintf(f,
			"<rect class=\"total\" data-interval=\"%d\" "
			"data-count=\"%llu\" x=\"%.2f\" y=\"%.2f\" "
			"width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			"<title>%s to %s: %llu events</title></rect>\n",
			i + 1, (unsigned long long)c, ML + i * cw + cw * 0.1,
			STRIP_Y + STRIP_H - bh, cw * 0.8, bh, REPORT_COLOR_A, a,
			b, (unsigned long long)c);
	}

	/* The cells, the largest bucket at the top. */
	for (int i = 0; i < n; i++) {
		const struct fs_interval *iv = &r->intervals[i];
		const struct fs_interval_target *it = &iv->target[t];
		int mode = -1;

		secs(a, sizeof(a), iv->start_ms);
		secs(b, sizeof(b), iv->end_ms);
		for (int s = first; s <= last; s++) {
			double cx = ML + i * cw, cy = MT + (last - s) * rh;

			c = it->slot[hi][s];
			if (c && (mode < 0 || c > it->slot[hi][mode]))
				mode = s;
			model__bucket(h, s, &bk);
			report__human(lbl, sizeof(lbl), sp->unit, bk.lo);
			cell_color(col, sizeof(col), c, max);
			fprintf(f,
				"<rect class=\"cell\" data-interval=\"%d\" "
				"data-slot=\"%d\" data-lo=\"%llu\" "
				"data-count=\"%llu\" x=\"%.2f\" y=\"%d\" "
				"width=\"%.2f\" height=\"%d\" fill=\"%s\">"
				"<title>%s to %s, bucket from %s: %llu</title>"
				"</rect>\n",
				i + 1, s, (unsigned long long)bk.lo,
				(unsigned long long)c, cx, (int)cy, cw, rh, col,
				a, b, lbl, (unsigned long long)c);
			if (c && cw >= 26 && rh >= 11) {
				fmt_count(lbl, sizeof(lbl), c);
				fprintf(f,
					"<text x=\"%.2f\" y=\"%d\" "
					"text-anchor=\"middle\" "
					"font-size=\"9\" fill=\"%s\">%s"
					"</text>\n",
					cx + cw / 2, (int)cy + rh - 3,
					(double)c > (double)max * 0.3
						? "#ffffff"
						: REPORT_COLOR_TEXT,
					lbl);
			}
		}
		if (mode >= 0)
			fprintf(f,
				"<rect class=\"mode\" data-interval=\"%d\" "
				"data-slot=\"%d\" x=\"%.2f\" y=\"%d\" "
				"width=\"%.2f\" height=\"%d\" fill=\"none\" "
				"stroke=\"#000000\" stroke-width=\"1.5\"/>\n",
				i + 1, mode, ML + i * cw + 0.75,
				MT + (last - mode) * rh + 1, cw - 1.5, rh - 2);
	}

	/* y: bucket starts; x: seconds since tracing began. */
	for (int s = first; s <= last; s++) {
		if (rh < 10 && (last - s) % 2)
			continue;
		model__bucket(h, s, &bk);
		if (report__align_zero(sp, s))
			snprintf(lbl, sizeof(lbl), "%s", REPORT_OFFSET0);
		else
			report__human(lbl, sizeof(lbl), sp->unit, bk.lo);
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
			"font-size=\"10\" fill=\"%s\">%s</text>\n",
			ML - 6, MT + (last - s) * rh + rh / 2 + 4,
			REPORT_COLOR_TEXT, lbl);
	}
	for (int i = 0; i <= n; i += n > 8 ? (n + 7) / 8 : 1) {
		__u64 ms = i < n ? r->intervals[i].start_ms
				 : r->intervals[n - 1].end_ms;

		secs(a, sizeof(a), ms);
		fprintf(f,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
			"stroke=\"%s\"/><text x=\"%.2f\" y=\"%d\" "
			"text-anchor=\"%s\" font-size=\"10\" "
			"fill=\"%s\">%s</text>\n",
			ML + i * cw, MT + nrows * rh, ML + i * cw,
			MT + nrows * rh + 4, REPORT_COLOR_TEXT, ML + i * cw,
			MT + nrows * rh + 16, i < n ? "middle" : "end",
			REPORT_COLOR_TEXT, a);
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-size=\"12\" fill=\"%s\">time since tracing began (s), "
		"one column per interval</text>\n",
		ML + PW / 2, MT + nrows * rh + 38, REPORT_COLOR_TEXT);
	fprintf(f,
		"<text transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\" font-size=\"11\" "
		"fill=\"%s\">%s</text>\n",
		MT + nrows * rh / 2, REPORT_COLOR_TEXT,
		sp->kind == FS_KIND_ALIGN    ? "alignment (bytes)"
		: !strcmp(sp->unit, "ns")    ? "time, log2 bucket"
		: !strcmp(sp->unit, "bytes") ? "bytes, log2 bucket"
					     : "count, log2 bucket");
	fputs("</svg>\n", f);
}

void report__intervals_fact(char *buf, size_t n, const struct fs_report *r)
{
	const struct fs_interval *iv = r->intervals;

	if (!r->nintervals) {
		snprintf(buf, n, "none (trace -i SECONDS -j FILE keeps them)");
		return;
	}
	snprintf(buf, n, "%d, %.3g s to %.3g s since tracing began",
		 r->nintervals, iv[0].start_ms / 1000.0,
		 iv[r->nintervals - 1].end_ms / 1000.0);
}
