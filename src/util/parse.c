// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/parse.h"
#include "util/util.h"

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

int count__parse(const char *s, bool units, __u64 max, __u64 *out)
{
	unsigned long long v;

	if (units) {
		if (size__parse(s, false, &v))
			return -EINVAL;
	} else {
		if (!isdigit((unsigned char)*s) || s[strspn(s, "0123456789")])
			return -EINVAL;
		errno = 0;
		v = strtoull(s, NULL, 10);
		/* Digits only: the one error left is a value past 2^64. */
		if (errno)
			return -ERANGE;
		if (!v)
			return -EINVAL;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
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

int duration__parse(const char *s, __u64 *ns)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = { { "ns", 1 },  { "us", 1e3 }, { "ms", 1e6 },
		      { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	const char *p = s;
	int dots = 0;
	char *end;
	double v;

	/* Digits and at most one '.': no sign, hex, exponent, inf or nan. */
	for (; isdigit((unsigned char)*p) || *p == '.'; p++)
		dots += *p == '.';
	if (p == s || dots > 1 || (p - s == 1 && dots))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].name))
			continue;
		errno = 0;
		v = strtod(s, &end);
		if (errno || end != p || !isfinite(v) || !(v > 0))
			return -EINVAL;
		v *= units[i].ns;
		if (v > PARSE_MAX_SECONDS * 1e9)
			return -EINVAL;
		*ns = v < 1 ? 1 : (__u64)(v + 0.5);
		return 0;
	}
	return -EINVAL;
}

int index_list__parse(const char *s, __u32 n, __u32 *idx, __u32 *count)
{
	const char *p = s;
	__u32 k = 0;
	__u64 prev = 0;

	while (*p) {
		char *end;
		unsigned long long v;

		/* strtoull takes a sign and blanks: digits only here. */
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p || v >= n || (k && v <= prev) ||
		    (*end && (*end != ',' || !end[1])))
			return -EINVAL;
		if (idx)
			idx[k] = (__u32)v;
		k++;
		prev = v;
		p = *end ? end + 1 : end;
	}
	if (count)
		*count = k;
	return k ? 0 : -EINVAL;
}
