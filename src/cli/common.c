// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "common.h"
#include "report/report.h"

struct common_opts *common_opts_target;

static const struct argp_option options[] = {
	{ "target", 't', "TARGET", 0, "dedupe, shmem or all", 0 },
	{ "mode", 'm', "MODE", 0,
	  "attach mechanism: auto (default), fentry, kprobe or syscall", 0 },
	{ "json", 'j', "FILE", 0, "also write the report as JSON to FILE", 0 },
	{ "duration", 'd', "SECONDS", 0, "stop tracing after SECONDS", 0 },
	{ "verbose", 'v', NULL, 0, "show libbpf messages", 0 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct common_opts *c = common_opts_target;
	char *end;

	switch (key) {
	case 't':
		if (strcmp(arg, "all") && model__target_from_name(arg) < 0)
			cli__usage_error(st, "unknown target '%s' (dedupe, shmem, all)",
				   arg);
		c->targets = arg;
		break;
	case 'm':
		if (plan__parse_mode(arg, &c->mode))
			cli__usage_error(st, "unknown mode '%s' (auto, fentry, kprobe, syscall)",
				   arg);
		break;
	case 'j':
		c->json = arg;
		break;
	case 'd':
		errno = 0;
		c->duration = strtod(arg, &end);
		if (errno || *end || c->duration <= 0)
			cli__usage_error(st, "invalid duration '%s'", arg);
		break;
	case 'v':
		fs_verbose = true;
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
	fprintf(stderr, "folioscope: %s: ", st->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

const struct argp common_argp = { options, parse, NULL, NULL, NULL, NULL,
				  NULL };

int common__output(const struct common_opts *c, const struct fs_report *r)
{
	int err = report__text(stdout, r);

	fflush(stdout);
	if (c->json) {
		int e = report__json_write(r, c->json);

		if (e)
			err = e;
	}
	return err;
}
