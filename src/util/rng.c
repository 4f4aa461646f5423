// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * splitmix64: a 64-bit counter stepped by the golden ratio and mixed by
 * two multiply-xorshift rounds. Only integer arithmetic on __u64, so the
 * sequence does not depend on the machine.
 */
#include "util/rng.h"

void rng__seed(struct rng *r, __u64 seed)
{
	r->s = seed;
}

__u64 rng__next(struct rng *r)
{
	__u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

__u64 rng__below(struct rng *r, __u64 n)
{
	__u64 lim, v;

	if (!n)
		return 0;
	/* Rejection keeps it uniform: drop the top partial block. */
	lim = -n % n;
	do
		v = rng__next(r);
	while (v < lim);
	return v % n;
}

__u64 rng__range(struct rng *r, __u64 lo, __u64 hi)
{
	if (hi <= lo)
		return lo;
	if (hi - lo == ~0ULL)
		return rng__next(r);
	return lo + rng__below(r, hi - lo + 1);
}

int rng__pct(struct rng *r, unsigned int pct)
{
	return rng__below(r, 100) < pct;
}
