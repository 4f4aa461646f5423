/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HTTP /metrics endpoint (libmicrohttpd) for Prometheus to scrape: each
 * scrape asks the owner for the current report and answers with it as
 * OpenMetrics (when the scraper accepts it, as Prometheus does) or
 * Prometheus 0.0.4 text.
 */
#ifndef FS_SERVE_H
#define FS_SERVE_H

#include <stdbool.h>
#include "model/model.h"

struct serve;

/*
 * Fill r (already model__init'ed) with the current, cumulative report.
 * Called on the server's own thread, one scrape at a time; returns 0 or
 * -errno (the scrape then gets a 500). r belongs to the server, which
 * model__free()s it after each scrape: whatever fill puts in it (the
 * per-process table) must be r's own, not shared with the caller.
 */
typedef int (*serve_fill_fn)(void *ctx, struct fs_report *r);

struct serve_opts {
	/*
	 * Allow an address that is not loopback (127.0.0.0/8, ::1): the
	 * metrics then reach every host that can reach this one.
	 */
	bool allow_remote;
	/*
	 * The report for /report.html and /report.json (NULL: fill's), on
	 * the same thread and with the same contract as fill; a running
	 * trace -i gives the intervals so far with their sum as totals.
	 */
	serve_fill_fn page_fill;
	/* /report.html reloads itself every refresh seconds (0: never). */
	int refresh;
};

/*
 * Listen on addr_port and serve /metrics until serve__stop, and the same
 * report as a page (/report.html, the HTML report with heatmaps when it
 * has intervals; / links to it) and as JSON (/report.json).
 * addr_port: "PORT", ":PORT", "ADDR:PORT" or "[ADDR6]:PORT", numeric
 * addresses or "localhost"; no address means 127.0.0.1. Port 0 picks a
 * free port (see serve__port). On failure prints one line to stderr
 * ("folioscope: cannot serve on ADDR:PORT: reason") and returns -errno:
 * -EINVAL bad address, -EACCES not loopback without allow_remote,
 * -EADDRINUSE, ...
 */
int serve__start(struct serve **sp, const char *addr_port,
		 const struct serve_opts *o, serve_fill_fn fill, void *ctx);
/* The port listened on (the chosen one for port 0). */
unsigned short serve__port(const struct serve *s);
/* "http://127.0.0.1:9464/metrics" */
const char *serve__url(const struct serve *s);
/* Stop serving (waits for a scrape in progress) and free s; NULL is ok. */
void serve__stop(struct serve *s);

#endif /* FS_SERVE_H */
