// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OpenMetrics 1.0 and Prometheus 0.0.4 text exposition of the model, for
 * files and for the /metrics endpoint.
 *
 * Names: folioscope_<target>_<histogram>, with the unit as suffix unless
 * the name already ends with it; nanoseconds are exported as seconds (the
 * Prometheus base unit), written as exact decimals, so
 * dedupe latency_ns -> folioscope_dedupe_latency_seconds and
 * shmem copy_bytes -> folioscope_shmem_copy_bytes. Every slot of the
 * model is one cumulative bucket (le = the slot's largest value), so the
 * bucket set never changes between scrapes and the slots can be recovered
 * by differences. Counters: folioscope_<target>_<counter>_total.
 *
 * Not measured histograms are left out (zeros would read as "nothing
 * happened"); folioscope_measured{target,histogram,reason} says
 * 0 for them and 1 for the others, so a dashboard can tell the two apart.
 *
 * With a breakdown every family is repeated per row: by process (trace
 * -P) as folioscope_process_<target>_... with comm and pid labels (pid
 * "" for the "other" row), by cgroup as folioscope_cgroup_<target>_...
 * with a cgroup label (the path below the cgroup2 mount, "other" for the
 * other row): separate names, so sum() over the totals never counts an
 * event twice. folioscope_<by>_other_keys{target} says how many
 * processes or cgroups the other row holds.
 *
 * The two flavours differ only where the formats do: OpenMetrics names a
 * counter family without _total and has # UNIT and # EOF; 0.0.4 (which
 * promtool lints) names the family with _total and has neither.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"
#include "util/util.h"

#define NAME_LEN 128

struct om {
	FILE *f;
	bool om; /* OpenMetrics, else Prometheus 0.0.4 */
	const struct fs_report *r;
};

_Static_assert(FS_MAX_IOVECS == 64, "update iov_beyond's help");

static const struct {
	const char *name, *help;
} counter_help[] = {
	{ "calls", "calls of the traced function" },
	{ "same", "compares that found the ranges identical" },
	{ "differs", "compares that found the ranges different" },
	{ "errors", "calls that returned an error" },
	{ "dropped", "calls not measured: the in-flight store refused them "
		     "(hash full, task storage busy or out of memory), or "
		     "the thread's next call found them without an exit" },
	{ "missed", "probe runs the kernel skipped (recursion, a kprobe "
		    "hit while busy, a kretprobe out of instances)" },
	{ "iov_beyond",
	  "syscall level: readv calls with more than 64 iovecs (counted; "
	  "req_bytes sums their first 64 only)" },
	{ "compat_skipped",
	  "syscall level: syscalls of 32-bit (compat) tasks numbered like a "
	  "watched one in either table, skipped undecoded" },
};

static const char *counter_help_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(counter_help); i++)
		if (!strcmp(counter_help[i].name, name))
			return counter_help[i].help;
	return NULL;
}

/* Label values: backslash, double quote and line feed escaped. */
static void om_label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void om_label(FILE *f, bool *first, const char *key, const char *val)
{
	fprintf(f, "%s%s=", *first ? "" : ",", key);
	om_label_value(f, val);
	*first = false;
}

/* HELP text: 0.0.4 escapes only backslash and line feed. */
static void om_help(struct om *o, const char *name, const char *target,
		    const char *text, const char *tail)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s%s%s%s", target ? target : "",
		 target ? ": " : "", text, tail);
	fprintf(o->f, "# HELP %s ", name);
	for (const char *s = buf; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", o->f);
		else if (*s == '\n')
			fputs("\\n", o->f);
		else if (*s == '"' && o->om)
			fputs("\\\"", o->f);
		else
			fputc(*s, o->f);
	}
	fputc('\n', o->f);
}

/* Whose numbers a sample carries: a whole target, or one row's. */
struct om_series {
	const struct fs_target_report *whole; /* attach info */
	const struct fs_target_report *tr;    /* the numbers */
	const struct fs_part *part;	      /* NULL: the whole target */
};

