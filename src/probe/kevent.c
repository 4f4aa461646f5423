// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kprobes and kretprobes as tracefs events ("p:" / "r:" lines in
 * kprobe_events) with a BPF program on a perf event of each, instead of
 * libbpf's perf-PMU kprobes. The kernel counts the runs a probe missed
 * (a kretprobe out of instances, a kprobe hit while another runs) in
 * every kprobe, but shows the count only for tracefs events, in the
 * third column of kprobe_profile: a PMU kprobe's count is not visible
 * on 6.1 (bpf_link info carries it only from 6.7). Events are
 * folioscope_PID/fsPID_{p,r}N_FUNCTION: kprobe_profile names events
 * without their group, so the pid is in the event's name too. A run
 * that was killed leaves its events behind, and the next one removes
 * those whose process is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "kevent.h"
#include "util/util.h"
#include "util/err.h"
#include "util/fs.h"

#define KEV_GROUP "folioscope_"

/* The tracefs mount to use now: a mounted one where file has mode, else
 * one attached nowhere (nothing to unmount if we are killed). */
static int tracefs__find(struct kevents *k, char *dir, size_t n,
			 const char *file, int mode)
{
	static const char *const where[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char path[PATH_MAX];
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		snprintf(path, sizeof(path), "%s/%s", where[i], file);
		if (!access(path, mode)) {
			snprintf(dir, n, "%s", where[i]);
			return 0;
		}
	}
	if (!k->detached) {
		err = fs__mount_detached("tracefs", false);
		if (err < 0)
			return err;
		k->detached = true;
		k->detached_fd = err;
	}
	snprintf(dir, n, "/proc/self/fd/%d", k->detached_fd);
	return 0;
}

/* Let a detached tracefs mount go; the files opened through it keep it
 * alive as long as they need it. */
static void tracefs__release(struct kevents *k)
{
	if (!k->detached)
		return;
	close(k->detached_fd);
	k->detached = false;
}

/* Remove the events of folioscope runs whose process is gone. */
static void kevents__sweep(struct kevents *k, const char *dir)
{
	char path[PATH_MAX], line[512], cmd[320];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *g = strstr(line, ":" KEV_GROUP), *sp;
		long pid;

		if (!g)
			continue;
		g++;
		sp = strchr(g, ' ');
		if (sp)
			*sp = '\0';
		pid = strtol(g + strlen(KEV_GROUP), NULL, 10);
		if (pid <= 0 || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s\n", g);
		if (write(k->events_fd, cmd, strlen(cmd)) < 0)
			continue;
	}
	fclose(fp);
}

int kevents__open(struct kevents *k)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int err;

	if (k->opened)
		return 0;
	err = tracefs__find(k, dir, sizeof(dir), "kprobe_events", W_OK);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	k->opened = true;
	k->events_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/kprobe_profile", dir);
	k->profile_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (k->events_fd < 0 || k->profile_fd < 0) {
		err = -errno;
		kevents__close(k);
		return err;
	}
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
	kevents__sweep(k, dir);
	return 0;
}

/* Test hook: the instances each kretprobe gets (0: the kernel's default). */
static unsigned int maxactive(void)
{
	const char *env = getenv("FOLIOSCOPE_KRETPROBE_MAXACTIVE");

	return env ? (unsigned int)strtoul(env, NULL, 10) : 0;
}

static int read_id(const char *path, __u64 *id)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	*id = strtoull(buf, NULL, 10);
	return 0;
}

static void event__remove(struct kevents *k, const char *name)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "-:%s\n", name);
	if (write(k->events_fd, cmd, strlen(cmd)) < 0)
		err__print(NULL, -errno, "cannot remove kprobe event '%s'",
			   name);
}

/* perf_event_open of the tracepoint whose id file is path, prog on it. */
static struct bpf_link *perf__attach(const struct bpf_program *prog,
				     const char *path)
{
	struct perf_event_attr attr = {};
	struct bpf_link *l;
	__u64 id = 0;
	int pfd, err;

	err = read_id(path, &id);
	if (err) {
		errno = -err;
		return NULL;
	}
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1,
			   PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	l = bpf_program__attach_perf_event(prog, pfd);
	if (!l) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return l;
}

