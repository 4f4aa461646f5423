// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SVG and HTML pieces the pictures share, report's (svg.c, heatmap.c,
 * html.c) and compare's (src/compare/picture.c), so that both look alike
 * and each piece is written once: XML escaping, the page's head and base
 * CSS, the SVG document around a body laid out first, wrapped text lines,
 * a chart's frame, its bucket range and its x labels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

/* What every page shares; each adds the rules of its own elements. */
static const char page_css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;"
	"margin:24px;color:#222;background:#fafafa;max-width:980px}"
	"h1{font-size:22px;margin:0 0 12px}";

void report__xml_escape(FILE *f, const char *s)
{
	report__xml_escape_n(f, s, strlen(s));
}

void report__xml_escape_n(FILE *f, const char *s, size_t n)
{
	for (const char *end = s + n; s < end && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* XML 1.0 has no place for other control characters. */
			if ((unsigned char)*s < 0x20 && *s != '\n' &&
			    *s != '\t')
				fputc(' ', f);
			else
				fputc(*s, f);
		}
	}
}

int report__nr_charts(const struct fs_report *r)
{
	int n = 0;

	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];

		if (!tr->enabled)
			continue;
		for (int i = 0; i < tr->nhists; i++)
			n += tr->hist[i].measured;
	}
	return n;
}

void report__html_head(FILE *f, const struct report_page *pg)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      /* Self-contained by construction: nothing may be fetched. */
	      "<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
	      f);
	if (pg->viewport)
		fputs("<meta name=\"viewport\" content=\"width=device-width, "
		      "initial-scale=1\">\n",
		      f);
	/* A live page (report --serve, trace --serve) reloads itself. */
	if (pg->refresh > 0)
		fprintf(f, "<meta http-equiv=\"refresh\" content=\"%d\">\n",
			pg->refresh);
	fputs("<title>", f);
	report__xml_escape(f, pg->title);
	fputs(": ", f);
	report__xml_escape(f, pg->kernel);
	if (pg->vs_kernel) {
		fputs(" vs ", f);
		report__xml_escape(f, pg->vs_kernel);
	}
	fprintf(f, "</title>\n<style>%s%s</style>\n</head>\n<body>\n", page_css,
		pg->css);
}

int report__html_foot(FILE *f)
{
	fputs("</body>\n</html>\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

int report__svg_document(FILE *f, int width, int (*body)(FILE *f, void *arg),
			 void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	int height;
	FILE *m;

	m = open_memstream(&buf, &len);
	if (!m)
		return -errno;
	height = body(m, arg);
	if (fclose(m) && height >= 0)
		height = -ENOMEM;
	if (height >= 0) {
		fprintf(f,
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			"font-family=\"" REPORT_SVG_FONT "\">\n"
			"<rect width=\"100%%\" height=\"100%%\" "
			"fill=\"#fafafa\"/>\n",
			width, height, width, height);
		fwrite(buf, 1, len, f);
		fputs("</svg>\n", f);
	}
	free(buf);
	if (height < 0)
		return height;
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/*
 * Where to break a line of more than width bytes (s holds more): the last
 * space in its second half, else width, moved back off any UTF-8
 * continuation byte.
 */
static size_t wrap_cut(const char *s, size_t width)
{
	size_t cut = width;

	while (cut > width / 2 && s[cut] != ' ')
		cut--;
	if (s[cut] != ' ')
		cut = width;
	/* Never inside a UTF-8 sequence. */
	while (cut > 1 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	return cut;
}

int report__svg_lines(FILE *f, const struct report_svg_text *st, int y,
		      const char *text)
{
	while (*text) {
		size_t n = strlen(text), cut = n;

		if (n > (size_t)st->wrap)
			cut = wrap_cut(text, st->wrap);
		fputs("<text", f);
		if (st->cls)
			fprintf(f, " class=\"%s\"", st->cls);
		fprintf(f, " x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"%s\"%s>",
			st->x, y, st->size, st->color,
			st->bold ? " font-weight=\"bold\"" : "");
		report__xml_escape_n(f, text, cut);
		fputs("</text>\n", f);
		y += st->size + 6;
		text += cut;
		while (*text == ' ')
			text++;
	}
	return y;
}

void report__svg_frame(FILE *f, const struct report_frame *fr)
{
	fprintf(f,
		"<svg class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"font-family=\"" REPORT_SVG_FONT "\" data-target=\"",
		fr->cls, fr->x, fr->y, REPORT_CHART_W, fr->height,
		REPORT_CHART_W, fr->height);
	report__xml_escape(f, fr->target);
	fputs("\" data-histogram=\"", f);
	report__xml_escape(f, fr->sp->name);
	fprintf(f, "\"%s%s>\n", fr->attrs ? " " : "",
		fr->attrs ? fr->attrs : "");
	fprintf(f,
		"<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\" "
		"stroke=\"%s\"/>\n",
		REPORT_CHART_W, fr->height, REPORT_COLOR_GRID);
	fprintf(f,
		"<text x=\"12\" y=\"22\" font-size=\"15\" font-weight=\"bold\" "
		"fill=\"%s\">",
		REPORT_COLOR_TEXT);
	report__xml_escape(f, fr->target);
	fputs(" · ", f);
	report__xml_escape(f, fr->sp->name);
	fprintf(f, " (%s)%s</text>\n", fr->sp->unit,
		fr->title_tail ? fr->title_tail : "");
}

void report__slots_pad(const struct fs_hist_spec *sp, int min, int *first,
		       int *last)
{
	int top = sp->kind == FS_KIND_ALIGN ? FS_ALIGN_CAP_SHIFT + 1
					    : FS_SLOTS - 1;

	while (*last - *first + 1 < min && (*first > 0 || *last < top)) {
		if (*last < top)
			(*last)++;
		if (*last - *first + 1 < min && *first > 0)
			(*first)--;
	}
}

void report__svg_slot_label(FILE *f, double x, int axis_y, bool rotate,
			    const char *label)
{
	if (rotate)
		fprintf(f,
			"<text transform=\"translate(%.1f %d) rotate(-40)\" "
			"text-anchor=\"end\" font-size=\"11\" "
			"fill=\"%s\">%s</text>\n",
			x + 4, axis_y + 14, REPORT_COLOR_TEXT, label);
	else
		fprintf(f,
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"11\" fill=\"%s\">%s</text>\n",
			x, axis_y + 16, REPORT_COLOR_TEXT, label);
}
