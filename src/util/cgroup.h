/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgroup v2 ids and paths: the id the BPF side keys a breakdown by
 * (bpf_get_current_cgroup_id()) and the path a user knows the cgroup by,
 * relative to the cgroup2 mount as /proc/PID/cgroup shows it.
 */
#ifndef FS_UTIL_CGROUP_H
#define FS_UTIL_CGROUP_H

#include <linux/types.h>
#include <stddef.h>

/* The id of the cgroup whose directory is path: its file handle. 0 or
 * -errno. */
int cgroup__id(const char *path, __u64 *id);

struct cgroup_names;

/* An empty cache of the cgroup2 mount's ids and paths; NULL if out of
 * memory. */
struct cgroup_names *cgroup_names__new(void);
void cgroup_names__free(struct cgroup_names *cn);
/*
 * The path of cgroup id below the cgroup2 mount ("/" for the root). An
 * id the cache does not know makes it walk the mount again (at most once
 * a second); one still unknown (gone, or outside this cgroup namespace)
 * is written ".../NAME", name being the directory's name the kernel
 * gave, or "id N" without one. Safe to call from several threads.
 */
void cgroup_names__path(struct cgroup_names *cn, __u64 id, const char *name,
			char *buf, size_t n);

#endif /* FS_UTIL_CGROUP_H */
