// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shmem-read workload: read(2) a file on a fresh tmpfs mount from start to
 * EOF in bs-sized calls (shmem_file_read_iter). Ground truth: the bytes
 * returned are the pattern we wrote, size of them in total.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload/workload.h"

#define WL "shmem-read"
#define PMD_BYTES (2ULL << 20)
/* Larger requests are cut by read(2) to 0x7ffff000 anyway; the --bs
 * hint says "1 GiB". */
#define BS_MAX (1ULL << 30)

struct shmem {
	char huge[16];
	__u64 size, bs;
	char dir[PATH_MAX];
	char path[PATH_MAX];
	bool mounted, file_made;
	unsigned char *buf;
};

static const char *const huge_modes[] = {
	"always",
	"never",
	"within_size",
	"advise",
};

static int check_opts(struct shmem *s, const struct wl_opts *o)
{
	const char *huge = o->huge ? o->huge : "always";
	int err = -EINVAL;
	size_t i;

	for (i = 0; i < sizeof(huge_modes) / sizeof(huge_modes[0]); i++)
		if (!strcmp(huge, huge_modes[i]))
			break;
	if (i == sizeof(huge_modes) / sizeof(huge_modes[0])) {
		wl__err_hint(WL, err,
			     "(want always, never, within_size or advise)",
			     "--huge '%s'", huge);
		return err;
	}
	if (!o->size || o->size > (__u64)INT64_MAX - 2 * PMD_BYTES) {
		wl__err(WL, err, "--size '%llu'", (unsigned long long)o->size);
		return err;
	}
	if (!o->bs || o->bs > BS_MAX) {
		wl__err_hint(WL, err, "(want 1 byte .. 1 GiB)", "--bs '%llu'",
			     (unsigned long long)o->bs);
		return err;
	}
	snprintf(s->huge, sizeof(s->huge), "%s", huge);
	s->size = o->size;
	s->bs = o->bs;
	return 0;
}

static int mount_tmpfs(struct shmem *s)
{
	/* Room for the file in whole huge folios, plus slack. */
	__u64 limit =
		(s->size + PMD_BYTES - 1) / PMD_BYTES * PMD_BYTES + PMD_BYTES;
	char data[128];
	int err;

	snprintf(data, sizeof(data), "huge=%s,size=%llu,mode=0700", s->huge,
		 (unsigned long long)limit);
	err = wl__mount("folioscope", s->dir, "tmpfs", data);
	if (!err) {
		s->mounted = true;
		return 0;
	}
	/* tmpfs accepts huge=never everywhere, anything else only with THP. */
	if (err == -EINVAL && strcmp(s->huge, "never"))
		wl__err_hint(WL, err,
			     "(tmpfs huge= needs a kernel with "
			     "CONFIG_TRANSPARENT_HUGEPAGE)",
			     "mount tmpfs huge=%s '%s'", s->huge, s->dir);
	else
		wl__err(WL, err, "mount tmpfs huge=%s '%s'", s->huge, s->dir);
	return err;
}

static int write_file(struct shmem *s)
{
	int fd, err;

	fd = open(s->path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		wl__err(WL, err, "create '%s'", s->path);
		return err;
	}
	s->file_made = true;
	err = wl__write_pattern(WL, fd, s->path, s->size);
	close(fd);
	return err;
}

int shmem__prepare(struct shmem **out, const struct wl_opts *o)
{
	struct shmem *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate state");
		return err;
	}
	err = check_opts(s, o);
	if (err)
		goto cleanup;
	err = wl__mkdtemp(WL, NULL, "shmem", s->dir, sizeof(s->dir));
	if (err)
		goto cleanup;
	err = mount_tmpfs(s);
	if (err)
		goto cleanup;
	err = wl__path(s->path, sizeof(s->path), s->dir, "data");
	if (err) {
		wl__err(WL, err, "path in '%s'", s->dir);
		goto cleanup;
	}
	err = write_file(s);
	if (err)
		goto cleanup;
	/* PMD-aligned so the buffer's alignment is the same on every run. */
	err = -posix_memalign((void **)&s->buf, PMD_BYTES, s->bs);
	if (err) {
		s->buf = NULL;
		wl__err(WL, err, "allocate %llu-byte read buffer",
			(unsigned long long)s->bs);
		goto cleanup;
	}
	/* Fault it in now: the traced reads should copy, not fault. */
	memset(s->buf, 0, s->bs);
	*out = s;
cleanup:
	if (err)
		shmem__destroy(s);
	return err;
}

/* ShmemHugePages from /proc/meminfo in kB; 0 when absent (no THP). */
static __u64 shmem_huge_kb(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ShmemHugePages: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int shmem__run(struct shmem *s, struct fs_report *r)
{
	__u64 calls = 0, bytes = 0, bad = 0, huge_kb;
	__u64 bad_reads = 0, first_bad = 0;
	int fd, err = 0, read_err = 0;
	ssize_t n;

	huge_kb = shmem_huge_kb();
	if (!huge_kb && !strcmp(s->huge, "always"))
		wl__err(WL, 0,
			"warning: huge=always but ShmemHugePages is 0 kB, so "
			"tmpfs is not using huge folios (see "
			"/sys/kernel/mm/transparent_hugepage/shmem_enabled)");

	/* Traced phase: open, read to EOF, close; nothing else. */
	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		wl__err(WL, err, "open '%s'", s->path);
		goto cleanup;
	}
	for (;;) {
		n = read(fd, s->buf, s->bs);
		calls++;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* A failing read is a wrong answer, not a setup
			 * problem: count it and stop. */
			read_err = -errno;
			bad++;
			break;
		}
		if (!n)
			break;
		/* Check the buffer we got, not the file again. */
		if (wl__pattern_check(s->buf, bytes, n)) {
			if (!bad_reads++)
				first_bad = bytes;
			bad++;
		}
		bytes += n;
	}
	close(fd);

	if (read_err)
		wl__err(WL, read_err, "read '%s' at offset %llu", s->path,
			(unsigned long long)bytes);
	if (bad_reads)
		wl__err(WL, 0,
			"'%s': wrong data in %llu reads, the first one at "
			"offset %llu",
			s->path, (unsigned long long)bad_reads,
			(unsigned long long)first_bad);
	/* A read error already counted: the short total follows from it. */
	if (!read_err && bytes != s->size) {
		bad++;
		wl__err(WL, 0, "'%s': read %llu bytes in total, wrote %llu",
			s->path, (unsigned long long)bytes,
			(unsigned long long)s->size);
	}
cleanup:
	model__kv_str(r, "huge", s->huge);
	model__kv_u64(r, "size", s->size);
	model__kv_u64(r, "bs", s->bs);
	model__kv_u64(r, "calls", calls);
	model__kv_u64(r, "bytes", bytes);
	model__kv_u64(r, "validation_failures", bad);
	model__kv_u64(r, "shmem_huge_pages_kb", huge_kb);
	return err;
}

void shmem__destroy(struct shmem *s)
{
	if (!s)
		return;
	free(s->buf);
	if (s->file_made)
		wl__remove(WL, s->path, false);
	/* Only remove the mount point once nothing is mounted on it. */
	if ((!s->mounted || !wl__umount(WL, s->dir)) && s->dir[0])
		wl__remove(WL, s->dir, true);
	free(s);
}
