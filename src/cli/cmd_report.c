// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope report: convert a saved JSON run to another format, draw two
 * runs side by side, or serve one at /metrics. JSON is the lossless
 * source, so what this writes equals what trace/run -o would have.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include "commands.h"
#include "common.h"
#include "report/report.h"
#include "serve/serve.h"
#include "serveopt.h"
#include "user.h"
#include "util/err.h"

enum { OPT_FORMAT = 0x100, OPT_USER };

/* Seconds between reloads of report --serve's page. */
#define SAVED_REFRESH 2

struct report_args {
	const char *in[2];
	int nin;
	const char *output;
	const char *format;
	struct serve_cli serve; /* --serve, --serve-any */
	bool drop;		/* --user given */
	struct user_ids user;
};

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "FMT", 0,
	  "output format: " REPORT_FORMATS " (default: from -o's extension, "
	  "else text)",
	  0 },
	{ "output", 'o', "FILE", 0,
	  "write to FILE (atomically) instead of stdout", 0 },
	{ "user", OPT_USER, "USER", 0,
	  "with --serve: once bound, run as USER (no supplementary groups, "
	  "USER's uid and gid from /etc/passwd)",
	  0 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct report_args *a = st->input;
	enum report_format fmt;

	switch (key) {
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &a->serve; /* children[0] */
		break;
	case OPT_FORMAT:
		if (report__format_parse(arg, &fmt))
			cli__usage_error(st, "unknown format '%s' (%s)", arg,
					 REPORT_FORMATS);
		a->format = arg;
		break;
	case 'o':
		a->output = arg;
		break;
	case OPT_USER:
		user__parse(st, arg, &a->user);
		a->drop = true;
		break;
	case ARGP_KEY_ARG:
		if (a->nin == 2)
			cli__usage_error(st,
					 "unexpected argument '%s' (at most "
					 "BASE.json and NEW.json)",
					 arg);
		a->in[a->nin++] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->nin)
			cli__usage_error(st, "expected a report: FILE.json");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &serve_cli_argp, 0, NULL, 0 },
	{},
};

static const struct argp report_argp = {
	options,
	parse,
	"FILE.json [NEW.json]",
	"Write a saved JSON report (from -j or -o) as text, JSON, CSV, "
	"OpenMetrics, Prometheus text, SVG or HTML, or serve it at /metrics "
	"(re-read whenever the file changes). "
	"With two reports (svg, html): an A/B view, FILE.json as the base."
	"\vFILE.json may be - for stdin.",
	children,
	NULL,
	NULL,
};

/*
 * The saved run behind --serve, re-read when its file changes (a trace
 * elsewhere replaces -j FILE when it ends; a new run replaces it again),
 * so the page and /metrics follow the file. A file that cannot be read
 * keeps the last good report on the page; its one error line is printed
 * once per change of the file. Fills run on the server's thread, one
 * at a time, so nothing here is shared with another thread.
 */
