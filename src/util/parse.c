// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "util/parse.h"

int size__parse(const char *s, bool zero, __u64 *out)
{
	unsigned long long v;
	int shift = 0;
	char *end;

	/* strtoull itself skips spaces and takes a sign: " -1" is 2^64-1. */
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || (!v && !zero) || v > (~0ULL >> shift))
		return -EINVAL;
	*out = (__u64)v << shift;
	return 0;
}

int seconds__parse(const char *s, double *out)
{
	const char *p = s;
	char *end;
	double v;

	/* Digits and one '.', then an optional exponent: what strtod would
	 * also read as hex, inf or nan is refused before it gets there. */
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (p == s)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != p || !isfinite(v) || !(v > 0) ||
	    v > PARSE_MAX_SECONDS)
		return -EINVAL;
	*out = v;
	return 0;
}
