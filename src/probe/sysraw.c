// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared raw sys_enter/sys_exit pair (bpf/sysraw.bpf.c). Each target
 * at the raw syscall level loads its own programs without attaching them
 * and puts them in the pair's program array: every syscall then runs two
 * programs (one in, one out) whatever the number of targets, instead of
 * two per target.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sysraw.h"
#include "shared.h"
#include "sysraw.skel.h"

static struct sysraw_bpf *pair;
static bool used[FS_SYSRAW_SLOTS];

static int nused(void)
{
	int n = 0;

	for (int i = 0; i < FS_SYSRAW_SLOTS; i++)
		n += used[i];
	return n;
}

/*
 * How the pair's exit reads the syscall's number (bpf/sysraw.bpf.c), the
 * cheapest first, with the FOLIOSCOPE_SYSRAW value that starts the search
 * there (tests: each fallback on a kernel that takes a cheaper one).
 */
enum sysraw_exit { SYSRAW_CAST, SYSRAW_TASK, SYSRAW_HELPER, SYSRAW_NR };

static const char *const sysraw_exit_names[SYSRAW_NR] = {
	[SYSRAW_CAST] = "cast",
	[SYSRAW_TASK] = "task",
	[SYSRAW_HELPER] = "helper",
};

/* Load and attach the pair with the exit program e. */
static int sysraw__open_with(const char *btf_path, enum sysraw_exit e)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btf_path);
	int err;

	pair = sysraw_bpf__open_opts(&oo);
	if (!pair)
		return -errno;
	bpf_program__set_autoload(pair->progs.sys_exit_all, e == SYSRAW_CAST);
	bpf_program__set_autoload(pair->progs.sys_exit_task, e == SYSRAW_TASK);
	bpf_program__set_autoload(pair->progs.sys_exit_helper,
				  e == SYSRAW_HELPER);
	err = sysraw_bpf__load(pair);
	if (!err)
		err = sysraw_bpf__attach(pair);
	if (err) {
		sysraw_bpf__destroy(pair);
		pair = NULL;
	}
	return err;
}

/* The cheapest exit the kernel takes, from FOLIOSCOPE_SYSRAW's on. */
static int sysraw__open(const char *btf_path)
{
	const char *env = getenv("FOLIOSCOPE_SYSRAW");
	int e = SYSRAW_CAST, err = -ENOENT;

	for (int i = 0; env && i < SYSRAW_NR; i++)
		if (!strcmp(env, sysraw_exit_names[i]))
			e = i;
	for (; e < SYSRAW_NR; e++) {
		err = sysraw__open_with(btf_path, (enum sysraw_exit)e);
		if (!err)
			return 0;
	}
	return err;
}

int sysraw__add(int slot, int entry_fd, int exit_fd, const char *btf_path)
{
	int fd, err;
	__u32 k;

	if (slot < 0 || slot + 1 >= FS_SYSRAW_SLOTS || used[slot])
		return -EINVAL;
	if (!pair) {
		err = sysraw__open(btf_path);
		if (err)
			return err;
	}
	/* The exit's slot first: a syscall that entered with only the
	 * entry's in would leave its record behind (as set__attach says). */
	fd = bpf_map__fd(pair->maps.handlers);
	k = (__u32)slot + 1;
	err = bpf_map_update_elem(fd, &k, &exit_fd, BPF_ANY);
	k = (__u32)slot;
	if (!err)
		err = bpf_map_update_elem(fd, &k, &entry_fd, BPF_ANY);
	if (err) {
		err = -errno;
		k = (__u32)slot + 1;
		bpf_map_delete_elem(fd, &k);
		if (!nused()) {
			sysraw_bpf__destroy(pair);
			pair = NULL;
		}
		return err;
	}
	used[slot] = used[slot + 1] = true;
	return 0;
}

void sysraw__remove(int slot)
{
	int fd;

	if (!pair || slot < 0 || slot + 1 >= FS_SYSRAW_SLOTS || !used[slot])
		return;
	fd = bpf_map__fd(pair->maps.handlers);
	for (__u32 k = (__u32)slot; k <= (__u32)slot + 1; k++) {
		bpf_map_delete_elem(fd, &k);
		used[k] = false;
	}
	if (!nused()) {
		sysraw_bpf__destroy(pair);
		pair = NULL;
	}
}
