// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

int session__parse_targets(const char *s, bool want[FS_TGT_NR])
{
	int t;

	memset(want, 0, sizeof(bool) * FS_TGT_NR);
	if (!strcmp(s, "all")) {
		for (t = 0; t < FS_TGT_NR; t++)
			want[t] = true;
		return 0;
	}
	t = model__target_from_name(s);
	if (t < 0)
		return -EINVAL;
	want[t] = true;
	return 0;
}

int session__check_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "folioscope: %s: must run as root (loads BPF programs "
		"and mounts filesystems)\n", cmd);
	return -EPERM;
}

/* Every step of a failed plan, on one line. */
static void plan__print_failure(const struct plan *p, enum plan_mode m)
{
	fprintf(stderr, "folioscope: %s: cannot attach%s%s:",
		model__target_name(p->target), m == PLAN_AUTO ? "" : " with --mode ",
		m == PLAN_AUTO ? "" : plan__mode_name(m));
	for (int i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->step[i];

		fprintf(stderr, "%s %s %s: %s", i ? ";" : "",
			plan__mech_name(s->mech), s->symbol,
			s->tried ? s->err_msg : s->why);
	}
	if (!p->nsteps)
		fprintf(stderr, " no step for this mode");
	fputc('\n', stderr);
}

int session__start(struct session *s, enum plan_mode m,
		   const struct probe_opts *o)
{
	int err;

	err = kfacts__load(&s->facts);
	if (err)
		return err;
	s->facts_loaded = true;
	for (int t = 0; t < FS_TGT_NR; t++) {
		if (!s->want[t])
			continue;
		plan__build(&s->facts, t, m, &s->plan[t]);
		err = probe__attach(&s->facts, &s->plan[t], o, &s->probe[t]);
		if (err) {
			plan__print_failure(&s->plan[t], m);
			return err;
		}
	}
	return 0;
}

int session__collect(struct session *s, struct fs_report *r, bool delta)
{
	struct fs_stats now, d;
	int err;

	for (int t = 0; t < FS_TGT_NR; t++) {
		if (!s->probe[t])
			continue;
		err = probe__read(s->probe[t], &now);
		if (err)
			return err;
		d = now;
		if (delta) {
			model__stats_sub(&d, &s->last[t]);
			s->last[t] = now;
		}
		probe__describe(s->probe[t], &s->plan[t], r);
		model__add_stats(r, t, &d);
	}
	return 0;
}

void session__stop(struct session *s)
{
	for (int t = 0; t < FS_TGT_NR; t++) {
		probe__destroy(s->probe[t]);
		s->probe[t] = NULL;
	}
	if (s->facts_loaded)
		kfacts__free(&s->facts);
	s->facts_loaded = false;
}
