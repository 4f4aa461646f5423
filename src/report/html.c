// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HTML reporter: one self-contained page (inline CSS and SVG, no script,
 * and a Content-Security-Policy that forbids fetching anything), so a
 * report can be attached to a bug and opened anywhere offline. With two
 * runs every table has an A and a B column and every chart both series.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"

/* After the CSS every page shares (markup.c). */
static const char style[] =
	"h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}"
	"th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;"
	"vertical-align:top}"
	"th{background:#f0f0f0}td.num{text-align:right;"
	"font-variant-numeric:tabular-nums}"
	".pass{color:#17692b;font-weight:bold}"
	".fail{color:#b00020;font-weight:bold}"
	".muted{color:#666}"
	"figure.chart{margin:10px 0}"
	"figure.chart svg,figure.heatmap svg{max-width:100%;height:auto}"
	"figure.heatmap{margin:10px 0}"
	"p.not-measured{color:#666;font-size:13px}";

/* Text that already went through a format into buf. */
static void esc(FILE *f, const char *s)
{
	report__xml_escape(f, s);
}

static void td_str(FILE *f, const char *s, const char *cls)
{
	fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
		cls ? "\"" : "");
	esc(f, s && s[0] ? s : "-");
	fputs("</td>", f);
}

static void td_u64(FILE *f, __u64 v)
{
	fprintf(f, "<td class=\"num\">%llu</td>", (unsigned long long)v);
}

struct page {
	FILE *f;
	const struct fs_report *run[2];
	int nruns;
};

/* A fact row: one cell per run. */
static void row(struct page *p, const char *name,
		const char *(*get)(const struct fs_report *r, char *buf,
				   size_t n),
		bool verdict)
{
	char buf[1024];

	fputs("<tr><th>", p->f);
	esc(p->f, name);
	fputs("</th>", p->f);
	for (int i = 0; i < p->nruns; i++) {
		const char *v = get(p->run[i], buf, sizeof(buf));

		td_str(p->f, v,
		       !verdict			  ? NULL
		       : strstr(v, "FAILED")	  ? "fail verdict"
		       : !strncmp(v, "passed", 6) ? "pass verdict"
						  : "verdict");
	}
	fputs("</tr>\n", p->f);
}

static const char *get_kernel(const struct fs_report *r, char *b, size_t n)
{
	return r->kernel;
}

static const char *get_machine(const struct fs_report *r, char *b, size_t n)
{
	snprintf(b, n, "%s, page size %llu", r->machine[0] ? r->machine : "-",
		 (unsigned long long)r->page_size);
	return b;
}

static const char *get_filters(const struct fs_report *r, char *b, size_t n)
{
	model__filters_text(&r->filters, b, n);
	return b;
}

static const char *get_version(const struct fs_report *r, char *b, size_t n)
{
	return r->tool_version;
}

static const char *get_workload(const struct fs_report *r, char *b, size_t n)
{
	return r->workload_name[0] ? r->workload_name : "none";
}

static const char *get_verdict(const struct fs_report *r, char *b, size_t n)
{
	report__verdict(b, n, r);
	return b;
}

static const char *get_intervals(const struct fs_report *r, char *b, size_t n)
{
	report__intervals_fact(b, n, r);
	return b;
}

static void head_row(struct page *p, const char *first)
{
	fputs("<tr><th>", p->f);
	esc(p->f, first);
	fputs("</th>", p->f);
	if (p->nruns == 2)
		fputs("<th>A (base)</th><th>B (new)</th>", p->f);
	else
		fputs("<th>value</th>", p->f);
	fputs("</tr>\n", p->f);
}

static void facts(struct page *p)
{
	fputs("<table class=\"facts\">\n", p->f);
	head_row(p, "run");
	row(p, "kernel", get_kernel, false);
	row(p, "machine", get_machine, false);
	row(p, "folioscope", get_version, false);
	row(p, "filters", get_filters, false);
	row(p, "workload", get_workload, false);
	row(p, "validation", get_verdict, true);
	row(p, "intervals", get_intervals, false);
	fputs("</table>\n", p->f);
}

