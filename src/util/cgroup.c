// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup v2 ids and paths (cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <mntent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/cgroup.h"

int cgroup__id(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mnt;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0))
		return -errno;
	/* cgroupfs hands out 8-byte handles: anything else is not a
	 * cgroup v2 directory. */
	if (h.fh.handle_bytes != sizeof(__u64))
		return -EINVAL;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

struct cgroup_name {
	__u64 id;
	char *path;
};

struct cgroup_names {
	pthread_mutex_t lock;
	struct cgroup_name *v; /* sorted by id */
	size_t n;
	struct timespec last_walk;
	bool walked;
};

struct cgroup_names *cgroup_names__new(void)
{
	struct cgroup_names *cn = calloc(1, sizeof(*cn));

	if (cn)
		pthread_mutex_init(&cn->lock, NULL);
	return cn;
}

static void names__clear(struct cgroup_name *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void cgroup_names__free(struct cgroup_names *cn)
{
	if (!cn)
		return;
	names__clear(cn->v, cn->n);
	pthread_mutex_destroy(&cn->lock);
	free(cn);
}

/* Where cgroup2 is mounted (the first such mount), into buf. */
static int cgroup2__mount(char *buf, size_t n)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(buf, n, "%s", m->mnt_dir);
			err = 0;
			break;
		}
	endmntent(f);
	return err;
}

static int name__cmp(const void *a, const void *b)
{
	const struct cgroup_name *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Room for one more entry after n; false when out of memory. */
static bool names__grow(struct cgroup_name **v, size_t n, size_t *cap)
{
	struct cgroup_name *nv;

	if (n < *cap)
		return true;
	nv = realloc(*v, (*cap ? *cap * 2 : 64) * sizeof(**v));
	if (!nv)
		return false;
	*v = nv;
	*cap = *cap ? *cap * 2 : 64;
	return true;
}

/* Every directory of the cgroup2 mount, by id. Old entries stay when the
 * walk fails. */
static void names__walk(struct cgroup_names *cn)
{
	char root[4096], *argv[2] = { root, NULL };
	struct cgroup_name *v = NULL;
	size_t n = 0, kept = 0, cap = 0, rootlen;
	FTSENT *e;
	FTS *fts;
	__u64 id;

	if (cgroup2__mount(root, sizeof(root)))
		return;
	rootlen = strlen(root);
	fts = fts_open(argv, FTS_PHYSICAL | FTS_NOSTAT | FTS_XDEV, NULL);
	if (!fts)
		return;
	while ((e = fts_read(fts))) {
		if (e->fts_info != FTS_D || cgroup__id(e->fts_path, &id))
			continue;
		if (!names__grow(&v, n, &cap))
			break;
		v[n].id = id;
		v[n].path = strdup(e->fts_path[rootlen] ? e->fts_path + rootlen
							: "/");
		if (v[n].path)
			n++;
	}
	fts_close(fts);
	qsort(v, n, sizeof(*v), name__cmp);
	/* A cgroup gone since keeps the path it had: a breakdown goes on
	 * showing the rows of cgroups that were removed. */
	for (size_t i = 0; i < cn->n; i++) {
		struct cgroup_name *old = &cn->v[i];

		if (bsearch(old, v, n, sizeof(*v), name__cmp) ||
		    !names__grow(&v, n + kept, &cap))
			continue;
		v[n + kept++] = *old;
		old->path = NULL;
	}
	n += kept;
	qsort(v, n, sizeof(*v), name__cmp);
	names__clear(cn->v, cn->n);
	cn->v = v;
	cn->n = n;
}

static const char *names__find(const struct cgroup_names *cn, __u64 id)
{
	struct cgroup_name key = { .id = id }, *hit;

	if (!cn->n)
		return NULL;
	hit = bsearch(&key, cn->v, cn->n, sizeof(*cn->v), name__cmp);
	return hit ? hit->path : NULL;
}

void cgroup_names__path(struct cgroup_names *cn, __u64 id, const char *name,
			char *buf, size_t n)
{
	struct timespec now;
	const char *path;

	pthread_mutex_lock(&cn->lock);
	path = names__find(cn, id);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!path && (!cn->walked || now.tv_sec - cn->last_walk.tv_sec >= 1)) {
		names__walk(cn);
		cn->walked = true;
		cn->last_walk = now;
		path = names__find(cn, id);
	}
	if (path)
		snprintf(buf, n, "%s", path);
	else if (name && name[0])
		snprintf(buf, n, ".../%s", name);
	else
		snprintf(buf, n, "id %llu", (unsigned long long)id);
	pthread_mutex_unlock(&cn->lock);
}
