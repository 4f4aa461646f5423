// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dedupe's second mutator (run dedupe --ops N --jobs J): while the
 * mutator's FIDEDUPERANGE runs, one store into one of its destinations,
 * as xfstests' generic/162 and 163 (writes) and generic/630 (mmap writes)
 * race their dedupes. A remap must keep such a store out between its
 * compare and its remap (the inode locks keep a pwrite out; the mapping's
 * invalidate lock the page fault and page_mkwrite of a store through a
 * mapping whose pages the remap's writeback made read-only); a remap that
 * does not shares the source's blocks over bytes the store just wrote,
 * and the store is lost.
 *
 * The store begins a delay after the ioctl, drawn below the recent
 * ioctls' time, so that it lands before the compare, between the compare
 * and the remap, or after; the thread spins for the ioctl's start and
 * for the delay, because a wakeup costs more than that window. What the
 * ioctl may answer and what the file must hold afterwards are ops.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/rng.h"
#include "workload/ops_run.h"
#include "workload/pattern.h"

/* The store's layout, for the watchdog's report. */
static void store_describe(const void *arg, char *buf, size_t n)
{
	const struct ops_storer *st = arg;
	const struct wl_ops *s = st->s;

	snprintf(buf, n,
		 "ops seed=%llu jobs=%u store by %s file %u (%s) off %llu len "
		 "%llu during #%u dedupe",
		 (unsigned long long)s->seed, s->jobs,
		 st->by_mmap ? "mapping" : "pwrite", st->w.file,
		 s->geo.label[st->w.file], (unsigned long long)st->w.off,
		 (unsigned long long)st->w.len, st->index);
}

static void store_make(struct ops_storer *st)
{
	struct wl_ops *s = st->s;
	__u64 begin;

	while (!__atomic_load_n(&st->go, __ATOMIC_ACQUIRE))
		;
	begin = wl__now_ns();
	while (wl__now_ns() - begin < st->delay_ns)
		;
	wl_watch__enter(s->watch, OPS_STORE_SLOT,
			wl__deadline_ns(s->deadline_base, st->w.len, 1),
			store_describe, st);
	st->t0 = wl__now_ns();
	if (st->by_mmap) {
		memcpy(st->at, st->bytes, st->w.len);
		st->ret = (long long)st->w.len;
	} else {
		ssize_t r =
			pwrite(st->fd, st->bytes, st->w.len, (off_t)st->w.off);

		st->ret = r < 0 ? -errno : r;
	}
	wl_watch__leave(s->watch, OPS_STORE_SLOT);
}

static void *store_main(void *arg)
{
	struct ops_storer *st = arg;

	for (;;) {
		pthread_mutex_lock(&st->lock);
		while (!st->armed && !st->quit)
			pthread_cond_wait(&st->cond, &st->lock);
		if (st->quit) {
			pthread_mutex_unlock(&st->lock);
			return NULL;
		}
		st->armed = false;
		pthread_mutex_unlock(&st->lock);
		store_make(st);
		pthread_mutex_lock(&st->lock);
		st->made = true;
		pthread_cond_broadcast(&st->cond);
		pthread_mutex_unlock(&st->lock);
	}
}

int ops__store_start(struct wl_ops *s)
{
	struct ops_storer *st = &s->store;
	int err;

	memset(st, 0, sizeof(*st));
	st->s = s;
	st->bytes = malloc(OPS_STORE_MAX);
	if (!st->bytes)
		return -ENOMEM;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	err = -pthread_create(&st->thread, NULL, store_main, st);
	if (err) {
		wl__err(s->wl, err, "start the second mutator");
		ops__store_stop(s);
		return err;
	}
	st->running = true;
	return 0;
}

void ops__store_stop(struct wl_ops *s)
{
	struct ops_storer *st = &s->store;

	if (!st->s)
		return;
	if (st->running) {
		pthread_mutex_lock(&st->lock);
		st->quit = true;
		pthread_cond_broadcast(&st->cond);
		pthread_mutex_unlock(&st->lock);
		pthread_join(st->thread, NULL);
		st->running = false;
	}
	s->race_stores += st->stores;
	s->race_stores_mapped += st->by_mapping;
	s->race_stores_inside += st->inside;
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->cond);
	free(st->bytes);
	st->bytes = NULL;
	st->s = NULL;
}

