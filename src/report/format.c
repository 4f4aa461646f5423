// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Export formats: names, dispatch, the atomic file write they all share,
 * and small helpers (human units, XML escaping, the validation verdict).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "report/report.h"
#include "util/fs.h"
#include "util/util.h"
#include "util/err.h"

static const char *const format_names[REPORT_FMT_NR] = {
	[REPORT_FMT_TEXT] = "text",
	[REPORT_FMT_JSON] = "json",
	[REPORT_FMT_CSV] = "csv",
	[REPORT_FMT_OPENMETRICS] = "openmetrics",
	[REPORT_FMT_PROMETHEUS] = "prometheus",
	[REPORT_FMT_SVG] = "svg",
	[REPORT_FMT_HTML] = "html",
};

static const struct {
	const char *ext;
	enum report_format fmt;
} format_exts[] = {
	{ ".json", REPORT_FMT_JSON },	   { ".csv", REPORT_FMT_CSV },
	{ ".om", REPORT_FMT_OPENMETRICS }, { ".prom", REPORT_FMT_PROMETHEUS },
	{ ".svg", REPORT_FMT_SVG },	   { ".html", REPORT_FMT_HTML },
	{ ".htm", REPORT_FMT_HTML },	   { ".txt", REPORT_FMT_TEXT },
};

int report__format_parse(const char *name, enum report_format *fmt)
{
	for (int i = 0; i < REPORT_FMT_NR; i++) {
		if (!strcmp(name, format_names[i])) {
			*fmt = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *report__format_name(enum report_format fmt)
{
	return fmt < REPORT_FMT_NR ? format_names[fmt] : "?";
}

int report__format_guess(const char *path, enum report_format *fmt)
{
	const char *dot = strrchr(path, '.');

	/* A dot in a directory name is not an extension. */
	if (!dot || strchr(dot, '/'))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(format_exts); i++) {
		if (!strcasecmp(dot, format_exts[i].ext)) {
			*fmt = format_exts[i].fmt;
			return 0;
		}
	}
	return -EINVAL;
}

bool report__format_ab(enum report_format fmt)
{
	return fmt == REPORT_FMT_SVG || fmt == REPORT_FMT_HTML;
}

/* Same flags as report__json_write, so -j and --format json agree. */
int report__json_stream(FILE *f, const struct fs_report *r)
{
	struct json_object *root = report__to_json(r);
	const char *text;
	int err = 0;

	text = root ? json_object_to_json_string_ext(
			      root, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_SPACED |
					    JSON_C_TO_STRING_NOSLASHESCAPE)
		    : NULL;
	if (!text)
		err = -ENOMEM;
	else if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
		err = -EIO;
	json_object_put(root);
	return err;
}

int report__emit(FILE *f, enum report_format fmt, const struct fs_report *base,
		 const struct fs_report *next)
{
	int err;

	if (next && !report__format_ab(fmt))
		return -EINVAL;
	switch (fmt) {
	case REPORT_FMT_TEXT:
		err = report__text(f, base);
		break;
	case REPORT_FMT_JSON:
		err = report__json_stream(f, base);
		break;
	case REPORT_FMT_CSV:
		err = report__csv(f, base);
		break;
	case REPORT_FMT_OPENMETRICS:
		err = report__openmetrics(f, base, true);
		break;
	case REPORT_FMT_PROMETHEUS:
		err = report__openmetrics(f, base, false);
		break;
	case REPORT_FMT_SVG:
		err = report__svg(f, base, next);
		break;
	case REPORT_FMT_HTML:
		err = report__html(f, base, next);
		break;
	default:
		return -EINVAL;
	}
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	return err;
}

int report__write_atomic(const char *path, const void *buf, size_t len)
{
	bool have_tmp = false;
	sigset_t stop, old;
	char *tmp = NULL;
	int fd = -1, err;
	mode_t mask;

	if (!strcmp(path, "-")) {
		/* After what stdio still holds (trace's "== interval" heads).
		 */
		if (fflush(stdout))
			return -errno;
		return fd__write_all(STDOUT_FILENO, buf, len);
	}
	if (path__write_in_place(path)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		err = fd__write_all(fd, buf, len);
		if (close(fd) && !err)
			err = -errno;
		return err;
	}
	/* What a SIGKILLed export of path left (the one thing not blocked). */
	report__tmp_clean(path);
	/*
	 * A stop signal is held until the temp file is renamed or removed:
	 * dying of it in between would leave the temp behind. (Another
	 * thread that does not block them could still take one.)
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	/* Same directory as path, so rename() is atomic. */
	err = report__tmp_name(path, &tmp);
	if (err)
		goto cleanup;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	have_tmp = true;
	/* mkstemp() makes 0600; a report is no secret: the mode open()
	 * would give, as report__json_write does. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		err = -errno;
		goto cleanup;
	}
	err = fd__write_all(fd, buf, len);
	if (err)
		goto cleanup;
	/* On disk before the rename makes it visible. */
	if (fsync(fd)) {
		err = -errno;
		goto cleanup;
	}
	err = close(fd) ? -errno : 0;
	fd = -1;
	if (err)
		goto cleanup;
	if (rename(tmp, path)) {
		err = -errno;
		goto cleanup;
	}
	have_tmp = false;

cleanup:
	if (fd >= 0)
		close(fd);
	if (have_tmp)
		unlink(tmp);
	free(tmp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int report__render_atomic(const char *path, int (*render)(FILE *f, void *arg),
			  void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	err = render(f, arg);
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		err = report__write_atomic(path, buf, len);
	free(buf);
	return err;
}

struct emit_args {
	enum report_format fmt;
	const struct fs_report *base, *next;
};

static int emit_render(FILE *f, void *arg)
{
	const struct emit_args *e = arg;

	return report__emit(f, e->fmt, e->base, e->next);
}

int report__write(const char *path, enum report_format fmt,
		  const struct fs_report *base, const struct fs_report *next)
{
	struct emit_args e = { .fmt = fmt, .base = base, .next = next };
	int err = report__render_atomic(path, emit_render, &e);

	if (err == -EINVAL && next && !report__format_ab(fmt))
		err__print(NULL, 0,
			   "cannot write '%s': format %s shows one run; two "
			   "need svg or html",
			   path, report__format_name(fmt));
	else if (err)
		err__print(NULL, err, "cannot write '%s'", path);
	return err;
}

/* ---- helpers ---- */

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

bool report__align_zero(const struct fs_hist_spec *sp, int slot)
{
	return sp->kind == FS_KIND_ALIGN && slot == 0;
}

bool report__align_cap(const struct fs_hist_spec *sp, int slot)
{
	return sp->kind == FS_KIND_ALIGN && slot == FS_ALIGN_CAP_SHIFT + 1;
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

		if (!r->target[t].enabled)
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
