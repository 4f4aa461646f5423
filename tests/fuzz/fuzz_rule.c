// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the --expect rule parser (cmp__rule_parse); a rule it
 * accepts is evaluated against two small reports, as compare would.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"

static struct fs_report run[2];
static const char *paths[] = { "fuzz.json" };
static struct cmp_side base = {
	.label = "base", .nruns = 1, .runs = &run[0], .paths = paths
};
static struct cmp_side new = {
	.label = "new", .nruns = 1, .runs = &run[1], .paths = paths
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	for (int i = 0; i < 2; i++) {
		struct fs_report *r = &run[i];
		struct fs_stats s = {};

		model__init(r);
		/* A few events in every histogram and counter. */
		for (int h = 0; h < FS_MAX_HISTS; h++)
			for (int k = 0; k < 8; k++) {
				s.hist[h].slot[k * 3 % FS_SLOTS] += 1 + i + k;
				s.hist[h].sum +=
					(1ULL << (k * 3)) * (1 + i + k);
			}
		for (int c = 0; c < FS_MAX_COUNTERS; c++)
			s.counter[c] = 10 + c + i;
		for (int t = 0; t < FS_TGT_NR; t++) {
			model__enable(r, t, true);
			model__add_stats(r, t, &s);
		}
		model__kv_u64(r, "calls", 100 + i);
		model__kv_str(r, "fs", "btrfs");
	}
	cmp__pool(&base);
	cmp__pool(&new);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmp_rule rule;
	struct cmp_verdict v;
	char err[256], *text;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!cmp__rule_parse(text, &rule, err, sizeof(err))) {
		cmp__rule_eval(&rule, &base, &new, &v);
		cmp__op_str(rule.op);
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort(); /* the reason must be a terminated string */
	}
	free(text);
	return 0;
}
