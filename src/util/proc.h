/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Finding and running external tools with fork/exec, never through a
 * shell, so user-supplied paths and arguments are never parsed twice
 * (proc.c). Errors are negative errnos.
 */
#ifndef FS_UTIL_PROC_H
#define FS_UTIL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where a tool is looked for: $PATH, then the extra dirs. */
struct exe_search {
	const char *path_default; /* ':'-list used when $PATH is unset or "" */
	const char *extra;	  /* ':'-list searched after it; NULL = none */
};

/*
 * The path of the executable regular file name in the dirs of s (name
 * itself if it has a '/'), into out. -ENOENT if none, -ENAMETOOLONG.
 */
int exe__find(const char *name, const struct exe_search *s, char *out,
	      size_t len);

struct proc_io {
	const char *cwd; /* chdir here in the child; NULL = stay */
	int in_fd;	 /* child's stdin; -1 = /dev/null */
	int out_fd;	 /* child's stdout; -1 = inherit */
	int err_fd;	 /* child's stderr; -1 = inherit */
	bool own_pgrp;	 /* own process group: terminal ^C is ours alone */
	bool pdeathsig;	 /* SIGKILL the child if we die first */
	/* argv[0] looked up with exe__find in the parent; NULL = execvp's
	 * $PATH search in the child. */
	const struct exe_search *search;
};

/* Starts argv[0]. Returns the pid or -errno, including the errno of a
 * failed look-up or exec (e.g. -ENOENT for a missing tool). */
pid_t proc__spawn(char *const argv[], const struct proc_io *io);
/* Waits for pid into *status (waitpid's); 0 or -errno. */
int proc__wait_status(pid_t pid, int *status);
/* Waits for pid: exit status 0..255, 128+signal if killed, or -errno. */
int proc__wait(pid_t pid);

/*
 * In a guest of folioscope vm, tells its /init that this command is done
 * with status (FOLIOSCOPE_VM_EXIT names the fifo init waits on), for a
 * process that may never finish exiting: a thread stuck uninterruptibly
 * in the kernel keeps its parent's wait from returning. Elsewhere, or
 * when init is not listening, nothing.
 */
void proc__announce_exit(int status);
/* A wait for a child that may announce its exit (proc__wait_announced). */
struct proc_wait {
	/* In: the fifo it announces on (its FOLIOSCOPE_VM_EXIT, held open
	 * for reading and writing by the caller; -1: none), and how long it
	 * then has to finish exiting; the read end of its stdout, read as
	 * it comes (-1: none). */
	int announce_fd;
	int grace_ms;
	int out_fd;
	/* Out: it exited (status as waitpid's), or it said (announced the
	 * status announced) and lingers, a thread of it stuck in the
	 * kernel; what it wrote on out_fd (malloc'd, NUL-terminated, the
	 * caller frees; NULL: nothing). */
	bool exited;
	bool said;
	int status;
	int announced;
	char *out;
	size_t out_len;
};

/* Waits for pid to exit, or to announce its exit and not finish it in
 * w->grace_ms, reading its stdout meanwhile. 0 or -errno. Without pidfds
 * (before Linux 5.3), for the end of its stdout and its exit. */
int proc__wait_announced(pid_t pid, struct proc_wait *w);

#endif /* FS_UTIL_PROC_H */
