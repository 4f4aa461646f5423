// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Finding and running external tools; see proc.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "util/clock.h"
#include "util/proc.h"

/* First dir of the ':'-separated list holding an executable name. */
static int find_in(const char *list, const char *name, char *out, size_t len)
{
	char *dirs, *dir, *save = NULL;
	int err = -ENOENT;

	dirs = strdup(list);
	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		if (snprintf(out, len, "%s/%s", dir, name) >= (int)len)
			continue;
		if (!stat(out, &st) && S_ISREG(st.st_mode) &&
		    !access(out, X_OK)) {
			err = 0;
			break;
		}
	}
	free(dirs);
	return err;
}

int exe__find(const char *name, const struct exe_search *s, char *out,
	      size_t len)
{
	const char *path = getenv("PATH");
	int err;

	if (strchr(name, '/')) {
		if (access(name, X_OK))
			return -errno;
		if (snprintf(out, len, "%s", name) >= (int)len)
			return -ENAMETOOLONG;
		return 0;
	}
	if (!path || !*path)
		path = s->path_default;
	err = find_in(path, name, out, len);
	if (err == -ENOENT && s->extra)
		err = find_in(s->extra, name, out, len);
	return err;
}

/*
 * Child side: undo what the parent set for itself, wire up the fds and
 * exec. Handlers are reset by exec, but an ignored SIGPIPE or a blocked
 * mask would be inherited and confuse the tool. A failed exec reports its
 * errno through report_fd so the parent can say "No such file" rather
 * than "exited with 127".
 */
static void child_exec(const char *exe, char *const argv[],
		       const struct proc_io *io, int report_fd, pid_t parent)
{
	sigset_t none;
	int fd, err;

	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (io->own_pgrp)
		setpgid(0, 0);
	if (io->pdeathsig) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The parent may have died before prctl() took effect. */
		if (getppid() != parent)
			_exit(127);
	}

	fd = io->in_fd;
	if (fd < 0)
		fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		goto fail;
	if (io->out_fd >= 0 && dup2(io->out_fd, 1) < 0)
		goto fail;
	if (io->err_fd >= 0 && dup2(io->err_fd, 2) < 0)
		goto fail;
	if (io->cwd && chdir(io->cwd))
		goto fail;
	if (exe)
		execv(exe, argv);
	else
		execvp(argv[0], argv);
fail:
	err = errno;
	if (write(report_fd, &err, sizeof(err)) < 0)
		_exit(126);
	_exit(127);
}

pid_t proc__spawn(char *const argv[], const struct proc_io *io)
{
	pid_t parent = getpid(), pid;
	char exe[PATH_MAX];
	int rep[2], err = 0;
	ssize_t r;

	/* In the parent, so the child only has to execv. */
	if (io->search) {
		err = exe__find(argv[0], io->search, exe, sizeof(exe));
		if (err)
			return err;
	}
	if (pipe2(rep, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(rep[0]);
		close(rep[1]);
		return err;
	}
	if (pid == 0) {
		close(rep[0]);
		child_exec(io->search ? exe : NULL, argv, io, rep[1], parent);
	}
	close(rep[1]);
	do
		r = read(rep[0], &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	close(rep[0]);
	if (r == (ssize_t)sizeof(err)) {
		proc__wait(pid);
		return -(err ? err : EIO);
	}
	return pid;
}

int proc__wait_status(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int proc__wait(pid_t pid)
{
	int st, err;

	err = proc__wait_status(pid, &st);
	if (err)
		return err;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -EIO;
}

/* Signed, so that an unset deadline (-1) and one passed compare. */
static long long ms_now(void)
{
	return (long long)clock__now_ms();
}

/* What the child wrote on w->out_fd so far, appended to w->out; false
 * at its end (or an error: nothing more will come). */
static bool out_read(struct proc_wait *w)
{
	char buf[16384], *grown;
	ssize_t n = read(w->out_fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	grown = realloc(w->out, w->out_len + (size_t)n + 1);
	if (!grown)
		return false;
	memcpy(grown + w->out_len, buf, (size_t)n);
	w->out = grown;
	w->out_len += (size_t)n;
	w->out[w->out_len] = '\0';
	return true;
}

/* The announcement on the fifo, if a line is there. */
static void announce_read(struct proc_wait *w)
{
	char line[16];
	ssize_t n;

	while (w->announce_fd >= 0 &&
	       (n = read(w->announce_fd, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		w->announced = atoi(line);
		w->said = true;
	}
}

int proc__wait_announced(pid_t pid, struct proc_wait *w)
{
	/* 0: the child's pidfd, 1: the fifo, 2: its stdout. */
	struct pollfd p[3];
	long long until = -1, left;
	int fd, ret;

	w->exited = w->said = false;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	p[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = w->announce_fd, .events = POLLIN };
	p[2] = (struct pollfd){ .fd = w->out_fd, .events = POLLIN };
	for (;;) {
		/* A kernel without pidfds: its output to the end, then its
		 * exit. */
		if (fd < 0 && p[2].fd < 0)
			break;
		left = until < 0 ? -1 : until - ms_now();
		if (until >= 0 && left <= 0) {
			close(fd);
			return 0; /* said, and lingers */
		}
		ret = poll(fd < 0 ? p + 2 : p, fd < 0 ? 1 : 3, (int)left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			return ret;
		}
		if (p[2].fd >= 0 && p[2].revents && !out_read(w))
			p[2].fd = -1;
		if (fd >= 0 && p[1].fd >= 0 && p[1].revents && until < 0) {
			announce_read(w);
			/* Said and done, most often; else a thread of it
			 * is stuck in the kernel and it never will be. */
			if (w->said)
				until = ms_now() + w->grace_ms;
		}
		if (fd >= 0 && p[0].revents)
			break;
	}
	if (fd >= 0)
		close(fd);
	/* Gone: the rest of its output (a grace for what it handed on),
	 * and what it said before it went is its own, not the next
	 * child's. */
	until = ms_now() + w->grace_ms;
	while (p[2].fd >= 0 && (left = until - ms_now()) > 0) {
		ret = poll(p + 2, 1, (int)left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0 || !out_read(w))
			break;
	}
	announce_read(w);
	ret = proc__wait_status(pid, &w->status);
	w->exited = !ret;
	return ret;
}

void proc__announce_exit(int status)
{
	const char *path = getenv("FOLIOSCOPE_VM_EXIT");
	char line[16];
	int fd, n;

	if (!path || !*path)
		return;
	/* Non-blocking: without a reader (init gone) there is no one to
	 * tell. */
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%d\n", status);
	if (write(fd, line, (size_t)n) != n) {
		/* init learns it from the command's own exit, if ever */
	}
	close(fd);
}