/* Labels every target sample carries. */
static void om_labels(struct om *o, bool *first, const struct om_series *s)
{
	char pid[16] = "";

	om_label(o->f, first, "kernel", o->r->kernel);
	om_label(o->f, first, "mechanism", s->whole->attach.mechanism);
	if (!s->part)
		return;
	if (o->r->by == FS_BY_CGROUP) {
		om_label(o->f, first, "cgroup", s->part->cgroup);
		return;
	}
	om_label(o->f, first, "comm", s->part->comm);
	if (!s->part->other)
		snprintf(pid, sizeof(pid), "%u", s->part->pid);
	om_label(o->f, first, "pid", pid);
}

/* Exact decimal seconds from ns: no binary float rounding in the text. */
static void om_seconds(FILE *f, __u64 ns)
{
	char frac[16];
	int n;

	if (!(ns % 1000000000ULL)) {
		fprintf(f, "%llu", (unsigned long long)(ns / 1000000000ULL));
		return;
	}
	n = snprintf(frac, sizeof(frac), "%09llu",
		     (unsigned long long)(ns % 1000000000ULL));
	while (n > 1 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(f, "%llu.%s", (unsigned long long)(ns / 1000000000ULL), frac);
}

static bool is_ns(const struct fs_hist_spec *sp)
{
	return !strcmp(sp->unit, "ns");
}

static void om_value(FILE *f, const struct fs_hist_spec *sp, __u64 v)
{
	if (is_ns(sp))
		om_seconds(f, v);
	else
		fprintf(f, "%llu", (unsigned long long)v);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Family name and exported unit of a histogram. */
static const char *om_hist_name(char *buf, size_t n, const char *prefix,
				const char *target,
				const struct fs_hist_spec *sp)
{
	const char *unit = is_ns(sp) ? "seconds" : sp->unit;
	char base[64], suffix[32];
	size_t len;

	snprintf(base, sizeof(base), "%s", sp->name);
	/* latency_ns: the unit changes, so its old suffix goes. */
	len = strlen(base);
	if (is_ns(sp) && ends_with(base, "_ns"))
		base[len - 3] = '\0';
	snprintf(suffix, sizeof(suffix), "_%s", unit);
	if (!strcmp(base, unit) || ends_with(base, suffix))
		snprintf(buf, n, "%s_%s_%s", prefix, target, base);
	else
		snprintf(buf, n, "%s_%s_%s_%s", prefix, target, base, unit);
	return unit;
}

/*
 * Upper bound of slot s. Alignments sit one power of two per slot; log2
 * slots end at 2^s - 1. Both are integers, so "le" is exact.
 */
static __u64 slot_le(const struct fs_hist_spec *sp, int s)
{
	if (s == 0)
		return 0;
	if (sp->kind == FS_KIND_ALIGN)
		return 1ULL << (s - 1);
	return (1ULL << s) - 1;
}

/* Slots past the alignment cap can never fill: no buckets for them. */
static int last_finite_slot(const struct fs_hist_spec *sp)
{
	if (sp->kind == FS_KIND_ALIGN)
		return FS_ALIGN_CAP_SHIFT + 1;
	return FS_SLOTS - 2;
}

/* " per process", " per cgroup" in a breakdown family's help. */
static const char *om_per(const struct om *o, const char *prefix)
{
	if (!strcmp(prefix, "folioscope"))
		return "";
	return o->r->by == FS_BY_CGROUP ? " per cgroup" : " per process";
}

static const char *om_hist_header(struct om *o, char *name, size_t n,
				  const char *prefix, const char *target,
				  const struct fs_hist_spec *sp)
{
	const char *unit = om_hist_name(name, n, prefix, target, sp);
	char who[64];

	snprintf(who, sizeof(who), "%s%s", target, om_per(o, prefix));
	om_help(o, name, who, sp->help,
		sp->kind == FS_KIND_ALIGN
			? " (largest power of two dividing it; bucket 0 is "
			  "offset 0, 2097152 holds 2 MiB or more)"
			: "");
	fprintf(o->f, "# TYPE %s histogram\n", name);
	if (o->om)
		fprintf(o->f, "# UNIT %s %s\n", name, unit);
	return unit;
}

static void om_hist_samples(struct om *o, const char *name,
			    const struct om_series *se, int i)
{
	const struct fs_histogram *h = &se->tr->hist[i];
	const struct fs_hist_spec *sp = h->spec;
	__u64 cum = 0;
	bool first;

	for (int s = 0; s <= last_finite_slot(sp); s++) {
		cum += h->slot[s];
		first = true;
		fprintf(o->f, "%s_bucket{", name);
		om_labels(o, &first, se);
		fputs(",le=\"", o->f);
		om_value(o->f, sp, slot_le(sp, s));
		fprintf(o->f, "\"} %llu\n", (unsigned long long)cum);
	}
	first = true;
	fprintf(o->f, "%s_bucket{", name);
	om_labels(o, &first, se);
	fprintf(o->f, ",le=\"+Inf\"} %llu\n", (unsigned long long)h->count);
	first = true;
	fprintf(o->f, "%s_count{", name);
	om_labels(o, &first, se);
	fprintf(o->f, "} %llu\n", (unsigned long long)h->count);
	first = true;
	fprintf(o->f, "%s_sum{", name);
	om_labels(o, &first, se);
	fputs("} ", o->f);
	om_value(o->f, sp, h->sum);
	fputc('\n', o->f);
}

/* Writes the header; the family's sample name goes to sample. */
static void om_counter_header(struct om *o, char *sample, size_t n,
			      const char *prefix,
			      const struct fs_target_report *tr, int c)
{
	const char *cname = tr->counter_spec[c].name;
	const char *help = counter_help_of(cname);
	char name[NAME_LEN], fallback[96], who[64];

	if (!help) {
		snprintf(fallback, sizeof(fallback), "%s events", cname);
		help = fallback;
	}
	snprintf(sample, n, "%s_%s_%s_total", prefix, tr->name, cname);
	snprintf(name, sizeof(name), "%s_%s_%s%s", prefix, tr->name, cname,
		 o->om ? "" : "_total");
	snprintf(who, sizeof(who), "%s%s", tr->name, om_per(o, prefix));
	om_help(o, name, who, help, "");
	fprintf(o->f, "# TYPE %s counter\n", name);
}

static void om_counter_sample(struct om *o, const char *sample,
			      const struct om_series *se, int c)
{
	bool first = true;

	fprintf(o->f, "%s{", sample);
	om_labels(o, &first, se);
	fprintf(o->f, "} %llu\n", (unsigned long long)se->tr->counter[c]);
}

static void om_target(struct om *o, const struct fs_target_report *tr)
{
	struct om_series se = { .whole = tr, .tr = tr };
	char name[NAME_LEN];

	for (int c = 0; c < tr->ncounters; c++) {
		om_counter_header(o, name, sizeof(name), "folioscope", tr, c);
		om_counter_sample(o, name, &se, c);
	}
	for (int i = 0; i < tr->nhists; i++) {
		if (!tr->hist[i].measured)
			continue;
		om_hist_header(o, name, sizeof(name), "folioscope", tr->name,
			       tr->hist[i].spec);
		om_hist_samples(o, name, &se, i);
	}
}

/* The breakdown of target t: one series per row in each family. */
static void om_parts(struct om *o, int t)
{
	const struct fs_report *r = o->r;
	const struct fs_target_report *tr = &r->target[t];
	struct om_series se = { .whole = tr };
	char name[NAME_LEN], prefix[32];
	bool any = false;

	for (int p = 0; p < r->nparts; p++)
		any |= r->parts[p].target[t].enabled;
	if (!any)
		return;
	snprintf(prefix, sizeof(prefix), "folioscope_%s",
		 model__by_name(r->by) ?: "process");
	for (int c = 0; c < tr->ncounters; c++) {
		om_counter_header(o, name, sizeof(name), prefix, tr, c);
		for (int p = 0; p < r->nparts; p++) {
			se.part = &r->parts[p];
			se.tr = &se.part->target[t];
			if (se.tr->enabled)
				om_counter_sample(o, name, &se, c);
		}
	}
	for (int i = 0; i < tr->nhists; i++) {
		if (!tr->hist[i].measured)
			continue;
		om_hist_header(o, name, sizeof(name), prefix, tr->name,
			       tr->hist[i].spec);
		for (int p = 0; p < r->nparts; p++) {
			se.part = &r->parts[p];
			se.tr = &se.part->target[t];
			if (se.tr->enabled)
				om_hist_samples(o, name, &se, i);
		}
	}
}

/* How many keys each target's other row holds (0 without one). */
static void om_other_keys(struct om *o)
{
	const struct fs_report *r = o->r;
	const char *by = model__by_name(r->by);
	char name[NAME_LEN], help[160];
	bool first;

	if (!by || !r->nparts)
		return;
	snprintf(name, sizeof(name), "folioscope_%s_other_keys", by);
	snprintf(help, sizeof(help),
		 "%s past the breakdown's %d rows, counted in its other row",
		 r->by == FS_BY_CGROUP ? "cgroups" : "processes", FS_BY_SLOTS);
	om_help(o, name, NULL, help, "");
	fprintf(o->f, "# TYPE %s gauge\n", name);
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];
		struct om_series se = { .whole = tr, .tr = tr };
		__u64 n = 0;

		if (!tr->enabled)
			continue;
		for (int p = 0; p < r->nparts; p++)
			if (r->parts[p].other)
				n = r->parts[p].nother[t];
		first = true;
		fprintf(o->f, "%s{", name);
		om_label(o->f, &first, "target", tr->name);
		om_labels(o, &first, &se);
		fprintf(o->f, "} %llu\n", (unsigned long long)n);
	}
}

