// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Running host tools (apt-get, dpkg-deb, depmod, ldd, cpio, qemu) with
 * fork/exec. No shell is involved, so user-supplied paths and arguments are
 * never parsed twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "vm_internal.h"

/*
 * Child side: undo what the parent set for itself, wire up the fds and
 * exec. Handlers are reset by exec, but an ignored SIGPIPE or a blocked
 * mask would be inherited and confuse the tool. A failed exec reports its
 * errno through report_fd so the parent can say "No such file" rather
 * than "exited with 127".
 */
static void child_exec(char *const argv[], const struct proc_io *io,
		       int report_fd, pid_t parent)
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
	execvp(argv[0], argv);
fail:
	err = errno;
	if (write(report_fd, &err, sizeof(err)) < 0)
		_exit(126);
	_exit(127);
}

pid_t vm_proc__spawn(char *const argv[], const struct proc_io *io)
{
	pid_t parent = getpid(), pid;
	int rep[2], err = 0;
	ssize_t r;

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
		child_exec(argv, io, rep[1], parent);
	}
	close(rep[1]);
	do
		r = read(rep[0], &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	close(rep[0]);
	if (r == (ssize_t)sizeof(err)) {
		vm_proc__wait(pid);
		return -(err ? err : EIO);
	}
	return pid;
}

int vm_proc__wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -EIO;
}

int vm_proc__run(char *const argv[], const struct proc_io *io)
{
	pid_t pid = vm_proc__spawn(argv, io);

	if (pid < 0)
		return pid;
	return vm_proc__wait(pid);
}

int vm_proc__capture(char *const argv[], const char *cwd, int err_fd,
		     char **out)
{
	struct proc_io io = { .cwd = cwd, .in_fd = -1, .err_fd = err_fd };
	size_t len = 0, cap = 4096;
	int p[2] = { -1, -1 }, null_fd = -1, err;
	char *buf = NULL, *nb;
	pid_t pid = -1;
	ssize_t r;

	*out = NULL;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC)) {
		err = -errno;
		goto cleanup;
	}
	if (err_fd < 0) {
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		io.err_fd = null_fd;
	}
	io.out_fd = p[1];
	pid = vm_proc__spawn(argv, &io);
	close(p[1]);
	p[1] = -1;
	if (pid < 0) {
		err = pid;
		goto cleanup;
	}
	for (;;) {
		if (len + 1 >= cap) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto cleanup;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(p[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		len += r;
	}
	buf[len] = '\0';
	err = vm_proc__wait(pid);
	pid = -1;
	if (err >= 0) {
		*out = buf;
		buf = NULL;
	}
cleanup:
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (null_fd >= 0)
		close(null_fd);
	if (pid > 0) {
		kill(pid, SIGKILL);
		vm_proc__wait(pid);
	}
	free(buf);
	return err;
}

void vm_proc__print_argv(FILE *f, char *const argv[])
{
	const char *safe =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"0123456789-_./=:,+@%";
	int i;

	for (i = 0; argv[i]; i++) {
		const char *s = argv[i];

		if (i)
			fputc(' ', f);
		if (*s && strspn(s, safe) == strlen(s)) {
			fputs(s, f);
			continue;
		}
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
	}
	fputc('\n', f);
}
