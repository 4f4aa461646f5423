// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Text reporter: attach info, counters and bcc-style log2 bar histograms. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"

#define BAR_WIDTH 40
/* Same minimum label width as libbpf-tools, so the bars look familiar. */
#define LABEL_MIN 10
#define LABEL_LEN 32

static const char *const byte_units[] = { "", "K", "M", "G", "T", "P", "E" };
static const char *const ns_units[] = { "ns", "us", "ms", "s" };

/*
 * Bytes in binary units. Bucket edges are 2^k and 2^k - 1, so both print
 * exactly ("4K", "8K-1"); other values (sums) get one decimal.
 * Returns true when the text is not the plain number.
 */
static bool fmt_bytes(char *buf, size_t n, __u64 v)
{
	unsigned long long q;
	__u64 u = 1;
	int i = 0;

	if (v < 1024) {
		snprintf(buf, n, "%llu", (unsigned long long)v);
		return false;
	}
	while (i < 6 && v >= u << 10) {
		u <<= 10;
		i++;
	}
	q = v / u;
	if (v % u == 0) {
		snprintf(buf, n, "%llu%s", q, byte_units[i]);
	} else if (v % u == u - 1) {
		/* 2^20 - 1 is "1M-1", not "1024K-1". */
		q++;
		if (q == 1024 && i < 6) {
			q = 1;
			i++;
		}
		snprintf(buf, n, "%llu%s-1", q, byte_units[i]);
	} else {
		snprintf(buf, n, "%.1f%s", (double)v / (double)u,
			 byte_units[i]);
	}
	return true;
}

/*
 * Nanoseconds in decimal units with three significant digits: log2 edges
 * are never round in decimal, so the exact value is printed alongside.
 */
static bool fmt_ns(char *buf, size_t n, __u64 v)
{
	double d = (double)v;
	int i = 0;

	if (v < 1000) {
		snprintf(buf, n, "%lluns", (unsigned long long)v);
		return false;
	}
	/* Switch unit before %.3g would round up to "1e+03". */
	while (i < 3 && d >= 999.5) {
		d /= 1000;
		i++;
	}
	if (d >= 999.5)
		snprintf(buf, n, "%.0f%s", d, ns_units[i]);
	else
		snprintf(buf, n, "%.3g%s", d, ns_units[i]);
	return true;
}

/* Human form of v in the histogram's unit; true if it is not exact text. */
static bool fmt_value(char *buf, size_t n, const char *unit, __u64 v)
{
	if (!strcmp(unit, "bytes"))
		return fmt_bytes(buf, n, v);
	if (!strcmp(unit, "ns"))
		return fmt_ns(buf, n, v);
	snprintf(buf, n, "%llu", (unsigned long long)v);
	return false;
}

static void print_bar(FILE *f, __u64 count, __u64 max)
{
	int stars = 0;

	/* double: count * BAR_WIDTH could overflow a __u64. */
	if (max)
		stars = (int)((double)count * BAR_WIDTH / (double)max);
	fputc('|', f);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < stars ? '*' : ' ', f);
	fputc('|', f);
}

/* fmt_value as report__slot_label's units: "offset 0", "4K", "2M+". */
static void text_units(char *buf, size_t n, const char *unit, __u64 v)
{
	fmt_value(buf, n, unit, v);
}

/*
 * The row after slot s. Rows run over the non-empty range, empty slots
 * included, except after an alignment's "offset 0": its neighbour 1 says
 * nothing about it, so the rows go on at the next non-empty slot.
 */
static int next_row(const struct fs_histogram *h, int s)
{
	if (!report__align_zero(h->spec, s))
		return s + 1;
	while (++s < FS_SLOTS && !h->slot[s])
		;
	return s;
}

