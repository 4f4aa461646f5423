// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the command line's size, count and seconds parsers
 * (src/util/parse.c), with their contracts checked: a size that parses
 * prints back (in plain bytes) to itself, a count is from 1 to its
 * maximum and prints back to itself without units, seconds are finite
 * and in range.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, back[32];
	__u64 v, w;
	double d;

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (int zero = 0; zero < 2; zero++) {
		if (size__parse(s, zero, &v))
			continue;
		if (!zero && !v)
			abort();
		snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
		if (size__parse(back, true, &w) || w != v)
			abort();
	}
	for (int units = 0; units < 2; units++) {
		if (count__parse(s, units, 1000000, &v))
			continue;
		if (!v || v > 1000000)
			abort();
		snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
		if (count__parse(back, false, 1000000, &w) || w != v)
			abort();
	}
	if (!seconds__parse(s, &d) &&
	    (!isfinite(d) || !(d > 0) || d > PARSE_MAX_SECONDS))
		abort();
	free(s);
	return 0;
}
