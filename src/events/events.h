/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-call events of trace and run as an output of their own: a line per
 * event in the bcc *slower tools' column style plus --events-json as
 * JSON Lines (docs/events.md). The options that select them are the
 * commands' (cli/evopts.h).
 */
#ifndef FS_EVENTS_EVENTS_H
#define FS_EVENTS_EVENTS_H

#include <stdbool.h>
#include <stdio.h>
#include "probe/probe.h"
#include "session/session.h"

struct evout;

/*
 * Start the events of the live session s: lines to out (a header first
 * unless quiet, with what each target's attach level cannot see), JSON
 * Lines to json ("-": stdout; NULL: none). 0 or -errno (one line
 * printed).
 */
int evout__open(struct evout **o, const char *json, struct session *s,
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

#endif /* FS_EVENTS_EVENTS_H */