/* Keys of both runs, in order of first appearance. */
static void workload(struct page *p)
{
	const char *keys[2 * FS_MAX_KV];
	int nkeys = 0;

	for (int i = 0; i < p->nruns; i++) {
		for (int k = 0; k < p->run[i]->nkv; k++) {
			const char *key = p->run[i]->kv[k].key;
			bool seen = false;

			for (int j = 0; j < nkeys; j++)
				seen |= !strcmp(keys[j], key);
			if (!seen)
				keys[nkeys++] = key;
		}
	}
	if (!nkeys)
		return;
	fputs("<h2>Workload</h2>\n<table class=\"workload\">\n", p->f);
	head_row(p, "key");
	for (int j = 0; j < nkeys; j++) {
		fputs("<tr><th>", p->f);
		esc(p->f, keys[j]);
		fputs("</th>", p->f);
		for (int i = 0; i < p->nruns; i++) {
			const struct fs_kv *kv =
				model__kv_find(p->run[i], keys[j]);

			if (!kv)
				td_str(p->f, NULL, "muted");
			else if (kv->type == FS_KV_U64)
				td_u64(p->f, kv->u);
			else
				td_str(p->f, kv->s, NULL);
		}
		fputs("</tr>\n", p->f);
	}
	fputs("</table>\n", p->f);
}

static const struct fs_target_report *target_of(const struct fs_report *r,
						int t)
{
	return r->target[t].enabled ? &r->target[t] : NULL;
}

static void plan_row(struct page *p, int t, const char *name, int field)
{
	fputs("<tr><th>", p->f);
	esc(p->f, name);
	fputs("</th>", p->f);
	for (int i = 0; i < p->nruns; i++) {
		const struct fs_target_report *tr = target_of(p->run[i], t);
		const struct fs_attach_info *a = tr ? &tr->attach : NULL;

		if (!a)
			td_str(p->f, "not traced", "muted");
		else if (field == 0)
			td_str(p->f, a->function, NULL);
		else if (field == 1)
			td_str(p->f, a->symbol, NULL);
		else if (field == 2)
			td_str(p->f, a->mechanism, NULL);
		else if (field == 3)
			td_str(p->f, a->inlined ? "yes" : "no", NULL);
		else
			td_str(p->f, a->reason, NULL);
	}
	fputs("</tr>\n", p->f);
}

static void counters(struct page *p, const struct fs_target_report *any, int t)
{
	fputs("<table class=\"counters\">\n<tr><th>counter</th>", p->f);
	fputs(p->nruns == 2 ? "<th>A (base)</th><th>B (new)</th>"
			      "<th>B - A</th></tr>\n"
			    : "<th>value</th></tr>\n",
	      p->f);
	for (int c = 0; c < any->ncounters; c++) {
		const struct fs_target_report *tr[2] = { NULL, NULL };

		fputs("<tr><th>", p->f);
		esc(p->f, any->counter_spec[c].name);
		fputs("</th>", p->f);
		for (int i = 0; i < p->nruns; i++) {
			tr[i] = target_of(p->run[i], t);
			if (tr[i])
				td_u64(p->f, tr[i]->counter[c]);
			else
				td_str(p->f, NULL, "muted");
		}
		if (p->nruns == 2 && tr[0] && tr[1]) {
			__u64 a = tr[0]->counter[c], b = tr[1]->counter[c];

			fprintf(p->f, "<td class=\"num\">%s%llu</td>",
				b < a ? "-" : "+",
				(unsigned long long)(b < a ? a - b : b - a));
		} else if (p->nruns == 2) {
			td_str(p->f, NULL, "muted");
		}
		fputs("</tr>\n", p->f);
	}
	fputs("</table>\n", p->f);
}

static void charts(struct page *p, const struct fs_target_report *any, int t)
{
	const struct fs_target_report *ta = target_of(p->run[0], t);
	const struct fs_target_report *tb =
		p->nruns == 2 ? target_of(p->run[1], t) : NULL;

	for (int i = 0; i < any->nhists; i++) {
		struct report_chart c = {
			.target = any->name,
			.a = ta ? &ta->hist[i] : NULL,
			.b = tb ? &tb->hist[i] : NULL,
			.a_label = "A (base)",
			.b_label = "B (new)",
		};
		const struct fs_histogram *h = &any->hist[i];
		bool ma = c.a && c.a->measured, mb = c.b && c.b->measured;

		if (!ma && !mb) {
			fputs("<p class=\"not-measured\">", p->f);
			esc(p->f, h->spec->name);
			fputs(": not measured (", p->f);
			esc(p->f, h->why[0] ? h->why : "no reason given");
			fputs(")</p>\n", p->f);
			continue;
		}
		fputs("<figure class=\"chart\" data-target=\"", p->f);
		esc(p->f, any->name);
		fputs("\" data-histogram=\"", p->f);
		esc(p->f, h->spec->name);
		fputs("\">\n", p->f);
		report__svg_chart(p->f, &c);
		fputs("</figure>\n", p->f);
	}
}

