// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* folioscope trace: attach, wait for -d, the command, or Ctrl-C; report. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "commands.h"
#include "common.h"
#include "session.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = 1;
}

struct trace_args {
	struct common_opts c;
	char **cmd; /* after "--" */
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct trace_args *a = st->input;

	switch (key) {
	case ARGP_KEY_INIT:
		common_opts_target = &a->c;
		break;
	case ARGP_KEY_ARGS:
		/* Declining ARGP_KEY_ARG hands argp's rest of argv here. */
		a->cmd = st->argv + st->next;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp trace_argp = {
	NULL, parse, "[-- CMD [ARGS...]]",
	"Trace the dedupe compare and tmpfs reads until the duration ends, "
	"CMD exits or Ctrl-C, then print the histograms.\vWith CMD, only "
	"CMD's own process is traced.",
	children, NULL, NULL,
};

/* Fork CMD held at a pipe until the probes are attached. */
static pid_t cmd__spawn(char **cmd, int *go_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		fprintf(stderr, "folioscope: trace: cannot run '%s': %s\n",
			cmd[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a = { .c = { .mode = PLAN_AUTO } };
	struct session s = {};
	struct fs_report r;
	struct timespec t0, now;
	pid_t child = 0;
	int go = -1, err, status = 0;

	argp_parse(&trace_argp, argc, argv, 0, NULL, &a);
	err = session__check_root("trace");
	if (err)
		return 1;
	session__parse_targets(a.c.targets ? a.c.targets : "all", s.want);
	if (a.cmd && a.cmd[0]) {
		child = cmd__spawn(a.cmd, &go);
		if (child < 0) {
			fprintf(stderr, "folioscope: trace: cannot fork: %s\n",
				strerror(-child));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = session__start(&s, a.c.mode, child > 0 ? (__u32)child : 0);
	if (err)
		goto cleanup;
	if (go >= 0) {
		if (write(go, "g", 1) != 1)
			err = -errno;
		close(go);
		go = -1;
	}
	if (child)
		fprintf(stderr, "folioscope: tracing '%s'...\n", a.cmd[0]);
	else if (!a.c.duration)
		fprintf(stderr, "folioscope: tracing... Ctrl-C to stop\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!exiting) {
		if (child && waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (a.c.duration &&
		    (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >=
			    a.c.duration)
			break;
		usleep(50000);
	}
	model__init(&r);
	err = session__collect(&s, &r);
	if (!err)
		err = common__output(&a.c, &r);
cleanup:
	if (go >= 0)
		close(go); /* child sees EOF and exits without running */
	if (child > 0) {
		if (err || exiting)
			kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	session__stop(&s);
	return err ? 1 : 0;
}