struct saved {
	const char *path; /* NULL: stdin, read once */
	struct stat st;	  /* of the file as last read */
	struct fs_report *r;
	bool owned; /* r was read here, not by the caller */
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void saved__refresh(struct saved *sv)
{
	struct fs_report *r;
	struct stat st;

	if (!sv->path || stat(sv->path, &st) || same_file(&st, &sv->st))
		return;
	sv->st = st;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	/* Prints its own one-line error. */
	if (report__json_read(sv->path, r)) {
		free(r);
		return;
	}
	if (sv->owned) {
		model__free(sv->r);
		free(sv->r);
	}
	sv->r = r;
	sv->owned = true;
}

/* The saved run as of now; r gets its own breakdown rows. */
static int fill_saved(void *ctx, struct fs_report *r)
{
	struct saved *sv = ctx;
	const struct fs_report *saved;

	saved__refresh(sv);
	saved = sv->r;
	memcpy(r, saved, sizeof(*r));
	r->parts = NULL;
	r->nparts = 0;
	/* /metrics has no use for them. */
	r->intervals = NULL;
	r->nintervals = 0;
	if (!saved->nparts)
		return 0;
	r->parts = malloc(saved->nparts * sizeof(*r->parts));
	if (!r->parts)
		return -ENOMEM;
	memcpy(r->parts, saved->parts, saved->nparts * sizeof(*r->parts));
	r->nparts = saved->nparts;
	return 0;
}

/* The page of the saved run: with its intervals, if it has them. */
static int fill_page(void *ctx, struct fs_report *r)
{
	struct saved *sv = ctx;
	const struct fs_report *saved;
	int err = fill_saved(ctx, r);

	saved = sv->r;
	if (err || !saved->nintervals)
		return err;
	r->intervals = malloc(saved->nintervals * sizeof(*r->intervals));
	if (!r->intervals)
		return -ENOMEM;
	memcpy(r->intervals, saved->intervals,
	       saved->nintervals * sizeof(*r->intervals));
	r->nintervals = saved->nintervals;
	return 0;
}

static int report__serve(const struct report_args *a, struct fs_report *r)
{
	struct saved sv = { .r = r };
	/* The file may change under the page: it reloads itself. */
	struct serve_opts o = { .allow_remote = a->serve.any,
				.page_fill = fill_page,
				.refresh = SAVED_REFRESH };
	struct serve *s = NULL;
	sigset_t set;
	int sig, err;

	if (strcmp(a->in[0], "-") && !stat(a->in[0], &sv.st))
		sv.path = a->in[0];
	else
		o.refresh = 0;
	/*
	 * Block the stop signals before MHD's thread exists, so it inherits
	 * the mask and sigwait() here is the one place they arrive.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	err = serve__start(&s, a->serve.addr, &o, fill_saved, &sv);
	if (err)
		goto cleanup;
	/* Bound: root is no longer needed (USER re-reads the file). */
	if (a->drop) {
		err = user__become("report", &a->user);
		if (err) {
			serve__stop(s);
			goto cleanup;
		}
	}
	err__print(NULL, 0, "serving %s; Ctrl-C to stop", serve__url(s));
	while (sigwait(&set, &sig))
		;
	serve__stop(s);
cleanup:
	if (sv.owned) {
		model__free(sv.r);
		free(sv.r);
	}
	return err;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = {};
	struct fs_report *r[2] = { NULL, NULL };
	enum report_format fmt = REPORT_FMT_TEXT;
	struct argp_state st = { .name = "report" };
	int err = 0;

	cli__argp_parse(&report_argp, argc, argv, 0, NULL, &a);
	if (a.format)
		report__format_parse(a.format, &fmt);
	else if (a.output && strcmp(a.output, "-") &&
		 report__format_guess(a.output, &fmt))
		cli__usage_error(&st,
				 "cannot tell the format of '%s' from its "
				 "name; add --format (%s)",
				 a.output, REPORT_FORMATS);
	if (a.serve.addr && (a.output || a.format || a.nin > 1))
		cli__usage_error(&st, "--serve takes one report and no -o or "
				      "--format");
	if (a.drop && !a.serve.addr)
		cli__usage_error(&st, "--user needs --serve");
	if (a.nin > 1 && !report__format_ab(fmt))
		cli__usage_error(&st,
				 "two reports need --format svg or html, "
				 "not %s",
				 report__format_name(fmt));

	for (int i = 0; i < a.nin; i++) {
		r[i] = calloc(1, sizeof(*r[i]));
		if (!r[i]) {
			err__print("report", 0, "out of memory");
			err = -ENOMEM;
			goto cleanup;
		}
		/* Prints its own one-line error. */
		err = report__json_read(a.in[i], r[i]);
		if (err)
			goto cleanup;
	}
	if (a.serve.addr)
		err = report__serve(&a, r[0]);
	else
		err = report__write(a.output ? a.output : "-", fmt, r[0], r[1]);

cleanup:
	for (int i = 0; i < 2; i++) {
		if (r[i])
			model__free(r[i]);
		free(r[i]);
	}
	return err ? 1 : 0;
}
