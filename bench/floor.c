// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * benchfloor: attach the empty program pair of one mechanism and wait.
 *
 *   benchfloor fentry|kprobe FUNC...   entry + exit on each FUNC
 *   benchfloor syscall                 raw tracepoints sys_enter + sys_exit
 *   benchfloor tracepoint TP...        syscalls:TP for each TP (e.g.
 *                                      sys_enter_pread64): one program
 *
 * A FUNC written "kprobe:FUNC" or "fentry:FUNC" takes that mechanism
 * instead (folioscope falls back to kprobe for a sub-probe whose function
 * the trampoline cannot take, and the floor of all its probes follows);
 * "exit:FUNC" takes the exit program alone (fexit or kretprobe), as
 * folioscope's sub-probes that need only the return value do; both as
 * "kprobe:exit:FUNC".
 *
 * Prints "floor: attached N programs" on stderr once every program is
 * attached, then waits for SIGINT/SIGTERM and exits 0.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

#define MAX_FUNCS 8
#define MAX_TPS 16

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int fail(const char *what, const char *func, int err)
{
	fprintf(stderr, "benchfloor: %s%s%s: %s\n", what, func ? " " : "",
		func ? func : "", strerror(err < 0 ? -err : err));
	return 1;
}

/* A new skeleton in *out with only the programs named a and b (NULL:
 * none) to load; NULL if it cannot be opened. */
static struct floor_bpf *open_with(struct floor_bpf **out, const char *a,
				   const char *b)
{
	struct floor_bpf *s = floor_bpf__open();
	struct bpf_program *p;

	*out = s;
	if (!s)
		return NULL;
	bpf_object__for_each_program (p, s->obj) {
		const char *name = bpf_program__name(p);

		bpf_program__set_autoload(p, (a && !strcmp(name, a)) ||
						     (b && !strcmp(name, b)));
	}
	return s;
}

/* One skeleton per function: fentry's target is fixed at load time.
 * The programs attached are added to *progs. */
static int attach_func(struct floor_bpf **out, const char *mode,
		       const char *func, bool exit_only, int *progs)
{
	bool fentry = !strcmp(mode, "fentry");
	struct floor_bpf *s =
		open_with(out,
			  exit_only ? NULL
			  : fentry  ? "fentry_empty"
				    : "kprobe_empty",
			  fentry ? "fexit_empty" : "kretprobe_empty");
	struct bpf_link *l;
	int err;

	if (!s)
		return fail("open", NULL, errno);
	if (fentry) {
		bpf_program__set_attach_target(s->progs.fentry_empty, 0, func);
		bpf_program__set_attach_target(s->progs.fexit_empty, 0, func);
	}
	err = floor_bpf__load(s);
	if (err)
		return fail("load", func, err);
	if (fentry) {
		if (!exit_only) {
			l = bpf_program__attach(s->progs.fentry_empty);
			if (!l)
				return fail("attach fentry", func, errno);
			s->links.fentry_empty = l;
			++*progs;
		}
		l = bpf_program__attach(s->progs.fexit_empty);
		if (!l)
			return fail("attach fexit", func, errno);
		s->links.fexit_empty = l;
		++*progs;
		return 0;
	}
	if (!exit_only) {
		l = bpf_program__attach_kprobe(s->progs.kprobe_empty, false,
					       func);
		if (!l)
			return fail("attach kprobe", func, errno);
		s->links.kprobe_empty = l;
		++*progs;
	}
	l = bpf_program__attach_kprobe(s->progs.kretprobe_empty, true, func);
	if (!l)
		return fail("attach kretprobe", func, errno);
	s->links.kretprobe_empty = l;
	++*progs;
	return 0;
}

static int attach_syscall(struct floor_bpf **out)
{
	struct floor_bpf *s =
		open_with(out, "sys_enter_empty", "sys_exit_empty");
	int err;

	if (!s)
		return fail("open", NULL, errno);
	err = floor_bpf__load(s);
	if (!err)
		err = floor_bpf__attach(s);
	return err ? fail("load/attach raw tracepoints", NULL, err) : 0;
}

/* The empty program on each syscalls:TP; its links in links[]. */
static int attach_tps(struct floor_bpf **out, char **tps, int n,
		      struct bpf_link **links)
{
	struct floor_bpf *s = open_with(out, "tp_empty", NULL);
	int err;

	if (!s)
		return fail("open", NULL, errno);
	err = floor_bpf__load(s);
	if (err)
		return fail("load tracepoint program", NULL, err);
	for (int i = 0; i < n; i++) {
		links[i] = bpf_program__attach_tracepoint(s->progs.tp_empty,
							  "syscalls", tps[i]);
		if (!links[i])
			return fail("attach tracepoint", tps[i], errno);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_link *tplinks[MAX_TPS] = {};
	struct floor_bpf *skel[MAX_FUNCS] = {};
	sigset_t stops, unblocked;
	int n = 0, rc = 0, i;

	bool tp = argc > 1 && !strcmp(argv[1], "tracepoint");
	int progs = 0;

	if (argc < 2 || (strcmp(argv[1], "syscall") && argc < 3) ||
	    argc - 2 > (tp ? MAX_TPS : MAX_FUNCS) ||
	    (strcmp(argv[1], "fentry") && strcmp(argv[1], "kprobe") &&
	     strcmp(argv[1], "syscall") && !tp)) {
		fprintf(stderr, "usage: benchfloor fentry|kprobe FUNC... | "
				"benchfloor syscall | "
				"benchfloor tracepoint TP...\n");
		return 2;
	}
	/* Blocked until the wait, which opens them: a signal that comes
	 * before it ends it at once, and the floor wakes for nothing else. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &unblocked);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!strcmp(argv[1], "syscall")) {
		rc = attach_syscall(&skel[n++]);
		progs = 2;
	} else if (tp) {
		rc = attach_tps(&skel[n++], argv + 2, argc - 2, tplinks);
		progs = argc - 2;
	} else {
		for (i = 2; i < argc && !rc; i++) {
			const char *mode = argv[1], *func = argv[i];
			bool exit_only = false;

			for (;;) {
				if (!strncmp(func, "kprobe:", 7))
					mode = "kprobe";
				else if (!strncmp(func, "fentry:", 7))
					mode = "fentry";
				else if (!strncmp(func, "exit:", 5))
					exit_only = true;
				else
					break;
				func = strchr(func, ':') + 1;
			}
			rc = attach_func(&skel[n++], mode, func, exit_only,
					 &progs);
		}
	}
	if (!rc) {
		fprintf(stderr, "floor: attached %d programs\n", progs);
		while (!stop)
			sigsuspend(&unblocked);
	}
	for (i = 0; i < MAX_TPS; i++)
		bpf_link__destroy(tplinks[i]);
	for (i = 0; i < n; i++)
		floor_bpf__destroy(skel[i]);
	return rc;
}
