// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "commands.h"
#include "common.h"
#include "util/parse.h"
#include "report/report.h"
#include "util/err.h"

struct common_opts *common_opts_target;

enum { OPT_FORMAT = 0x100, OPT_BTF, OPT_DEBUGINFO };

static const struct argp_option options[] = {
	{ "target", 't', "TARGET", 0, "dedupe, shmem or all", 0 },
	{ "mode", 'm', "MODE", 0,
	  "attach mechanism: auto (default), fentry, kprobe or syscall", 0 },
	{ "json", 'j', "FILE", 0, "also write the report as JSON to FILE", 0 },
	{ "output", 'o', "FILE", 0,
	  "also write the report to FILE (atomically) in --format, or as "
	  "FILE's extension says; - is stdout",
	  0 },
	{ "format", OPT_FORMAT, "FMT", 0,
	  "format of -o, or of stdout when there is no -o: " REPORT_FORMATS,
	  0 },
	{ "duration", 'd', "SECONDS", 0, "stop tracing after SECONDS", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "this kernel's BTF (raw, or an ELF with .BTF) for planning and "
	  "CO-RE, when /sys/kernel/btf/vmlinux is missing",
	  0 },
	{ "debuginfo", OPT_DEBUGINFO, "FILE", 0,
	  "this kernel's vmlinux with DWARF, for probes at the inline sites "
	  "of an inlined target (default: the distribution paths)",
	  0 },
	{ "verbose", 'v', NULL, 0, "show libbpf messages", 0 },
	{},
};

/*
 * The planning options alone, for doctor, which explains a plan rather
 * than carrying it out: worded for that, filled by the same parser into
 * the same fields.
 */
static const struct argp_option plan_options[] = {
	{ "mode", 'm', "MODE", 0,
	  "plan for auto (default), fentry, kprobe or syscall", 0 },
	{ "verbose", 'v', NULL, 0, "show libbpf messages", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "plan with this BTF (raw, or an ELF with .BTF) instead of "
	  "/sys/kernel/btf/vmlinux; also used for CO-RE when steps are tried",
	  0 },
	{ "debuginfo", OPT_DEBUGINFO, "FILE", 0,
	  "the running kernel's vmlinux with DWARF, for the inline sites of "
	  "targets the kernel inlined (default: /usr/lib/debug/boot/"
	  "vmlinux-RELEASE, /usr/lib/debug/lib/modules/RELEASE/vmlinux, "
	  "/boot/vmlinux-RELEASE); its build ID must be the kernel's",
	  0 },
	{},
};

/*
 * A command that runs others and reports on them (validate): the attach
 * mode, BTF and DWARF it passes on, and the report's outputs.
 */
static const struct argp_option report_options[] = {
	{ "mode", 'm', "MODE", 0,
	  "attach mechanism of every run: auto (default), fentry, kprobe or "
	  "syscall",
	  0 },
	{ "json", 'j', "FILE", 0, "also write the report as JSON to FILE", 0 },
	{ "output", 'o', "FILE", 0,
	  "also write the report to FILE (atomically) in --format, or as "
	  "FILE's extension says; - is stdout",
	  0 },
	{ "format", OPT_FORMAT, "FMT", 0,
	  "format of -o, or of stdout when there is no -o: " REPORT_FORMATS,
	  0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "this kernel's BTF (raw, or an ELF with .BTF), when "
	  "/sys/kernel/btf/vmlinux is missing",
	  0 },
	{ "debuginfo", OPT_DEBUGINFO, "FILE", 0,
	  "this kernel's vmlinux with DWARF, for probes at the inline sites "
	  "of an inlined target",
	  0 },
	{ "verbose", 'v', NULL, 0, "show libbpf messages", 0 },
	{},
};

static int output__check(const char *path);

void cli__check_output(const char *path)
{
	int err;

	if (!strcmp(path, "-"))
		return;
	err = output__check(path);
	if (err) {
		err__print(NULL, err, "cannot write '%s'", path);
		exit(1);
	}
}

/*
 * -o's format and a writable place for it, before anything is traced: a
 * long run should not end in "cannot write".
 */
