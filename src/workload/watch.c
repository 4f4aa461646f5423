// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The watchdog of a workload's kernel calls: a thread that wakes once a
 * second and looks at the calls in flight. A call still in the kernel
 * past its layout's deadline never returns as far as the run can tell,
 * and the thread that made it cannot be interrupted: the watchdog says
 * which layout and call, quotes the thread's kernel stack from
 * /proc/self/task/TID/stack where it can be read, records a "timeout"
 * failure, has the run write its report (the hook wl_watch__on_stuck
 * set: the JSON and text with what the run saw, the timeout among its
 * failures) and ends the process with exit status 1. A thread stuck in
 * the kernel uninterruptibly keeps the process from ever finishing its
 * exit, so in a folioscope vm guest the guest's init is told first
 * (proc__announce_exit). The workload's mounts live in the process's own
 * mount namespace and go with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/proc.h"
#include "workload/workload_internal.h"

struct wl_watch_slot {
	__u64 since; /* CLOCK_MONOTONIC ns the call started, 0: none */
	__u64 limit; /* ns it may take */
	pid_t tid;
	wl_watch_describe_fn describe;
	const void *arg;
};

struct wl_watch {
	const char *wl;
	struct fs_report *r;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct wl_watch_slot slot[WL_WATCH_SLOTS];
};

/* The run's last words: one workload runs per process. */
static wl_stuck_fn stuck_hook;
static void *stuck_ctx;

void wl_watch__on_stuck(wl_stuck_fn fn, void *ctx)
{
	stuck_hook = fn;
	stuck_ctx = ctx;
}

__u64 wl__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

const char *wl__ms_text(__s64 ns, char *buf, size_t n)
{
	__u64 a = (__u64)(ns < 0 ? -ns : ns);

	snprintf(buf, n, "%s%llu.%03llu", ns < 0 ? "-" : "",
		 (unsigned long long)(a / 1000000),
		 (unsigned long long)(a / 1000 % 1000));
	return buf;
}

/* The kernel stack of thread tid as one line ("a <- b <- c"), or why
 * not. */
static void task_stack(pid_t tid, char *buf, size_t n)
{
	char path[64], raw[2048], *line, *save = NULL;
	size_t used = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, raw, sizeof(raw) - 1);
	if (fd >= 0)
		close(fd);
	if (len <= 0) {
		snprintf(buf, n, "not readable (%s)",
			 len < 0 ? strerror(errno) : "empty");
		return;
	}
	raw[len] = '\0';
	buf[0] = '\0';
	for (line = strtok_r(raw, "\n", &save); line && used + 1 < n;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "[<0>] pipe_read+0x2f1/0x470": keep the symbol. */
		char *sym = strchr(line, ' ');

		sym = sym ? sym + 1 : line;
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 used ? " <- " : "", sym);
	}
}

static void fire(struct wl_watch *w, const struct wl_watch_slot *s, __u64 now)
{
	char lay[320] = "", stack[640], got[96], want[96];

	if (s->describe)
		s->describe(s->arg, lay, sizeof(lay));
	task_stack(s->tid, stack, sizeof(stack));
	snprintf(want, sizeof(want), "the call returns within %llu s",
		 (unsigned long long)(s->limit / 1000000000ULL));
	snprintf(got, sizeof(got), "still in the kernel after %llu s",
		 (unsigned long long)((now - s->since) / 1000000000ULL));
	wl__err(w->wl, 0,
		"timeout: a call of layout '%s' has not returned after %llu s "
		"(deadline %llu s); kernel stack of thread %d: %s",
		lay, (unsigned long long)((now - s->since) / 1000000000ULL),
		(unsigned long long)(s->limit / 1000000000ULL), (int)s->tid,
		stack);
	/* The workload cannot finish while the call holds its thread:
	 * the report is what the run saw so far, this failure among it. */
	model__check_kind(w->r, false, WL_KIND_TIMEOUT, lay, want, got);
	if (stuck_hook) {
		stuck_hook(stuck_ctx, stack);
	} else {
		printf("validation: %llu checks, %llu failures\n"
		       "  FAIL (%s) %s\n    expected: %s\n    got:      %s\n"
		       "    kernel stack: %s\n",
		       (unsigned long long)w->r->validation.checks,
		       (unsigned long long)w->r->validation.failures,
		       WL_KIND_TIMEOUT, lay, want, got, stack);
	}
	fflush(stdout);
	fflush(stderr);
	proc__announce_exit(1);
	_exit(1);
}

static void *watch_loop(void *arg)
{
	struct wl_watch *w = arg;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		__u64 now = wl__now_ns();

		for (int i = 0; i < WL_WATCH_SLOTS; i++) {
			struct wl_watch_slot *s = &w->slot[i];
			__u64 since =
				__atomic_load_n(&s->since, __ATOMIC_ACQUIRE);

			if (since && now > since && now - since > s->limit)
				fire(w, s, now);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec++;
		pthread_cond_timedwait(&w->cond, &w->lock, &until);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int wl_watch__start(struct wl_watch **out, const char *wl, struct fs_report *r)
{
	struct wl_watch *w = calloc(1, sizeof(*w));
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->wl = wl;
	w->r = r;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	err = -pthread_create(&w->thread, NULL, watch_loop, w);
	if (err) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

void wl_watch__enter(struct wl_watch *w, int slot, __u64 limit_ns,
		     wl_watch_describe_fn describe, const void *arg)
{
	struct wl_watch_slot *s;

	if (!w || slot < 0 || slot >= WL_WATCH_SLOTS)
		return;
	s = &w->slot[slot];
	s->limit = limit_ns;
	s->tid = gettid();
	s->describe = describe;
	s->arg = arg;
	__atomic_store_n(&s->since, wl__now_ns(), __ATOMIC_RELEASE);
}

void wl_watch__leave(struct wl_watch *w, int slot)
{
	if (!w || slot < 0 || slot >= WL_WATCH_SLOTS)
		return;
	__atomic_store_n(&w->slot[slot].since, 0, __ATOMIC_RELEASE);
}

void wl_watch__stop(struct wl_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}