static void print_hist(FILE *f, const struct fs_histogram *h)
{
	const struct fs_hist_spec *sp = h->spec;
	bool align = sp->kind == FS_KIND_ALIGN;
	char lo[LABEL_LEN], hi[LABEL_LEN], sum[LABEL_LEN];
	int first, last, wlo = LABEL_MIN, whi = LABEL_MIN, w;
	struct fs_bucket b;
	__u64 max = 0;

	if (!h->measured) {
		fprintf(f, "  %s: not measured (%s)\n", sp->name, h->why);
		return;
	}
	if (!model__range(h, &first, &last)) {
		fprintf(f, "  %s: no events\n", sp->name);
		return;
	}

	fprintf(f, "  %s (%s): %s; count %llu, sum %llu", sp->name, sp->unit,
		sp->help, (unsigned long long)h->count,
		(unsigned long long)h->sum);
	if (fmt_value(sum, sizeof(sum), sp->unit, h->sum))
		fprintf(f, " (%s)", sum);
	fputc('\n', f);

	/* First pass: column widths and the longest bar. */
	for (int s = first; s <= last; s = next_row(h, s)) {
		model__bucket(h, s, &b);
		if (b.count > max)
			max = b.count;
		report__slot_label(lo, sizeof(lo), sp, s, b.lo, text_units);
		fmt_value(hi, sizeof(hi), sp->unit, b.hi);
		if ((int)strlen(lo) > wlo)
			wlo = strlen(lo);
		if ((int)strlen(hi) > whi)
			whi = strlen(hi);
	}

	w = align ? wlo : wlo + 4 + whi;
	fprintf(f, "%5s%-*s : count    distribution\n", "", w - 5, sp->unit);
	for (int s = first; s <= last; s = next_row(h, s)) {
		bool scaled;

		model__bucket(h, s, &b);
		scaled = fmt_value(lo, sizeof(lo), sp->unit, b.lo);
		if (align) {
			report__slot_label(lo, sizeof(lo), sp, s, b.lo,
					   text_units);
			fprintf(f, "%*s : %-8llu ", wlo, lo,
				(unsigned long long)b.count);
		} else {
			scaled |= fmt_value(hi, sizeof(hi), sp->unit, b.hi);
			fprintf(f, "%*s -> %-*s : %-8llu ", wlo, lo, whi, hi,
				(unsigned long long)b.count);
		}
		print_bar(f, b.count, max);
		/* Human labels round or abbreviate: keep the exact edges. */
		if (scaled && align)
			fprintf(f, " %llu", (unsigned long long)b.lo);
		else if (scaled)
			fprintf(f, " %llu -> %llu", (unsigned long long)b.lo,
				(unsigned long long)b.hi);
		fputc('\n', f);
	}
}

static const char *or_dash(const char *s)
{
	return s[0] ? s : "-";
}

/* The counters with a line of their own: per-call events, batch
 * lookups. */
static bool own_line_counter(const char *name)
{
	return !strcmp(name, "events") || !strcmp(name, "events_lost") ||
	       !strncmp(name, "batch_", 6);
}

/* "batch lookups N, folios M, ...": where reads took folios in batches,
 * and the bytes they copied after them, which copy_bytes cannot split
 * into copies. */
static void print_batches(FILE *f, const struct fs_target_report *tr)
{
	unsigned long long n[3] = { 0, 0, 0 };

	for (int c = 0; c < tr->ncounters; c++) {
		if (!strcmp(tr->counter_spec[c].name, "batch_lookups"))
			n[0] = tr->counter[c];
		else if (!strcmp(tr->counter_spec[c].name, "batch_folios"))
			n[1] = tr->counter[c];
		else if (!strcmp(tr->counter_spec[c].name, "batch_copy_bytes"))
			n[2] = tr->counter[c];
	}
	if (n[0])
		fprintf(f,
			"  batch lookups %llu, folios %llu (%.1f a batch); "
			"%llu bytes copied after them, not in copy_bytes\n",
			n[0], n[1], (double)n[1] / (double)n[0], n[2]);
}

/* "events N, events lost N": whenever events were selected, and
 * whenever either is not zero. */
