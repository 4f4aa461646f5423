/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kprobes as tracefs events, whose missed runs the kernel shows. */
#ifndef FS_KEVENT_H
#define FS_KEVENT_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

#define KEV_MAX 8

struct bpf_program;
struct bpf_link;

struct kevents {
	bool opened;
	int events_fd;	    /* kprobe_events, to add and remove events */
	int profile_fd;	    /* kprobe_profile, for the missed counts */
	char dir[PATH_MAX]; /* tracefs, while setting up */
	bool detached;	    /* detached_fd is a tracefs mount of our own */
	int detached_fd;
	int seq;
	int nevents;
	char name[KEV_MAX][160]; /* "GROUP/EVENT" */
	char event[KEV_MAX][64]; /* "EVENT", as kprobe_profile names it */
};

/* Find (or mount, attached nowhere) tracefs and open its kprobe files. */
int kevents__open(struct kevents *k);
/* A kprobe or kretprobe event on sym with prog on it; NULL + errno. */
struct bpf_link *kevents__attach(struct kevents *k,
				 const struct bpf_program *prog, bool retprobe,
				 const char *sym);
/* prog on tracepoint GROUP/NAME (a perf event), through a mounted
 * tracefs or a private mount of it; NULL + errno. */
struct bpf_link *kevents__attach_tp(struct kevents *k,
				    const struct bpf_program *prog,
				    const char *group, const char *name);
/* Attaching is over: let a private tracefs mount go (the files stay). */
void kevents__done_setup(struct kevents *k);
/* Runs the kernel missed, summed over this set's events. */
__u64 kevents__missed(const struct kevents *k);
/* Remove the events (after their links are gone) and close. */
void kevents__close(struct kevents *k);

#endif /* FS_KEVENT_H */
