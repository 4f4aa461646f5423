// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <time.h>
#include "util/clock.h"

__u64 clock__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + (__u64)ts.tv_nsec / 1000000;
}
