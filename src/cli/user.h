/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --user: the long-running loops (trace, report --serve) give up root
 * once everything privileged (BPF load and attach, binding) is done.
 */
#ifndef FS_CLI_USER_H
#define FS_CLI_USER_H

#include <sys/types.h>

struct argp_state;

struct user_ids {
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* USER's ids from /etc/passwd; -ENOENT if there is no such user. */
int user__lookup(const char *name, struct user_ids *u);
/*
 * --user USER as every command takes it: its ids into u, or one usage
 * error line and exit 2 when USER is not in /etc/passwd or the file
 * cannot be read.
 */
void user__parse(const struct argp_state *st, const char *arg,
		 struct user_ids *u);
/*
 * Become u for good: no supplementary groups, then gid, then uid (in
 * that order: after setuid the others are no longer allowed). One error
 * line naming what failed; returns 0 or -errno.
 */
int user__become(const char *cmd, const struct user_ids *u);

#endif /* FS_CLI_USER_H */
