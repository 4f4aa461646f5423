/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The options that select per-call events (--events all, --errors,
 * --slower-than, --sample, --events-ring, --events-json): an argp child
 * trace and run share. Their output is events/events.h.
 */
#ifndef FS_CLI_EVOPTS_H
#define FS_CLI_EVOPTS_H

#include <argp.h>
#include "probe/probe.h"

struct events_cli {
	struct probe_events sel;
	const char *json; /* --events-json FILE, NULL: none */
};

/* The child parser; its input is a struct events_cli. */
extern const struct argp events_cli_argp;

#endif /* FS_CLI_EVOPTS_H */