static void print_events(FILE *f, const struct fs_target_report *tr)
{
	unsigned long long n[2] = { 0, 0 };

	for (int c = 0; c < tr->ncounters; c++) {
		if (!strcmp(tr->counter_spec[c].name, "events"))
			n[0] = tr->counter[c];
		else if (!strcmp(tr->counter_spec[c].name, "events_lost"))
			n[1] = tr->counter[c];
	}
	if (tr->events || n[0] || n[1])
		fprintf(f, "  events %llu, events lost %llu\n", n[0], n[1]);
}

/* What the syscall level left out, when it left anything out. */
static void print_skips(FILE *f, const struct fs_target_report *tr)
{
	for (int c = 0; c < tr->ncounters; c++) {
		const char *name = tr->counter_spec[c].name;
		unsigned long long n = tr->counter[c];

		if (!n)
			continue;
		if (!strcmp(name, "iov_beyond"))
			fprintf(f,
				"  iovecs beyond %d: %llu calls counted, "
				"req_bytes partial (their first %d iovecs "
				"summed)\n",
				FS_MAX_IOVECS, n, FS_MAX_IOVECS);
		else if (!strcmp(name, "compat_skipped"))
			fprintf(f,
				"  32-bit (compat) syscalls skipped: %llu, "
				"not decoded (not in any histogram)\n",
				n);
	}
}

/* A process's view of a target has no attach info of its own. */
static void print_target(FILE *f, const struct fs_target_report *tr,
			 bool with_attach)
{
	const struct fs_attach_info *a = &tr->attach;

	fprintf(f, "%s:\n", tr->name);
	if (with_attach) {
		fprintf(f, "  function:  %s\n", or_dash(a->function));
		fprintf(f, "  symbol:    %s\n", or_dash(a->symbol));
		fprintf(f, "  mechanism: %s\n", or_dash(a->mechanism));
		fprintf(f, "  inlined:   %s\n", a->inlined ? "yes" : "no");
		if (a->inline_sites)
			fprintf(f, "  inline sites: %d, DWARF: %s\n",
				a->inline_sites, a->dwarf);
		fprintf(f, "  reason:    %s\n", or_dash(a->reason));
		if (a->covers[0])
			fprintf(f, "  covers:    %s\n", a->covers);
	}
	fprintf(f, "  counters: ");
	for (int c = 0; c < tr->ncounters; c++)
		if (!own_line_counter(tr->counter_spec[c].name))
			fprintf(f, "%s %s %llu", c ? "," : "",
				tr->counter_spec[c].name,
				(unsigned long long)tr->counter[c]);
	fputc('\n', f);
	print_events(f, tr);
	print_batches(f, tr);
	print_skips(f, tr);
	for (int i = 0; i < tr->nhists; i++) {
		fputc('\n', f);
		print_hist(f, &tr->hist[i]);
	}
}

static void print_workload(FILE *f, const struct fs_report *r)
{
	fprintf(f, "workload: %s\n", or_dash(r->workload_name));
	for (int i = 0; i < r->nkv; i++) {
		const struct fs_kv *kv = &r->kv[i];

		if (kv->type == FS_KV_U64)
			fprintf(f, "  %s: %llu\n", kv->key,
				(unsigned long long)kv->u);
		else
			fprintf(f, "  %s: %s\n", kv->key, kv->s);
	}
}

/* The verdict line, then every failed case kept, layout first. */
static void print_validation(FILE *f, const struct fs_validation *v)
{
	fprintf(f, "validation: %llu checks, %llu failures\n",
		(unsigned long long)v->checks, (unsigned long long)v->failures);
	if (v->disturbed[0])
		fprintf(f,
			"  DISTURBED (not the kernel's fault): %s; "
			"unjudged answers: %llu\n",
			v->disturbed, (unsigned long long)v->unjudged);
	for (int i = 0; i < v->nskips; i++)
		fprintf(f, "  SKIP %s: %s\n", v->skips[i].what,
			v->skips[i].why);
	for (int i = 0; i < v->ncases; i++)
		fprintf(f,
			"  FAIL (%s) %s\n    expected: %s\n    got:      %s\n",
			v->cases[i].kind, v->cases[i].layout,
			v->cases[i].expected, v->cases[i].got);
	if (v->failures > (__u64)v->ncases)
		fprintf(f, "  (%llu more failures not kept)\n",
			(unsigned long long)(v->failures - v->ncases));
	for (int i = 0; i < v->nreplays; i++)
		fprintf(f, "  REPLAY%s%s: %s\n", v->replays[i].group ? " " : "",
			v->replays[i].group
				? v->groups[v->replays[i].group - 1].name
				: "",
			v->replays[i].cmd);
}

