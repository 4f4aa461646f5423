// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Small file-system helpers for staging the initramfs and the cache. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "vm_internal.h"
#include "util/fs.h"

int vm_fs__fmt(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -EINVAL;
	return (size_t)r >= n ? -ENAMETOOLONG : 0;
}

int vm_fs__mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	/* Create each prefix in turn; existing ones are fine. */
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

int vm_fs__mkdir_parents(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *slash;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = '\0';
	return vm_fs__mkdir_p(buf, mode);
}

int vm_fs__copy_file(const char *src, const char *dst, mode_t mode)
{
	int in = -1, out = -1, err;
	char buf[1 << 16];
	struct stat st;
	ssize_t r;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st)) {
		err = -errno;
		goto cleanup;
	}
	if (!mode)
		mode = st.st_mode & 07777;
	err = vm_fs__mkdir_parents(dst, 0755);
	if (err)
		goto cleanup;
	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		err = -errno;
		goto cleanup;
	}
	for (;;) {
		r = read(in, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		err = fd__write_all(out, buf, r);
		if (err)
			goto cleanup;
	}
	/* open() applied the umask; the guest wants the exact bits. */
	if (fchmod(out, mode))
		err = -errno;
cleanup:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) && !err)
		err = -errno;
	return err;
}

int vm_fs__write_file(const char *path, const void *data, size_t len,
		      mode_t mode)
{
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	err = fd__write_all(fd, data, len);
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int vm_fs__read_file(const char *path, char **data, size_t *len)
{
	return file__read_at(AT_FDCWD, path, data, len);
}

bool vm_fs__is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool vm_fs__exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

int vm_fs__tmpfile(const char *dir)
{
	char path[PATH_MAX];
	int fd, err;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd >= 0 ? fd : -errno;
	/* A filesystem without O_TMPFILE: a name, gone at once. */
	err = vm_fs__fmt(path, sizeof(path), "%s/tmp.XXXXXX", dir);
	if (err)
		return err;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

const struct exe_search vm_tool_search = {
	.path_default = "/usr/local/bin:/usr/bin:/bin",
	/* sbin dirs are often missing from a user's PATH. */
	.extra = "/usr/local/sbin:/usr/sbin:/sbin",
};

int vm_fs__shell_quote(char **buf, size_t *len, const char *s)
{
	/* Worst case: every character is a quote, 4 bytes each. */
	size_t need = *len + 4 * strlen(s) + 2;
	char *nb, *p;

	nb = realloc(*buf, need + 1);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	p = nb + *len;
	/* Inside '...' everything is literal except ' itself: end the
	 * quote, add an escaped quote, reopen. */
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = '\0';
	*len = p - nb;
	return 0;
}