static void om_measured(struct om *o)
{
	static const char name[] = "folioscope_measured";
	const struct fs_report *r = o->r;
	bool first;

	om_help(o, name, NULL,
		"1 if the histogram was measured, 0 (with the reason) if the "
		"attach step cannot measure it and it is left out",
		"");
	fprintf(o->f, "# TYPE %s gauge\n", name);
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];

		if (!tr->enabled)
			continue;
		for (int i = 0; i < tr->nhists; i++) {
			const struct fs_histogram *h = &tr->hist[i];

			struct om_series se = { .whole = tr, .tr = tr };

			first = true;
			fprintf(o->f, "%s{", name);
			om_label(o->f, &first, "target", tr->name);
			om_label(o->f, &first, "histogram", h->spec->name);
			om_labels(o, &first, &se);
			om_label(o->f, &first, "reason",
				 h->measured ? "" : h->why);
			fprintf(o->f, "} %d\n", h->measured ? 1 : 0);
		}
	}
}

static void om_attached(struct om *o)
{
	static const char name[] = "folioscope_target_attached";
	const struct fs_report *r = o->r;
	bool first;

	om_help(o, name, NULL,
		"1 if the target is attached, with the step used", "");
	fprintf(o->f, "# TYPE %s gauge\n", name);
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];
		const struct fs_attach_info *a = &tr->attach;
		bool on = a->mechanism[0] && strcmp(a->mechanism, "none");
		struct om_series se = { .whole = tr, .tr = tr };

		if (!tr->enabled)
			continue;
		first = true;
		fprintf(o->f, "%s{", name);
		om_label(o->f, &first, "target", tr->name);
		om_labels(o, &first, &se);
		om_label(o->f, &first, "function", a->function);
		om_label(o->f, &first, "symbol", a->symbol);
		om_label(o->f, &first, "inlined",
			 a->inlined ? "true" : "false");
		fprintf(o->f, "} %d\n", on ? 1 : 0);
	}
}

