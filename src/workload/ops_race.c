// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Readers that race the operations (run WL --ops N --jobs J): while the
 * mutator runs the sequence (ops.c), J - 1 threads read the same files
 * by every way in, each read drawn from a stream of its own (reader,
 * read number), on fds and a buffer of their own, each checked against
 * every version of the file its call could have seen (ops_history.h).
 * They stop when the sequence ends, before the final read-back, which
 * stays exact.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fs.h"
#include "workload/ops_run.h"

static void *racer_main(void *arg)
{
	struct ops_reader *rd = arg;
	struct wl_ops *s = rd->s;
	struct wl_op op;
	__u32 i, last = UINT32_MAX;

	/* A replay: the schedule's reads, each when it is due. */
	while (s->hist.replay &&
	       wl_hist__sched_next(&s->hist, rd->id - 1, &i)) {
		if (i == last) {
			/* Not made (a way the kernel lacks): the next. */
			wl_hist__sched_skip(&s->hist, rd->id - 1);
			continue;
		}
		wl_op__draw_read(s->seed, rd->id, i, &s->geo, &op);
		ops__read(s, rd, &op, i);
		last = i;
	}
	for (i = 0; !s->hist.replay &&
		    !__atomic_load_n(&s->hist.stop, __ATOMIC_ACQUIRE);
	     i++) {
		wl_op__draw_read(s->seed, rd->id, i, &s->geo, &op);
		ops__read(s, rd, &op, i);
	}
	return NULL;
}

/* The schedule file's first line: what it is a schedule of. */
static void sched_head(const struct wl_ops *s, char *buf, size_t n)
{
	snprintf(buf, n,
		 "# folioscope race schedule: run %s --ops %u --seed %llu "
		 "--jobs %u",
		 s->wl, s->n, (unsigned long long)s->seed, s->jobs);
}

int ops__replay_read(struct wl_ops *s)
{
	int err = file__read_at(AT_FDCWD, s->replay_path, &s->replay_text,
				&s->replay_len);

	if (err)
		wl__err(s->wl, err, "--replay '%s'", s->replay_path);
	return err;
}

/* --replay FILE: "READER READ VERSION" lines after the head, from the
 * text ops__replay_read kept. */
static int sched_load(struct wl_ops *s, const char *path)
{
	char head[160], line[200];
	unsigned int r, i;
	unsigned long long k0;
	int err = 0;
	FILE *f = s->replay_len ? fmemopen(s->replay_text, s->replay_len, "r")
				: NULL;

	if (!f) {
		wl__err(s->wl, 0, "--replay '%s': empty", path);
		return -EINVAL;
	}
	sched_head(s, head, sizeof(head));
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, head, strlen(head)) || line[strlen(head)] != '\n') {
		wl__err(s->wl, 0,
			"--replay '%s': not a schedule of this run (want "
			"'%s')",
			path, head + 2);
		fclose(f);
		return -EINVAL;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %u %llu", &r, &i, &k0) != 3 || !r ||
		    r >= s->jobs) {
			wl__err(s->wl, 0, "--replay '%s': a bad line: %s", path,
				line);
			err = -EINVAL;
		} else {
			err = wl_hist__sched_add(&s->hist, r - 1, i, k0);
		}
	}
	fclose(f);
	return err;
}

int ops__schedule_write(struct wl_ops *s, const char *path)
{
	char head[160], tmp[PATH_MAX];
	FILE *f;
	int err = 0;

	sched_head(s, head, sizeof(head));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
		wl__err(s->wl, err, "--schedule '%s'", path);
		return err;
	}
	fprintf(f, "%s\n", head);
	for (__u32 r = 0; r + 1 < s->jobs; r++)
		for (__u32 j = 0; j < s->sched[r].n; j++)
			fprintf(f, "%u %u %llu\n", r + 1, s->sched[r].read[j],
				(unsigned long long)s->sched[r].k0[j]);
	if (fclose(f) || rename(tmp, path)) {
		err = -errno;
		wl__err(s->wl, err, "--schedule '%s'", path);
		unlink(tmp);
	}
	return err;
}

static void racer_free(struct ops_reader *rd)
{
	for (int i = 0; i < WL_OPS_NFILES; i++)
		if (rd->fd[i] >= 0)
			close(rd->fd[i]);
	free(rd->rmem);
	free(rd->view.base);
	free(rd->view.recs);
}

/* Each reader's fds on the files, its buffer and its view's. */
static int racer_init(struct wl_ops *s, struct ops_reader *rd, __u32 id)
{
	memset(rd, 0, sizeof(*rd));
	rd->s = s;
	rd->id = id;
	rd->tot = &rd->own_tot;
	for (int i = 0; i < WL_OPS_NFILES; i++)
		rd->fd[i] = -1;
	for (int i = 0; i < WL_OPS_NFILES; i++) {
		rd->fd[i] = open(s->f[i].path, O_RDWR | O_CLOEXEC);
		if (rd->fd[i] < 0) {
			int err = -errno;

			wl__err(s->wl, err, "reader %u: open '%s'", id,
				s->f[i].path);
			return err;
		}
	}
	rd->view.base = malloc(WL_OPS_MAX_LEN + 4096);
	if (ops__reader_mem(s, rd) || !rd->view.base) {
		wl__err(s->wl, -ENOMEM, "reader %u: its buffers", id);
		return -ENOMEM;
	}
	return 0;
}

int ops__race_start(struct wl_ops *s)
{
	__u32 n = s->jobs - 1;
	int err;

	s->racers = calloc(n, sizeof(*s->racers));
	if (!s->racers)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++)
		for (int f = 0; f < WL_OPS_NFILES; f++)
			s->racers[i].fd[f] = -1;
	err = wl_hist__init(&s->hist, s->shadows, WL_OPS_NFILES,
			    WL_HIST_KEEP_BYTES);
	if (err) {
		free(s->racers);
		s->racers = NULL;
		return err;
	}
	s->hist.record = s->schedule_path != NULL;
	s->hist.replay = s->replay_path != NULL;
	if (s->hist.replay)
		err = sched_load(s, s->replay_path);
	for (__u32 i = 0; !err && i < n; i++)
		err = racer_init(s, &s->racers[i], i + 1);
	s->racing = !err;
	for (__u32 i = 0; !err && i < n; i++) {
		err = -pthread_create(&s->racers[i].thread, NULL, racer_main,
				      &s->racers[i]);
		if (err)
			wl__err(s->wl, err, "start reader %u", i + 1);
		else
			s->racers[i].running = true;
	}
	if (err)
		ops__race_stop(s);
	return err;
}

void ops__race_stop(struct wl_ops *s)
{
	if (!s->racers)
		return;
	wl_hist__stop(&s->hist);
	for (__u32 i = 0; i + 1 < s->jobs; i++) {
		struct ops_reader *rd = &s->racers[i];

		if (rd->running)
			pthread_join(rd->thread, NULL);
		rd->running = false;
		wl_totals__add(&s->tot, &rd->own_tot);
		s->race_reads += rd->nreads;
		s->race_overlapped += rd->overlapped;
		s->race_held_zeros += rd->held_zeros;
		racer_free(rd);
	}
	/* The schedule outlives the history, for --schedule's file. */
	if (s->hist.record)
		for (__u32 r = 0; r + 1 < s->jobs; r++) {
			s->sched[r] = s->hist.sched[r];
			memset(&s->hist.sched[r], 0, sizeof(s->hist.sched[r]));
		}
	free(s->racers);
	s->racers = NULL;
	s->racing = false;
	wl_hist__free(&s->hist);
}
