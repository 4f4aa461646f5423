/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-call events of trace and run: the options that select them (an
 * argp child both commands share) and their output, a line per event in
 * the bcc *slower tools' column style plus --events-json as JSON Lines
 * (docs/events.md).
 */
#ifndef FS_CLI_EVENTS_H
#define FS_CLI_EVENTS_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include "probe/probe.h"
#include "session/session.h"

struct events_cli {
	struct probe_events sel;
	const char *json; /* --events-json FILE, NULL: none */
};

/* The child parser; its input is a struct events_cli. */
extern const struct argp events_cli_argp;

struct evout;

/*
 * Start the events of the live session s: lines to out (a header first
 * unless quiet, with what each target's attach level cannot see), JSON
 * Lines to c->json. 0 or -errno (one line printed).
 */
int evout__open(struct evout **o, const struct events_cli *c, struct session *s,
		FILE *out, bool quiet);
/* The session's event callback; ctx is the struct evout. */
void evout__event(void *ctx, enum fs_target t, const char *mech, __u32 seen,
		  const struct fs_event *e);
/*
 * Drain what the ring buffers still hold, end with a line of the events
 * taken and lost per target (the kernel's counters), and write the JSON
 * file (atomically unless it is a pipe). Frees o; safe on NULL.
 * 0 or -errno.
 */
int evout__close(struct evout *o, struct session *s);

#endif /* FS_CLI_EVENTS_H */
