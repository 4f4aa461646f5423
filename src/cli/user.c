// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "user.h"
#include "util/err.h"

/*
 * /etc/passwd is read directly rather than through getpwnam(): the binary
 * is static, and glibc's NSS would load the host's shared libnss modules
 * at run time (or find none in the VM guest).
 */
int user__lookup(const char *name, struct user_ids *u)
{
	char line[1024];
	int err = -ENOENT;
	FILE *fp;

	fp = fopen("/etc/passwd", "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *save = NULL, *f[4];
		char *end1, *end2;
		unsigned long uid, gid;
		int n = 0;

		/* name:password:uid:gid:... */
		for (char *t = strtok_r(line, ":", &save); t && n < 4;
		     t = strtok_r(NULL, ":", &save))
			f[n++] = t;
		if (n < 4 || strcmp(f[0], name))
			continue;
		errno = 0;
		uid = strtoul(f[2], &end1, 10);
		gid = strtoul(f[3], &end2, 10);
		if (errno || *end1 || *end2 || end1 == f[2] || end2 == f[3]) {
			err = -EINVAL;
			break;
		}
		snprintf(u->name, sizeof(u->name), "%s", name);
		u->uid = (uid_t)uid;
		u->gid = (gid_t)gid;
		err = 0;
		break;
	}
	fclose(fp);
	return err;
}

void user__parse(const struct argp_state *st, const char *arg,
		 struct user_ids *u)
{
	int err = user__lookup(arg, u);

	if (err == -ENOENT)
		cli__usage_error(st, "--user '%s': no such user in /etc/passwd",
				 arg);
	if (err)
		cli__usage_error(st, "--user '%s': cannot read /etc/passwd: %s",
				 arg, strerror(-err));
}

int user__become(const char *cmd, const struct user_ids *u)
{
	const char *what = "setgroups";
	int err = 0;

	/* glibc applies each of these to every thread (the server's too). */
	if (setgroups(0, NULL))
		goto fail;
	what = "setgid";
	if (setgid(u->gid))
		goto fail;
	what = "setuid";
	if (setuid(u->uid))
		goto fail;
	/* setuid(2) from root drops all three uids, so root cannot return. */
	if (u->uid && setuid(0) == 0) {
		errno = EPERM;
		what = "setuid (root still reachable)";
		goto fail;
	}
	return 0;
fail:
	err = -errno;
	err__print(cmd, err, "--user %s: %s failed", u->name, what);
	return err;
}