static void output__resolve(const struct argp_state *st, struct common_opts *c)
{
	/* -j too: an unwritable JSON path is refused before the run. */
	if (c->json)
		cli__check_output(c->json);
	if (!c->output || !strcmp(c->output, "-"))
		return;
	if (!c->format_set && report__format_guess(c->output, &c->format))
		cli__usage_error(st,
				 "cannot tell the format of '%s' from its "
				 "name; add --format (%s)",
				 c->output, REPORT_FORMATS);
	c->format_set = true;
	cli__check_output(c->output);
}

/* The directory must take a new file, and path must not be a directory. */
static int output__check(const char *path)
{
	struct stat sb;
	char *copy;
	int err = 0;

	if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		return -EISDIR;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	if (access(dirname(copy), W_OK | X_OK))
		err = -errno;
	free(copy);
	return err;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct common_opts *c = common_opts_target;

	switch (key) {
	case 't':
		if (strcmp(arg, "all") && model__target_from_name(arg) < 0)
			cli__usage_error(
				st, "unknown target '%s' (dedupe, shmem, all)",
				arg);
		c->targets = arg;
		break;
	case 'm':
		if (plan__parse_mode(arg, &c->mode))
			cli__usage_error(st,
					 "unknown mode '%s' (auto, fentry, "
					 "kprobe, syscall)",
					 arg);
		break;
	case 'j':
		c->json = arg;
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_FORMAT:
		if (report__format_parse(arg, &c->format))
			cli__usage_error(st, "unknown format '%s' (%s)", arg,
					 REPORT_FORMATS);
		c->format_set = true;
		break;
	case ARGP_KEY_END:
		output__resolve(st, c);
		break;
	case 'd':
		/* Not strtod: it takes "nan", a duration that never ends. */
		if (seconds__parse(arg, &c->duration))
			cli__usage_error(st,
					 "invalid duration '%s' (want 0 < "
					 "SECONDS <= %.0f)",
					 arg, PARSE_MAX_SECONDS);
		break;
	case 'v':
		fs_verbose = true;
		break;
	case OPT_BTF:
		cli__check_btf(st, arg);
		c->btf = arg;
		break;
	case OPT_DEBUGINFO:
		c->debuginfo = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void cli__usage_error(const struct argp_state *st, const char *fmt, ...)
{
	va_list ap;

	/* One line, unlike argp_error's extra "Try --help" line. */
	va_start(ap, fmt);
	err__vprint(st->name, 0, NULL, fmt, ap);
	va_end(ap);
	exit(2);
}

void cli__check_btf(const struct argp_state *st, const char *path)
{
	char why[256];

	if (!kfacts__check_btf(path, why, sizeof(why)))
		return;
	err__print(st->name, 0, "--btf '%s': %s", path, why);
	exit(1);
}

const struct argp common_argp = {
	options, parse, NULL, NULL, NULL, NULL, NULL
};

const struct argp common_plan_argp = { plan_options, parse, NULL, NULL,
				       NULL,	     NULL,  NULL };

const struct argp common_report_argp = { report_options, parse, NULL, NULL,
					 NULL,		 NULL,	NULL };

int common__output(const struct common_opts *c, const struct fs_report *r)
{
	FILE *out = c->stdout_taken ? stderr : stdout;
	int err = 0, e;

	if (!c->output && c->format_set && c->format != REPORT_FMT_TEXT) {
		/* --format alone: that format replaces the text on stdout. */
		if (c->stdout_taken)
			err = report__emit(out, c->format, r, NULL);
		else
			err = report__write("-", c->format, r, NULL);
	} else if (!c->output || strcmp(c->output, "-")) {
		err = report__text(out, r);
		fflush(out);
	}
	if (c->json) {
		e = report__json_write(r, c->json);
		if (e)
			err = e;
	}
	if (c->output) {
		e = report__write(c->output,
				  c->format_set ? c->format : REPORT_FMT_TEXT,
				  r, NULL);
		if (e)
			err = e;
	}
	return err;
}
