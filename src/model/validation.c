// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The report's validation: ground-truth checks counted, failures kept
 * with their kind and layout, groups of layouts, skips, disturbances and
 * the commands that replay a failure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

void model__check(struct fs_report *r, bool ok, const char *layout,
		  const char *expected, const char *got)
{
	model__check_kind(r, ok, FS_CASE_ANSWER, layout, expected, got);
}

void model__check_kind(struct fs_report *r, bool ok, const char *kind,
		       const char *layout, const char *expected,
		       const char *got)
{
	struct fs_validation *v = &r->validation;
	struct fs_vgroup *g =
		v->cur_group ? &v->groups[v->cur_group - 1] : NULL;
	struct fs_case *c;

	v->ran = true;
	v->checks++;
	if (g)
		g->checks++;
	if (ok)
		return;
	v->failures++;
	model__kinds_add(&v->kinds, kind, 1);
	if (g) {
		g->failures++;
		model__kinds_add(&g->kinds, kind, 1);
	}
	if (v->ncases >= FS_MAX_CASES)
		return;
	if (v->cases_per_group) {
		int in = 0;

		for (int i = 0; i < v->ncases; i++)
			in += v->cases[i].group == v->cur_group;
		if (in >= v->cases_per_group)
			return;
	}
	c = &v->cases[v->ncases++];
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
	snprintf(c->layout, sizeof(c->layout), "%s", layout);
	snprintf(c->expected, sizeof(c->expected), "%s", expected);
	snprintf(c->got, sizeof(c->got), "%s", got);
	c->group = v->cur_group;
}

void model__checks_passed(struct fs_report *r, __u64 n)
{
	struct fs_validation *v = &r->validation;

	if (!n)
		return;
	v->ran = true;
	v->checks += n;
	if (v->cur_group)
		v->groups[v->cur_group - 1].checks += n;
}

/* 1 + the index of group name, made when new. */
static int group_of(struct fs_validation *v, const char *name)
{
	int i;

	for (i = 0; i < v->ngroups; i++)
		if (!strcmp(v->groups[i].name, name))
			break;
	if (i == v->ngroups) {
		/* The last slot is the catch-all: a run that made more
		 * groups still counts every check in one. */
		if (i == FS_MAX_VGROUPS - 1)
			name = FS_VGROUP_MORE;
		else if (i == FS_MAX_VGROUPS)
			i--;
		if (i == v->ngroups) {
			snprintf(v->groups[i].name, sizeof(v->groups[i].name),
				 "%s", name);
			v->ngroups++;
		}
	}
	return i + 1;
}

void model__check_group(struct fs_report *r, const char *name)
{
	struct fs_validation *v = &r->validation;

	v->cur_group = name ? group_of(v, name) : 0;
}

void model__group_note(struct fs_report *r, const char *name, const char *fmt,
		       ...)
{
	struct fs_vgroup *g =
		&r->validation.groups[group_of(&r->validation, name) - 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->note, sizeof(g->note), fmt, ap);
	va_end(ap);
}

void model__kinds_add(struct fs_kinds *k, const char *kind, __u64 n)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->k[i].kind, kind))
			break;
	if (i == k->n) {
		/* The last slot takes every kind past the others. */
		if (i == FS_MAX_KINDS - 1)
			kind = FS_KIND_OTHER;
		else if (i == FS_MAX_KINDS)
			i--;
		if (i == k->n) {
			snprintf(k->k[i].kind, sizeof(k->k[i].kind), "%s",
				 kind);
			k->n++;
		}
	}
	k->k[i].count += n;
}

__u64 model__kinds_count(const struct fs_kinds *k, const char *kind)
{
	for (int i = 0; i < k->n; i++)
		if (!strcmp(k->k[i].kind, kind))
			return k->k[i].count;
	return 0;
}

void model__replay(struct fs_report *r, const char *cmd)
{
	struct fs_validation *v = &r->validation;
	struct fs_replay *p;

	if (v->nreplays >= FS_MAX_REPLAYS)
		return;
	p = &v->replays[v->nreplays++];
	/* Cut short, it would replay something else. */
	if (strlen(cmd) >= sizeof(p->cmd))
		cmd = "(longer than a report keeps: the run's log has it)";
	snprintf(p->cmd, sizeof(p->cmd), "%s", cmd);
	p->group = v->cur_group;
}

void model__skip(struct fs_report *r, const char *what, const char *fmt, ...)
{
	struct fs_validation *v = &r->validation;
	struct fs_skip *k;
	va_list ap;

	v->ran = true;
	for (int i = 0; i < v->nskips; i++)
		if (!strcmp(v->skips[i].what, what))
			return;
	if (v->nskips >= FS_MAX_SKIPS)
		return;
	k = &v->skips[v->nskips++];
	snprintf(k->what, sizeof(k->what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
}

void model__disturbed(struct fs_report *r, __u64 unjudged, const char *fmt, ...)
{
	struct fs_validation *v = &r->validation;
	va_list ap;

	v->ran = true;
	v->unjudged += unjudged;
	if (v->disturbed[0])
		return;
	va_start(ap, fmt);
	vsnprintf(v->disturbed, sizeof(v->disturbed), fmt, ap);
	va_end(ap);
}
