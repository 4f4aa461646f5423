/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A tracing session: kernel facts -> one plan per wanted target -> live
 * probes -> report model. Shared by trace and run.
 */
#ifndef FS_SESSION_H
#define FS_SESSION_H

#include <signal.h>
#include "model/model.h"
#include "plan/plan.h"
#include "probe/probe.h"

struct fs_event;
struct ring_buffer;
struct cgroup_names;
/* One event of target t, its probe attached with mechanism mech; seen:
 * the FS_EVF_* parts that level can see. */
typedef void (*session_event_fn)(void *ctx, enum fs_target t, const char *mech,
				 __u32 seen, const struct fs_event *e);

struct session_evsrc {
	struct session *s;
	enum fs_target t;
};

struct session {
	struct kfacts facts;
	bool facts_loaded;
	bool want[FS_TGT_NR];
	struct plan plan[FS_TGT_NR];
	struct probe *probe[FS_TGT_NR];
	struct fs_stats last[FS_TGT_NR]; /* at the previous delta collect */
	enum fs_by by;
	/* A breakdown: each entry at the previous delta collect (heap) */
	struct fs_stats *last_slots[FS_TGT_NR];
	/* --by cgroup: the paths of the ids met (heap) */
	struct cgroup_names *cgroup_names;
	/* The filters as the user gave them, copied into every report. */
	struct fs_filters filters;
	/* Each target's inline sites (plan__inline_target). */
	struct plan_inline inl[FS_TGT_NR];
	/* Each target's sub-probe lookups inlined into it. */
	struct plan_inline sub_inl[FS_TGT_NR];
	/* Events: every probe's ring buffer, and where they go. */
	struct ring_buffer *rb;
	struct session_evsrc evsrc[FS_TGT_NR];
	session_event_fn ev_fn;
	void *ev_ctx;
	/* Ends a reader's session__wait from another thread (an eventfd,
	 * made with the ring buffer; wake_on says it is open). */
	int wake_fd;
	bool wake_on;
};

/* Parse -t: "dedupe", "shmem" or "all". */
int session__parse_targets(const char *s, bool want[FS_TGT_NR]);
/* Plan and attach every wanted target; one error line per failure. */
int session__start(struct session *s, enum plan_mode m,
		   const struct probe_opts *o);
/*
 * Fill r from the live probes: totals since start, or with delta the
 * events since the previous delta collect. Nothing is ever cleared in
 * the kernel, so consecutive deltas add up to the totals exactly.
 */
int session__collect(struct session *s, struct fs_report *r, bool delta);
/*
 * The events since the previous delta collect into delta and the totals
 * into total, from one read of the maps, so the deltas add up to the
 * totals exactly. Either may be NULL.
 */
int session__collect_both(struct session *s, struct fs_report *delta,
			  struct fs_report *total);
/* Events of every live probe to fn from now on (the probes were started
 * with events on). 0 or -errno. */
int session__events_start(struct session *s, session_event_fn fn, void *ctx);
/* Hand the events already waiting to the callback, without waiting.
 * Returns the number handed, or -errno. */
int session__events_drain(struct session *s);
/*
 * Sleep until events come, a signal is caught, session__wake is called
 * or ms pass (ms < 0: no limit), with the signal mask set to mask
 * meanwhile (as ppoll: a signal the caller blocks while it checks its
 * flags wakes this at once), then hand the waiting events to the
 * callback. Returns the number handed, -EINTR after a signal, or -errno.
 */
int session__wait(struct session *s, int ms, const sigset_t *mask);
/*
 * End the current or next session__wait of another thread: a wake-up
 * is kept until a wait takes it, so one that comes while the reader
 * checks its flags is not lost. 0 or -errno.
 */
int session__wake(struct session *s);
void session__stop(struct session *s);
/*
 * The inline sites of target t's inlined function (plan__inline_target)
 * in the running kernel's DWARF (release), with t's argument table: from
 * debuginfo (--debuginfo FILE) or, when NULL, the distribution paths.
 * Without DWARF, out->why says why. -ENOENT with one error line (cmd's)
 * when debuginfo was given and cannot be used.
 */
int session__inline(const char *cmd, const char *debuginfo, const char *release,
		    enum fs_target t, struct plan_inline *out);
/*
 * The same for t's sub-probe (probe_target.sub_inline_in): the sites of
 * the first sub symbol the DWARF has inlined into the traced function,
 * only those in it, unless a symbol before it in f is one the function
 * calls; out->nsites 0 when there is none (out->why says why).
 */
int session__sub_inline(const char *cmd, const char *debuginfo,
			const struct kfacts *f, enum fs_target t,
			struct plan_inline *out);
/* Common precondition of trace/run: root. One line + -EPERM if not. */
int session__check_root(const char *cmd);

#endif /* FS_SESSION_H */