/* Labels of every validation sample: whose run, on which kernel. */
static void om_validation_labels(struct om *o, const char *kind)
{
	bool first = true;

	fputc('{', o->f);
	om_label(o->f, &first, "kernel", o->r->kernel);
	om_label(o->f, &first, "workload", o->r->workload_name);
	if (kind)
		om_label(o->f, &first, "kind", kind);
	fputs("} ", o->f);
}

/* HELP and TYPE of a validation family; counters named as om_counter_header
 * names them in each flavour. */
static void om_validation_family(struct om *o, const char *base, bool counter,
				 const char *help)
{
	char name[NAME_LEN];

	snprintf(name, sizeof(name), "folioscope_validation_%s%s", base,
		 counter && !o->om ? "_total" : "");
	om_help(o, name, NULL, help, "");
	fprintf(o->f, "# TYPE %s %s\n", name, counter ? "counter" : "gauge");
}

/*
 * The run's checks against ground truth, for an alert on a periodic
 * validating run served by report --serve. Failures are one series per
 * kind, and "wrong answer" (the kind every check can fail with) is there
 * at 0 in a run without failures, so a passing run already has the
 * series a failing one raises. passed is the report's verdict: 0 for a
 * failed, disturbed or wholly skipped run.
 */
static void om_validation(struct om *o)
{
	const struct fs_validation *v = &o->r->validation;
	char verdict[512];
	bool answer = false;

	if (!v->ran)
		return;
	om_validation_family(o, "checks", true,
			     "ground-truth checks of the workload's answers");
	fputs("folioscope_validation_checks_total", o->f);
	om_validation_labels(o, NULL);
	fprintf(o->f, "%llu\n", (unsigned long long)v->checks);

	om_validation_family(o, "failures", true,
			     "checks that failed, by the failure's kind");
	for (int i = 0; i < v->kinds.n; i++)
		answer |= !strcmp(v->kinds.k[i].kind, FS_CASE_ANSWER);
	if (!answer) {
		fputs("folioscope_validation_failures_total", o->f);
		om_validation_labels(o, FS_CASE_ANSWER);
		fputs("0\n", o->f);
	}
	for (int i = 0; i < v->kinds.n; i++) {
		fputs("folioscope_validation_failures_total", o->f);
		om_validation_labels(o, v->kinds.k[i].kind);
		fprintf(o->f, "%llu\n",
			(unsigned long long)v->kinds.k[i].count);
	}

	if (v->nskips) {
		om_validation_family(o, "skipped", true,
				     "layouts not run: the kernel lacks what "
				     "they need");
		fputs("folioscope_validation_skipped_total", o->f);
		om_validation_labels(o, NULL);
		fprintf(o->f, "%d\n", v->nskips);
	}

	report__verdict(verdict, sizeof(verdict), o->r);
	om_validation_family(o, "passed", false,
			     "1 if the run's checks passed, 0 if any failed, "
			     "the run was disturbed or every layout skipped");
	fputs("folioscope_validation_passed", o->f);
	om_validation_labels(o, NULL);
	fprintf(o->f, "%d\n", !strncmp(verdict, "passed", 6));
}

int report__openmetrics(FILE *f, const struct fs_report *r, bool om)
{
	struct om o = { .f = f, .om = om, .r = r };

	for (int t = 0; t < FS_TGT_NR; t++)
		if (r->target[t].enabled)
			om_target(&o, &r->target[t]);
	for (int t = 0; t < FS_TGT_NR; t++)
		if (r->target[t].enabled)
			om_parts(&o, t);
	om_other_keys(&o);
	om_measured(&o);
	om_attached(&o);
	om_validation(&o);
	if (om)
		fputs("# EOF\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
