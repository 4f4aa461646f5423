// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The options of trace and run that select per-call events. */
#include <stdint.h>
#include <string.h>
#include "common.h"
#include "evopts.h"
#include "util/parse.h"

/* Keys apart from every command's own, common_argp's and serve's. */
enum {
	OPT_SLOWER = 0x500,
	OPT_ERRORS,
	OPT_EVENTS,
	OPT_SAMPLE,
	OPT_RING,
	OPT_EVJSON,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Per-call events (histograms go on as well):", 5 },
	{ "slower-than", OPT_SLOWER, "DURATION", 0,
	  "an event for each call that took at least DURATION (500us, 2ms; "
	  "units ns, us, ms, s, m, h)",
	  5 },
	{ "errors", OPT_ERRORS, NULL, 0,
	  "an event for each failed call, DIFFERS compare and short read", 5 },
	{ "events", OPT_EVENTS, "all", 0,
	  "an event for every call (for low call rates)", 5 },
	{ "sample", OPT_SAMPLE, "N", 0,
	  "keep one in N of the selected calls (alone: of all calls)", 5 },
	{ "events-ring", OPT_RING, "BYTES", 0,
	  "size of each target's ring buffer, a power of two from 4K to 1G "
	  "(default 256K); events it has no room for are counted as lost",
	  5 },
	{ "events-json", OPT_EVJSON, "FILE", 0,
	  "also write the events to FILE as JSON Lines (docs/events.md)", 5 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct events_cli *c = st->input;
	__u64 v;

	switch (key) {
	case OPT_SLOWER:
		if (duration__parse(arg, &c->sel.slower_ns))
			cli__usage_error(st,
					 "invalid --slower-than '%s' (want a "
					 "duration above 0 with a unit: "
					 "500us, 2ms, 1s)",
					 arg);
		break;
	case OPT_ERRORS:
		c->sel.errors = true;
		break;
	case OPT_EVENTS:
		if (strcmp(arg, "all"))
			cli__usage_error(st, "invalid --events '%s' (want all)",
					 arg);
		c->sel.all = true;
		break;
	case OPT_SAMPLE:
		if (count__parse(arg, false, UINT32_MAX, &v))
			cli__usage_error(st,
					 "invalid --sample '%s' (want a whole "
					 "number from 1 to %u)",
					 arg, UINT32_MAX);
		c->sel.sample = (__u32)v;
		break;
	case OPT_RING:
		if (size__parse(arg, false, &v) || v < FS_EV_RING_MIN ||
		    v > FS_EV_RING_MAX || (v & (v - 1)))
			cli__usage_error(st,
					 "invalid --events-ring '%s' (want a "
					 "power of two from 4K to 1G)",
					 arg);
		c->sel.ring_bytes = (__u32)v;
		break;
	case OPT_EVJSON:
		c->json = arg;
		break;
	case ARGP_KEY_END:
		if ((c->json || c->sel.ring_bytes) &&
		    !probe_events__on(&c->sel))
			cli__usage_error(
				st, "--events-json and --events-ring need "
				    "--events all, --errors, --slower-than "
				    "or --sample");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp events_cli_argp = { options, parse, NULL, NULL,
				      NULL,    NULL,  NULL };