struct bpf_link *kevents__attach(struct kevents *k,
				 const struct bpf_program *prog, bool retprobe,
				 const char *sym)
{
	char name[160], cmd[400], path[PATH_MAX + 192], ev[96];
	struct bpf_link *l;
	unsigned int ma = retprobe ? maxactive() : 0;
	size_t i;
	int err;

	if (k->nevents >= KEV_MAX) {
		errno = ENOSPC;
		return NULL;
	}
	/* Event names are C identifiers (a clone's dots become '_') of
	 * at most 63 characters. */
	snprintf(ev, sizeof(ev), "fs%d_%c%d_%s", (int)getpid(),
		 retprobe ? 'r' : 'p', k->seq++, sym);
	ev[63] = '\0';
	for (i = 0; ev[i]; i++)
		if (ev[i] != '_' && (ev[i] < '0' || ev[i] > '9') &&
		    (ev[i] < 'a' || ev[i] > 'z') &&
		    (ev[i] < 'A' || ev[i] > 'Z'))
			ev[i] = '_';
	snprintf(name, sizeof(name), KEV_GROUP "%d/%s", (int)getpid(), ev);
	if (ma)
		snprintf(cmd, sizeof(cmd), "r%u:%s %s\n", ma, name, sym);
	else
		snprintf(cmd, sizeof(cmd), "%c:%s %s\n", retprobe ? 'r' : 'p',
			 name, sym);
	if (write(k->events_fd, cmd, strlen(cmd)) < 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/%s/id", k->dir, name);
	l = perf__attach(prog, path);
	if (!l) {
		err = errno;
		event__remove(k, name);
		errno = err;
		return NULL;
	}
	snprintf(k->name[k->nevents], sizeof(k->name[0]), "%s", name);
	snprintf(k->event[k->nevents++], sizeof(k->event[0]), "%s", ev);
	return l;
}

struct bpf_link *kevents__attach_tp(struct kevents *k,
				    const struct bpf_program *prog,
				    const char *group, const char *name)
{
	char rel[192], path[PATH_MAX + 192];
	int err;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", group, name);
	/* Syscall-level steps have no kprobes: the directory is ours. */
	if (!k->dir[0]) {
		err = tracefs__find(k, k->dir, sizeof(k->dir), rel, R_OK);
		if (err) {
			k->dir[0] = '\0';
			errno = -err;
			return NULL;
		}
	}
	snprintf(path, sizeof(path), "%s/%s", k->dir, rel);
	return perf__attach(prog, path);
}

__u64 kevents__missed(const struct kevents *k)
{
	char buf[65536], *line, *save = NULL;
	__u64 missed = 0;
	ssize_t n;
	size_t len = 0;

	if (!k->opened || !k->nevents || lseek(k->profile_fd, 0, SEEK_SET) < 0)
		return 0;
	while (len < sizeof(buf) - 1 &&
	       (n = read(k->profile_fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	/* "  EVENT  HITS  MISSED" per event. */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char ename[192];
		unsigned long long hits, miss;

		if (sscanf(line, "%191s %llu %llu", ename, &hits, &miss) != 3)
			continue;
		for (int i = 0; i < k->nevents; i++)
			if (!strcmp(ename, k->event[i]))
				missed += miss;
	}
	return missed;
}

void kevents__close(struct kevents *k)
{
	if (!k->opened) {
		tracefs__release(k);
		k->dir[0] = '\0';
		return;
	}
	if (k->events_fd >= 0)
		for (int i = 0; i < k->nevents; i++)
			event__remove(k, k->name[i]);
	k->nevents = 0;
	if (k->events_fd >= 0)
		close(k->events_fd);
	if (k->profile_fd >= 0)
		close(k->profile_fd);
	k->events_fd = -1;
	k->profile_fd = -1;
	k->opened = false;
	tracefs__release(k);
	k->dir[0] = '\0';
}

void kevents__done_setup(struct kevents *k)
{
	tracefs__release(k);
}