/* One run with trace -i's intervals: a heatmap per measured histogram. */
static void heatmaps(struct page *p, const struct fs_target_report *tr, int t)
{
	if (p->nruns != 1 || !p->run[0]->nintervals || !tr)
		return;
	fprintf(p->f, "<h3>%s over time</h3>\n", tr->name);
	for (int i = 0; i < tr->nhists; i++) {
		if (!tr->hist[i].measured)
			continue;
		fprintf(p->f,
			"<figure class=\"heatmap\" data-target=\"%s\" "
			"data-histogram=\"%s\">\n",
			tr->name, tr->hist[i].spec->name);
		report__svg_heatmap(p->f, p->run[0], t, i, 0, 0);
		fputs("</figure>\n", p->f);
	}
}

static void target(struct page *p, int t)
{
	const struct fs_target_report *any = target_of(p->run[0], t);

	if (!any && p->nruns == 2)
		any = target_of(p->run[1], t);
	if (!any)
		return;
	fprintf(p->f, "<h2 id=\"%s\">%s</h2>\n", any->name, any->name);
	fputs("<table class=\"plan\">\n", p->f);
	head_row(p, "attach");
	plan_row(p, t, "function", 0);
	plan_row(p, t, "symbol", 1);
	plan_row(p, t, "mechanism", 2);
	plan_row(p, t, "inlined", 3);
	plan_row(p, t, "reason", 4);
	fputs("</table>\n", p->f);
	counters(p, any, t);
	charts(p, any, t);
	heatmaps(p, target_of(p->run[0], t), t);
}

/* Folio coverage per group of layouts, a large-folio gap in red. */
static void coverage(struct page *p)
{
	char line[512];

	for (int i = 0; i < p->nruns; i++) {
		const struct fs_report *r = p->run[i];

		if (!r->coverage.ngroups)
			continue;
		fprintf(p->f, "<h2>Folio coverage%s</h2>\n",
			p->nruns == 2 ? (i ? " (B)" : " (A)") : "");
		fputs("<table class=\"coverage\">\n", p->f);
		for (int g = 0; g < r->coverage.ngroups; g++) {
			bool gap = model__coverage_warning(r, g);

			report__coverage_line(line, sizeof(line), r, g);
			fputs("<tr>", p->f);
			td_str(p->f, line, gap ? "fail" : NULL);
			fputs("</tr>\n", p->f);
		}
		fputs("</table>\n", p->f);
	}
}

static void cases(struct page *p)
{
	for (int i = 0; i < p->nruns; i++) {
		const struct fs_validation *v = &p->run[i]->validation;

		if (!v->ncases)
			continue;
		fprintf(p->f, "<h2>Failed checks%s</h2>\n",
			p->nruns == 2 ? (i ? " (B)" : " (A)") : "");
		fputs("<table class=\"cases\">\n<tr><th>kind</th>"
		      "<th>layout</th><th>expected</th><th>got</th></tr>\n",
		      p->f);
		for (int c = 0; c < v->ncases; c++) {
			fputs("<tr>", p->f);
			td_str(p->f, v->cases[c].kind, NULL);
			td_str(p->f, v->cases[c].layout, NULL);
			td_str(p->f, v->cases[c].expected, NULL);
			td_str(p->f, v->cases[c].got, NULL);
			fputs("</tr>\n", p->f);
		}
		fputs("</table>\n", p->f);
	}
}

int report__html(FILE *f, const struct fs_report *base,
		 const struct fs_report *next)
{
	return report__html_page(f, base, next, 0);
}

int report__html_refresh(FILE *f, const struct fs_report *r, int refresh)
{
	return report__html_page(f, r, NULL, refresh);
}

int report__html_page(FILE *f, const struct fs_report *base,
		      const struct fs_report *next, int refresh)
{
	struct page p = { .f = f,
			  .run = { base, next },
			  .nruns = next ? 2 : 1 };
	const struct report_page pg = {
		.title = next ? "folioscope A/B report" : "folioscope report",
		.kernel = base->kernel,
		.vs_kernel = next ? next->kernel : NULL,
		.css = style,
		.viewport = true,
		.refresh = refresh,
	};

	report__html_head(f, &pg);
	fputs("<h1>", f);
	esc(f, pg.title);
	fputs("</h1>\n", f);
	facts(&p);
	workload(&p);
	for (int t = 0; t < FS_TGT_NR; t++)
		target(&p, t);
	coverage(&p);
	cases(&p);
	return report__html_foot(f);
}
