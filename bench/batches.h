/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The benchmark loops' timing: calls are timed in batches of BATCH, and a
 * loop reports the fastest batch, the 10th percentile and the median of
 * the per-call means. Short batches, so that some fall between the other
 * load a shared machine has; the fastest are the least disturbed. Header
 * only: each loop is one static binary of one file.
 */
#ifndef BENCH_BATCHES_H
#define BENCH_BATCHES_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCH 50

struct batches {
	double *ns; /* per-call mean of each full batch */
	size_t n, cap;
};

static inline unsigned long long batches__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Room for the batches of CALLS calls; 0 or -1 (out of memory). */
static inline int batches__init(struct batches *b, unsigned long long calls)
{
	b->n = 0;
	b->cap = calls / BATCH + 1;
	b->ns = calloc(b->cap, sizeof(*b->ns));
	return b->ns ? 0 : -1;
}

/* One batch of CALLS calls that took NS: kept only if it is a full one. */
static inline void batches__add(struct batches *b, unsigned long long ns,
				unsigned long long calls)
{
	if (calls == BATCH && b->n < b->cap)
		b->ns[b->n++] = (double)ns / calls;
}

static int batches__cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* q[0] fastest, q[1] 10th percentile, q[2] median; zeros without a full
 * batch. Sorts the batches. */
static inline void batches__quantiles(struct batches *b, double q[3])
{
	q[0] = q[1] = q[2] = 0;
	if (!b->n)
		return;
	qsort(b->ns, b->n, sizeof(*b->ns), batches__cmp);
	q[0] = b->ns[0];
	q[1] = b->ns[b->n / 10];
	q[2] = b->ns[b->n / 2];
}

/* The fields every loop's result line carries, without a newline. */
static inline void batches__print(FILE *f, const double q[3])
{
	fprintf(f,
		"best_ns_per_call=%.1f p10_ns_per_call=%.1f "
		"median_ns_per_call=%.1f",
		q[0], q[1], q[2]);
}

static inline void batches__free(struct batches *b)
{
	free(b->ns);
	b->ns = NULL;
}

#endif
