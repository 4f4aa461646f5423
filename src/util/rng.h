/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A small seeded pseudo-random generator (splitmix64): the same seed
 * gives the same numbers on every machine and libc, so a seed printed by
 * one run draws the same layouts on another.
 */
#ifndef FS_RNG_H
#define FS_RNG_H

#include <linux/types.h>

struct rng {
	__u64 s;
};

void rng__seed(struct rng *r, __u64 seed);
__u64 rng__next(struct rng *r);
/* Uniform in [0, n); 0 for n == 0. */
__u64 rng__below(struct rng *r, __u64 n);
/* Uniform in [lo, hi]. */
__u64 rng__range(struct rng *r, __u64 lo, __u64 hi);
/* True with probability pct / 100. */
int rng__pct(struct rng *r, unsigned int pct);

#endif /* FS_RNG_H */