/*
 * A report of several runs (validate) names what each group ran: one
 * verdict line each, with its failures by kind.
 */
static void print_groups(FILE *f, const struct fs_report *r)
{
	const struct fs_validation *v = &r->validation;
	bool notes = false;

	for (int g = 0; g < v->ngroups; g++)
		notes |= v->groups[g].note[0] != 0;
	if (!notes)
		return;
	fprintf(f, "\ncovered:\n");
	report__covered(f, r, "  ");
	fprintf(f, "\nverdicts:\n");
	for (int g = 0; g < v->ngroups; g++) {
		const struct fs_vgroup *vg = &v->groups[g];

		fprintf(f, "  %-4s %-16s %llu checks, %llu failures",
			vg->failures  ? "FAIL"
			: !vg->checks ? "SKIP"
				      : "ok",
			vg->name, (unsigned long long)vg->checks,
			(unsigned long long)vg->failures);
		for (int k = 0; k < vg->kinds.n; k++)
			fprintf(f, "%s%s x%llu", k ? ", " : " (",
				vg->kinds.k[k].kind,
				(unsigned long long)vg->kinds.k[k].count);
		fprintf(f, "%s%s%s\n", vg->kinds.n ? ")" : "",
			vg->note[0] ? "; " : "", vg->note);
	}
}

int report__text(FILE *f, const struct fs_report *r)
{
	int shown = 0;

	fprintf(f, "folioscope %s, kernel %s, %s, page size %llu\n",
		r->tool_version, or_dash(r->kernel), or_dash(r->machine),
		(unsigned long long)r->page_size);
	if (r->vm.reboots)
		fprintf(f,
			"WARNING: vm: the guest's kernel died while booting "
			"(%s) and was booted again %llu time%s before this "
			"run (vm.reboots)\n",
			r->vm.accel, (unsigned long long)r->vm.reboots,
			r->vm.reboots == 1 ? "" : "s");
	/* Only a filtered trace says so: the rest saw the whole machine. */
	if (model__filtered(&r->filters)) {
		char filt[900];

		model__filters_text(&r->filters, filt, sizeof(filt));
		fprintf(f, "filters: %s\n", filt);
	}
	for (int t = 0; t < FS_TGT_NR; t++) {
		if (!r->target[t].enabled)
			continue;
		fputc('\n', f);
		print_target(f, &r->target[t], true);
		shown++;
	}
	for (int i = 0; i < r->nparts; i++) {
		const struct fs_part *p = &r->parts[i];
		char title[320];

		report__part_title(r, p, title, sizeof(title));
		fprintf(f, "\n=== %s\n", title);
		for (int t = 0; t < FS_TGT_NR; t++)
			if (p->target[t].enabled)
				print_target(f, &p->target[t], false);
	}
	if (!shown)
		fprintf(f, "\nno target enabled\n");
	if (r->workload_name[0] || r->nkv) {
		fputc('\n', f);
		print_workload(f, r);
	}
	if (r->coverage.ngroups) {
		char line[512];

		fprintf(f, "\ncoverage: folio sizes met, per group of "
			   "layouts\n");
		for (int g = 0; g < r->coverage.ngroups; g++) {
			report__coverage_line(line, sizeof(line), r, g);
			fprintf(f, "  %s\n", line);
		}
	}
	if (r->validation.ran) {
		fputc('\n', f);
		print_validation(f, &r->validation);
		print_groups(f, r);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
