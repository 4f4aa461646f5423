// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Several runs as one report (validate: one run per tier, each a group):
 * their events add up, their checks stay apart by group.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

static void merge_target(struct fs_target_report *d,
			 const struct fs_target_report *s)
{
	if (!s->enabled)
		return;
	if (!d->enabled) {
		*d = *s;
		return;
	}
	d->events |= s->events;
	for (int h = 0; h < d->nhists && h < s->nhists; h++) {
		struct fs_histogram *dh = &d->hist[h];
		const struct fs_histogram *sh = &s->hist[h];

		/* Measured only if measured in every run: a run that did
		 * not measure it must not read as zeros. */
		if (dh->measured && !sh->measured) {
			dh->measured = false;
			memcpy(dh->why, sh->why, sizeof(dh->why));
		}
		for (int sl = 0; sl < FS_SLOTS; sl++)
			dh->slot[sl] += sh->slot[sl];
		dh->count += sh->count;
		dh->sum += sh->sum;
	}
	for (int c = 0; c < d->ncounters && c < s->ncounters; c++)
		d->counter[c] += s->counter[c];
}

static void merge_validation(struct fs_report *dst,
			     const struct fs_validation *s,
			     const struct fs_merge *m)
{
	struct fs_validation *v = &dst->validation;
	struct fs_vgroup *g;
	int kept = 0, replays = 0;

	if (!s->ran)
		return;
	v->ran = true;
	model__check_group(dst, m->group);
	g = &v->groups[v->cur_group - 1];
	v->checks += s->checks;
	v->failures += s->failures;
	g->checks += s->checks;
	g->failures += s->failures;
	for (int i = 0; i < s->kinds.n; i++) {
		model__kinds_add(&v->kinds, s->kinds.k[i].kind,
				 s->kinds.k[i].count);
		model__kinds_add(&g->kinds, s->kinds.k[i].kind,
				 s->kinds.k[i].count);
	}
	/* The group's limits hold over every run merged into it. */
	for (int i = 0; i < v->ncases; i++)
		kept += v->cases[i].group == v->cur_group;
	for (int i = 0; i < v->nreplays; i++)
		replays += v->replays[i].group == v->cur_group;
	v->cases_per_group = m->max_cases;
	for (int i = 0;
	     i < s->ncases && kept < m->max_cases && v->ncases < FS_MAX_CASES;
	     i++, kept++) {
		v->cases[v->ncases] = s->cases[i];
		v->cases[v->ncases++].group = v->cur_group;
	}
	for (int i = 0; i < s->nskips; i++)
		model__skip(dst, s->skips[i].what, "%s", s->skips[i].why);
	for (int i = 0; i < s->nreplays && replays < m->max_replays;
	     i++, replays++)
		model__replay(dst, s->replays[i].cmd);
	if (s->disturbed[0] || s->unjudged)
		model__disturbed(dst, s->unjudged, "%s: %s", m->group,
				 s->disturbed);
	v->cur_group = 0;
}

int model__merge(struct fs_report *dst, const struct fs_report *src,
		 const struct fs_merge *m)
{
	int err = 0;

	for (int t = 0; t < FS_TGT_NR; t++)
		merge_target(&dst->target[t], &src->target[t]);
	merge_validation(dst, &src->validation, m);
	dst->coverage.warn |= src->coverage.warn;
	for (int i = 0; i < src->coverage.ngroups; i++) {
		const struct fs_cov_group *s = &src->coverage.g[i];
		struct fs_cov_group *d = NULL;

		for (int j = 0; j < dst->coverage.ngroups && !d; j++)
			if (!strcmp(dst->coverage.g[j].name, s->name))
				d = &dst->coverage.g[j];
		if (!d) {
			if (dst->coverage.ngroups >= FS_MAX_COV) {
				err = -ENOSPC;
				continue;
			}
			d = &dst->coverage.g[dst->coverage.ngroups++];
			*d = *s;
			continue;
		}
		for (int t = 0; t < FS_TGT_NR; t++) {
			d->traced[t] |= s->traced[t];
			for (int sl = 0; sl < FS_SLOTS; sl++)
				d->slot[t][sl] += s->slot[t][sl];
		}
	}
	if (!dst->vm.accel[0])
		dst->vm = src->vm;
	return err;
}
