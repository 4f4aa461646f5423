// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "common.h"
#include "serveopt.h"

/* Keys apart from every command's own and common_argp's (0x100..). */
enum { OPT_SERVE = 0x400, OPT_SERVE_ANY };

static const struct argp_option options[] = {
	{ "serve", OPT_SERVE, "ADDR:PORT", 0,
	  "serve the metrics at http://ADDR:PORT/metrics (trace: cumulative, "
	  "while tracing; report: the saved run, until Ctrl-C) and the report "
	  "at /report.html and /report.json (with trace -i: live); ADDR "
	  "defaults to 127.0.0.1",
	  0 },
	{ "serve-any", OPT_SERVE_ANY, NULL, 0,
	  "allow --serve on an address that is not loopback", 0 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct serve_cli *s = st->input;

	switch (key) {
	case OPT_SERVE:
		s->addr = arg;
		break;
	case OPT_SERVE_ANY:
		s->any = true;
		break;
	case ARGP_KEY_END:
		if (s->any && !s->addr)
			cli__usage_error(st, "--serve-any needs --serve");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp serve_cli_argp = { options, parse, NULL, NULL,
				     NULL,    NULL,  NULL };