/* The store through a shared mapping of its pages, each read once so
 * that the store's first touch is a write fault of a page in memory. */
static bool store_map(struct wl_ops *s, struct ops_storer *st)
{
	__u64 pg = st->w.off / s->page * s->page;

	st->map_len = st->w.off + st->w.len - pg;
	st->map = mmap(NULL, st->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       st->fd, (off_t)pg);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		return false;
	}
	for (__u64 o = 0; o < st->map_len; o += s->page)
		(void)*(volatile unsigned char *)(st->map + o);
	st->at = st->map + (st->w.off - pg);
	return true;
}

bool ops__store_arm(struct wl_ops *s, const struct wl_op *op, __u32 index,
		    const __u64 *cmp_len)
{
	struct ops_storer *st = &s->store;
	struct rng g;

	if (!st->running || !wl_op__store(op, s->seed, index, &s->geo, cmp_len,
					  &st->w, &st->dest, &st->by_mmap))
		return false;
	st->index = index;
	st->fd = s->f[st->w.file].fd;
	wl_pattern__fill(st->bytes, st->w.base, st->w.len);
	/* A mapping refused is a pwrite's store instead: the same bytes. */
	if (st->by_mmap && !store_map(s, st))
		st->by_mmap = false;
	/* Where in the ioctl it lands is the kernel's timing's: the delay
	 * is drawn, not replayed. */
	rng__seed(&g, s->seed ^ wl__now_ns());
	if (st->aim_ns && rng__pct(&g, 50))
		st->delay_ns = rng__range(&g, st->aim_ns / 2,
					  st->aim_ns + st->aim_ns / 2);
	else
		st->delay_ns = rng__below(&g, st->ioctl_ns + 1);
	st->made = false;
	__atomic_store_n(&st->go, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&st->lock);
	st->armed = true;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	return true;
}

void ops__store_go(struct wl_ops *s)
{
	__atomic_store_n(&s->store.go, 1, __ATOMIC_RELEASE);
}

void ops__store_wait(struct wl_ops *s, bool armed, __u64 ioctl_t0,
		     __u64 ioctl_t1)
{
	struct ops_storer *st = &s->store;

	/* The delays follow the ioctls' time, the newest weighing most. */
	st->ioctl_ns = st->ioctl_ns
			       ? (3 * st->ioctl_ns + (ioctl_t1 - ioctl_t0)) / 4
			       : ioctl_t1 - ioctl_t0;
	if (!armed)
		return;
	st->ioctl_t0 = ioctl_t0;
	st->ioctl_t1 = ioctl_t1;
	pthread_mutex_lock(&st->lock);
	while (!st->made)
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
	st->stores++;
	st->by_mapping += st->by_mmap;
	st->inside += st->t0 >= ioctl_t0 && st->t0 <= ioctl_t1;
}

void ops__store_saw(struct wl_ops *s, bool before_compare)
{
	struct ops_storer *st = &s->store;
	__u64 step;

	if (!st->by_mmap)
		return; /* a pwrite waits for the inode lock, not the compare */
	if (!st->aim_ns)
		st->aim_ns = st->ioctl_ns / 2 + 1;
	/* Toward the delay where a quarter of the stores land before the
	 * compare: those just after it are the ones a remap must keep
	 * out. */
	step = st->aim_ns / 16 + 1000;
	if (before_compare)
		st->aim_ns += 3 * step;
	else
		st->aim_ns =
			st->aim_ns > step + 1000 ? st->aim_ns - step : 1000;
}

void ops__store_done(struct wl_ops *s)
{
	struct ops_storer *st = &s->store;

	if (st->map)
		munmap(st->map, st->map_len);
	st->map = NULL;
}
